#include "core/executor/attemptobserver.h"

#include <QTest>

using namespace RetryLab::Core;

namespace {

const QDateTime receivedAt(QDate(2025, 1, 1), QTime(12, 0), Qt::UTC);

// What Qt reports of a complete answer: status, headers, every announced byte.
AttemptRecord answered(int status, qint64 announced = 100, qint64 received = 100)
{
    AttemptRecord record;
    record.method = "GET";
    record.httpStatus = status;
    if (announced >= 0)
        record.responseHeaders.append({QByteArray("Content-Length"), QByteArray::number(announced)});
    record.expectedBytes = announced;
    record.bytesReceived = received;
    record.networkError = status >= 500 ? QNetworkReply::ServiceUnavailableError : QNetworkReply::NoError;
    record.errorString = status >= 500 ? QStringLiteral("Service Unavailable") : QString();
    return record;
}

// A body must say "ok"; 404 is what the caller expects.
class BodySaysOk final : public ResponseCheck
{
public:
    std::optional<QString> failure(const AttemptRecord &, const QByteArray &body) const override
    {
        if (body.contains("ok"))
            return std::nullopt;
        return QStringLiteral("the body does not say ok");
    }
    bool acceptsStatus(int status) const override { return status == 404; }
};

BackoffPolicy policy()
{
    BackoffPolicy p;
    p.attemptTimeoutMs = 150;
    p.deadlineMs = 300;
    return p;
}

} // namespace

class TestAttemptObserver : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void completeAnswer_isWhatItSays_data();
    void completeAnswer_isWhatItSays();
    void shortBody_isABrokenStream_data();
    void shortBody_isABrokenStream();
    void faultAfterTheStatusLine_isANetworkError();
    void cutByTheExecutor_saysWhy_data();
    void cutByTheExecutor_saysWhy();
    void qtTransferTimeout_isATimeout();
    void proxyFailure_reportedAsUnknownError_isClassifiedByItsText_data();
    void proxyFailure_reportedAsUnknownError_isClassifiedByItsText();
    void retryAfter_recordedAndHonouredPerPolicy_data();
    void retryAfter_recordedAndHonouredPerPolicy();
    void redirects_appendedToTheReason();
    void responseCheck_failsAGoodAnswer_andRetriesWhatMayBeRepeated();
    void responseCheck_acceptsAStatusTheClassifierRefuses();
};

void TestAttemptObserver::completeAnswer_isWhatItSays_data()
{
    QTest::addColumn<int>("status");
    QTest::addColumn<int>("decision");
    QTest::addColumn<QString>("cause");
    QTest::addRow("200") << 200 << int(Classification::Decision::Success) << QStringLiteral("http-200");
    QTest::addRow("503") << 503 << int(Classification::Decision::RetryAfterDelay) << QStringLiteral("http-503");
    QTest::addRow("401") << 401 << int(Classification::Decision::GiveUp) << QStringLiteral("http-401");
}

void TestAttemptObserver::completeAnswer_isWhatItSays()
{
    QFETCH(int, status);
    QFETCH(int, decision);
    QFETCH(QString, cause);
    AttemptRecord record = answered(status);
    if (status == 401)
        record.networkError = QNetworkReply::AuthenticationRequiredError;
    const AttemptRecord before = record;
    const Classification c
        = AttemptObserver::conclude(record, AttemptEnd::Response, RequestSpec{}, policy(), "body", receivedAt);
    QCOMPARE(int(c.decision), decision);
    QCOMPARE(c.cause, cause);
    QCOMPARE(record.end, AttemptEnd::Response);
    QCOMPARE(record.errorString, before.errorString);
    QVERIFY(!record.retryAfterMs);
    QVERIFY(record.retryAfterRaw.isEmpty());
}

void TestAttemptObserver::shortBody_isABrokenStream_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<int>("status");
    QTest::addColumn<qint64>("announced");
    QTest::addColumn<qint64>("received");
    QTest::addColumn<bool>("broken");
    QTest::addRow("nothing of 1024") << QByteArray("GET") << 200 << qint64(1024) << qint64(0) << true;
    QTest::addRow("one byte short") << QByteArray("GET") << 200 << qint64(1024) << qint64(1023) << true;
    QTest::addRow("complete") << QByteArray("GET") << 200 << qint64(1024) << qint64(1024) << false;
    QTest::addRow("no Content-Length") << QByteArray("GET") << 200 << qint64(-1) << qint64(0) << false;
    // Answers that never have a body, whatever their Content-Length says.
    QTest::addRow("HEAD") << QByteArray("HEAD") << 200 << qint64(1024) << qint64(0) << false;
    QTest::addRow("204") << QByteArray("GET") << 204 << qint64(1024) << qint64(0) << false;
    QTest::addRow("304") << QByteArray("GET") << 304 << qint64(1024) << qint64(0) << false;
}

