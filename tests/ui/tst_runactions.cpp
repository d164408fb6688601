#include "core/executor/threadedexecutor.h"
#include "core/faultserver/faultserver.h"
#include "ui/request/requestcomposer.h"
#include "ui/runactions.h"
#include "ui/session/request/requestrunner.h"
#include "ui/session/run/runsession.h"
#include "ui/session/settings/settings.h"
#include "ui/statusbarpresenter.h"
#include "ui/widgets/messagebar.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTest>

using namespace RetryLab;
using Ui::RunActions;

// The Request menu's actions on their own parts, without the window: what a refused
// send says, what a send leaves in the recent URLs, what Clear run tells, and
// what the copies carry under each choice of redaction.
class TestRunActions final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void blockedComposer_refusesWithItsReason_data();
    void blockedComposer_refusesWithItsReason();
    void send_remembersTheUrl_clearRunForgetsTheRun();
    void copyAsHarEntry_followsTheRedactionChoice_data();
    void copyAsHarEntry_followsTheRedactionChoice();
    void copyAsCurl_masksSecretValues_evenUnredacted();

private:
    struct Parts
    {
        Core::FaultServer server;
        Ui::Settings settings;
        Core::ThreadedExecutor executor;
        Ui::RunSession session;
        Ui::RequestRunner runner{&executor, &session};
        Ui::RequestComposer composer;
        QStatusBar bar;
        Ui::StatusBarPresenter status{&bar, &session};
        Ui::MessageBar messages;
        bool redact = true;
        QStringList secrets;
        RunActions actions{{&composer, &runner, &session, &settings, &executor, &status, &messages,
            [this] {
                Core::ExportOptions options;
                options.redactCredentials = redact;
                return options;
            },
            [this] { return secrets; }}};

        /// The composer can send to the server, with `urlTemplate`.
        bool ready(const QString &urlTemplate)
        {
            if (!server.listen())
                return false;
            session.attach(&executor);
            runner.setServer(&server);
            composer.setPreviewContext(runner.nextContext());
            Core::RequestDraft draft = composer.draft();
            draft.urlTemplate = urlTemplate;
            composer.setDraft(draft);
            return composer.canSend();
        }
    };
};

void TestRunActions::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("RetryLab"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_runactions"));
}

void TestRunActions::init()
{
    QSettings settings;
    settings.clear();
    settings.sync();
}

void TestRunActions::blockedComposer_refusesWithItsReason_data()
{
    QTest::addColumn<QString>("action");
    QTest::addColumn<QString>("refusal");
    QTest::addRow("send") << QStringLiteral("send") << QStringLiteral("Not sent: ");
    QTest::addRow("batch") << QStringLiteral("sendBatch") << QStringLiteral("Not sent: ");
    QTest::addRow("repeat") << QStringLiteral("startRepeat") << QStringLiteral("Not repeating: ");
}

void TestRunActions::blockedComposer_refusesWithItsReason()
{
    QFETCH(QString, action);
    QFETCH(QString, refusal);
    Parts parts;
    QVERIFY(parts.ready(QStringLiteral("{server}/status/200")));
    parts.composer.setBlocker(QStringLiteral("policy"), QStringLiteral("the policy cannot be used: no attempts"));
    QVERIFY(!parts.composer.canSend());

    // Asked for directly, not through the composer's disabled actions.
    QVERIFY(QMetaObject::invokeMethod(&parts.actions, action.toLatin1().constData()));
    QCOMPARE(parts.messages.messages().size(), 1);
    QVERIFY2(parts.messages.messages().constFirst().startsWith(refusal), qPrintable(parts.messages.messages().at(0)));
    QVERIFY(parts.messages.messages().constFirst().contains(QLatin1String("no attempts")));
    QCOMPARE(parts.session.laneCount(), 0);
    QVERIFY(!parts.runner.isRepeating());
    QVERIFY(parts.settings.recentUrlTemplates().isEmpty());
}

void TestRunActions::send_remembersTheUrl_clearRunForgetsTheRun()
{
    Parts parts;
    const QString url = QStringLiteral("{server}/status/200?key={id}");
    QVERIFY(parts.ready(url));
    parts.composer.sendAction()->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(parts.session.resultCount(), 1, 10'000);
    QCOMPARE(parts.settings.recentUrlTemplates(), QStringList{url});
    QVERIFY(parts.messages.messages().isEmpty());

    QSignalSpy cleared(&parts.actions, &RunActions::runCleared);
    qsizetype rowsWhenTold = -1;
    connect(&parts.actions, &RunActions::runCleared, this, [&] { rowsWhenTold = parts.session.attemptRowCount(); });
    QCOMPARE(parts.actions.clearAction()->objectName(), QStringLiteral("clearRun"));
    parts.actions.clearAction()->trigger();
    QCOMPARE(cleared.size(), 1);
    QCOMPARE(rowsWhenTold, 0);
    QCOMPARE(parts.session.laneCount(), 0);
}

void TestRunActions::copyAsHarEntry_followsTheRedactionChoice_data()
{
    QTest::addColumn<bool>("redact");
    QTest::addColumn<QString>("message");
    QTest::addRow("redacted") << true << QStringLiteral("Copied a HAR entry to the clipboard (credentials redacted).");
    QTest::addRow("not redacted") << false << QStringLiteral("Copied a HAR entry to the clipboard, WITH credentials.");
}

void TestRunActions::copyAsHarEntry_followsTheRedactionChoice()
{
    QFETCH(bool, redact);
    QFETCH(QString, message);
    Parts parts;
    QVERIFY(parts.ready(QStringLiteral("{server}/status/200")));
    Core::RequestDraft draft = parts.composer.draft();
    draft.headers = {{QStringLiteral("Authorization"), QStringLiteral("Bearer s3cret-token"), true}};
    parts.composer.setDraft(draft);
    parts.redact = redact;
    parts.actions.copyHarAction()->trigger();
    const QString copied = QApplication::clipboard()->text();
    QVERIFY2(copied.contains(QLatin1String("\"request\"")), qPrintable(copied));
    QCOMPARE(copied.contains(QLatin1String("s3cret-token")), !redact);
    QCOMPARE(parts.messages.shownText(), message);
    QCOMPARE(parts.session.laneCount(), 0); // copying sends nothing
}

void TestRunActions::copyAsCurl_masksSecretValues_evenUnredacted()
{
    Parts parts;
    QVERIFY(parts.ready(QStringLiteral("{server}/status/200?customer=c-1042-secret")));
    parts.redact = false;
    parts.secrets = {QStringLiteral("c-1042-secret")};
    parts.actions.copyCurlAction()->trigger();
    const QString command = QApplication::clipboard()->text();
    QVERIFY2(command.startsWith(QLatin1String("curl")), qPrintable(command));
    QVERIFY(command.contains(parts.server.baseUrl().toString() + QStringLiteral("/status/200?customer=")));
    QVERIFY(!command.contains(QLatin1String("c-1042-secret")));
    QCOMPARE(parts.messages.shownText(), QStringLiteral("Copied a curl command to the clipboard, WITH credentials."));
}

QTEST_MAIN(TestRunActions)
#include "tst_runactions.moc"
