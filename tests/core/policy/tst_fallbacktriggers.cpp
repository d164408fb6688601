// A request's own list of the faults that send it to its fallbacks: what an
// entry may be, how it is kept, and which classified attempts it matches.

#include "core/policy/fallbacktriggers.h"

#include <QJsonArray>
#include <QTest>

using namespace RetryLab::Core;

class TestFallbackTriggers : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void entries_normalizedAndDeduplicated();
    void badEntry_errorNamesIt_data();
    void badEntry_errorNamesIt();
    void json_roundTrip_badElementNamesItsIndex();
    void split_atCommasAndSpaces();
    void match_statusClassFault_data();
    void match_statusClassFault();
    void repeatable_idempotencyRulesWhateverTheFault_data();
    void repeatable_idempotencyRulesWhateverTheFault();
};

void TestFallbackTriggers::entries_normalizedAndDeduplicated()
{
    const auto entries = FallbackTriggers::normalized(
        {QStringLiteral(" 503"), QStringLiteral("5XX"), QStringLiteral("Timeout"), QStringLiteral("503")});
    QVERIFY2(entries.ok(), qPrintable(entries.error()));
    QCOMPARE(*entries, QStringList({QStringLiteral("503"), QStringLiteral("5xx"), QStringLiteral("timeout")}));
    QVERIFY(FallbackTriggers::normalized({}).ok());
}

void TestFallbackTriggers::badEntry_errorNamesIt_data()
{
    QTest::addColumn<QString>("entry");
    QTest::addRow("success status") << QStringLiteral("200");
    QTest::addRow("beyond 599") << QStringLiteral("600");
    QTest::addRow("class 6xx") << QStringLiteral("6xx");
    QTest::addRow("class 2xx") << QStringLiteral("2xx");
    QTest::addRow("unknown fault") << QStringLiteral("reset");
    QTest::addRow("empty") << QString();
    QTest::addRow("status with text") << QStringLiteral("503 Service Unavailable");
}

void TestFallbackTriggers::badEntry_errorNamesIt()
{
    QFETCH(QString, entry);
    const auto result = FallbackTriggers::normalized({QStringLiteral("503"), entry});
    QVERIFY(!result.ok());
    QVERIFY2(result.error().contains(QLatin1Char('"') + entry + QLatin1Char('"')), qPrintable(result.error()));
    // The error says what would do.
    QVERIFY2(result.error().contains(QLatin1String("connection-reset")), qPrintable(result.error()));
}

void TestFallbackTriggers::json_roundTrip_badElementNamesItsIndex()
{
    const QStringList entries{QStringLiteral("503"), QStringLiteral("4xx"), QStringLiteral("host-not-found")};
    const auto back = FallbackTriggers::fromJson(FallbackTriggers::toJson(entries));
    QVERIFY2(back.ok(), qPrintable(back.error()));
    QCOMPARE(*back, entries);

    const auto bad = FallbackTriggers::fromJson(QJsonArray{QStringLiteral("503"), QStringLiteral("teapot")});
    QVERIFY(!bad.ok());
    QCOMPARE(bad.errorDetail().path, QStringLiteral("[1]"));
    QVERIFY2(bad.error().contains(QLatin1String("\"teapot\"")), qPrintable(bad.error()));
    const auto notText = FallbackTriggers::fromJson(QJsonArray{503});
    QVERIFY(!notText.ok());
    QCOMPARE(notText.errorDetail().path, QStringLiteral("[0]"));
}

void TestFallbackTriggers::split_atCommasAndSpaces()
{
    QCOMPARE(FallbackTriggers::split(QStringLiteral("5xx, timeout  connection-reset,,")),
        QStringList({QStringLiteral("5xx"), QStringLiteral("timeout"), QStringLiteral("connection-reset")}));
    QVERIFY(FallbackTriggers::split(QStringLiteral(" , ")).isEmpty());
}

