// Alerts on their way out: a webhook through a real RetryExecutor to a
// receiver on 127.0.0.1 that fails before it accepts, or refuses; commands run
// for real (/bin/sh), hung ones killed; the desktop notification; and the
// deduplication and rate limit on a manual clock.

#include "core/alerts/alertdispatcher.h"
#include "core/executor/retryexecutor.h"
#include "core/util/clock.h"
#include "tests/core/capturingserver.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <memory>

using namespace RetryLab::Core;

namespace {

AlertEvent stateEvent(const QString &monitor, MonitorState from, MonitorState to, qint64 atMs = 1741064767089)
{
    AlertEvent event;
    event.kind = AlertEvent::Kind::StateChange;
    event.monitor = monitor;
    event.agent = QStringLiteral("eu-1");
    event.atMs = atMs;
    event.from = from;
    event.to = to;
    event.reason = QStringLiteral("3 checks in a row failed");
    return event;
}

AlertEvent downEvent(qint64 atMs = 1741064767089)
{
    return stateEvent(QStringLiteral("api"), MonitorState::Up, MonitorState::Down, atMs);
}

// Retries at once, 20 ms apart: a delivery's three attempts take well under a second.
BackoffPolicy fastDelivery(int attempts)
{
    BackoffPolicy policy;
    policy.name = QStringLiteral("fast delivery");
    policy.algorithm = BackoffAlgorithm::Constant;
    policy.baseDelayMs = 20;
    policy.maxAttempts = attempts;
    policy.attemptTimeoutMs = 5000;
    return policy;
}

AlertTarget webhook(const QString &name, const QUrl &url, int attempts = 5)
{
    AlertTarget target;
    target.name = name;
    target.kind = AlertTarget::Kind::Webhook;
    target.url = url;
    target.policy = fastDelivery(attempts);
    return target;
}

AlertTarget command(const QString &name, const QStringList &line, qint64 timeoutMs = 10'000)
{
    AlertTarget target;
    target.name = name;
    target.kind = AlertTarget::Kind::Command;
    target.command = line;
    target.timeoutMs = timeoutMs;
    return target;
}

AlertTarget desktop(const QString &name = QStringLiteral("desktop"))
{
    AlertTarget target;
    target.name = name;
    target.kind = AlertTarget::Kind::Desktop;
    return target;
}

// A port on 127.0.0.1 that nothing listens on: connections are refused.
quint16 closedPort()
{
    QTcpServer server;
    if (!server.listen(QHostAddress::LocalHost))
        return 0;
    const quint16 port = server.serverPort();
    server.close();
    return port;
}

// Gone, or a zombie nobody reaped yet: either way it runs no more.
bool processEnded(qint64 pid)
{
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return true;
    const QByteArray text = stat.readAll();
    const qsizetype paren = text.lastIndexOf(')');
    return paren < 0 || text.mid(paren + 2, 1) == "Z";
}

qint64 readPid(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return 0;
    return file.readAll().trimmed().toLongLong();
}

} // namespace

class TestAlertDispatcher final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();

    void webhook_failingTwice_isDeliveredOnceAfterThreeAttempts();
    void webhook_refused_isReportedAndTheNextAlertStillGoes();
    void webhook_leavesTheExecutorsOtherRequestsAlone();
    void command_getsTheEventInItsEnvironment();
    void command_exitingNonZero_isReportedWithItsStandardError();
    void command_missingProgram_isReported();
    void command_hanging_isKilledAtItsTimeoutWithItsChildren();
    void destructor_killsACommandStillRunning();
    void desktop_emitsTheNotification();
    void unknownTarget_isReportedAsFailed();
    void dedupe_sameAlertWithinTheInterval_isSuppressedThenGoesAgain();
    void rateLimit_overMaxPerMinute_isSuppressedThenSummarised();
    void rateLimit_summary_goesOutOnTheNextRaise();
    void rateLimit_summary_reachesAWebhook();
};

