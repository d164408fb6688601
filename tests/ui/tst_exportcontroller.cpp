#include "tests/ui/session/sessionfixtures.h"
#include "ui/exportcontroller.h"
#include "ui/run/errorlogview.h"
#include "ui/session/run/runsession.h"
#include "ui/session/settings/settings.h"
#include "ui/widgets/messagebar.h"

#include <QFile>
#include <QJsonDocument>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace RetryLab;
using Ui::ExportController;

// The export controller over a synthetic run: which format a chosen file gets,
// what the message above the tabs says, and that a refused export keeps the run.
class TestExportController : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void chosenFile_formatFollowsExtensionOrFilter_data();
    void chosenFile_formatFollowsExtensionOrFilter();
    void cancelledChooser_writesNothing();
    void emptyRun_saysSoAndWritesNothing();
    void unwritablePath_isReportedAndTheRunKept();
    void unredacted_isAWarning();

private:
    struct Parts
    {
        Ui::RunSession session;
        Ui::ErrorLogView errorLog;
        Ui::Settings settings;
        Ui::MessageBar messages;
        QWidget parent;
        ExportController controller{&session, &errorLog, &settings, &messages, &parent};
    };

    QTemporaryDir m_dir;
};

void TestExportController::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
}

void TestExportController::init()
{
    Ui::Settings().setExportDirectory(m_dir.path());
}

void TestExportController::chosenFile_formatFollowsExtensionOrFilter_data()
{
    QTest::addColumn<QString>("answer"); // the file name the person typed
    QTest::addColumn<int>("filter"); // index into formats(): the filter they picked
    QTest::addColumn<QString>("written"); // the file that must exist afterwards
    QTest::addColumn<QByteArray>("starts");
    QTest::addRow("extension names the format")
        << QStringLiteral("a.har") << 1 << QStringLiteral("a.har") << QByteArray("{");
    QTest::addRow("no extension: the filter, extension added")
        << QStringLiteral("b") << 1 << QStringLiteral("b.csv") << QByteArray("redacted,request_id,");
    QTest::addRow("unknown extension: the filter, extension added")
        << QStringLiteral("c.txt") << 0 << QStringLiteral("c.txt.json") << QByteArray("{");
}

void TestExportController::chosenFile_formatFollowsExtensionOrFilter()
{
    QFETCH(QString, answer);
    QFETCH(int, filter);
    QFETCH(QString, written);
    QFETCH(QByteArray, starts);
    Parts parts;
    Fixtures::syntheticRun(parts.session, 5);
    parts.session.flush();
    QStringList titles;
    parts.controller.setFileChooser([&](QFileDialog::AcceptMode mode, const QString &title, const QString &suggestion,
                                        const QString &, QString *selected) {
        titles.append(title);
        if (mode != QFileDialog::AcceptSave || !suggestion.startsWith(m_dir.path()))
            return QString();
        *selected = ExportController::formats().at(filter).filter;
        return m_dir.filePath(answer);
    });
    parts.controller.exportAs(ExportController::Format::Json, false, {});
    QCOMPARE(titles, QStringList{QStringLiteral("Export the run")});
    QFile file(m_dir.filePath(written));
    QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(file.fileName()));
    QVERIFY(file.readAll().trimmed().startsWith(starts));
    QCOMPARE(parts.messages.messages().size(), 1);
    QVERIFY(parts.messages.messages().first().startsWith(QLatin1String("Exported to")));
    QVERIFY(parts.messages.messages().first().contains(QLatin1String("credentials redacted")));
}

void TestExportController::cancelledChooser_writesNothing()
{
    Parts parts;
    Fixtures::syntheticRun(parts.session, 2);
    parts.session.flush();
    parts.controller.setFileChooser([](auto, auto, auto, auto, auto) { return QString(); });
    const QStringList before = QDir(m_dir.path()).entryList(QDir::Files);
    parts.controller.exportAs(ExportController::Format::Csv, true, {});
    QCOMPARE(QDir(m_dir.path()).entryList(QDir::Files), before);
    QVERIFY(parts.messages.messages().isEmpty());
}

void TestExportController::emptyRun_saysSoAndWritesNothing()
{
    Parts parts;
    const QString path = m_dir.filePath(QStringLiteral("empty.json"));
    const auto written = parts.controller.exportRun(path, ExportController::Format::Json, false, {});
    QVERIFY(!written);
    QVERIFY(written.error().contains(QLatin1String("Nothing to export")));
    QVERIFY(!QFile::exists(path));
    QCOMPARE(parts.messages.messages(), QStringList{written.error()});
}

void TestExportController::unwritablePath_isReportedAndTheRunKept()
{
    Parts parts;
    Fixtures::syntheticRun(parts.session, 3);
    parts.session.flush();
    const qsizetype rows = parts.session.attemptRowCount();
    const auto written = parts.controller.exportRun(
        m_dir.filePath(QStringLiteral("missing/run.csv")), ExportController::Format::Csv, false, {});
    QVERIFY(!written);
    QVERIFY(parts.messages.messages().first().contains(QLatin1String("Nothing in the run was lost")));
    QCOMPARE(parts.session.attemptRowCount(), rows);
}

void TestExportController::unredacted_isAWarning()
{
    Parts parts;
    Fixtures::syntheticRun(parts.session, 1);
    parts.session.flush();
    Core::ExportOptions options;
    options.redactCredentials = false;
    const QString path = m_dir.filePath(QStringLiteral("plain.json"));
    QVERIFY(parts.controller.exportRun(path, ExportController::Format::Json, false, options));
    QVERIFY(parts.messages.messages().first().contains(QLatin1String("NOT redacted")));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QVERIFY(!QJsonDocument::fromJson(file.readAll()).isNull());
}

QTEST_MAIN(TestExportController)
#include "tst_exportcontroller.moc"
