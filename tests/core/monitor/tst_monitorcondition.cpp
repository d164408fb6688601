#include "core/monitor/monitorcondition.h"

#include "core/record/attemptrecord.h"

#include <QJsonDocument>
#include <QTest>

using namespace RetryLab::Core;

class TestMonitorCondition : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everyKind_holdsOrSaysWhy_data();
    void everyKind_holdsOrSaysWhy();
    void allConditions_theFirstThatFailsIsTheReason();
    void describe_saysWhatItAsks();
};

namespace {

const qint64 now = QDateTime(QDate(2026, 11, 29), QTime(12, 0), Qt::UTC).toMSecsSinceEpoch();

MonitorCondition conditionOf(const QByteArray &json)
{
    JsonReader r(QJsonDocument::fromJson("{\"conditions\": [" + json + "]}").object());
    const auto read = MonitorConditions::read(r, QStringLiteral("conditions"));
    if (!read || read->size() != 1)
        qFatal("bad condition %s: %s", json.constData(), qPrintable(r.firstError().text()));
    return read->constFirst();
}

AttemptRecord record(int status, double ms, const QByteArray &contentType, const QString &notAfter)
{
    AttemptRecord r;
    r.httpStatus = status;
    r.startNs = 0;
    r.endNs = static_cast<qint64>(ms * 1e6);
    if (!contentType.isEmpty())
        r.responseHeaders.append({QByteArray("Content-Type"), contentType});
    r.tls.peerNotAfter = notAfter;
    if (!notAfter.isEmpty())
        r.tls.protocol = QStringLiteral("TLSv1.3");
    return r;
}

} // namespace

void TestMonitorCondition::everyKind_holdsOrSaysWhy_data()
{
    QTest::addColumn<QByteArray>("condition");
    QTest::addColumn<int>("status");
    QTest::addColumn<double>("ms");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QByteArray>("contentType");
    QTest::addColumn<QString>("notAfter");
    QTest::addColumn<QString>("failure"); ///< empty: holds

    const QByteArray json = R"({"status": "ok", "items": [1, 2]})";
    const QString later = QStringLiteral("2027-01-28T12:00:00Z"); // 60 days on
    QTest::addRow("status in class") << QByteArray(R"({"status": "2xx"})") << 204 << 10.0 << json << QByteArray()
                                     << QString() << QString();
    QTest::addRow("status not in list") << QByteArray(R"({"status": "200,204"})") << 201 << 10.0 << json << QByteArray()
                                        << QString() << "HTTP 201 is not in 200,204";
    QTest::addRow("status array") << QByteArray(R"({"status": [401]})") << 401 << 10.0 << json << QByteArray()
                                  << QString() << QString();
    QTest::addRow("fast enough") << QByteArray(R"({"responseTimeUnderMs": 800})") << 200 << 799.0 << json
                                 << QByteArray() << QString() << QString();
    QTest::addRow("too slow") << QByteArray(R"({"responseTimeUnderMs": 800})") << 200 << 800.0 << json << QByteArray()
                              << QString() << "not under 800 ms";
    QTest::addRow("body contains") << QByteArray(R"({"bodyContains": "items"})") << 200 << 1.0 << json << QByteArray()
                                   << QString() << QString();
    QTest::addRow("body lacks") << QByteArray(R"({"bodyContains": "healthy"})") << 200 << 1.0 << json << QByteArray()
                                << QString() << "does not contain \"healthy\"";
    QTest::addRow("pointer equals string") << QByteArray(R"({"jsonPointer": "/status", "equals": "ok"})") << 200 << 1.0
                                           << json << QByteArray() << QString() << QString();
    QTest::addRow("pointer equals number") << QByteArray(R"({"jsonPointer": "/items/1", "equals": 2})") << 200 << 1.0
                                           << json << QByteArray() << QString() << QString();
    QTest::addRow("pointer differs") << QByteArray(R"({"jsonPointer": "/status", "equals": "down"})") << 200 << 1.0
                                     << json << QByteArray() << QString() << "/status is \"ok\", not \"down\"";
    QTest::addRow("pointer finds nothing") << QByteArray(R"({"jsonPointer": "/missing", "equals": 1})") << 200 << 1.0
                                           << json << QByteArray() << QString() << "nothing at /missing";
    QTest::addRow("not JSON") << QByteArray(R"({"jsonPointer": "/status", "equals": "ok"})") << 200 << 1.0
                              << QByteArray("<html>") << QByteArray() << QString() << "not JSON";
    QTest::addRow("header present") << QByteArray(R"({"header": "content-type"})") << 200 << 1.0 << json
                                    << QByteArray("application/json") << QString() << QString();
    QTest::addRow("header missing") << QByteArray(R"({"header": "X-Served-By"})") << 200 << 1.0 << json << QByteArray()
                                    << QString() << "no X-Served-By header";
    QTest::addRow("header matches") << QByteArray(R"({"header": "Content-Type", "matches": "^application/json"})")
                                    << 200 << 1.0 << json << QByteArray("application/json; charset=utf-8") << QString()
                                    << QString();
    QTest::addRow("header differs") << QByteArray(R"({"header": "Content-Type", "matches": "^application/json"})")
                                    << 200 << 1.0 << json << QByteArray("text/html") << QString()
                                    << "does not match ^application/json";
    QTest::addRow("certificate long enough")
        << QByteArray(R"({"certificateValidDays": 30})") << 200 << 1.0 << json << QByteArray() << later << QString();
    QTest::addRow("certificate too short") << QByteArray(R"({"certificateValidDays": 90})") << 200 << 1.0 << json
                                           << QByteArray() << later << "expires in 60 days";
    QTest::addRow("certificate expired") << QByteArray(R"({"certificateValidDays": 0})") << 200 << 1.0 << json
                                         << QByteArray() << QStringLiteral("2026-11-01T00:00:00Z") << "expired";
    QTest::addRow("no TLS") << QByteArray(R"({"certificateValidDays": 1})") << 200 << 1.0 << json << QByteArray()
                            << QString() << "did not come over TLS";
}

