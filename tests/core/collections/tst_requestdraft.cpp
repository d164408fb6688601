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

QTEST_GUILESS_MAIN(TestRequestDraft)
#include "tst_requestdraft.moc"
