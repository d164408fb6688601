#include "core/collections/requestdraft.h"

#include <QJsonArray>
#include <QTest>

using namespace RetryLab;
using Core::DraftHeader;
using Core::RequestDraft;

class TestRequestDraft final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void defaults_sendToTheEmbeddedServer();
    void json_roundTripsEveryField();
    void json_leavesCredentialValuesOut();
    void json_missingKeys_keepDefaults();
    void json_badField_isNamed_data();
    void json_badField_isNamed();
    void json_badField_pathAndReason_data();
    void json_badField_pathAndReason();
    void json_nullSeedAndShortReadModifyWrite_areAccepted();
};

void TestRequestDraft::defaults_sendToTheEmbeddedServer()
{
    const RequestDraft draft;
    QCOMPARE(draft.method, QStringLiteral("GET"));
    QCOMPARE(draft.urlTemplate, QStringLiteral("{server}/fail/3?key={id}"));
    QVERIFY(draft.headers.isEmpty());
    QVERIFY(!draft.attemptTimeoutMs);
}

void TestRequestDraft::json_roundTripsEveryField()
{
    RequestDraft draft;
    draft.method = QStringLiteral("PATCH");
    draft.urlTemplate = QStringLiteral("https://example.org/items/{id}");
    draft.headers = {{QStringLiteral("Accept"), QStringLiteral("application/json"), true},
        {QStringLiteral("X-Trace"), QStringLiteral("on"), false}};
    draft.body = QStringLiteral("{\"n\": 1}\nline two");
    draft.idempotent = true;
    draft.attemptTimeoutMs = 1234.5;
    draft.batchCount = 250;
    draft.concurrency = 17;
    draft.repeatIntervalMs = 2500;
    draft.seed = 18446744073709551615ULL; // beyond 2^53: kept exactly
    draft.fallbackTemplates = {QStringLiteral("{server}/status/200?key={id}"), QStringLiteral("https://backup.test/x")};
    draft.fallbackOn = {QStringLiteral("503"), QStringLiteral("timeout")};

    const auto back = RequestDraft::fromJson(draft.toJson());
    QVERIFY2(back, qPrintable(back.error()));
    QCOMPARE(*back, draft);
}

void TestRequestDraft::json_leavesCredentialValuesOut()
{
    RequestDraft draft;
    draft.headers = {{QStringLiteral("Authorization"), QStringLiteral("Bearer s3cret"), true},
        {QStringLiteral("X-Api-Key"), QStringLiteral("k3y"), true},
        {QStringLiteral("Idempotency-Key"), QStringLiteral("{id}"), true}};
    const QJsonObject stored = draft.toJson();
    const auto back = RequestDraft::fromJson(stored);
    QVERIFY(back);
    QCOMPARE(back->headers.size(), 3);
    QCOMPARE(back->headers.at(0).name, QStringLiteral("Authorization"));
    QCOMPARE(back->headers.at(0).value, QStringLiteral("Bearer REDACTED")); // the marker says it was not saved
    QCOMPARE(back->headers.at(1).value, QStringLiteral("REDACTED"));
    QCOMPARE(back->headers.at(2).value, QStringLiteral("{id}")); // not a secret
    QCOMPARE(RequestDraft::fromJson(draft.toJson(true))->headers.at(0).value, QStringLiteral("Bearer s3cret"));
}

void TestRequestDraft::json_missingKeys_keepDefaults()
{
    const auto back = RequestDraft::fromJson(QJsonObject{{QStringLiteral("method"), QStringLiteral("PUT")}});
    QVERIFY(back);
    RequestDraft expected;
    expected.method = QStringLiteral("PUT");
    QCOMPARE(*back, expected);
}