void TestAttemptObserver::shortBody_isABrokenStream()
{
    QFETCH(QByteArray, method);
    QFETCH(int, status);
    QFETCH(qint64, announced);
    QFETCH(qint64, received);
    QFETCH(bool, broken);
    // Qt 6.4 often finishes such a reply without any error.
    AttemptRecord record = answered(status, announced, received);
    record.method = method;
    const Classification c
        = AttemptObserver::conclude(record, AttemptEnd::Response, RequestSpec{}, policy(), {}, receivedAt);
    QCOMPARE(record.end, broken ? AttemptEnd::NetworkError : AttemptEnd::Response);
    QCOMPARE(c.cause == QLatin1String("broken-stream"), broken);
    if (broken) {
        QCOMPARE(c.decision, Classification::Decision::RetryAfterDelay);
        QCOMPARE(record.errorString,
            QStringLiteral("the body ended after %1 of %2 announced bytes (Qt reported no error)")
                .arg(received)
                .arg(announced));
    } else {
        QVERIFY(record.errorString.isEmpty());
    }
}

void TestAttemptObserver::faultAfterTheStatusLine_isANetworkError()
{
    // A chunked body cut off ends in RemoteHostClosedError after "200 OK".
    AttemptRecord record = answered(200, -1, 100);
    record.networkError = QNetworkReply::RemoteHostClosedError;
    record.errorString = QStringLiteral("Connection closed");
    const Classification c
        = AttemptObserver::conclude(record, AttemptEnd::Response, RequestSpec{}, policy(), {}, receivedAt);
    QCOMPARE(c.networkFault, std::optional<NetworkFaultClass>(NetworkFaultClass::ConnectionReset));
    QCOMPARE(record.end, AttemptEnd::NetworkError);
    QCOMPARE(record.httpStatus, std::optional<int>(200));
    QCOMPARE(record.errorString, QStringLiteral("Connection closed"));
}

void TestAttemptObserver::cutByTheExecutor_saysWhy_data()
{
    QTest::addColumn<int>("end");
    QTest::addColumn<double>("specTimeoutMs"); // negative: the policy's
    QTest::addColumn<QString>("errorString");
    QTest::addColumn<QString>("cause");
    QTest::addRow("per-attempt timeout") << int(AttemptEnd::AttemptTimeout) << -1.0
                                         << QStringLiteral("per-attempt timeout of 150 ms expired")
                                         << QStringLiteral("attempt-timeout");
    QTest::addRow("the request's own timeout")
        << int(AttemptEnd::AttemptTimeout) << 1000.0 << QStringLiteral("per-attempt timeout of 1000 ms expired")
        << QStringLiteral("attempt-timeout");
    QTest::addRow("deadline") << int(AttemptEnd::Deadline) << -1.0 << QStringLiteral("total deadline of 300 ms reached")
                              << QStringLiteral("deadline");
    QTest::addRow("cancelled") << int(AttemptEnd::Cancelled) << -1.0 << QStringLiteral("cancelled by the user")
                               << QStringLiteral("cancelled");
}

void TestAttemptObserver::cutByTheExecutor_saysWhy()
{
    QFETCH(int, end);
    QFETCH(double, specTimeoutMs);
    QFETCH(QString, errorString);
    QFETCH(QString, cause);
    // Cut after the headers, before the whole body: still not a broken stream.
    AttemptRecord record = answered(200, 1024, 10);
    record.networkError = QNetworkReply::OperationCanceledError;
    record.errorString = QStringLiteral("Operation canceled");
    RequestSpec spec;
    if (specTimeoutMs >= 0)
        spec.attemptTimeoutMs = specTimeoutMs;
    const Classification c = AttemptObserver::conclude(record, AttemptEnd(end), spec, policy(), {}, receivedAt);
    QCOMPARE(record.end, AttemptEnd(end));
    QCOMPARE(record.errorString, errorString);
    QCOMPARE(c.cause, cause);
}

