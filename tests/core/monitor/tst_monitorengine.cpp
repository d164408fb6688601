#include "tests/core/capturingserver.h"

#include "core/faultserver/faultserver.h"
#include "core/history/historyquery.h"
#include "core/history/historystore.h"
#include "core/monitor/monitorengine.h"
#include "core/monitor/monitorschedule.h"
#include "core/monitor/monitorsfile.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace RetryLab::Core;

class TestMonitorEngine : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void faultsTheRetriesHide_checksSucceedWithEveryAttemptKept();
    void sameFaultsWithoutRetries_checksFailAndTheMonitorGoesDown();
    void failedCondition_isAFailedAttemptThatIsRetried();
    void expectedStatus_isASuccess();
    void outageAndRecovery_changeStateWithReasons();
    void stop_finishesTheChecksInFlightAndStartsNoMore();
    void pauseResumeAndCheckNow();
    void stateChangesAndHiddenIncidents_reachTheWebhook();
    void hiddenIncident_endsWithACleanCheckAndIsRaised();
    void addMonitor_whileRunning_isScheduledOnItsPhase();
    void removeMonitor_checkInFlightIsStoredAndNothingMoreRuns();
    void replaceMonitor_renamed_oldCheckKeepsItsNameAndStateStartsAgain();
    void nextDueMs_emptyWhilePausedRunningOrUnknown();
    void serverPlaceholder_isTheServerSet_atEachCheck();
    void serverPlaceholder_withoutServer_isAStoredFailedCheck();

private:
    MonitorsFile file(const QByteArray &entries, const QByteArray &extra = {}) const;
    Monitor monitor(const QByteArray &entry) const;
    static Monitor windowMonitor(const QByteArray &entry);
    static qsizetype countOf(const QSignalSpy &checks, const QString &name);
    FaultServer m_server;
};

namespace {

const QByteArray fastPolicy = R"({"name": "fast", "algorithm": "constant", "baseDelayMs": 30, "maxAttempts": 4,
    "attemptTimeoutMs": 5000, "jitterMs": 0, "intervalJitter": "none"})";

} // namespace

void TestMonitorEngine::initTestCase()
{
    QVERIFY2(m_server.listen(), qPrintable(m_server.errorString()));
}

MonitorsFile TestMonitorEngine::file(const QByteArray &entries, const QByteArray &extra) const
{
    QByteArray json = R"({"format": "retrylab-monitors", "version": 1, "environments": [{"name": "test",
        "variables": [{"name": "server", "value": ")"
        + m_server.baseUrl().toString().toUtf8() + R"("}]}], "environment": "test", )" + extra + R"("monitors": [)"
        + entries + "]}";
    json.replace("FAST", fastPolicy);
    const auto read = MonitorsFileReader::fromJson(json);
    if (!read)
        qFatal("%s", qPrintable(read.error()));
    return *read;
}

Monitor TestMonitorEngine::monitor(const QByteArray &entry) const
{
    return file(entry).monitors.constFirst();
}

// As the window reads its own monitors: {server} kept in the URL template.
Monitor TestMonitorEngine::windowMonitor(const QByteArray &entry)
{
    QByteArray json = R"({"format": "retrylab-monitors", "version": 1, "monitors": [)" + entry + "]}";
    json.replace("FAST", fastPolicy);
    const auto read = MonitorsFileReader::fromJson(json, {}, {}, {.allowServer = true});
    if (!read)
        qFatal("%s", qPrintable(read.error()));
    return read->monitors.constFirst();
}