void TestRequestDraft::json_badField_isNamed_data()
{
    QTest::addColumn<QJsonObject>("object");
    QTest::addColumn<QString>("field");
    QTest::addRow("method not text") << QJsonObject{{QStringLiteral("method"), 3}} << QStringLiteral("method");
    QTest::addRow("fallbacks not a list")
        << QJsonObject{{QStringLiteral("fallbacks"), QStringLiteral("http://x")}} << QStringLiteral("fallbacks");
    QTest::addRow("fallback not text") << QJsonObject{{QStringLiteral("fallbacks"), QJsonArray{1}}}
                                       << QStringLiteral("fallbacks[0]");
    QTest::addRow("batch zero") << QJsonObject{{QStringLiteral("batchCount"), 0}} << QStringLiteral("batchCount");
    QTest::addRow("batch fraction") << QJsonObject{{QStringLiteral("batchCount"), 2.5}} << QStringLiteral("batchCount");
    QTest::addRow("batch huge") << QJsonObject{{QStringLiteral("batchCount"), 1e12}} << QStringLiteral("batchCount");
    QTest::addRow("concurrency text") << QJsonObject{{QStringLiteral("concurrency"), QStringLiteral("6")}}
                                      << QStringLiteral("concurrency");
    QTest::addRow("interval too short") << QJsonObject{{QStringLiteral("repeatIntervalMs"), 1}}
                                        << QStringLiteral("repeatIntervalMs");
    QTest::addRow("timeout negative") << QJsonObject{{QStringLiteral("attemptTimeoutMs"), -1}}
                                      << QStringLiteral("attemptTimeoutMs");
    QTest::addRow("seed a number") << QJsonObject{{QStringLiteral("seed"), 12}} << QStringLiteral("seed");
    QTest::addRow("seed negative") << QJsonObject{{QStringLiteral("seed"), QStringLiteral("-3")}}
                                   << QStringLiteral("seed");
    QTest::addRow("seed text") << QJsonObject{{QStringLiteral("seed"), QStringLiteral("abc")}}
                               << QStringLiteral("seed");
    QTest::addRow("idempotent text") << QJsonObject{{QStringLiteral("idempotent"), QStringLiteral("yes")}}
                                     << QStringLiteral("idempotent");
    QTest::addRow("headers object") << QJsonObject{{QStringLiteral("headers"), QJsonObject{}}}
                                    << QStringLiteral("headers");
    QTest::addRow("header not object") << QJsonObject{{QStringLiteral("headers"), QJsonArray{1}}}
                                       << QStringLiteral("headers[0]");
    QTest::addRow("header name number") << QJsonObject{{QStringLiteral("headers"),
        QJsonArray{QJsonObject{{QStringLiteral("name"), 1}}}}}
                                        << QStringLiteral("headers[0].name");
}

void TestRequestDraft::json_badField_isNamed()
{
    QFETCH(QJsonObject, object);
    QFETCH(QString, field);
    const auto result = RequestDraft::fromJson(object);
    QVERIFY(!result);
    QVERIFY2(result.error().startsWith(field), qPrintable(result.error()));
}