void TestAttemptObserver::qtTransferTimeout_isATimeout()
{
    // The executor did not cut it, yet Qt says "cancelled": its transfer timeout did.
    AttemptRecord record;
    record.method = "GET";
    record.networkError = QNetworkReply::OperationCanceledError;
    record.errorString = QStringLiteral("Operation canceled");
    const Classification c
        = AttemptObserver::conclude(record, AttemptEnd::NetworkError, RequestSpec{}, policy(), {}, receivedAt);
    QCOMPARE(c.cause, QStringLiteral("timeout"));
    QCOMPARE(c.networkFault, std::optional<NetworkFaultClass>(NetworkFaultClass::Timeout));
    QCOMPARE(record.networkError, QNetworkReply::OperationCanceledError); // what Qt said stays on record
    QCOMPARE(record.errorString, QStringLiteral("Qt's transfer timeout ended the attempt (Operation canceled)"));
    QCOMPARE(record.end, AttemptEnd::NetworkError);
}

void TestAttemptObserver::proxyFailure_reportedAsUnknownError_isClassifiedByItsText_data()
{
    QTest::addColumn<int>("proxyMode");
    QTest::addColumn<QString>("errorString");
    QTest::addColumn<QString>("cause");
    QTest::addColumn<QString>("reason");
    const int http = int(TransportOptions::ProxyMode::Http);
    const int socks = int(TransportOptions::ProxyMode::Socks5);
    const QString refused = QStringLiteral("the proxy refused the connection");
    QTest::addRow("HTTP proxy refused") << http << QStringLiteral("Proxy connection refused")
                                        << QStringLiteral("connection-refused") << refused;
    QTest::addRow("SOCKS5 proxy refused")
        << socks << QStringLiteral("Connection to proxy refused") << QStringLiteral("connection-refused") << refused;
    QTest::addRow("SOCKS5 proxy closed") << socks << QStringLiteral("Connection to proxy closed prematurely")
                                         << QStringLiteral("connection-reset")
                                         << QStringLiteral("the proxy closed the connection");
    QTest::addRow("SOCKS5 credentials") << socks << QStringLiteral("Proxy authentication failed: x")
                                        << QStringLiteral("other")
                                        << QStringLiteral("the proxy refused the credentials");
    QTest::addRow("HTTP proxy not found")
        << http << QStringLiteral("Proxy server not found") << QStringLiteral("host-not-found")
        << QStringLiteral("the proxy's host name was not found");
    // Without a proxy the same words mean nothing: Qt's code stands.
    QTest::addRow("no proxy") << int(TransportOptions::ProxyMode::None) << QStringLiteral("Proxy connection refused")
                              << QStringLiteral("other") << QStringLiteral("network error");
    QTest::addRow("other text") << http << QStringLiteral("Something else") << QStringLiteral("other")
                                << QStringLiteral("network error");
}

void TestAttemptObserver::proxyFailure_reportedAsUnknownError_isClassifiedByItsText()
{
    QFETCH(int, proxyMode);
    QFETCH(QString, errorString);
    QFETCH(QString, cause);
    QFETCH(QString, reason);
    AttemptRecord record;
    record.method = "GET";
    record.networkError = QNetworkReply::UnknownNetworkError;
    record.errorString = errorString;
    RequestSpec spec;
    spec.transport.proxyMode = TransportOptions::ProxyMode(proxyMode);
    const Classification c
        = AttemptObserver::conclude(record, AttemptEnd::NetworkError, spec, policy(), {}, receivedAt);
    QCOMPARE(c.cause, cause);
    QVERIFY2(c.reason.startsWith(reason), qPrintable(c.reason));
    QCOMPARE(record.networkError, QNetworkReply::UnknownNetworkError); // what Qt said stays on record
    QCOMPARE(record.errorString, errorString);
}

void TestAttemptObserver::retryAfter_recordedAndHonouredPerPolicy_data()
{
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<bool>("honour");
    QTest::addColumn<double>("retryAfterMs"); // negative: none
    QTest::addRow("seconds") << QByteArray("2") << true << 2000.0;
    QTest::addRow("a date") << QByteArray("Wed, 01 Jan 2025 12:00:30 GMT") << true << 30'000.0;
    QTest::addRow("not honoured") << QByteArray("2") << false << -1.0;
    QTest::addRow("invalid") << QByteArray("soon") << true << -1.0;
}

