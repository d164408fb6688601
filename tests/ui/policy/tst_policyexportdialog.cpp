#include "core/export/policyexport.h"
#include "core/policy/presets.h"
#include "ui/policy/policyexportdialog.h"

#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QFile>
#include <QGuiApplication>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace RetryLab;

/// Policy > Export…: every format previewed with its notes, runnable only where
/// the format can be a program, and Save… writing the previewed text.
class TestPolicyExportDialog : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    template<typename T>
    static T *child(const QDialog &dialog, const char *name)
    {
        return dialog.findChild<T *>(QLatin1String(name));
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
    }

    // Picking each format in the combo previews exactly what the export writes, notes included.
    void everyFormatIsPreviewedWithItsNotes()
    {
        const Core::BackoffPolicy policy = *Core::Presets::find(QStringLiteral("aws-standard"));
        Ui::PolicyExportDialog dialog;
        dialog.setPolicy(policy);
        auto *combo = child<QComboBox>(dialog, "exportFormat");
        auto *preview = child<QPlainTextEdit>(dialog, "exportPreview");
        auto *notes = child<QListWidget>(dialog, "exportNotes");
        auto *runnable = child<QCheckBox>(dialog, "exportRunnable");
        QVERIFY(combo && preview && notes && runnable);
        QVERIFY(preview->isReadOnly());
        QCOMPARE(combo->count(), int(Core::PolicyExport::formats().size()));
        for (int i = 0; i < combo->count(); ++i) {
            combo->setCurrentIndex(i);
            const QString name = dialog.format();
            const auto expected = Core::PolicyExport::write(name, policy);
            QCOMPARE(preview->toPlainText(), expected.text);
            QCOMPARE(dialog.notes(), expected.notes);
            if (expected.notes.isEmpty()) {
                QCOMPARE(notes->count(), 1);
                QVERIFY(notes->item(0)->text().startsWith(QLatin1String("Nothing dropped")));
            } else {
                QCOMPARE(notes->count(), int(expected.notes.size()));
                QCOMPARE(notes->item(0)->text(), expected.notes.first());
            }
            QCOMPARE(runnable->isEnabled(), Core::PolicyExport::find(name)->runnable);
        }
        QVERIFY(dialog.setFormat(QStringLiteral("json")));
        QCOMPARE(notes->item(0)->text().left(15), QStringLiteral("Nothing dropped"));
        QVERIFY(!dialog.setFormat(QStringLiteral("yaml")));
    }

    // The runnable box and URL work only for runnable formats; the URL defaults to the request's.
    void runnable_onlyForRunnableFormats()
    {
        Ui::PolicyExportDialog dialog;
        dialog.setPolicy(*Core::Presets::find(QStringLiteral("curl-retry")));
        dialog.setRequestUrl(QStringLiteral("http://127.0.0.1:8123/orders"));
        dialog.setRequestUrl(QStringLiteral("{{server}}/not-a-url")); // ignored
        auto *runnable = child<QCheckBox>(dialog, "exportRunnable");
        auto *url = child<QLineEdit>(dialog, "exportRunnableUrl");
        QCOMPARE(url->text(), QStringLiteral("http://127.0.0.1:8123/orders"));

        QVERIFY(dialog.setFormat(QStringLiteral("go-backoff")));
        QVERIFY(runnable->isEnabled());
        QVERIFY(!url->isEnabled());
        QVERIFY(dialog.text().contains(QLatin1String("package retrypolicy")));
        runnable->setChecked(true);
        QVERIFY(url->isEnabled());
        QVERIFY(dialog.text().contains(QLatin1String("package main")));
        QVERIFY(dialog.text().contains(QLatin1String("\"http://127.0.0.1:8123/orders\"")));
        url->setText(QStringLiteral("ftp://elsewhere/"));
        QVERIFY(dialog.text().contains(QLatin1String("package retrypolicy")));
        QVERIFY(dialog.lastMessage().contains(QLatin1String("http://")));
        url->setText(QStringLiteral("http://127.0.0.1:8123/other"));

        QVERIFY(dialog.setFormat(QStringLiteral("curl")));
        QVERIFY(dialog.text().startsWith(QLatin1String("#!/bin/sh\n")));
        QVERIFY(dialog.text().contains(QLatin1String("http://127.0.0.1:8123/other")));

        QVERIFY(dialog.setFormat(QStringLiteral("envoy")));
        QVERIFY(!runnable->isEnabled());
        QVERIFY(!url->isEnabled());
        QVERIFY(dialog.text().contains(QLatin1String("retry_policy:")));
    }

    // Save… asks for a file (here answered by the test) and writes the previewed text to it.
    void save_writesThePreviewedText()
    {
        Ui::PolicyExportDialog dialog;
        dialog.setPolicy(*Core::Presets::find(QStringLiteral("polly-default")));
        dialog.setDirectory(m_dir.path());
        QVERIFY(dialog.setFormat(QStringLiteral("polly")));
        QString suggested;
        const QString chosen = m_dir.filePath(QStringLiteral("pipeline"));
        dialog.setFileChooser([&](const QString &, const QString &suggestion, const QString &) {
            suggested = suggestion;
            return chosen;
        });
        QSignalSpy saved(&dialog, &Ui::PolicyExportDialog::saved);
        child<QPushButton>(dialog, "exportSave")->click();
        QCOMPARE(suggested, m_dir.filePath(QStringLiteral("polly-default.cs")));
        QCOMPARE(saved.size(), 1);
        // The format's suffix is added to a name without one.
        const QString path = chosen + QStringLiteral(".cs");
        QCOMPARE(saved.first().first().toString(), path);
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(file.readAll()), dialog.text());
        QVERIFY(dialog.lastMessage().startsWith(QLatin1String("Saved ")));

        // A file that cannot be written is said, not thrown.
        QVERIFY(!dialog.saveTo(m_dir.filePath(QStringLiteral("no/such/dir/x.cs"))));
        QVERIFY(dialog.lastMessage().startsWith(QLatin1String("Could not save")));
        QCOMPARE(saved.size(), 1);

        // Cancelled: nothing written.
        dialog.setFileChooser([](const QString &, const QString &, const QString &) { return QString(); });
        child<QPushButton>(dialog, "exportSave")->click();
        QCOMPARE(saved.size(), 1);
    }

    void copy_putsTheTextOnTheClipboard()
    {
        Ui::PolicyExportDialog dialog;
        dialog.setPolicy(*Core::Presets::find(QStringLiteral("iam")));
        QVERIFY(dialog.setFormat(QStringLiteral("resilience4j")));
        child<QPushButton>(dialog, "exportCopy")->click();
        QCOMPARE(QGuiApplication::clipboard()->text(), dialog.text());
    }
};

QTEST_MAIN(TestPolicyExportDialog)
#include "tst_policyexportdialog.moc"