// Each refusal names the field itself as its path (what the settings salvage
// and the collection files leave out) and says what is wrong with it.
void TestRequestDraft::json_badField_pathAndReason_data()
{
    QTest::addColumn<QJsonObject>("object");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("reason");
    const auto rmw = [](const QJsonObject &fields) { return QJsonObject{{QStringLiteral("readModifyWrite"), fields}}; };
    QTest::addRow("method too long") << QJsonObject{{QStringLiteral("method"), QString(65, QLatin1Char('X'))}}
                                     << QStringLiteral("method") << QStringLiteral("longer than 64 characters");
    QTest::addRow("url not text") << QJsonObject{{QStringLiteral("url"), 5}} << QStringLiteral("url")
                                  << QStringLiteral("string");
    QTest::addRow("batch zero") << QJsonObject{{QStringLiteral("batchCount"), 0}} << QStringLiteral("batchCount")
                                << QStringLiteral("out of range (1 to 10000)");
    QTest::addRow("concurrency fraction") << QJsonObject{{QStringLiteral("concurrency"), 2.5}}
                                          << QStringLiteral("concurrency") << QStringLiteral("whole number");
    QTest::addRow("attempt headers text") << QJsonObject{{QStringLiteral("attemptHeaders"), QStringLiteral("no")}}
                                          << QStringLiteral("attemptHeaders") << QStringLiteral("true or false");
    QTest::addRow("timeout zero") << QJsonObject{{QStringLiteral("attemptTimeoutMs"), 0}}
                                  << QStringLiteral("attemptTimeoutMs") << QStringLiteral("more than 0");
    QTest::addRow("rmw not an object") << QJsonObject{{QStringLiteral("readModifyWrite"), 3}}
                                       << QStringLiteral("readModifyWrite") << QStringLiteral("object");
    QTest::addRow("rmw increment a number")
        << rmw({{QStringLiteral("increment"), 2}}) << QStringLiteral("readModifyWrite.increment")
        << QStringLiteral("whole number");
    QTest::addRow("rmw increment missing")
        << rmw({}) << QStringLiteral("readModifyWrite.increment") << QStringLiteral("whole number");
    QTest::addRow("rmw envelope too long")
        << rmw({{QStringLiteral("increment"), QStringLiteral("1")},
               {QStringLiteral("writeEnvelope"), QString(201, QLatin1Char('x'))}})
        << QStringLiteral("readModifyWrite.writeEnvelope") << QStringLiteral("longer than 200");
    QJsonArray nine;
    for (int i = 0; i < 9; ++i)
        nine.append(QStringLiteral("http://h/%1").arg(i));
    QTest::addRow("too many fallbacks") << QJsonObject{{QStringLiteral("fallbacks"), nine}}
                                        << QStringLiteral("fallbacks") << QStringLiteral("at most 8 URLs");
    QTest::addRow("empty fallback") << QJsonObject{{QStringLiteral("fallbacks"),
        QJsonArray{QStringLiteral("http://h/"), QString()}}}
                                    << QStringLiteral("fallbacks[1]") << QStringLiteral("must be a URL");
    QTest::addRow("fallbackOn entry not a fault")
        << QJsonObject{{QStringLiteral("fallbackOn"), QJsonArray{QStringLiteral("5xx"), QStringLiteral("6xx")}}}
        << QStringLiteral("fallbackOn[1]") << QStringLiteral("\"6xx\" is not a fault");
    QTest::addRow("seed with a sign") << QJsonObject{{QStringLiteral("seed"), QStringLiteral("+3")}}
                                      << QStringLiteral("seed") << QStringLiteral("written as a string");
    QTest::addRow("transport not an object")
        << QJsonObject{{QStringLiteral("transport"), true}} << QStringLiteral("transport") << QStringLiteral("object");
    QTest::addRow("transport field") << QJsonObject{{QStringLiteral("transport"),
        QJsonObject{{QStringLiteral("proxyPort"), QStringLiteral("x")}}}}
                                     << QStringLiteral("transport.proxyPort") << QStringLiteral("whole number");
    QJsonArray many;
    for (int i = 0; i <= RequestDraft::maxHeaders; ++i)
        many.append(QJsonObject{{QStringLiteral("name"), QStringLiteral("X-%1").arg(i)}});
    QTest::addRow("too many headers") << QJsonObject{{QStringLiteral("headers"), many}} << QStringLiteral("headers")
                                      << QStringLiteral("more than 200 entries");
    QTest::addRow("header enabled text") << QJsonObject{{QStringLiteral("headers"),
        QJsonArray{
            QJsonObject{{QStringLiteral("name"), QStringLiteral("A")}}, QJsonObject{{QStringLiteral("enabled"), 1}}}}}
                                         << QStringLiteral("headers[1].enabled") << QStringLiteral("true or false");
}

void TestRequestDraft::json_badField_pathAndReason()
{
    QFETCH(QJsonObject, object);
    QFETCH(QString, path);
    QFETCH(QString, reason);
    const auto result = RequestDraft::fromJson(object);
    QVERIFY(!result);
    QCOMPARE(result.errorDetail().path, path);
    QVERIFY2(result.errorDetail().message.contains(reason), qPrintable(result.error()));
}

// Null is how an older version wrote "no seed"; a read-modify-write needs only its increment.
void TestRequestDraft::json_nullSeedAndShortReadModifyWrite_areAccepted()
{
    const auto back = RequestDraft::fromJson(QJsonObject{{QStringLiteral("seed"), QJsonValue::Null},
        {QStringLiteral("readModifyWrite"), QJsonObject{{QStringLiteral("increment"), QStringLiteral("-4")}}}});
    QVERIFY2(back, qPrintable(back.error()));
    QVERIFY(!back->seed);
    QVERIFY(back->readModifyWrite);
    QCOMPARE(back->increment, -4);
    QCOMPARE(back->shape, RequestDraft().shape);
}

QTEST_GUILESS_MAIN(TestRequestDraft)
#include "tst_requestdraft.moc"
