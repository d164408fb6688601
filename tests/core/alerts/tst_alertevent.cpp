// An alert as its targets see it: the webhook's JSON body, a command's
// environment, the dedupe and idempotency keys.

#include "core/alerts/alertevent.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcessEnvironment>
#include <QTest>

using namespace RetryLab::Core;

namespace {

// 2025-03-04T05:06:07.089Z
constexpr qint64 sampleAtMs = 1741064767089;

AlertEvent downEvent()
{
    StateEvent change;
    change.monitor = QStringLiteral("api");
    change.agent = QStringLiteral("eu-1");
    change.atMs = sampleAtMs;
    change.from = MonitorState::Up;
    change.to = MonitorState::Down;
    change.reason = QStringLiteral("3 checks in a row failed: http-503 after 4 attempts");
    return AlertEvent::stateChange(change);
}

AlertEvent burnEvent()
{
    AlertEvent event;
    event.kind = AlertEvent::Kind::BurnRate;
    event.monitor = QStringLiteral("api");
    event.atMs = sampleAtMs;
    event.reason = QStringLiteral("the error budget burns 14.4 times too fast");
    event.burnRate = 16.5;
    event.burnThreshold = 14.4;
    event.longWindowMs = 3'600'000;
    event.shortWindowMs = 300'000;
    event.objective = 0.999;
    return event;
}

QHash<QString, QString> asMap(const QStringList &variables)
{
    QHash<QString, QString> map;
    for (const QString &variable : variables) {
        const qsizetype equals = variable.indexOf(QLatin1Char('='));
        map.insert(variable.left(equals), variable.mid(equals + 1));
    }
    return map;
}

} // namespace

class TestAlertEvent final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void stateChange_fromStateEvent_keepsEveryField();
    void toJson_stateChange_carriesTheStatesAndIsoTime();
    void toJson_hiddenIncident_carriesTheIncident();
    void toJson_burnRate_carriesRateThresholdAndWindows();
    void toJson_suppressed_carriesTheCountAndMonitors();
    void environment_stateChange_namesEveryVariable();
    void environment_burnRate_leavesTheStatesEmpty();
    void addToEnvironment_keepsTheBaseAndAddsTheEvent();
    void dedupeKey_ignoresTimeAndReason_separatesWhatDiffers();
    void dedupeKey_cannotBeForgedByANameWithSeparators();
    void idempotencyKey_sameEventSameKey_nextEventAnother();
    void title_saysWhatHappened();
};

void TestAlertEvent::stateChange_fromStateEvent_keepsEveryField()
{
    const AlertEvent event = downEvent();
    QCOMPARE(event.kind, AlertEvent::Kind::StateChange);
    QCOMPARE(event.monitor, QStringLiteral("api"));
    QCOMPARE(event.agent, QStringLiteral("eu-1"));
    QCOMPARE(event.atMs, sampleAtMs);
    QCOMPARE(event.from, MonitorState::Up);
    QCOMPARE(event.to, MonitorState::Down);
    QVERIFY(event.reason.startsWith(QLatin1String("3 checks")));
}

void TestAlertEvent::toJson_stateChange_carriesTheStatesAndIsoTime()
{
    const QJsonObject o = downEvent().toJson();
    QCOMPARE(o.value(QStringLiteral("format")).toString(), QStringLiteral("retrylab-alert"));
    QCOMPARE(o.value(QStringLiteral("version")).toInt(), 1);
    QCOMPARE(o.value(QStringLiteral("event")).toString(), QStringLiteral("state-change"));
    QCOMPARE(o.value(QStringLiteral("monitor")).toString(), QStringLiteral("api"));
    QCOMPARE(o.value(QStringLiteral("agent")).toString(), QStringLiteral("eu-1"));
    QCOMPARE(o.value(QStringLiteral("at")).toString(), QStringLiteral("2025-03-04T05:06:07.089Z"));
    QCOMPARE(o.value(QStringLiteral("from")).toString(), QStringLiteral("up"));
    QCOMPARE(o.value(QStringLiteral("to")).toString(), QStringLiteral("down"));
    QCOMPARE(o.value(QStringLiteral("reason")).toString(), downEvent().reason);
    QCOMPARE(o.value(QStringLiteral("title")).toString(), QStringLiteral("api (agent eu-1) is down"));
    QVERIFY(!o.contains(QStringLiteral("burnRate")));
    QVERIFY(!o.contains(QStringLiteral("suppressed")));
    // A receiver reads the time back to the millisecond.
    QCOMPARE(QDateTime::fromString(o.value(QStringLiteral("at")).toString(), Qt::ISODateWithMs).toMSecsSinceEpoch(),
        sampleAtMs);
}

