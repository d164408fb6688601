// Preferences: the monitors' history and what closing the window does. A
// history address that cannot be used keeps OK off and says why; a good one,
// the default (empty) and a PostgreSQL URL let it through.

#include "ui/preferencesdialog.h"
#include "ui/widgets/fieldmessage.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace RetryLab;
using namespace RetryLab::Ui;

class TestPreferencesDialog : public QObject
{
    Q_OBJECT

private:
    static QPushButton *okOf(PreferencesDialog &dialog)
    {
        return dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
    }

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void monitorDatabase_badAddress_keepsOkOff_andSaysWhy()
    {
        QTemporaryDir dir;
        PreferencesDialog dialog(Core::TransportOptions{});
        dialog.setMonitorDatabase(QString(), QStringLiteral("/data/history.sqlite"));
        auto *inUse = dialog.findChild<QLabel *>(QStringLiteral("monitorDatabaseInUse"));
        QVERIFY(inUse->text().contains(QLatin1String("/data/history.sqlite")));
        auto *field = dialog.findChild<QLineEdit *>(QStringLiteral("monitorDatabase"));
        QVERIFY(okOf(dialog)->isEnabled());

        field->setText(dir.filePath(QStringLiteral("no/such/folder/history.sqlite")));
        QVERIFY(!okOf(dialog)->isEnabled());
        QVERIFY2(dialog.monitorDatabaseProblem().contains(QLatin1String("does not exist")),
            qPrintable(dialog.monitorDatabaseProblem()));
        QCOMPARE(okOf(dialog)->toolTip(), dialog.monitorDatabaseProblem());

        field->setText(dir.path());
        QVERIFY(!okOf(dialog)->isEnabled());
        QVERIFY(dialog.monitorDatabaseProblem().contains(QLatin1String("is a folder")));

        field->setText(QStringLiteral("postgresql://monitor@127.0.0.1:notaport/history"));
        QVERIFY(!okOf(dialog)->isEnabled());
        QVERIFY(!dialog.monitorDatabaseProblem().isEmpty());

        field->setText(QStringLiteral("postgresql://monitor@127.0.0.1:5432/history"));
        QVERIFY2(okOf(dialog)->isEnabled(), qPrintable(dialog.monitorDatabaseProblem()));
        field->setText(QStringLiteral("  ") + dir.filePath(QStringLiteral("mine.sqlite")));
        QVERIFY(okOf(dialog)->isEnabled());
        QCOMPARE(dialog.monitorDatabase(), dir.filePath(QStringLiteral("mine.sqlite")));
        field->clear();
        QVERIFY(okOf(dialog)->isEnabled());
        QCOMPARE(dialog.monitorDatabase(), QString());
    }

    void closeWithMonitors_roundTrips()
    {
        PreferencesDialog dialog(Core::TransportOptions{});
        QCOMPARE(dialog.closeWithMonitors(), Settings::CloseWithMonitors::Ask);
        for (const auto choice : {Settings::CloseWithMonitors::KeepMonitoring, Settings::CloseWithMonitors::Quit,
                 Settings::CloseWithMonitors::Ask}) {
            dialog.setCloseWithMonitors(choice);
            QCOMPARE(dialog.closeWithMonitors(), choice);
        }
        auto *combo = dialog.findChild<QComboBox *>(QStringLiteral("closeWithMonitors"));
        combo->setFocus();
        QTest::keyClick(combo, Qt::Key_Down);
        QCOMPARE(dialog.closeWithMonitors(), Settings::CloseWithMonitors::KeepMonitoring);
    }
};

QTEST_MAIN(TestPreferencesDialog)
#include "tst_preferencesdialog.moc"