void TestFallbackTriggers::match_statusClassFault_data()
{
    QTest::addColumn<int>("status"); // 0: none
    QTest::addColumn<int>("error"); // QNetworkReply::NetworkError
    QTest::addColumn<int>("cutBy"); // AttemptObservation::CutBy
    QTest::addColumn<QStringList>("entries");
    QTest::addColumn<QString>("matched");
    const QStringList statuses{QStringLiteral("503"), QStringLiteral("4xx")};
    QTest::addRow("503 by status") << 503 << int(QNetworkReply::ServiceUnavailableError) << 0 << statuses
                                   << QStringLiteral("503");
    QTest::addRow("500 not listed") << 500 << int(QNetworkReply::InternalServerError) << 0 << statuses << QString();
    QTest::addRow("404 by class") << 404 << int(QNetworkReply::ContentNotFoundError) << 0 << statuses
                                  << QStringLiteral("4xx");
    QTest::addRow("first entry that matches")
        << 503 << int(QNetworkReply::ServiceUnavailableError) << 0
        << QStringList({QStringLiteral("5xx"), QStringLiteral("503")}) << QStringLiteral("5xx");
    QTest::addRow("200 never") << 200 << int(QNetworkReply::NoError) << 0 << QStringList({QStringLiteral("5xx")})
                               << QString();
    QTest::addRow("reset by name") << 0 << int(QNetworkReply::RemoteHostClosedError) << 0
                                   << QStringList({QStringLiteral("timeout"), QStringLiteral("connection-reset")})
                                   << QStringLiteral("connection-reset");
    QTest::addRow("a fault is not a status")
        << 0 << int(QNetworkReply::ConnectionRefusedError) << 0 << QStringList({QStringLiteral("5xx")}) << QString();
    QTest::addRow("attempt timeout") << 0 << int(QNetworkReply::OperationCanceledError)
                                     << int(AttemptObservation::CutBy::AttemptTimeout)
                                     << QStringList({QStringLiteral("timeout")}) << QStringLiteral("timeout");
    QTest::addRow("deadline counts as a timeout")
        << 0 << int(QNetworkReply::OperationCanceledError) << int(AttemptObservation::CutBy::Deadline)
        << QStringList({QStringLiteral("timeout")}) << QStringLiteral("timeout");
    QTest::addRow("deadline is not a status")
        << 0 << int(QNetworkReply::OperationCanceledError) << int(AttemptObservation::CutBy::Deadline)
        << QStringList({QStringLiteral("5xx")}) << QString();
}

void TestFallbackTriggers::match_statusClassFault()
{
    QFETCH(int, status);
    QFETCH(int, error);
    QFETCH(int, cutBy);
    QFETCH(QStringList, entries);
    QFETCH(QString, matched);
    AttemptObservation o;
    if (status > 0)
        o.httpStatus = status;
    o.networkError = QNetworkReply::NetworkError(error);
    o.cutBy = AttemptObservation::CutBy(cutBy);
    QCOMPARE(FallbackTriggers::match(entries, classify(o, ClassificationRules{})), matched);
}

// Whether the request may be sent again is the idempotency rule's, whatever the policy thinks of the fault.
void TestFallbackTriggers::repeatable_idempotencyRulesWhateverTheFault_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<int>("status");
    QTest::addColumn<int>("error");
    QTest::addColumn<bool>("marked");
    QTest::addColumn<bool>("repeatable");
    QTest::addRow("GET 400") << QByteArray("GET") << 400 << int(QNetworkReply::ProtocolInvalidOperationError) << false
                             << true;
    QTest::addRow("POST 503") << QByteArray("POST") << 503 << int(QNetworkReply::ServiceUnavailableError) << false
                              << false;
    QTest::addRow("POST reset, outcome unknown")
        << QByteArray("POST") << 0 << int(QNetworkReply::RemoteHostClosedError) << false << false;
    QTest::addRow("POST refused, never sent")
        << QByteArray("POST") << 0 << int(QNetworkReply::ConnectionRefusedError) << false << true;
    QTest::addRow("POST reset, marked idempotent")
        << QByteArray("POST") << 0 << int(QNetworkReply::RemoteHostClosedError) << true << true;
    QTest::addRow("POST 400, marked idempotent")
        << QByteArray("POST") << 400 << int(QNetworkReply::ProtocolInvalidOperationError) << true << true;
}

void TestFallbackTriggers::repeatable_idempotencyRulesWhateverTheFault()
{
    QFETCH(QByteArray, method);
    QFETCH(int, status);
    QFETCH(int, error);
    QFETCH(bool, marked);
    QFETCH(bool, repeatable);
    AttemptObservation o;
    o.method = method;
    if (status > 0)
        o.httpStatus = status;
    o.networkError = QNetworkReply::NetworkError(error);
    o.markedIdempotent = marked;
    QCOMPARE(classify(o, ClassificationRules{}).repeatable, repeatable);
}

QTEST_GUILESS_MAIN(TestFallbackTriggers)
#include "tst_fallbacktriggers.moc"