void TestAlertEvent::toJson_hiddenIncident_carriesTheIncident()
{
    AlertEvent event;
    event.kind = AlertEvent::Kind::HiddenIncident;
    event.monitor = QStringLiteral("api");
    event.atMs = sampleAtMs;
    event.incidentStartMs = sampleAtMs - 120'000;
    event.failedAttempts = 7;
    event.retriedChecks = 5;
    QJsonObject o = event.toJson();
    QCOMPARE(o.value(QStringLiteral("event")).toString(), QStringLiteral("hidden-incident"));
    QCOMPARE(o.value(QStringLiteral("incidentStart")).toString(), QStringLiteral("2025-03-04T05:04:07.089Z"));
    QVERIFY(!o.contains(QStringLiteral("incidentEnd"))); // still going on
    QCOMPARE(o.value(QStringLiteral("failedAttempts")).toInt(), 7);
    QCOMPARE(o.value(QStringLiteral("retriedChecks")).toInt(), 5);
    QVERIFY(!o.contains(QStringLiteral("from")));

    event.incidentEndMs = sampleAtMs;
    o = event.toJson();
    QCOMPARE(o.value(QStringLiteral("incidentEnd")).toString(), QStringLiteral("2025-03-04T05:06:07.089Z"));
}

void TestAlertEvent::toJson_burnRate_carriesRateThresholdAndWindows()
{
    const QJsonObject o = burnEvent().toJson();
    QCOMPARE(o.value(QStringLiteral("event")).toString(), QStringLiteral("burn-rate"));
    QCOMPARE(o.value(QStringLiteral("burnRate")).toDouble(), 16.5);
    QCOMPARE(o.value(QStringLiteral("threshold")).toDouble(), 14.4);
    QCOMPARE(o.value(QStringLiteral("longWindowMs")).toInteger(), 3'600'000);
    QCOMPARE(o.value(QStringLiteral("shortWindowMs")).toInteger(), 300'000);
    QCOMPARE(o.value(QStringLiteral("objective")).toDouble(), 0.999);
    QCOMPARE(o.value(QStringLiteral("agent")).toString(), QString());
}

void TestAlertEvent::toJson_suppressed_carriesTheCountAndMonitors()
{
    AlertEvent event;
    event.kind = AlertEvent::Kind::Suppressed;
    event.atMs = sampleAtMs;
    event.suppressedCount = 12;
    event.suppressedSinceMs = sampleAtMs - 60'000;
    event.suppressedMonitors = {QStringLiteral("api"), QStringLiteral("db")};
    const QJsonObject o = event.toJson();
    QCOMPARE(o.value(QStringLiteral("event")).toString(), QStringLiteral("alerts-suppressed"));
    QCOMPARE(o.value(QStringLiteral("suppressed")).toInt(), 12);
    QCOMPARE(o.value(QStringLiteral("since")).toString(), QStringLiteral("2025-03-04T05:05:07.089Z"));
    QCOMPARE(o.value(QStringLiteral("monitors")).toArray(), QJsonArray({QStringLiteral("api"), QStringLiteral("db")}));
    QCOMPARE(o.value(QStringLiteral("title")).toString(), QStringLiteral("12 alert(s) suppressed"));
}

void TestAlertEvent::environment_stateChange_namesEveryVariable()
{
    const AlertEvent event = downEvent();
    const auto env = asMap(event.environment());
    QCOMPARE(env.value(QStringLiteral("RETRYLAB_EVENT")), QStringLiteral("state-change"));
    QCOMPARE(env.value(QStringLiteral("RETRYLAB_MONITOR")), QStringLiteral("api"));
    QCOMPARE(env.value(QStringLiteral("RETRYLAB_AGENT")), QStringLiteral("eu-1"));
    QCOMPARE(env.value(QStringLiteral("RETRYLAB_FROM")), QStringLiteral("up"));
    QCOMPARE(env.value(QStringLiteral("RETRYLAB_TO")), QStringLiteral("down"));
    QCOMPARE(env.value(QStringLiteral("RETRYLAB_REASON")), event.reason);
    QCOMPARE(env.value(QStringLiteral("RETRYLAB_AT")), QStringLiteral("2025-03-04T05:06:07.089Z"));
    QCOMPARE(env.value(QStringLiteral("RETRYLAB_TITLE")), event.title());
    const QJsonDocument json = QJsonDocument::fromJson(env.value(QStringLiteral("RETRYLAB_EVENT_JSON")).toUtf8());
    QVERIFY(json.isObject());
    QCOMPARE(json.object(), event.toJson());
}

void TestAlertEvent::environment_burnRate_leavesTheStatesEmpty()
{
    const auto env = asMap(burnEvent().environment());
    QCOMPARE(env.value(QStringLiteral("RETRYLAB_EVENT")), QStringLiteral("burn-rate"));
    // Set, and empty, so that a script needs no default for them.
    QVERIFY(env.contains(QStringLiteral("RETRYLAB_FROM")));
    QVERIFY(env.value(QStringLiteral("RETRYLAB_FROM")).isEmpty());
    QVERIFY(env.value(QStringLiteral("RETRYLAB_TO")).isEmpty());
    QVERIFY(env.value(QStringLiteral("RETRYLAB_EVENT_JSON")).contains(QLatin1String("\"burnRate\":16.5")));
}

void TestAlertEvent::addToEnvironment_keepsTheBaseAndAddsTheEvent()
{
    QProcessEnvironment environment;
    environment.insert(QStringLiteral("PATH"), QStringLiteral("/usr/bin"));
    environment.insert(QStringLiteral("RETRYLAB_MONITOR"), QStringLiteral("stale"));
    // A reason with "=" in it stays whole.
    AlertEvent event = downEvent();
    event.reason = QStringLiteral("expected status=200, got 503");
    event.addToEnvironment(environment);
    QCOMPARE(environment.value(QStringLiteral("PATH")), QStringLiteral("/usr/bin"));
    QCOMPARE(environment.value(QStringLiteral("RETRYLAB_MONITOR")), QStringLiteral("api"));
    QCOMPARE(environment.value(QStringLiteral("RETRYLAB_REASON")), QStringLiteral("expected status=200, got 503"));
    QCOMPARE(environment.keys().size(), 2 + 8);
}

void TestAlertEvent::dedupeKey_ignoresTimeAndReason_separatesWhatDiffers()
{
    const AlertEvent down = downEvent();
    AlertEvent later = down;
    later.atMs += 5000;
    later.reason = QStringLiteral("another sentence");
    QCOMPARE(later.dedupeKey(), down.dedupeKey());

    AlertEvent up = down;
    up.from = MonitorState::Down;
    up.to = MonitorState::Up;
    QVERIFY(up.dedupeKey() != down.dedupeKey());
    AlertEvent otherAgent = down;
    otherAgent.agent = QStringLiteral("us-1");
    QVERIFY(otherAgent.dedupeKey() != down.dedupeKey());
    AlertEvent otherMonitor = down;
    otherMonitor.monitor = QStringLiteral("db");
    QVERIFY(otherMonitor.dedupeKey() != down.dedupeKey());

    const AlertEvent burn = burnEvent();
    AlertEvent burnFaster = burn;
    burnFaster.burnRate = 30.0; // the same alert, burning harder
    QCOMPARE(burnFaster.dedupeKey(), burn.dedupeKey());
    AlertEvent slowWindows = burn;
    slowWindows.longWindowMs = 6 * 3'600'000;
    QVERIFY(slowWindows.dedupeKey() != burn.dedupeKey());
    QCOMPARE(down.dedupeKey(), QStringLiteral(R"(["state-change","api","eu-1","up","down"])"));
}

void TestAlertEvent::dedupeKey_cannotBeForgedByANameWithSeparators()
{
    AlertEvent a = downEvent();
    a.monitor = QStringLiteral("api\",\"eu");
    a.agent = QStringLiteral("1");
    AlertEvent b = downEvent();
    b.monitor = QStringLiteral("api");
    b.agent = QStringLiteral("eu\",\"1");
    QVERIFY(a.dedupeKey() != b.dedupeKey());
}

void TestAlertEvent::idempotencyKey_sameEventSameKey_nextEventAnother()
{
    const AlertEvent event = downEvent();
    QCOMPARE(event.idempotencyKey(), downEvent().idempotencyKey());
    QCOMPARE(event.idempotencyKey().size(), 32);
    for (char c : event.idempotencyKey())
        QVERIFY(std::isxdigit(static_cast<unsigned char>(c)));
    AlertEvent next = event;
    next.atMs += 1;
    QVERIFY(next.idempotencyKey() != event.idempotencyKey());
}

void TestAlertEvent::title_saysWhatHappened()
{
    AlertEvent event = downEvent();
    event.agent.clear();
    QCOMPARE(event.title(), QStringLiteral("api is down"));
    QCOMPARE(burnEvent().title(), QStringLiteral("api burns its error budget at 16.5× (threshold 14.4×)"));
    QVERIFY(event.text().startsWith(event.reason));
    QVERIFY(event.text().contains(QLatin1String("2025-03-04T05:06:07.089Z")));
}

QTEST_GUILESS_MAIN(TestAlertEvent)
#include "tst_alertevent.moc"