void TestAlertDispatcher::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
}

void TestAlertDispatcher::webhook_failingTwice_isDeliveredOnceAfterThreeAttempts()
{
    CapturingServer::Server receiver;
    QVERIFY(receiver.start());
    receiver.statuses = {503, 503};
    RetryExecutor executor;
    ManualClock clock;
    AlertDispatcher dispatcher(&executor, &clock);
    AlertTarget target = webhook(QStringLiteral("ops"), QUrl(QString::fromLatin1(receiver.baseUrl() + "/hook")));
    target.headers = {{"Authorization", "Bearer x"}};
    dispatcher.setTargets({target});

    QSignalSpy delivered(&dispatcher, &AlertDispatcher::delivered);
    QSignalSpy failed(&dispatcher, &AlertDispatcher::failed);
    QSignalSpy attempts(&dispatcher, &AlertDispatcher::deliveryAttempt);
    QSignalSpy finished(&dispatcher, &AlertDispatcher::deliveryFinished);
    const AlertEvent event = downEvent();
    dispatcher.raise(event, {QStringLiteral("ops")});
    QCOMPARE(dispatcher.pendingDeliveries(), 1);

    QTRY_COMPARE_WITH_TIMEOUT(delivered.count(), 1, 10'000);
    QCOMPARE(failed.count(), 0);
    QCOMPARE(delivered.first().at(0).toString(), QStringLiteral("ops"));
    QCOMPARE(delivered.first().at(1).value<AlertEvent>(), event);
    QCOMPARE(dispatcher.pendingDeliveries(), 0);

    QCOMPARE(receiver.requests.size(), 3);
    for (const CapturingServer::Request &request : std::as_const(receiver.requests)) {
        QCOMPARE(request.method, QByteArray("POST"));
        QCOMPARE(request.target, QByteArray("/hook"));
        QCOMPARE(request.header("Content-Type"), QByteArray("application/json"));
        QCOMPARE(request.header("Authorization"), QByteArray("Bearer x"));
        // One key for every attempt: the receiver can drop a repeat.
        QCOMPARE(request.header("Idempotency-Key"), event.idempotencyKey());
        const QJsonDocument body = QJsonDocument::fromJson(request.body);
        QVERIFY(body.isObject());
        QCOMPARE(body.object(), event.toJson());
        QCOMPARE(body.object().value(QStringLiteral("to")).toString(), QStringLiteral("down"));
    }

    // Each attempt is reported to be recorded like any request's.
    QCOMPARE(attempts.count(), 3);
    QList<int> statuses;
    for (const auto &arguments : std::as_const(attempts)) {
        QCOMPARE(arguments.at(0).toString(), QStringLiteral("ops"));
        statuses.append(arguments.at(1).value<AttemptRecord>().httpStatus.value_or(0));
    }
    QCOMPARE(statuses, QList<int>({503, 503, 200}));
    QCOMPARE(finished.count(), 1);
    const auto result = finished.first().at(1).value<RequestResult>();
    QCOMPARE(result.outcome, RequestOutcome::Succeeded);
    QCOMPARE(result.attempts, 3);
    QCOMPARE(dispatcher.stats(QStringLiteral("ops")), (AlertTargetStats{1, 0, 0, 0, 0}));
}

void TestAlertDispatcher::webhook_refused_isReportedAndTheNextAlertStillGoes()
{
    CapturingServer::Server receiver;
    QVERIFY(receiver.start());
    const quint16 port = closedPort();
    QVERIFY(port != 0);
    RetryExecutor executor;
    ManualClock clock;
    AlertDispatcher dispatcher(&executor, &clock);
    AlertTarget dead = webhook(QStringLiteral("dead"), QUrl(QStringLiteral("http://127.0.0.1:%1/hook").arg(port)), 2);
    dead.headers = {{"Authorization", "Bearer topsecret"}};
    dispatcher.setTargets(
        {dead, webhook(QStringLiteral("ops"), QUrl(QString::fromLatin1(receiver.baseUrl() + "/hook")))});

    QSignalSpy delivered(&dispatcher, &AlertDispatcher::delivered);
    QSignalSpy failed(&dispatcher, &AlertDispatcher::failed);
    QSignalSpy attempts(&dispatcher, &AlertDispatcher::deliveryAttempt);
    const AlertEvent first = downEvent();
    dispatcher.raise(first, {QStringLiteral("dead")});
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 10'000);
    QCOMPARE(failed.first().at(0).toString(), QStringLiteral("dead"));
    QCOMPARE(failed.first().at(1).value<AlertEvent>(), first);
    const QString reason = failed.first().at(2).toString();
    QVERIFY2(reason.contains(QLatin1String("2 attempt")), qPrintable(reason));
    QVERIFY2(!reason.contains(QLatin1String("topsecret")), qPrintable(reason));
    QCOMPARE(attempts.count(), 2);
    QCOMPARE(attempts.first().at(1).value<AttemptRecord>().networkError, QNetworkReply::ConnectionRefusedError);

    // The broken target stops nothing: the next alert goes to both, and reaches the working one.
    const AlertEvent second = stateEvent(QStringLiteral("db"), MonitorState::Up, MonitorState::Down);
    dispatcher.raise(second, {QStringLiteral("dead"), QStringLiteral("ops")});
    QTRY_COMPARE_WITH_TIMEOUT(delivered.count(), 1, 10'000);
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 2, 10'000);
    QCOMPARE(delivered.first().at(0).toString(), QStringLiteral("ops"));
    QCOMPARE(receiver.requests.size(), 1);
    QCOMPARE(QJsonDocument::fromJson(receiver.requests.first().body).object(), second.toJson());
    QCOMPARE(dispatcher.stats(QStringLiteral("dead")).failed, 2);
    QCOMPARE(dispatcher.stats(QStringLiteral("ops")).delivered, 1);
}

void TestAlertDispatcher::webhook_leavesTheExecutorsOtherRequestsAlone()
{
    CapturingServer::Server receiver;
    QVERIFY(receiver.start());
    RetryExecutor executor;
    AlertDispatcher dispatcher(&executor);
    dispatcher.setTargets({webhook(QStringLiteral("ops"), QUrl(QString::fromLatin1(receiver.baseUrl() + "/hook")))});
    QSignalSpy attempts(&dispatcher, &AlertDispatcher::deliveryAttempt);
    QSignalSpy finished(&dispatcher, &AlertDispatcher::deliveryFinished);
    QSignalSpy executorFinished(&executor, &RetryExecutor::requestFinished);

    // A monitor's own check on the same executor.
    RequestSpec check;
    check.url = QUrl(QString::fromLatin1(receiver.baseUrl() + "/health"));
    executor.submit(check, fastDelivery(1));
    dispatcher.raise(downEvent(), {QStringLiteral("ops")});
    QTRY_COMPARE_WITH_TIMEOUT(executorFinished.count(), 2, 10'000);
    QCOMPARE(attempts.count(), 1);
    QCOMPARE(finished.count(), 1);
    QCOMPARE(attempts.first().at(1).value<AttemptRecord>().url.path(), QStringLiteral("/hook"));
}

void TestAlertDispatcher::command_getsTheEventInItsEnvironment()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString file = dir.filePath(QStringLiteral("env.txt"));
    AlertDispatcher dispatcher(nullptr);
    // No shell between RetryLab and the program: /bin/sh is the program here, by choice.
    dispatcher.setTargets({command(QStringLiteral("page"),
        {QStringLiteral("/bin/sh"), QStringLiteral("-c"), QStringLiteral("env > \"$0\""), file})});
    QSignalSpy delivered(&dispatcher, &AlertDispatcher::delivered);
    QSignalSpy failed(&dispatcher, &AlertDispatcher::failed);
    AlertEvent event = downEvent();
    event.reason = QStringLiteral("status=503 and 'quotes' $HOME");
    dispatcher.raise(event, {QStringLiteral("page")});
    QTRY_COMPARE_WITH_TIMEOUT(delivered.count(), 1, 10'000);
    QCOMPARE(failed.count(), 0);

    QFile written(file);
    QVERIFY(written.open(QIODevice::ReadOnly));
    QHash<QString, QString> env;
    for (const QByteArray &line : written.readAll().split('\n')) {
        const qsizetype equals = line.indexOf('=');
        if (equals > 0)
            env.insert(QString::fromUtf8(line.left(equals)), QString::fromUtf8(line.mid(equals + 1)));
    }
    QCOMPARE(env.value(QStringLiteral("RETRYLAB_EVENT")), QStringLiteral("state-change"));
    QCOMPARE(env.value(QStringLiteral("RETRYLAB_MONITOR")), QStringLiteral("api"));
    QCOMPARE(env.value(QStringLiteral("RETRYLAB_AGENT")), QStringLiteral("eu-1"));
    QCOMPARE(env.value(QStringLiteral("RETRYLAB_FROM")), QStringLiteral("up"));
    QCOMPARE(env.value(QStringLiteral("RETRYLAB_TO")), QStringLiteral("down"));
    QCOMPARE(env.value(QStringLiteral("RETRYLAB_REASON")), event.reason);
    QCOMPARE(env.value(QStringLiteral("RETRYLAB_AT")), QStringLiteral("2025-03-04T05:06:07.089Z"));
    QCOMPARE(
        QJsonDocument::fromJson(env.value(QStringLiteral("RETRYLAB_EVENT_JSON")).toUtf8()).object(), event.toJson());
    // The monitor's own environment goes along.
    QVERIFY(env.contains(QStringLiteral("PATH")));
}

void TestAlertDispatcher::command_exitingNonZero_isReportedWithItsStandardError()
{
    AlertDispatcher dispatcher(nullptr);
    dispatcher.setTargets({command(QStringLiteral("page"),
        {QStringLiteral("/bin/sh"), QStringLiteral("-c"),
            QStringLiteral("echo 'no route to the pager (token=abc123)' >&2; exit 3")})});
    QSignalSpy failed(&dispatcher, &AlertDispatcher::failed);
    dispatcher.raise(downEvent(), {QStringLiteral("page")});
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 10'000);
    const QString reason = failed.first().at(2).toString();
    QVERIFY2(reason.contains(QLatin1String("exited with status 3")), qPrintable(reason));
    QVERIFY2(reason.contains(QLatin1String("no route to the pager")), qPrintable(reason));
    QVERIFY2(!reason.contains(QLatin1String("abc123")), qPrintable(reason));
    QCOMPARE(dispatcher.stats(QStringLiteral("page")).failed, 1);
    QCOMPARE(dispatcher.pendingDeliveries(), 0);
}

void TestAlertDispatcher::command_missingProgram_isReported()
{
    QTemporaryDir dir;
    AlertDispatcher dispatcher(nullptr);
    dispatcher.setTargets({command(QStringLiteral("page"), {dir.filePath(QStringLiteral("no-such-pager"))})});
    QSignalSpy failed(&dispatcher, &AlertDispatcher::failed);
    dispatcher.raise(downEvent(), {QStringLiteral("page")});
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 10'000);
    QVERIFY2(failed.first().at(2).toString().contains(QLatin1String("could not start")),
        qPrintable(failed.first().at(2).toString()));
    QCOMPARE(dispatcher.pendingDeliveries(), 0);
}

void TestAlertDispatcher::command_hanging_isKilledAtItsTimeoutWithItsChildren()
{
    QTemporaryDir dir;
    const QString pidFile = dir.filePath(QStringLiteral("child.pid"));
    AlertDispatcher dispatcher(nullptr);
    // The shell waits on a child of its own: killing the shell alone would leave the child.
    dispatcher.setTargets({command(QStringLiteral("page"),
        {QStringLiteral("/bin/sh"), QStringLiteral("-c"), QStringLiteral("sleep 60 & echo $! > \"$0\"; wait"), pidFile},
        300)});
    QSignalSpy failed(&dispatcher, &AlertDispatcher::failed);
    QSignalSpy delivered(&dispatcher, &AlertDispatcher::delivered);
    QElapsedTimer timer;
    timer.start();
    dispatcher.raise(downEvent(), {QStringLiteral("page")});
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 15'000);
    QVERIFY2(timer.elapsed() < 15'000, "the command ran to its own end");
    QCOMPARE(delivered.count(), 0);
    const QString reason = failed.first().at(2).toString();
    QVERIFY2(reason.contains(QLatin1String("did not finish within 300 ms and was killed")), qPrintable(reason));

    const qint64 child = readPid(pidFile);
    QVERIFY(child > 0);
    QTRY_VERIFY_WITH_TIMEOUT(processEnded(child), 5000);
}

void TestAlertDispatcher::destructor_killsACommandStillRunning()
{
    QTemporaryDir dir;
    const QString pidFile = dir.filePath(QStringLiteral("child.pid"));
    auto dispatcher = std::make_unique<AlertDispatcher>(nullptr);
    dispatcher->setTargets({command(QStringLiteral("page"),
        {QStringLiteral("/bin/sh"), QStringLiteral("-c"), QStringLiteral("sleep 60 & echo $! > \"$0\"; wait"), pidFile},
        60'000)});
    dispatcher->raise(downEvent(), {QStringLiteral("page")});
    QTRY_VERIFY_WITH_TIMEOUT(readPid(pidFile) > 0, 10'000);
    const qint64 child = readPid(pidFile);
    QCOMPARE(dispatcher->pendingDeliveries(), 1);
    dispatcher.reset();
    QTRY_VERIFY_WITH_TIMEOUT(processEnded(child), 5000);
}

void TestAlertDispatcher::desktop_emitsTheNotification()
{
    AlertDispatcher dispatcher(nullptr);
    dispatcher.setTargets({desktop()});
    QSignalSpy notifications(&dispatcher, &AlertDispatcher::desktopNotification);
    QSignalSpy delivered(&dispatcher, &AlertDispatcher::delivered);
    const AlertEvent event = downEvent();
    dispatcher.raise(event, {QStringLiteral("desktop")});
    QCOMPARE(notifications.count(), 1);
    QCOMPARE(notifications.first().at(0).toString(), QStringLiteral("api (agent eu-1) is down"));
    QCOMPARE(notifications.first().at(1).toString(), event.text());
    QCOMPARE(delivered.count(), 1);
}

void TestAlertDispatcher::unknownTarget_isReportedAsFailed()
{
    AlertDispatcher dispatcher(nullptr);
    dispatcher.setTargets({desktop()});
    QSignalSpy failed(&dispatcher, &AlertDispatcher::failed);
    QSignalSpy notifications(&dispatcher, &AlertDispatcher::desktopNotification);
    dispatcher.raise(downEvent(), {QStringLiteral("pager"), QStringLiteral("desktop")});
    QCOMPARE(failed.count(), 1);
    QCOMPARE(failed.first().at(0).toString(), QStringLiteral("pager"));
    QVERIFY(failed.first().at(2).toString().contains(QLatin1String("no alert target named \"pager\"")));
    QCOMPARE(notifications.count(), 1);

    // A webhook without an executor fails the same way, at once.
    AlertTarget hook = webhook(QStringLiteral("ops"), QUrl(QStringLiteral("http://127.0.0.1:1/")));
    dispatcher.setTargets({hook});
    dispatcher.raise(downEvent(), {QStringLiteral("ops")});
    QCOMPARE(failed.count(), 2);
}

void TestAlertDispatcher::dedupe_sameAlertWithinTheInterval_isSuppressedThenGoesAgain()
{
    ManualClock clock;
    AlertDispatcher dispatcher(nullptr, &clock);
    AlertTarget target = desktop();
    target.minIntervalMs = 60'000;
    dispatcher.setTargets({target});
    QSignalSpy notifications(&dispatcher, &AlertDispatcher::desktopNotification);
    QSignalSpy suppressed(&dispatcher, &AlertDispatcher::suppressed);

    dispatcher.raise(downEvent(), {QStringLiteral("desktop")});
    QCOMPARE(notifications.count(), 1);
    clock.advanceMs(10'000);
    dispatcher.raise(downEvent(1741064777089), {QStringLiteral("desktop")});
    QCOMPARE(notifications.count(), 1);
    QCOMPARE(suppressed.count(), 1);
    QVERIFY2(suppressed.first().at(2).toString().contains(QLatin1String("the same alert went to \"desktop\" 10")),
        qPrintable(suppressed.first().at(2).toString()));

    // Another alert of the same monitor is not a repeat.
    dispatcher.raise(
        stateEvent(QStringLiteral("api"), MonitorState::Down, MonitorState::Up), {QStringLiteral("desktop")});
    QCOMPARE(notifications.count(), 2);

    clock.advanceMs(49'999);
    dispatcher.raise(downEvent(), {QStringLiteral("desktop")});
    QCOMPARE(notifications.count(), 2);
    clock.advanceMs(1);
    dispatcher.raise(downEvent(), {QStringLiteral("desktop")});
    QCOMPARE(notifications.count(), 3);
    QCOMPARE(dispatcher.stats(QStringLiteral("desktop")), (AlertTargetStats{3, 0, 2, 0, 0}));

    // Without an interval nothing is a repeat.
    target.minIntervalMs = 0;
    dispatcher.setTargets({target});
    dispatcher.raise(downEvent(), {QStringLiteral("desktop")});
    QCOMPARE(notifications.count(), 4);
}

void TestAlertDispatcher::rateLimit_overMaxPerMinute_isSuppressedThenSummarised()
{
    ManualClock clock(QDateTime(QDate(2025, 3, 4), QTime(5, 0), Qt::UTC));
    AlertDispatcher dispatcher(nullptr, &clock);
    AlertTarget target = desktop();
    target.maxPerMinute = 3;
    AlertTarget other = desktop(QStringLiteral("other"));
    dispatcher.setTargets({target, other});
    QSignalSpy notifications(&dispatcher, &AlertDispatcher::desktopNotification);
    QSignalSpy suppressed(&dispatcher, &AlertDispatcher::suppressed);
    QSignalSpy delivered(&dispatcher, &AlertDispatcher::delivered);

    for (int i = 0; i < 5; ++i) {
        dispatcher.raise(stateEvent(QStringLiteral("m%1").arg(i), MonitorState::Up, MonitorState::Down),
            {QStringLiteral("desktop")});
        clock.advanceMs(1000);
    }
    QCOMPARE(notifications.count(), 3);
    QCOMPARE(suppressed.count(), 2);
    QVERIFY2(suppressed.first().at(2).toString().contains(QLatin1String("at most 3 alert")),
        qPrintable(suppressed.first().at(2).toString()));
    // The limit is the target's own.
    dispatcher.raise(stateEvent(QStringLiteral("m9"), MonitorState::Up, MonitorState::Down), {QStringLiteral("other")});
    QCOMPARE(notifications.count(), 4);

    clock.advanceMs(30'000); // 35 s after the first: the minute is not over
    dispatcher.flushSummaries();
    QCOMPARE(notifications.count(), 4);

    clock.advanceMs(25'000); // 60 s after the first
    dispatcher.flushSummaries();
    QCOMPARE(notifications.count(), 5);
    QCOMPARE(notifications.last().at(0).toString(), QStringLiteral("2 alert(s) suppressed"));
    const auto summary = delivered.last().at(1).value<AlertEvent>();
    QCOMPARE(delivered.last().at(0).toString(), QStringLiteral("desktop"));
    QCOMPARE(summary.kind, AlertEvent::Kind::Suppressed);
    QCOMPARE(summary.suppressedCount, 2);
    QCOMPARE(summary.suppressedMonitors, QStringList({QStringLiteral("m3"), QStringLiteral("m4")}));
    QCOMPARE(summary.atMs, QDateTime(QDate(2025, 3, 4), QTime(5, 1), Qt::UTC).toMSecsSinceEpoch());

    // Once: nothing more is due; and the new minute takes alerts again.
    dispatcher.flushSummaries();
    QCOMPARE(notifications.count(), 5);
    dispatcher.raise(
        stateEvent(QStringLiteral("m5"), MonitorState::Up, MonitorState::Down), {QStringLiteral("desktop")});
    QCOMPARE(notifications.count(), 6);
    QCOMPARE(dispatcher.stats(QStringLiteral("desktop")), (AlertTargetStats{5, 0, 0, 2, 1}));
}

void TestAlertDispatcher::rateLimit_summary_goesOutOnTheNextRaise()
{
    ManualClock clock;
    AlertDispatcher dispatcher(nullptr, &clock);
    AlertTarget target = desktop();
    target.maxPerMinute = 1;
    dispatcher.setTargets({target});
    QSignalSpy notifications(&dispatcher, &AlertDispatcher::desktopNotification);
    dispatcher.raise(
        stateEvent(QStringLiteral("a"), MonitorState::Up, MonitorState::Down), {QStringLiteral("desktop")});
    dispatcher.raise(
        stateEvent(QStringLiteral("b"), MonitorState::Up, MonitorState::Down), {QStringLiteral("desktop")});
    QCOMPARE(notifications.count(), 1);
    clock.advanceMs(60'000);
    dispatcher.raise(
        stateEvent(QStringLiteral("c"), MonitorState::Up, MonitorState::Down), {QStringLiteral("desktop")});
    // The summary first, then the new alert, which the summary does not count against.
    QCOMPARE(notifications.count(), 3);
    QCOMPARE(notifications.at(1).at(0).toString(), QStringLiteral("1 alert(s) suppressed"));
    QCOMPARE(notifications.at(2).at(0).toString(), QStringLiteral("c (agent eu-1) is down"));
}

void TestAlertDispatcher::rateLimit_summary_reachesAWebhook()
{
    CapturingServer::Server receiver;
    QVERIFY(receiver.start());
    RetryExecutor executor;
    ManualClock clock;
    AlertDispatcher dispatcher(&executor, &clock);
    AlertTarget target = webhook(QStringLiteral("ops"), QUrl(QString::fromLatin1(receiver.baseUrl() + "/hook")));
    target.maxPerMinute = 1;
    dispatcher.setTargets({target});
    QSignalSpy delivered(&dispatcher, &AlertDispatcher::delivered);
    dispatcher.raise(downEvent(), {QStringLiteral("ops")});
    dispatcher.raise(stateEvent(QStringLiteral("db"), MonitorState::Up, MonitorState::Down), {QStringLiteral("ops")});
    QTRY_COMPARE_WITH_TIMEOUT(delivered.count(), 1, 10'000);
    clock.advanceMs(60'000);
    dispatcher.flushSummaries();
    QTRY_COMPARE_WITH_TIMEOUT(delivered.count(), 2, 10'000);
    QCOMPARE(receiver.requests.size(), 2);
    const QJsonObject body = QJsonDocument::fromJson(receiver.requests.at(1).body).object();
    QCOMPARE(body.value(QStringLiteral("event")).toString(), QStringLiteral("alerts-suppressed"));
    QCOMPARE(body.value(QStringLiteral("suppressed")).toInt(), 1);
    QCOMPARE(body.value(QStringLiteral("monitors")).toArray().first().toString(), QStringLiteral("db"));
}

QTEST_GUILESS_MAIN(TestAlertDispatcher)
#include "tst_alertdispatcher.moc"
