#pragma once

// A realistic run built by hand for the export tests: several requests,
// retries, network errors, a timeout, a read-modify-write sequence, a header
// with commas, quotes and a line break, non-ASCII text, huge values, and
// credentials planted in headers, query strings, user info, bodies and error
// strings. Every planted secret contains "SECRET" and is listed in secrets().

#include "core/policy/presets.h"
#include "core/record/runrecord.h"

#include <QByteArray>
#include <QStringList>

namespace ExportSamples {

using namespace RetryLab::Core;

inline QStringList secrets()
{
    return {
        QStringLiteral("user-SECRET-U"),
        QStringLiteral("pw-SECRET-P"),
        QStringLiteral("tok-SECRET-1"),
        QStringLiteral("SECRET-BEARER-2"),
        QStringLiteral("SECRET-COOKIE-3"),
        QStringLiteral("SECRET-APIKEY-4"),
        QStringLiteral("SECRET-SETCOOKIE-5"),
        QStringLiteral("SECRET-BODY-6"),
        QStringLiteral("SECRET-KEY-7"),
        QStringLiteral("SECRET-PROXY-8"),
        QStringLiteral("SECRET-FORM-9"),
        QStringLiteral("SECRET-HOP-10"),
    };
}

inline QByteArray noteHeaderValue()
{
    return QByteArrayLiteral("a, \"quoted\" value,\r\nsecond line");
}

inline QByteArray unicodeHeaderValue()
{
    return QStringLiteral("Grüße aus Köln – 東京 🚀").toUtf8();
}

inline QByteArray binaryBody()
{
    QByteArray body;
    for (int i = 0; i < 256; ++i)
        body.append(char(i));
    return body;
}

inline QUrl secretUrl()
{
    return QUrl(
        QStringLiteral("https://user-SECRET-U:pw-SECRET-P@api.example.com/v1/items?page=2&access_token=tok-SECRET-1"
                       "&note=a%2Cb%22c"),
        QUrl::StrictMode);
}

constexpr qint64 epochNs = 5'000'000'000;

inline qint64 at(double msAfterEpoch)
{
    return epochNs + qint64(msAfterEpoch * 1e6);
}

inline AttemptRecord attempt(quint64 requestId, int index, const RequestSpec &spec, double startMs, double endMs)
{
    AttemptRecord a;
    a.requestId = requestId;
    a.attemptIndex = index;
    a.method = spec.method;
    a.url = spec.url;
    a.requestHeaders = spec.headers;
    a.startNs = at(startMs);
    a.endNs = at(endMs);
    a.finishedNs = a.endNs;
    a.startWall = QDateTime(QDate(2025, 3, 4), QTime(5, 6, 7, 89), Qt::UTC).addMSecs(qint64(startMs));
    return a;
}

inline RunRecord sampleRun()
{
    RunRecord run;
    run.policy = Presets::find(QStringLiteral("google-cloud-storage")).value_or(BackoffPolicy{});
    run.policy.name = QStringLiteral("Storage, \"tuned\" – für Tests");
    run.startedAt = QDateTime(QDate(2025, 3, 4), QTime(5, 6, 7, 89), Qt::UTC);
    run.epochNs = epochNs;
    run.seed = 9'007'199'254'740'993ULL; // 2^53 + 1

    // 1: GET with credentials everywhere; 503, refused, timeout, then 200.
    RequestSpec get;
    get.method = "GET";
    get.url = secretUrl();
    get.headers = {
        {"Authorization", "Bearer SECRET-BEARER-2"},
        {"Cookie", "session=SECRET-COOKIE-3; theme=dark"},
        {"x-api-key", "SECRET-APIKEY-4"},
        {"X-Note", noteHeaderValue()},
        {"X-Unicode", unicodeHeaderValue()},
        {"Idempotency-Key", "idem-42"},
    };
    get.label = QStringLiteral("batch 1/3 – Übersicht");
    get.idempotent = true;
    get.seed = 987'654'321;
    get.seedStream = 2;
    run.requests.insert(1, get);

    AttemptRecord a0 = attempt(1, 0, get, 0.0, 120.5);
    a0.queuedNs = 1'500'000;
    a0.connectionStartedNs = at(1.25);
    a0.requestSentNs = at(20.0);
    a0.firstByteNs = at(100.0);
    a0.httpStatus = 503;
    a0.reasonPhrase = "Service Unavailable";
    a0.networkError = QNetworkReply::ServiceUnavailableError;
    a0.errorString = QStringLiteral("Error transferring %1 - server replied: Service Unavailable")
                         .arg(secretUrl().toString(QUrl::FullyEncoded));
    a0.responseHeaders = {
        {"Content-Type", "text/plain; charset=utf-8"},
        {"Retry-After", "1"},
        {"Set-Cookie", "sid=SECRET-SETCOOKIE-5; Path=/; HttpOnly"},
        {"Content-Length", "17"},
    };
    a0.bytesReceived = 17;
    a0.expectedBytes = 17;
    a0.decision = Classification::Decision::RetryAfterDelay;
    a0.cause = QStringLiteral("http-503");
    a0.reason = QStringLiteral("HTTP 503 is transient: retry after a delay");
    a0.retryAfterMs = 1000.0;
    a0.retryAfterRaw = "1";
    a0.nextDelayMs = 1234.5;

    AttemptRecord a1 = attempt(1, 1, get, 1360.0, 1362.25);
    a1.plannedDelayMs = 1234.5;
    a1.actualDelayMs = 1239.75;
    a1.connectionStartedNs = at(1360.5);
    a1.end = AttemptEnd::NetworkError;
    a1.networkError = QNetworkReply::ConnectionRefusedError;
    a1.errorString = QStringLiteral("Connection refused while sending Authorization: Bearer SECRET-BEARER-2 to %1")
                         .arg(secretUrl().toString(QUrl::FullyEncoded));
    a1.decision = Classification::Decision::RetryAfterDelay;
    a1.cause = QStringLiteral("connection-refused");
    a1.reason = QStringLiteral("connection refused; retrying https://user-SECRET-U:pw-SECRET-P@api.example.com/"
                               "?access_token=tok-SECRET-1 in 2.1 s");
    a1.nextDelayMs = 2100.0;

    AttemptRecord a2 = attempt(1, 2, get, 3470.0, 13470.0);
    a2.plannedDelayMs = 2100.0;
    a2.actualDelayMs = 2107.75;
    a2.connectionStartedNs = at(3470.5);
    a2.requestSentNs = at(3475.0);
    a2.end = AttemptEnd::AttemptTimeout;
    a2.networkError = QNetworkReply::OperationCanceledError;
    a2.errorString = QStringLiteral("per-attempt timeout of 10000 ms expired");
    a2.decision = Classification::Decision::RetryAfterDelay;
    a2.cause = QStringLiteral("attempt-timeout");
    a2.reason = QStringLiteral("timed out: retry after a delay");
    a2.nextDelayMs = 4000.0;

    AttemptRecord a3 = attempt(1, 3, get, 17480.0, 17530.0);
    a3.plannedDelayMs = 4000.0;
    a3.actualDelayMs = 4010.0;
    a3.requestSentNs = at(17481.0); // a reused connection: no connectionStarted
    a3.firstByteNs = at(17520.0);
    // Redirected once to another origin, which got neither the token nor the Authorization.
    RedirectHop hop;
    hop.status = 302;
    hop.method = "GET";
    hop.from = get.url;
    hop.to = QUrl(QStringLiteral("http://127.0.0.1:9999/moved?token=SECRET-HOP-10"), QUrl::StrictMode);
    hop.crossOrigin = true;
    hop.droppedHeaders = {"Authorization", "Cookie", "x-api-key"};
    hop.startNs = a3.startNs;
    hop.requestSentNs = at(17480.2);
    hop.firstByteNs = at(17480.6);
    hop.finishedNs = at(17480.8);
    a3.redirects = {hop};
    a3.httpStatus = 200;
    a3.reasonPhrase = "OK";
    a3.responseHeaders = {{"Content-Type", "application/json"}, {"ETag", "\"v1\""}};
    a3.bytesReceived = 80;
    a3.expectedBytes = -1;
    a3.decision = Classification::Decision::Success;
    a3.cause = QStringLiteral("http-200");
    a3.reason = QStringLiteral("success");

    RequestResult r1;
    r1.requestId = 1;
    r1.outcome = RequestOutcome::Succeeded;
    r1.attempts = 4;
    r1.reason = QStringLiteral("succeeded after 4 attempts");
    r1.finalStatus = 200;
    r1.startNs = a0.startNs;
    r1.endNs = a3.endNs;
    r1.body = QByteArrayLiteral(R"({"items":["Grüße",1,2],"refresh_token":"SECRET-BODY-6","next":null})");

    // 2: POST of a binary body to an IP address; 500, not retried (not idempotent).
    RequestSpec post;
    post.method = "POST";
    post.url = QUrl(QStringLiteral("http://127.0.0.1:8080/upload?api_key=SECRET-KEY-7&name=x%20y"), QUrl::StrictMode);
    post.headers = {
        {"Content-Type", "application/octet-stream"},
        {"Proxy-Authorization", "Basic SECRET-PROXY-8"},
    };
    post.body = binaryBody();
    post.label = QStringLiteral("=cmd|' /C calc'!A0, \"label\"");
    run.requests.insert(2, post);

    AttemptRecord b0 = attempt(2, 0, post, 50.0, 95.0);
    b0.connectionStartedNs = at(50.5);
    b0.requestSentNs = at(60.0);
    b0.firstByteNs = at(90.0);
    b0.httpStatus = 500;
    b0.reasonPhrase = "-Internal, \"Error\"\r\nsplit";
    b0.networkError = QNetworkReply::InternalServerError;
    b0.errorString = QStringLiteral("Error transferring http://127.0.0.1:8080/upload?api_key=SECRET-KEY-7 - server "
                                    "replied: Internal Server Error");
    b0.responseHeaders = {{"Content-Type", "text/html"}, {"Content-Length", "0"}};
    b0.expectedBytes = 0;
    b0.decision = Classification::Decision::GiveUp;
    b0.cause = QStringLiteral("not-idempotent");
    b0.reason = QStringLiteral("POST is not idempotent: not retried, it may have been applied");

    RequestResult r2;
    r2.requestId = 2;
    r2.outcome = RequestOutcome::GaveUp;
    r2.attempts = 1;
    r2.reason = b0.reason;
    r2.finalStatus = 500;
    r2.startNs = b0.startNs;
    r2.endNs = b0.endNs;

    // 3: read-modify-write on an IPv6 literal; the write hits 409 ABORTED and the sequence restarts.
    RequestSpec rmw;
    rmw.kind = RequestSpec::Kind::ReadModifyWrite;
    rmw.method = "PUT";
    rmw.url = QUrl(QStringLiteral("http://[::1]:9000/counter"), QUrl::StrictMode);
    rmw.headers = {{"Content-Type", "application/x-www-form-urlencoded"}};
    rmw.body = "user=bob&password=SECRET-FORM-9";
    rmw.increment = -3;
    rmw.seed = 18'446'744'073'709'551'615ULL; // beyond 2^53: written as a string
    run.requests.insert(3, rmw);

    AttemptRecord c0 = attempt(3, 0, rmw, 200.0, 210.0);
    c0.step = QStringLiteral("read");
    c0.method = "GET";
    c0.httpStatus = 200;
    c0.responseHeaders = {{"ETag", "\"e1\""}};
    c0.decision = Classification::Decision::Success;
    c0.reason = QStringLiteral("read value 7 with ETag \"e1\"; writing 4 with If-Match");
    c0.nextDelayMs = 0.0;
    AttemptRecord c1 = attempt(3, 1, rmw, 210.0, 220.0);
    c1.step = QStringLiteral("write");
    c1.requestHeaders.append({QByteArray("If-Match"), QByteArray("\"e1\"")});
    c1.httpStatus = 409;
    c1.reasonPhrase = "Conflict";
    c1.decision = Classification::Decision::RetryAfterDelay;
    c1.cause = QStringLiteral("http-409-aborted");
    c1.reason = QStringLiteral("409 ABORTED: restart the read-modify-write sequence");
    c1.nextDelayMs = 500.0;
    AttemptRecord c2 = attempt(3, 2, rmw, 720.0, 730.0);
    c2.step = QStringLiteral("read");
    c2.sequenceRound = 1;
    c2.method = "GET";
    c2.httpStatus = 200;
    c2.decision = Classification::Decision::Success;
    c2.plannedDelayMs = 500.0;
    c2.actualDelayMs = 500.5;
    AttemptRecord c3 = attempt(3, 3, rmw, 730.0, 741.0);
    c3.step = QStringLiteral("write");
    c3.sequenceRound = 1;
    c3.httpStatus = 200;
    c3.decision = Classification::Decision::Success;

    RequestResult r3;
    r3.requestId = 3;
    r3.outcome = RequestOutcome::Succeeded;
    r3.attempts = 4;
    r3.finalStatus = 200;
    r3.startNs = c0.startNs;
    r3.endNs = c3.endNs;
    r3.body = "{\"value\":4}";

    // 4: huge values, cut by the deadline while the body was arriving.
    RequestSpec huge;
    huge.method = "GET";
    huge.url = QUrl(QStringLiteral("http://localhost:1/stream?q=%E6%9D%B1%E4%BA%AC"), QUrl::StrictMode);
    huge.headers = {{"X-Huge", QByteArray(200 * 1024, 'h')}};
    huge.attemptTimeoutMs = 1.5e6;
    huge.label = QStringLiteral("東京 stream");
    run.requests.insert(4, huge);

    AttemptRecord d0 = attempt(4, 0, huge, 300.0, 86'400'300.0);
    d0.connectionStartedNs = at(300.25);
    d0.requestSentNs = at(301.0);
    d0.firstByteNs = at(400.0);
    d0.httpStatus = 200;
    d0.responseHeaders = {{"Content-Type", "application/octet-stream"}};
    d0.bytesReceived = qint64(1) << 60;
    d0.expectedBytes = (qint64(1) << 62) + 1;
    d0.end = AttemptEnd::Deadline;
    d0.networkError = QNetworkReply::OperationCanceledError;
    d0.errorString = QStringLiteral("total deadline of 86400000 ms reached");
    d0.decision = Classification::Decision::GiveUp;
    d0.cause = QStringLiteral("deadline");
    d0.reason = QStringLiteral("the total deadline was reached");
    d0.plannedDelayMs = 86'400'000.0;
    d0.actualDelayMs = 86'400'000.25;
    d0.retryAfterMs = 3.6e6;
    d0.retryAfterRaw = "Wed, 21 Oct 2015 07:28:00 GMT";

    RequestResult r4;
    r4.requestId = 4;
    r4.outcome = RequestOutcome::DeadlineExceeded;
    r4.attempts = 1;
    r4.reason = d0.reason;
    r4.startNs = d0.startNs;
    r4.endNs = d0.endNs;

    // 5: refused before any attempt.
    RequestSpec invalid;
    invalid.method = "GET";
    invalid.label = QStringLiteral("no URL");
    run.requests.insert(5, invalid);
    RequestResult r5;
    r5.requestId = 5;
    r5.outcome = RequestOutcome::InvalidRequest;
    r5.reason = QStringLiteral("the URL is empty");
    r5.startNs = at(1.0);
    r5.endNs = at(1.0);

    // In the order they finished, as the recorder keeps them.
    run.attempts = {a0, b0, c0, c1, c2, c3, a1, a2, a3, d0};
    run.results = {r5, r2, r3, r1, r4};
    return run;
}

/// The proxy's credentials and the key's passphrase of transportRun(): no
/// export may contain them, redaction or not.
inline QStringList transportSecrets()
{
    return {QStringLiteral("proxy-user-SECRET-6"), QStringLiteral("proxy-pass-SECRET-7"),
        QStringLiteral("key-pass-SECRET-8")};
}

/// sampleRun() where request 1 went over HTTP/2 with TLS options and a proxy,
/// its first attempt's certificate errors ignored for api.example.com, and its
/// second a handshake that failed.
inline RunRecord transportRun()
{
    RunRecord run = sampleRun();
    RequestSpec &get = run.requests[1];
    get.transport.caBundlePath = QStringLiteral("/etc/retrylab/ca.pem");
    get.transport.clientCertificatePath = QStringLiteral("/home/u/client.p12");
    get.transport.clientKeyPassphrase = transportSecrets().at(2);
    get.transport.tlsFloor = TransportOptions::TlsFloor::Tls12;
    get.transport.insecureHosts = {QStringLiteral("api.example.com")};
    get.transport.proxyMode = TransportOptions::ProxyMode::Socks5;
    get.transport.proxyHost = QStringLiteral("127.0.0.1");
    get.transport.proxyPort = 1080;
    get.transport.proxyUser = transportSecrets().at(0);
    get.transport.proxyPassword = transportSecrets().at(1);
    get.transport.httpVersion = TransportOptions::HttpVersion::Http2;
    get.transport.connectTimeoutMs = 2500;
    get.transport.resolve = {HostPin::parse(QStringLiteral("api.example.com:443:127.0.0.1")).value()};
    get.transport.ipFamily = TransportOptions::IpFamily::V4;
    get.transport.keepAlive = false;
    for (AttemptRecord &a : run.attempts) {
        if (a.requestId != 1)
            continue;
        if (a.attemptIndex == 0) {
            a.protocol = QStringLiteral("HTTP/2");
            a.tls.protocol = QStringLiteral("TLSv1.3");
            a.tls.cipher = QStringLiteral("TLS_AES_256_GCM_SHA384");
            a.tls.peerSubject = QStringLiteral("CN=api.example.com, O=Example");
            a.tls.peerIssuer = QStringLiteral("CN=Example CA");
            a.tls.peerNotBefore = QStringLiteral("2025-01-01T00:00:00Z");
            a.tls.peerNotAfter = QStringLiteral("2025-02-01T00:00:00Z");
            a.tls.errors = {QStringLiteral("The certificate has expired")};
            a.tls.errorsIgnored = true;
            // The points measured beside Qt's: a lookup, the handshake's end, the pinned address.
            a.lookupStartNs = a.startNs;
            a.lookupEndNs = a.startNs + 2'000'000;
            a.connectionStartedNs = a.startNs + 2'500'000;
            a.encryptedNs = a.startNs + 9'000'000;
            a.requestSentNs = a.startNs + 9'250'000;
            a.connectAddress = QStringLiteral("127.0.0.1");
        } else if (a.attemptIndex == 1) {
            a.tls.errors = {QStringLiteral("=The host name did not match, \"quoted\"")};
            a.tls.peerSubject = QStringLiteral("CN=other.example");
            a.connectTimedOut = true;
        }
    }
    return run;
}

} // namespace ExportSamples