void TestAttemptObserver::retryAfter_recordedAndHonouredPerPolicy()
{
    QFETCH(QByteArray, value);
    QFETCH(bool, honour);
    QFETCH(double, retryAfterMs);
    AttemptRecord record = answered(503);
    record.responseHeaders.append({QByteArray("Retry-After"), value});
    BackoffPolicy p = policy();
    p.classification.honourRetryAfter = honour;
    const Classification c = AttemptObserver::conclude(record, AttemptEnd::Response, RequestSpec{}, p, {}, receivedAt);
    QCOMPARE(record.retryAfterRaw, value); // on record whatever the policy does with it
    if (retryAfterMs < 0) {
        QVERIFY(!record.retryAfterMs);
    } else {
        QCOMPARE(record.retryAfterMs, std::optional<double>(retryAfterMs));
        QVERIFY(c.retryAfter);
    }
    if (!honour)
        QVERIFY(!c.retryAfter);
}

void TestAttemptObserver::redirects_appendedToTheReason()
{
    AttemptRecord record = answered(200);
    RedirectHop hop;
    hop.status = 302;
    hop.to = QUrl(QStringLiteral("http://b.test/landing"));
    hop.crossOrigin = true;
    hop.droppedHeaders = {"Authorization"};
    record.redirects = {hop};
    const Classification c
        = AttemptObserver::conclude(record, AttemptEnd::Response, RequestSpec{}, policy(), {}, receivedAt);
    QCOMPARE(c.reason,
        QStringLiteral("HTTP 200: success; followed 1 redirect(s); Authorization not sent to http://b.test/landing "
                       "(another origin)"));
}

void TestAttemptObserver::responseCheck_failsAGoodAnswer_andRetriesWhatMayBeRepeated()
{
    RequestSpec spec;
    spec.responseCheck = std::make_shared<BodySaysOk>();
    AttemptRecord good = answered(200);
    QCOMPARE(AttemptObserver::conclude(good, AttemptEnd::Response, spec, policy(), "all ok", receivedAt).decision,
        Classification::Decision::Success);

    AttemptRecord record = answered(200);
    const Classification c
        = AttemptObserver::conclude(record, AttemptEnd::Response, spec, policy(), "nope", receivedAt);
    QCOMPARE(c.decision, Classification::Decision::RetryAfterDelay);
    QCOMPARE(c.cause, QStringLiteral("condition"));
    QVERIFY2(c.reason.contains(QStringLiteral("the body does not say ok")), qPrintable(c.reason));
    QVERIFY(c.repeatable);

    // A POST nobody vouched for is not repeated for a failed condition either.
    spec.method = "POST";
    AttemptRecord post = answered(200);
    post.method = "POST";
    const Classification p = AttemptObserver::conclude(post, AttemptEnd::Response, spec, policy(), "nope", receivedAt);
    QCOMPARE(p.decision, Classification::Decision::GiveUp);
    QCOMPARE(p.cause, QStringLiteral("condition"));
    QVERIFY(!p.repeatable);
    spec.idempotent = true;
    AttemptRecord vouched = answered(200);
    vouched.method = "POST";
    QCOMPARE(AttemptObserver::conclude(vouched, AttemptEnd::Response, spec, policy(), "nope", receivedAt).decision,
        Classification::Decision::RetryAfterDelay);
}

void TestAttemptObserver::responseCheck_acceptsAStatusTheClassifierRefuses()
{
    RequestSpec spec;
    spec.responseCheck = std::make_shared<BodySaysOk>();
    AttemptRecord record = answered(404);
    const Classification c = AttemptObserver::conclude(record, AttemptEnd::Response, spec, policy(), "ok", receivedAt);
    QCOMPARE(c.decision, Classification::Decision::Success);
    QVERIFY2(c.reason.contains(QStringLiteral("404")), qPrintable(c.reason));
    // Accepted, it still has to pass the other conditions.
    AttemptRecord empty = answered(404);
    QCOMPARE(AttemptObserver::conclude(empty, AttemptEnd::Response, spec, policy(), "", receivedAt).cause,
        QStringLiteral("condition"));
    // Without the check, 404 stays a failure.
    AttemptRecord plain = answered(404);
    QCOMPARE(AttemptObserver::conclude(plain, AttemptEnd::Response, RequestSpec{}, policy(), "ok", receivedAt).decision,
        Classification::Decision::GiveUp);
}

QTEST_GUILESS_MAIN(TestAttemptObserver)
#include "tst_attemptobserver.moc"
