#include "core/faultserver/endpointcatalog.h"

#include "core/faultserver/faultinstruction.h"
#include "core/faultserver/tlsfault.h"
#include "core/util/coretr.h"

namespace RetryLab::Core::EndpointCatalog {

QList<FaultServerEndpoint> endpoints()
{
    return {
        {QStringLiteral("GET"), QStringLiteral("/"), QString(), Tr::tr("this list")},
        {QStringLiteral("any"), QStringLiteral("/status/{code}"),
            QStringLiteral("?retry_after=S  ?retry_after_date=DATE|S  ?ratelimit_reset=S"),
            Tr::tr("answer with status {code} (200-599); optionally with Retry-After in seconds or as an HTTP-date, "
                   "and X-RateLimit-Reset")},
        {QStringLiteral("any"), QStringLiteral("/delay/{ms}"),
            QStringLiteral("?dist=uniform&min=M  ?dist=lognormal&sigma=S"),
            Tr::tr("answer 200 after {ms} (0-%1); uniform in [M, ms], or lognormal with median ms")
                .arg(FaultInstruction::maxDelayMs)},
        {QStringLiteral("any"), QStringLiteral("/fail/{n}"), QStringLiteral("?key=K  ?code=C  ?p=P  ?retry_after=S"),
            Tr::tr("the first n requests with key K get C (default 503), then 200; with p each fails with "
                   "probability P (seeded), at most n times")},
        {QStringLiteral("any"), QStringLiteral("/fault/reset"), QStringLiteral("?when=before-headers|after-headers"),
            Tr::tr("reset the TCP connection (RST) before the response, or after its headers")},
        {QStringLiteral("any"), QStringLiteral("/fault/empty"), QString(),
            Tr::tr("close the connection without a response")},
        {QStringLiteral("any"), QStringLiteral("/fault/stall"), QString(), Tr::tr("read the request and never answer")},
        {QStringLiteral("any"), QStringLiteral("/fault/broken"), QStringLiteral("?total=M&sent=N&chunked=0|1"),
            Tr::tr("announce M body bytes (default 1024), send N (default M/2), close; chunked=1 sends N bytes as one "
                   "chunk and closes before the last chunk")},
        {QStringLiteral("any"), QStringLiteral("/fault/garbage"), QString(),
            Tr::tr("send bytes that are not HTTP, close")},
        {QStringLiteral("any"), QStringLiteral("/fault/drip"), QStringLiteral("?bytes=N&ms=T"),
            Tr::tr("answer 200 with N bytes (default 16) sent one every T ms (default 100)")},
        {QStringLiteral("any"), QStringLiteral("/ratelimit"),
            QStringLiteral("?rps=R&burst=B&key=K  ?headers=x-ratelimit|ietf|retry-after|s3"),
            Tr::tr("token bucket per key: R tokens per second (0.001 to 100000), B at most; over the limit 429 with "
                   "Retry-After; the limit told as X-RateLimit-* (the default), as the IETF draft's RateLimit and "
                   "RateLimit-Policy, or by Retry-After alone; s3: over the limit 503 SlowDown, as Amazon S3 "
                   "throttles")},
        {QStringLiteral("any"), QStringLiteral("/redirect"), QStringLiteral("?to=URL&code=C"),
            Tr::tr("answer C (301, 302, 303, 307 or 308; default 302) with Location: URL, a path or an http(s) URL "
                   "on a loopback address")},
        {QStringLiteral("GET, PUT, POST"), QStringLiteral("/occ/{name}"),
            QStringLiteral("?delay_ms=D  ?etag=body  ?envelope=NAME"),
            Tr::tr("read-modify-write resource: GET gives {\"value\": n} and an ETag; PUT (or POST) with If-Match "
                   "writes, a stale ETag gets 409 {\"status\":\"ABORTED\"}. With etag=body the version is the "
                   "document's \"etag\" field, as an IAM policy's: GET gives {\"value\": n, \"etag\": e}, a write "
                   "sends the document back with its etag (inside {\"NAME\": ...} with envelope=NAME), a stale one "
                   "gets 409 ABORTED. In IAM's own shape, POST /occ/{name}:getIamPolicy reads and POST "
                   "/occ/{name}:setIamPolicy writes")},
        {QStringLiteral("GET, PUT"), QStringLiteral("/eventual/{name}"), QStringLiteral("?hidden_ms=T"),
            Tr::tr("eventually consistent resource: PUT creates it (201), GET answers 404 for T ms (default 1000)")},
        {QStringLiteral("GET, POST"), QStringLiteral("/operation/{name}"),
            QStringLiteral("?done_after_ms=T&error=CODE"),
            Tr::tr("long-running operation: the first request starts it; polls answer \"done\": false for T ms "
                   "(default 1000), then \"done\": true with a response, or with error CODE (1-16)")},
        {QStringLiteral("GET"), QStringLiteral("/storage/v1/b/{bucket}"), QString(),
            Tr::tr("Cloud Storage, in memory: the bucket (every valid bucket name exists; storage.buckets.get)")},
        {QStringLiteral("GET"), QStringLiteral("/storage/v1/b/{bucket}/o"), QStringLiteral("?prefix=P"),
            Tr::tr("Cloud Storage: the bucket's objects (storage.objects.list)")},
        {QStringLiteral("GET, DELETE"), QStringLiteral("/storage/v1/b/{bucket}/o/{object}"),
            QStringLiteral("?alt=media  ?ifGenerationMatch=G  ?ifMetagenerationMatch=M"),
            Tr::tr("Cloud Storage: an object's metadata, its bytes with alt=media (Range too; also under "
                   "/download/storage/v1), or its deletion; a failed precondition gets 412")},
        {QStringLiteral("POST, PUT"), QStringLiteral("/upload/storage/v1/b/{bucket}/o"),
            QStringLiteral("?uploadType=media|resumable&name=N  ?upload_id=U  ?ifGenerationMatch=G"),
            Tr::tr("Cloud Storage: a media upload, or a resumable one (Location, then PUT chunks with Content-Range; "
                   "308 with Range until the last); objects and uploads share a bounded memory")},
        {QStringLiteral("POST"), QStringLiteral("/retry_test"),
            QStringLiteral("{\"instructions\": {\"storage.objects.get\": [...]}}"),
            Tr::tr("Cloud Storage's retry test API (as the storage-testbench's): store a retry test; a request with "
                   "x-retry-test-id: <id> meets the next instruction of its operation")},
        {QStringLiteral("GET, DELETE"), QStringLiteral("/retry_test/{id}"), QString(),
            Tr::tr("a retry test's instructions left and whether it is completed; DELETE forgets it (GET /retry_tests "
                   "lists them all)")},
        {QStringLiteral("POST"), QStringLiteral("/oauth/token"), QStringLiteral("?expires_in=S"),
            Tr::tr("OAuth 2.0 token endpoint: client_credentials, refresh_token, authorization_code (PKCE) and "
                   "urn:ietf:params:oauth:grant-type:jwt-bearer; client retrylab, secret retrylab-secret (HTTP "
                   "Basic or in the body); tokens live S seconds (default 3600); wrong secret 401 invalid_client, "
                   "bad grant 400 invalid_grant")},
        {QStringLiteral("GET"), QStringLiteral("/oauth/authorize"),
            QStringLiteral("?client_id=&redirect_uri=&code_challenge=&state=  ?deny=1"),
            Tr::tr("approves at once: 302 to the loopback redirect_uri with a code and the state (PKCE required); "
                   "deny=1 redirects with error=access_denied")},
        {QStringLiteral("any"), QStringLiteral("/oauth/protected"), QString(),
            Tr::tr("200 with a valid, unexpired bearer token; 401 with WWW-Authenticate: Bearer otherwise")},
        {QStringLiteral("GET"), QStringLiteral("/oauth/service-account-key"), QString(),
            Tr::tr("a Google service-account key file (JSON, private key included) whose JWTs /oauth/token "
                   "accepts; its token_uri is this server")},
        {QStringLiteral("POST"), QStringLiteral("/_control/tests"), QStringLiteral("{\"instructions\": [...]}"),
            Tr::tr("store a scripted test and get its id; send X-Retry-Test-Id: <id> to use its steps")},
        {QStringLiteral("GET"), QStringLiteral("/_control/tests/{id}"), QString(),
            Tr::tr("a test's steps and how many were used")},
        {QStringLiteral("DELETE"), QStringLiteral("/_control/tests/{id}"), QString(),
            Tr::tr("forgets a test (its place counts towards the test limit until then)")},
        {QStringLiteral("GET"), QStringLiteral("/_control/log"), QStringLiteral("?since=SEQ&limit=N"),
            Tr::tr("what the server received and did")},
        {QStringLiteral("POST"), QStringLiteral("/_control/reset"), QString(),
            Tr::tr("forget keys, tests, resources, the handshake script and the log")},
        {QStringLiteral("GET"), QStringLiteral("/_control/ca.pem"), QString(),
            Tr::tr("with HTTPS on: the CA certificate (PEM) that signs the HTTPS port's certificate, to trust on "
                   "purpose (curl --cacert)")},
        {QStringLiteral("GET"), QStringLiteral("/_control/tls"), QString(),
            Tr::tr("with HTTPS on: the HTTPS port, the port of each TLS fault and the handshake script left")},
        {QStringLiteral("POST, DELETE"), QStringLiteral("/_control/tls/handshakes"),
            QStringLiteral("{\"steps\": [...]}"),
            Tr::tr("with HTTPS on: the next TLS connections to the HTTPS port take these handshake steps in order "
                   "(shared by every client), then pass again; DELETE clears them")},
    };
}

QString usageText()
{
    QString text = Tr::tr("RetryLab fault server\n\nEndpoints:\n");
    for (const auto &e : endpoints()) {
        text += QStringLiteral("  %1 %2%3\n      %4\n")
                    .arg(e.method.leftJustified(8), e.path,
                        e.parameters.isEmpty() ? QString() : QStringLiteral("  ") + e.parameters, e.description);
    }
    text += Tr::tr("\nScripted steps (POST /_control/tests, then send X-Retry-Test-Id):\n");
    for (const auto &s : FaultInstruction::grammar())
        text += QStringLiteral("  %1 %2\n").arg(s.form.leftJustified(26), s.description);
    text += Tr::tr("\nTLS faults (with HTTPS on; TLS comes before HTTP, so each is chosen per connection: by its own "
                   "port, listed by GET /_control/tls,\nor as a step of the HTTPS port's handshake script, POST "
                   "/_control/tls/handshakes; \"step*K\" repeats a step):\n");
    text += QStringLiteral("  %1 %2\n")
                .arg(TlsFaults::name(TlsFault::Pass).leftJustified(26), TlsFaults::description(TlsFault::Pass));
    for (const TlsFault fault : TlsFaults::all())
        text
            += QStringLiteral("  %1 %2\n").arg(TlsFaults::name(fault).leftJustified(26), TlsFaults::description(fault));
    return text;
}

} // namespace RetryLab::Core::EndpointCatalog