void TestMonitorCondition::everyKind_holdsOrSaysWhy()
{
    QFETCH(QByteArray, condition);
    QFETCH(int, status);
    QFETCH(double, ms);
    QFETCH(QByteArray, body);
    QFETCH(QByteArray, contentType);
    QFETCH(QString, notAfter);
    QFETCH(QString, failure);
    const auto why
        = MonitorConditions::evaluate(conditionOf(condition), record(status, ms, contentType, notAfter), body, now);
    if (failure.isEmpty()) {
        QVERIFY2(!why, qPrintable(why.value_or(QString())));
    } else {
        QVERIFY(why);
        QVERIFY2(why->contains(failure), qPrintable(*why));
    }
}

void TestMonitorCondition::allConditions_theFirstThatFailsIsTheReason()
{
    const MonitorConditions all({conditionOf(R"({"status": "2xx"})"), conditionOf(R"({"bodyContains": "a"})"),
        conditionOf(R"({"bodyContains": "b"})")});
    QVERIFY(!all.failure(record(200, 1, {}, {}), "ab"));
    QVERIFY(all.failure(record(200, 1, {}, {}), "b")->contains(QStringLiteral("\"a\"")));
    QVERIFY(all.failure(record(200, 1, {}, {}), "a")->contains(QStringLiteral("\"b\"")));
    QVERIFY(all.acceptsStatus(204));
    QVERIFY(!all.acceptsStatus(404));
}

void TestMonitorCondition::describe_saysWhatItAsks()
{
    QCOMPARE(conditionOf(R"({"status": "2xx"})").describe(), QStringLiteral("status in 2xx"));
    QCOMPARE(conditionOf(R"({"jsonPointer": "/a", "equals": true})").describe(), QStringLiteral("/a equals true"));
    QCOMPARE(conditionOf(R"({"header": "X", "matches": "y"})").describe(), QStringLiteral("header X matches y"));
}

QTEST_GUILESS_MAIN(TestMonitorCondition)
#include "tst_monitorcondition.moc"