void TestMonitorEngine::faultsTheRetriesHide_checksSucceedWithEveryAttemptKept()
{
    MonitorEngine engine;
    engine.setAgent(QStringLiteral("test-agent"));
    engine.setMonitors({monitor(R"({"name": "hidden", "url": "{{server}}/fail/2?key={id}", "intervalMs": 200,
        "policy": FAST})")});
    QSignalSpy checks(&engine, &MonitorEngine::checkFinished);
    QSignalSpy states(&engine, &MonitorEngine::stateChanged);
    engine.start();
    QTRY_VERIFY_WITH_TIMEOUT(checks.size() >= 2, 20'000);
    engine.stop();
    QTRY_VERIFY(!engine.isRunning());
    const auto check = checks.constFirst().constFirst().value<StoredCheck>();
    QCOMPARE(check.monitor, QStringLiteral("hidden"));
    QCOMPARE(check.agent, QStringLiteral("test-agent"));
    QVERIFY(check.success);
    QCOMPARE(check.outcome, QStringLiteral("succeeded"));
    QCOMPARE(check.attempts.size(), 3);
    QVERIFY(!check.attempts[0].success);
    QCOMPARE(check.attempts[0].status, std::optional<int>(503));
    QCOMPARE(check.attempts[0].cause, QStringLiteral("http-503"));
    QCOMPARE(check.attempts[0].decision, QStringLiteral("retry-after-delay"));
    QVERIFY(!check.attempts[0].failureBody.isEmpty() || check.attempts[0].bytes == 0);
    QVERIFY(check.attempts[1].delayBeforeMs >= 25.0);
    QVERIFY(check.attempts[2].success);
    QVERIFY(check.attempts[2].failureBody.isEmpty());
    QVERIFY(check.attempts[0].startMs >= check.startMs);
    QVERIFY(check.endMs >= check.attempts[2].startMs);
    QCOMPARE(engine.state(QStringLiteral("hidden")), MonitorState::Up);
    QCOMPARE(states.size(), 1);
}

void TestMonitorEngine::sameFaultsWithoutRetries_checksFailAndTheMonitorGoesDown()
{
    MonitorEngine engine;
    engine.setMonitors({monitor(R"({"name": "bare", "url": "{{server}}/fail/2?key={id}", "intervalMs": 200,
        "policy": "none"})")});
    QSignalSpy checks(&engine, &MonitorEngine::checkFinished);
    QSignalSpy states(&engine, &MonitorEngine::stateChanged);
    engine.start();
    QTRY_VERIFY_WITH_TIMEOUT(checks.size() >= 2, 20'000);
    engine.stop();
    QTRY_VERIFY(!engine.isRunning());
    const auto check = checks.constFirst().constFirst().value<StoredCheck>();
    QVERIFY(!check.success);
    QCOMPARE(check.attempts.size(), 1);
    QCOMPARE(check.finalStatus, std::optional<int>(503));
    QVERIFY(!check.reason.isEmpty());
    QCOMPARE(engine.state(QStringLiteral("bare")), MonitorState::Down);
    const auto event = states.constFirst().constFirst().value<StateEvent>();
    QCOMPARE(event.to, MonitorState::Down);
    QVERIFY2(event.reason.contains(QStringLiteral("503")), qPrintable(event.reason));
}

void TestMonitorEngine::failedCondition_isAFailedAttemptThatIsRetried()
{
    MonitorEngine engine;
    engine.setMonitors({monitor(R"({"name": "cond", "url": "{{server}}/status/200", "intervalMs": 60000,
        "policy": FAST, "conditions": [{"bodyContains": "text that is never there"}]})")});
    QSignalSpy checks(&engine, &MonitorEngine::checkFinished);
    engine.start();
    QVERIFY(engine.checkNow(QStringLiteral("cond")));
    QTRY_VERIFY_WITH_TIMEOUT(checks.size() >= 1, 20'000);
    engine.stop();
    const auto check = checks.constFirst().constFirst().value<StoredCheck>();
    QVERIFY(!check.success);
    QCOMPARE(check.attempts.size(), 4);
    for (const StoredAttempt &a : check.attempts) {
        QVERIFY(!a.success);
        QCOMPARE(a.status, std::optional<int>(200));
        QCOMPARE(a.cause, QStringLiteral("condition"));
        QVERIFY2(a.reason.contains(QStringLiteral("text that is never there")), qPrintable(a.reason));
    }
    QCOMPARE(check.outcome, QStringLiteral("attempts-exhausted"));
}

void TestMonitorEngine::expectedStatus_isASuccess()
{
    MonitorEngine engine;
    engine.setMonitors({monitor(R"({"name": "gone", "url": "{{server}}/status/404", "intervalMs": 60000,
        "policy": FAST, "conditions": [{"status": "404"}, {"responseTimeUnderMs": 10000}]})")});
    QSignalSpy checks(&engine, &MonitorEngine::checkFinished);
    engine.start();
    QVERIFY(engine.checkNow(QStringLiteral("gone")));
    QTRY_VERIFY_WITH_TIMEOUT(checks.size() >= 1, 20'000);
    engine.stop();
    const auto check = checks.constFirst().constFirst().value<StoredCheck>();
    QVERIFY2(check.success, qPrintable(check.reason));
    QCOMPARE(check.attempts.size(), 1);
    QCOMPARE(check.finalStatus, std::optional<int>(404));
}

void TestMonitorEngine::outageAndRecovery_changeStateWithReasons()
{
    // The same key for every check: the first three fail, the rest succeed.
    MonitorEngine engine;
    engine.setMonitors({monitor(R"({"name": "outage", "url": "{{server}}/fail/3?key=outage-1", "intervalMs": 150,
        "policy": "none", "downAfter": 2, "upAfter": 1})")});
    QSignalSpy states(&engine, &MonitorEngine::stateChanged);
    engine.start();
    QTRY_VERIFY_WITH_TIMEOUT(states.size() >= 2, 20'000);
    engine.stop();
    const auto down = states.at(0).constFirst().value<StateEvent>();
    const auto up = states.at(1).constFirst().value<StateEvent>();
    QCOMPARE(down.from, MonitorState::Pending);
    QCOMPARE(down.to, MonitorState::Down);
    QVERIFY2(down.reason.contains(QStringLiteral("2 checks in a row failed")), qPrintable(down.reason));
    QCOMPARE(up.from, MonitorState::Down);
    QCOMPARE(up.to, MonitorState::Up);
    QVERIFY(up.atMs >= down.atMs);
}

void TestMonitorEngine::stop_finishesTheChecksInFlightAndStartsNoMore()
{
    MonitorEngine engine;
    engine.setMonitors({monitor(R"({"name": "slow", "url": "{{server}}/delay/400", "intervalMs": 60000,
        "policy": "none"})")});
    QSignalSpy started(&engine, &MonitorEngine::checkStarted);
    QSignalSpy checks(&engine, &MonitorEngine::checkFinished);
    QSignalSpy stopped(&engine, &MonitorEngine::stopped);
    engine.start();
    QVERIFY(engine.checkNow(QStringLiteral("slow")));
    QCOMPARE(engine.checksInFlight(), 1);
    engine.stop();
    QVERIFY(engine.isRunning());
    QVERIFY(!engine.checkNow(QStringLiteral("slow")));
    QTRY_COMPARE_WITH_TIMEOUT(stopped.size(), 1, 20'000);
    QCOMPARE(checks.size(), 1);
    QVERIFY(checks.constFirst().constFirst().value<StoredCheck>().success);
    QCOMPARE(started.size(), 1);
    QVERIFY(!engine.isRunning());
}

void TestMonitorEngine::pauseResumeAndCheckNow()
{
    MonitorEngine engine;
    engine.setMonitors({monitor(R"({"name": "p", "url": "{{server}}/status/200", "intervalMs": 100,
                            "policy": "none", "paused": true})"),
        monitor(R"({"name": "ticker", "url": "{{server}}/status/200", "intervalMs": 100, "policy": "none"})")});
    QSignalSpy checks(&engine, &MonitorEngine::checkFinished);
    const auto countOf = [&checks](const QString &name) {
        return std::count_if(checks.cbegin(), checks.cend(),
            [&name](const QList<QVariant> &args) { return args.constFirst().value<StoredCheck>().monitor == name; });
    };
    engine.start();
    QCOMPARE(engine.state(QStringLiteral("p")), MonitorState::Paused);
    QVERIFY(!engine.checkNow(QStringLiteral("p")));
    QVERIFY(engine.resume(QStringLiteral("p")));
    QTRY_VERIFY_WITH_TIMEOUT(countOf(QStringLiteral("p")) >= 2, 20'000);
    QCOMPARE(engine.state(QStringLiteral("p")), MonitorState::Up);
    QVERIFY(engine.pause(QStringLiteral("p")));
    const auto pausedAt = countOf(QStringLiteral("p"));
    const auto tickerAt = countOf(QStringLiteral("ticker"));
    // The other monitor goes on at the same interval; the paused one stays silent meanwhile.
    QTRY_VERIFY_WITH_TIMEOUT(countOf(QStringLiteral("ticker")) >= tickerAt + 4, 20'000);
    QVERIFY(countOf(QStringLiteral("p")) <= pausedAt + 1); // at most the check that was in flight
    QCOMPARE(engine.state(QStringLiteral("p")), MonitorState::Paused);
    QVERIFY(!engine.pause(QStringLiteral("nobody")));
    engine.stop();
}

void TestMonitorEngine::stateChangesAndHiddenIncidents_reachTheWebhook()
{
    CapturingServer::Server receiver;
    QVERIFY(receiver.start());
    // Every check needs one retry until the key's two faults are used, then one comes clean:
    // /fail/1 with a key per check fails once per check, a hidden incident that never ends
    // on its own; the monitor is stopped after a few checks of it.
    const MonitorsFile f = file(R"({"name": "hooked", "url": "{{server}}/fail/1?key={id}", "intervalMs": 150,
        "policy": FAST, "alerts": ["hook"]},
        {"name": "clean-after", "url": "{{server}}/fail/2?key=clean-after-1", "intervalMs": 150, "policy": "none",
         "alerts": ["hook"]})",
        R"("alerts": [{"name": "hook", "kind": "webhook", "url": ")" + receiver.baseUrl()
            + R"(/hook", "minIntervalMs": 0, "policy": {"preset": "aws-standard", "overrides": {"baseDelayMs": 10}}}],)");
    MonitorEngine engine;
    engine.setMonitors(f.monitors);
    engine.setAlertTargets(f.alertTargets);
    QSignalSpy ended(&engine, &MonitorEngine::incidentEnded);
    QSignalSpy started(&engine, &MonitorEngine::incidentStarted);
    engine.start();
    // clean-after: two failed checks (down, an incident), then good ones (up, the incident ends).
    QTRY_VERIFY_WITH_TIMEOUT(ended.size() >= 1, 20'000);
    const auto incident = ended.constFirst().constFirst().value<Incident>();
    QCOMPARE(incident.monitor, QStringLiteral("clean-after"));
    QVERIFY(!incident.hidden);
    QCOMPARE(incident.checks, 2);
    QCOMPARE(started.size(), 1);
    const auto bodies = [&receiver] {
        QList<QJsonObject> out;
        for (const CapturingServer::Request &r : receiver.requests)
            out.append(QJsonDocument::fromJson(r.body).object());
        return out;
    };
    const auto has = [&bodies](const QString &monitor, const QString &event, const QString &to) {
        for (const QJsonObject &o : bodies()) {
            if (o.value(QStringLiteral("monitor")).toString() == monitor
                && o.value(QStringLiteral("event")).toString() == event
                && (to.isEmpty() || o.value(QStringLiteral("to")).toString() == to))
                return true;
        }
        return false;
    };
    QTRY_VERIFY_WITH_TIMEOUT(
        has(QStringLiteral("clean-after"), QStringLiteral("state-change"), QStringLiteral("down")), 20'000);
    QTRY_VERIFY_WITH_TIMEOUT(
        has(QStringLiteral("clean-after"), QStringLiteral("state-change"), QStringLiteral("up")), 20'000);
    QTRY_VERIFY_WITH_TIMEOUT(
        has(QStringLiteral("hooked"), QStringLiteral("state-change"), QStringLiteral("up")), 20'000);
    engine.stop();
    QTRY_VERIFY(!engine.isRunning());
    for (const CapturingServer::Request &r : receiver.requests) {
        QCOMPARE(r.method, QByteArray("POST"));
        QCOMPARE(r.target, QByteArray("/hook"));
        QVERIFY(!r.header("Idempotency-Key").isEmpty());
    }
}

void TestMonitorEngine::hiddenIncident_endsWithACleanCheckAndIsRaised()
{
    CapturingServer::Server receiver;
    QVERIFY(receiver.start());
    // A script the server plays in order: the first two checks each need a retry, the rest come clean.
    const auto script = m_server.createTest(
        {QStringLiteral("return-503"), QStringLiteral("pass"), QStringLiteral("return-503"), QStringLiteral("pass")});
    QVERIFY2(script, qPrintable(script.error()));
    const MonitorsFile f = file(R"({"name": "flaky", "url": "{{server}}/status/200", "intervalMs": 150,
        "headers": {"X-Retry-Test-Id": ")"
            + script->toUtf8() + R"("},
        "policy": {"preset": "aws-standard", "overrides": {"baseDelayMs": 10, "maxAttempts": 2}}, "alerts": ["hook"]})",
        R"("alerts": [{"name": "hook", "kind": "webhook", "url": ")" + receiver.baseUrl()
            + R"(/hook", "minIntervalMs": 0}],)");
    MonitorEngine engine;
    engine.setMonitors(f.monitors);
    engine.setAlertTargets(f.alertTargets);
    QSignalSpy ended(&engine, &MonitorEngine::incidentEnded);
    engine.start();
    QTRY_VERIFY_WITH_TIMEOUT(ended.size() >= 1, 20'000);
    const auto hidden = ended.constFirst().constFirst().value<Incident>();
    QVERIFY(hidden.hidden);
    QCOMPARE(hidden.monitor, QStringLiteral("flaky"));
    QCOMPARE(hidden.checks, 2);
    QCOMPARE(hidden.failedAttempts, 2);
    QTRY_VERIFY_WITH_TIMEOUT(std::any_of(receiver.requests.cbegin(), receiver.requests.cend(),
                                 [](const CapturingServer::Request &r) {
                                     return QJsonDocument::fromJson(r.body).object().value(QStringLiteral("event"))
                                         == QStringLiteral("hidden-incident");
                                 }),
        20'000);
    engine.stop();
    QTRY_VERIFY(!engine.isRunning());
}

qsizetype TestMonitorEngine::countOf(const QSignalSpy &checks, const QString &name)
{
    return std::count_if(checks.cbegin(), checks.cend(),
        [&name](const QList<QVariant> &args) { return args.constFirst().value<StoredCheck>().monitor == name; });
}

void TestMonitorEngine::addMonitor_whileRunning_isScheduledOnItsPhase()
{
    MonitorEngine engine;
    engine.setMonitors({monitor(R"({"name": "first", "url": "{{server}}/status/200", "intervalMs": 60000,
        "policy": "none"})")});
    QSignalSpy checks(&engine, &MonitorEngine::checkFinished);
    engine.start();
    const Monitor added = monitor(R"({"name": "added", "url": "{{server}}/status/200", "intervalMs": 150,
        "policy": "none"})");
    QVERIFY(engine.addMonitor(added));
    QVERIFY(!engine.addMonitor(added)); // the name is taken
    QCOMPARE(engine.monitorCount(), 2);
    QCOMPARE(engine.monitorNames(), (QStringList{QStringLiteral("first"), QStringLiteral("added")}));
    const auto due = engine.nextDueMs(QStringLiteral("added"));
    QVERIFY(due.has_value());
    const qint64 phase = MonitorSchedule::phaseMs(QStringLiteral("added"), 150);
    QCOMPARE((*due - phase) % 150, 0);
    QTRY_VERIFY_WITH_TIMEOUT(countOf(checks, QStringLiteral("added")) >= 3, 20'000);
    QCOMPARE(engine.state(QStringLiteral("added")), MonitorState::Up);
    QCOMPARE(countOf(checks, QStringLiteral("first")), 0);

    // A monitor added paused waits, as one paused in the file does.
    QSignalSpy states(&engine, &MonitorEngine::stateChanged);
    Monitor paused = added;
    paused.name = QStringLiteral("added paused");
    paused.paused = true;
    QVERIFY(engine.addMonitor(paused));
    QCOMPARE(engine.state(paused.name), MonitorState::Paused);
    QCOMPARE(states.size(), 1);
    QVERIFY(!engine.nextDueMs(paused.name));
    engine.stop();
    QTRY_VERIFY(!engine.isRunning());
}

void TestMonitorEngine::removeMonitor_checkInFlightIsStoredAndNothingMoreRuns()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString database = dir.filePath(QStringLiteral("history.sqlite"));
    auto store = HistoryStore::open(database, QStringLiteral("agent"));
    QVERIFY2(store, qPrintable(store.error()));
    MonitorEngine engine;
    engine.setHistory(store->get());
    engine.setMonitors({monitor(R"({"name": "slow", "url": "{{server}}/delay/400", "intervalMs": 200,
                            "policy": "none"})"),
        monitor(R"({"name": "ticker", "url": "{{server}}/status/200", "intervalMs": 100, "policy": "none"})")});
    QSignalSpy started(&engine, &MonitorEngine::checkStarted);
    QSignalSpy checks(&engine, &MonitorEngine::checkFinished);
    engine.start();
    QTRY_VERIFY_WITH_TIMEOUT(engine.checksInFlight() >= 1 && !engine.nextDueMs(QStringLiteral("slow")), 20'000);
    QVERIFY(engine.removeMonitor(QStringLiteral("slow")));
    QVERIFY(!engine.removeMonitor(QStringLiteral("slow")));
    QCOMPARE(engine.monitorNames(), QStringList{QStringLiteral("ticker")});
    QVERIFY(!engine.nextDueMs(QStringLiteral("slow")));
    QVERIFY(!engine.checkNow(QStringLiteral("slow")));
    QTRY_COMPARE_WITH_TIMEOUT(countOf(checks, QStringLiteral("slow")), 1, 20'000);
    const auto slowStarted = std::count_if(started.cbegin(), started.cend(),
        [](const QList<QVariant> &args) { return args.constFirst().toString() == QLatin1String("slow"); });
    // The ticker goes on for longer than two of the removed one's intervals; it starts nothing.
    const auto tickerAt = countOf(checks, QStringLiteral("ticker"));
    QTRY_VERIFY_WITH_TIMEOUT(countOf(checks, QStringLiteral("ticker")) >= tickerAt + 6, 20'000);
    QCOMPARE(countOf(checks, QStringLiteral("slow")), 1);
    QCOMPARE(std::count_if(started.cbegin(), started.cend(),
                 [](const QList<QVariant> &args) { return args.constFirst().toString() == QLatin1String("slow"); }),
        slowStarted);
    // Its slot is used again by the next monitor added, whose checks run.
    QVERIFY(engine.addMonitor(monitor(R"({"name": "again", "url": "{{server}}/status/200", "intervalMs": 100,
        "policy": "none"})")));
    QTRY_VERIFY_WITH_TIMEOUT(countOf(checks, QStringLiteral("again")) >= 2, 20'000);
    QCOMPARE(countOf(checks, QStringLiteral("slow")), 1);
    engine.stop();
    QTRY_VERIFY_WITH_TIMEOUT(!engine.isRunning(), 20'000);

    auto query = HistoryQuery::open(database);
    QVERIFY2(query, qPrintable(query.error()));
    HistoryFilter filter;
    filter.monitor = QStringLiteral("slow");
    const auto stored = (*query)->checks(filter);
    QVERIFY2(stored, qPrintable(stored.error()));
    QCOMPARE(stored->size(), 1);
    QVERIFY(stored->constFirst().success);
}

void TestMonitorEngine::replaceMonitor_renamed_oldCheckKeepsItsNameAndStateStartsAgain()
{
    MonitorEngine engine;
    engine.setMonitors({monitor(R"({"name": "old", "url": "{{server}}/delay/400", "intervalMs": 60000,
                            "policy": "none"})"),
        monitor(R"({"name": "other", "url": "{{server}}/status/200", "intervalMs": 60000, "policy": "none"})")});
    QSignalSpy checks(&engine, &MonitorEngine::checkFinished);
    QSignalSpy states(&engine, &MonitorEngine::stateChanged);
    engine.start();
    QVERIFY(engine.checkNow(QStringLiteral("old")));
    QTRY_COMPARE_WITH_TIMEOUT(countOf(checks, QStringLiteral("old")), 1, 20'000);
    QCOMPARE(engine.state(QStringLiteral("old")), MonitorState::Up);

    QVERIFY(engine.checkNow(QStringLiteral("old")));
    const Monitor renamed = monitor(R"({"name": "new", "url": "{{server}}/status/503", "intervalMs": 100,
        "policy": "none"})");
    QVERIFY(!engine.replaceMonitor(QStringLiteral("nobody"), renamed));
    Monitor clash = renamed;
    clash.name = QStringLiteral("other");
    QVERIFY(!engine.replaceMonitor(QStringLiteral("old"), clash));
    QVERIFY(engine.replaceMonitor(QStringLiteral("old"), renamed));
    QStringList names = engine.monitorNames();
    names.sort();
    QCOMPARE(names, (QStringList{QStringLiteral("new"), QStringLiteral("other")}));
    QCOMPARE(engine.state(QStringLiteral("new")), MonitorState::Pending);
    // The old check in flight ends under the old name and moves no state of the new one.
    QTRY_COMPARE_WITH_TIMEOUT(countOf(checks, QStringLiteral("old")), 2, 20'000);
    QTRY_VERIFY_WITH_TIMEOUT(countOf(checks, QStringLiteral("new")) >= 1, 20'000);
    QTRY_COMPARE_WITH_TIMEOUT(engine.state(QStringLiteral("new")), MonitorState::Down, 20'000);
    const auto last = states.constLast().constFirst().value<StateEvent>();
    QCOMPARE(last.monitor, QStringLiteral("new"));
    QCOMPARE(last.from, MonitorState::Pending);
    QCOMPARE(last.to, MonitorState::Down);
    for (const QList<QVariant> &args : std::as_const(checks)) {
        const auto check = args.constFirst().value<StoredCheck>();
        if (check.monitor == QLatin1String("new"))
            QCOMPARE(check.finalStatus, std::optional<int>(503));
    }

    // Replaced under its own name, it keeps running with the new settings.
    Monitor slower = renamed;
    slower.intervalMs = 60'000;
    slower.request.url = QUrl();
    slower.urlTemplate = m_server.baseUrl().toString() + QStringLiteral("/status/200");
    QVERIFY(engine.replaceMonitor(QStringLiteral("new"), slower));
    QCOMPARE(engine.state(QStringLiteral("new")), MonitorState::Pending);
    QTRY_VERIFY_WITH_TIMEOUT(engine.nextDueMs(QStringLiteral("new")).has_value(), 20'000);
    const qint64 phase = MonitorSchedule::phaseMs(QStringLiteral("new"), 60'000);
    QCOMPARE((*engine.nextDueMs(QStringLiteral("new")) - phase) % 60'000, 0);
    engine.stop();
    QTRY_VERIFY_WITH_TIMEOUT(!engine.isRunning(), 20'000);
}

void TestMonitorEngine::nextDueMs_emptyWhilePausedRunningOrUnknown()
{
    MonitorEngine engine;
    engine.setMonitors({monitor(R"({"name": "slow", "url": "{{server}}/delay/400", "intervalMs": 60000,
        "policy": "none"})")});
    const QString slow = QStringLiteral("slow");
    QVERIFY(!engine.nextDueMs(slow)); // not running yet
    engine.start();
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const auto due = engine.nextDueMs(slow);
    QVERIFY(due.has_value());
    QVERIFY(*due >= now - 1000 && *due <= now + 60'000);
    QVERIFY(!engine.nextDueMs(QStringLiteral("nobody")));
    QVERIFY(engine.checkNow(slow));
    QVERIFY(!engine.nextDueMs(slow)); // running a check
    QSignalSpy checks(&engine, &MonitorEngine::checkFinished);
    QTRY_COMPARE_WITH_TIMEOUT(checks.size(), 1, 20'000);
    QVERIFY(engine.nextDueMs(slow).has_value());
    QVERIFY(engine.pause(slow));
    QVERIFY(!engine.nextDueMs(slow));
    QVERIFY(engine.resume(slow));
    QVERIFY(engine.nextDueMs(slow).has_value());
    engine.stop();
    QVERIFY(!engine.nextDueMs(slow));
    QTRY_VERIFY_WITH_TIMEOUT(!engine.isRunning(), 20'000);
}

void TestMonitorEngine::serverPlaceholder_isTheServerSet_atEachCheck()
{
    // Two faults per key, hidden by the retries: the check reached the real server.
    const Monitor local = windowMonitor(R"({"name": "local", "url": "{server}/fail/2?key={id}",
        "intervalMs": 60000, "policy": FAST})");
    QCOMPARE(local.urlTemplate, QStringLiteral("{server}/fail/2?key={id}"));
    MonitorEngine engine;
    engine.setServerUrl(m_server.baseUrl());
    engine.setMonitors({local});
    QSignalSpy checks(&engine, &MonitorEngine::checkFinished);
    engine.start();
    QVERIFY(engine.checkNow(QStringLiteral("local")));
    QTRY_VERIFY_WITH_TIMEOUT(checks.size() >= 1, 20'000);
    auto check = checks.constFirst().constFirst().value<StoredCheck>();
    QVERIFY2(check.success, qPrintable(check.reason));
    QCOMPARE(check.attempts.size(), 3);
    QCOMPARE(check.finalStatus, std::optional<int>(200));

    // A server started again elsewhere: the next check goes there.
    FaultServer other;
    QVERIFY2(other.listen(), qPrintable(other.errorString()));
    QVERIFY(other.baseUrl() != m_server.baseUrl());
    QSignalSpy otherRequests(&other, &FaultServer::requestHandled);
    engine.setServerUrl(other.baseUrl());
    QVERIFY(engine.checkNow(QStringLiteral("local")));
    QTRY_VERIFY_WITH_TIMEOUT(checks.size() >= 2, 20'000);
    check = checks.at(1).constFirst().value<StoredCheck>();
    QVERIFY2(check.success, qPrintable(check.reason));
    QCOMPARE(otherRequests.size(), 3);
    engine.stop();
    QTRY_VERIFY_WITH_TIMEOUT(!engine.isRunning(), 20'000);
}

void TestMonitorEngine::serverPlaceholder_withoutServer_isAStoredFailedCheck()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString database = dir.filePath(QStringLiteral("history.sqlite"));
    auto store = HistoryStore::open(database, QStringLiteral("agent"));
    QVERIFY2(store, qPrintable(store.error()));
    MonitorEngine engine;
    engine.setHistory(store->get());
    engine.setMonitors({windowMonitor(R"({"name": "local", "url": "{server}/status/200", "intervalMs": 60000,
        "policy": FAST})")});
    QSignalSpy checks(&engine, &MonitorEngine::checkFinished);
    QSignalSpy states(&engine, &MonitorEngine::stateChanged);
    engine.start();
    QVERIFY(engine.checkNow(QStringLiteral("local")));
    QTRY_VERIFY_WITH_TIMEOUT(checks.size() >= 1, 20'000);
    const auto check = checks.constFirst().constFirst().value<StoredCheck>();
    QVERIFY(!check.success);
    QVERIFY(check.attempts.isEmpty());
    QVERIFY2(
        check.reason.contains(QStringLiteral("the embedded fault server is not running")), qPrintable(check.reason));
    QTRY_COMPARE(engine.state(QStringLiteral("local")), MonitorState::Down);
    QVERIFY(!states.isEmpty());

    // Once the server runs, the next check succeeds.
    engine.setServerUrl(m_server.baseUrl());
    QVERIFY(engine.checkNow(QStringLiteral("local")));
    QTRY_VERIFY_WITH_TIMEOUT(checks.size() >= 2, 20'000);
    QVERIFY2(checks.at(1).constFirst().value<StoredCheck>().success,
        qPrintable(checks.at(1).constFirst().value<StoredCheck>().reason));
    engine.stop();
    QTRY_VERIFY_WITH_TIMEOUT(!engine.isRunning(), 20'000);

    auto query = HistoryQuery::open(database);
    QVERIFY2(query, qPrintable(query.error()));
    HistoryFilter filter;
    filter.monitor = QStringLiteral("local");
    const auto stored = (*query)->checks(filter);
    QVERIFY2(stored, qPrintable(stored.error()));
    QCOMPARE(stored->size(), 2);
    QVERIFY(!stored->at(0).success);
    QVERIFY2(stored->at(0).reason.contains(QStringLiteral("not running")), qPrintable(stored->at(0).reason));
    QVERIFY(stored->at(1).success);
}

QTEST_GUILESS_MAIN(TestMonitorEngine)
#include "tst_monitorengine.moc"
