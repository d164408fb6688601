#include "core/record/recordredactor.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace RetryLab::Core;

namespace {

// Every planted credential holds "SECRET"; none may survive a redacted copy.
AttemptRecord attemptWithCredentials()
{
    AttemptRecord a;
    a.requestId = 7;
    a.attemptIndex = 2;
    a.fallback = 1;
    a.method = "POST";
    a.url = QUrl(QStringLiteral("https://ann:pw-SECRET-1@fallback.example/v1?access_token=SECRET-2&page=3"));
    a.requestHeaders = {
        {"Authorization", "Bearer SECRET-3"},
        {"Cookie", "sid=SECRET-4; theme=dark"},
        {"Proxy-Authorization", "Basic SECRET-5"},
        {"X-Api-Key", "SECRET-6"},
        {"X-Auth-Token", "SECRET-7"},
        {"Idempotency-Key", "idem-1"},
        {"Content-Type", "application/json"},
    };
    a.requestBody = R"({"user":"ann","password":"SECRET-8"})";
    a.reasonPhrase = "Moved; see https://u:SECRET-9@elsewhere.example/";
    a.errorString = QStringLiteral("Error transferring https://ann:SECRET-10@fallback.example/ - refused");
    a.responseHeaders = {
        {"Content-Type", "application/x-www-form-urlencoded"},
        {"Set-Cookie", "sid=SECRET-11; Path=/; HttpOnly"},
        {"Retry-After", "120"},
    };
    a.responseBody = "state=ok&refresh_token=SECRET-12";
    a.reason = QStringLiteral("retrying with api_key=SECRET-13");
    a.retryAfterRaw = "120; token=SECRET-14";
    a.cause = QStringLiteral("http-503");
    a.httpStatus = 503;
    a.startNs = 10;
    a.endNs = 20;
    RedirectHop hop;
    hop.status = 302;
    hop.method = "POST";
    hop.from = QUrl(QStringLiteral("https://fallback.example/start?sig=SECRET-15"));
    hop.to = QUrl(QStringLiteral("https://user:SECRET-16@other.example/next?token=SECRET-17"));
    hop.crossOrigin = true;
    hop.droppedHeaders = {"Authorization", "Cookie"};
    hop.followed = false;
    hop.note = QStringLiteral("not followed: Authorization: Bearer SECRET-18 would go to another origin");
    hop.startNs = 11;
    hop.finishedNs = 12;
    a.redirects = {hop};
    return a;
}

RequestSpec requestWithCredentials()
{
    RequestSpec r;
    r.method = "POST";
    r.url = QUrl(QStringLiteral("https://ann:pw-SECRET-21@api.example/v1?api_key=SECRET-22"));
    r.headers = {{"Authorization", "Bearer SECRET-23"}, {"Content-Type", "application/json"}};
    r.body = R"({"client_secret":"SECRET-24","n":1})";
    r.label = QStringLiteral("login with password=SECRET-25");
    r.fallbackUrls = {QUrl(QStringLiteral("https://u:SECRET-26@fallback.example/v1?token=SECRET-27"))};
    r.readModifyWrite.writeUrl = QUrl(QStringLiteral("https://api.example/write?access_token=SECRET-28"));
    r.transport.proxyUser = QStringLiteral("proxy-SECRET-29");
    r.transport.proxyPassword = QStringLiteral("SECRET-30");
    r.transport.clientKeyPassphrase = QStringLiteral("SECRET-31");
    r.seed = 5;
    return r;
}

QByteArray headerText(const HeaderList &headers)
{
    QByteArray out;
    for (const auto &[name, value] : headers)
        out += name + ": " + value + '\n';
    return out;
}

// Everything of an attempt an export can write, as one text to search.
QByteArray everything(const AttemptRecord &a)
{
    QByteArray out = a.url.toEncoded() + '\n' + headerText(a.requestHeaders) + a.requestBody + '\n' + a.reasonPhrase
        + '\n' + a.errorString.toUtf8() + '\n' + headerText(a.responseHeaders) + a.responseBody + '\n'
        + a.reason.toUtf8() + '\n' + a.retryAfterRaw + '\n';
    for (const RedirectHop &hop : a.redirects)
        out += hop.from.toEncoded() + '\n' + hop.to.toEncoded() + '\n' + hop.note.toUtf8() + '\n';
    return out;
}

QByteArray everything(const RequestSpec &r)
{
    QByteArray out = r.url.toEncoded() + '\n' + headerText(r.headers) + r.body + '\n' + r.label.toUtf8() + '\n'
        + r.readModifyWrite.writeUrl.toEncoded() + '\n' + r.transport.proxyUser.toUtf8() + '\n'
        + r.transport.proxyPassword.toUtf8() + '\n' + r.transport.clientKeyPassphrase.toUtf8() + '\n';
    for (const QUrl &url : r.fallbackUrls)
        out += url.toEncoded() + '\n';
    return out;
}

} // namespace

// One pass over a whole record: what the exports write after it.
class TestRecordRedactor : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void attempt_everyCredentialMasked();
    void attempt_keepsWhatIsNoCredential();
    void attempt_originalUntouched();
    void attempt_omittedBodies_areEmpty();
    void request_everyCredentialMasked();
    void request_formFieldNamedLikeACredential_masked();
    void apiKeyUnderAnUnknownName_maskedByValue();
    void result_bodyReadByTheResponsesContentType();
    void verdict_nameAndMessageMasked();
    void disabled_copiesUnchanged();
};

void TestRecordRedactor::attempt_everyCredentialMasked()
{
    const AttemptRecord original = attemptWithCredentials();
    QVERIFY(everything(original).contains("SECRET"));
    const AttemptRecord shown = RecordRedactor().redacted(original);
    const QByteArray text = everything(shown);
    QVERIFY2(!text.contains("SECRET"), text.constData());

    QCOMPARE(shown.url.toString(QUrl::FullyEncoded),
        QStringLiteral("https://REDACTED:REDACTED@fallback.example/v1?access_token=REDACTED&page=3"));
    QCOMPARE(headerValue(shown.requestHeaders, "Authorization").value_or(QByteArray()), QByteArray("Bearer REDACTED"));
    QCOMPARE(
        headerValue(shown.requestHeaders, "Cookie").value_or(QByteArray()), QByteArray("sid=REDACTED; theme=REDACTED"));
    QCOMPARE(QJsonDocument::fromJson(shown.requestBody).object().value(QStringLiteral("password")).toString(),
        QStringLiteral("REDACTED"));
    QCOMPARE(shown.responseBody, QByteArray("state=ok&refresh_token=REDACTED"));
    QCOMPARE(headerValue(shown.responseHeaders, "Set-Cookie").value_or(QByteArray()),
        QByteArray("sid=REDACTED; Path=/; HttpOnly"));
    QCOMPARE(shown.redirects.at(0).to.toString(QUrl::FullyEncoded),
        QStringLiteral("https://REDACTED:REDACTED@other.example/next?token=REDACTED"));
    QVERIFY(shown.redirects.at(0).note.contains(QLatin1String("Bearer REDACTED")));
}

void TestRecordRedactor::attempt_keepsWhatIsNoCredential()
{
    const AttemptRecord original = attemptWithCredentials();
    const AttemptRecord shown = RecordRedactor().redacted(original);
    QCOMPARE(shown.requestId, original.requestId);
    QCOMPARE(shown.attemptIndex, original.attemptIndex);
    QCOMPARE(shown.fallback, original.fallback);
    QCOMPARE(shown.method, original.method);
    QCOMPARE(shown.url.host(), original.url.host());
    QCOMPARE(shown.httpStatus, original.httpStatus);
    QCOMPARE(shown.cause, original.cause);
    QCOMPARE(shown.startNs, original.startNs);
    QCOMPARE(shown.endNs, original.endNs);
    QCOMPARE(headerValue(shown.requestHeaders, "Idempotency-Key").value_or(QByteArray()), QByteArray("idem-1"));
    QCOMPARE(headerValue(shown.responseHeaders, "Retry-After").value_or(QByteArray()), QByteArray("120"));
    QCOMPARE(shown.requestHeaders.size(), original.requestHeaders.size());
    const RedirectHop &hop = shown.redirects.at(0);
    QCOMPARE(hop.status, 302);
    QCOMPARE(hop.method, QByteArray("POST"));
    QCOMPARE(hop.droppedHeaders, original.redirects.at(0).droppedHeaders);
    QCOMPARE(hop.followed, false);
    QCOMPARE(hop.crossOrigin, true);
    QCOMPARE(hop.startNs, qint64(11));
    QCOMPARE(hop.finishedNs, qint64(12));
    QCOMPARE(QJsonDocument::fromJson(shown.requestBody).object().value(QStringLiteral("user")).toString(),
        QStringLiteral("ann"));
}

void TestRecordRedactor::attempt_originalUntouched()
{
    const AttemptRecord original = attemptWithCredentials();
    const AttemptRecord copy = original;
    const AttemptRecord shown = RecordRedactor().redacted(original);
    QVERIFY(!everything(shown).contains("SECRET"));
    QCOMPARE(everything(original), everything(attemptWithCredentials()));
    QCOMPARE(everything(copy), everything(attemptWithCredentials()));
    QCOMPARE(original.redirects.at(0).to, attemptWithCredentials().redirects.at(0).to);
}

void TestRecordRedactor::attempt_omittedBodies_areEmpty()
{
    AttemptRecord original = attemptWithCredentials();
    original.responseBodyDropped = true;
    for (bool enabled : {true, false}) {
        const AttemptRecord shown = RecordRedactor(enabled).redacted(original, RecordRedactor::Bodies::Omit);
        QVERIFY(shown.requestBody.isEmpty());
        QVERIFY(shown.responseBody.isEmpty());
        QVERIFY(!shown.requestBodyDropped);
        QVERIFY(shown.responseBodyDropped);
    }
    QVERIFY(!original.requestBody.isEmpty());
}

void TestRecordRedactor::request_everyCredentialMasked()
{
    const RequestSpec original = requestWithCredentials();
    const RequestSpec shown = RecordRedactor().redacted(original);
    const QByteArray text = everything(shown);
    QVERIFY2(!text.contains("SECRET"), text.constData());
    QCOMPARE(shown.fallbackUrls.at(0).toString(QUrl::FullyEncoded),
        QStringLiteral("https://REDACTED:REDACTED@fallback.example/v1?token=REDACTED"));
    QCOMPARE(QJsonDocument::fromJson(shown.body).object().value(QStringLiteral("n")).toInt(), 1);
    QCOMPARE(shown.label, QStringLiteral("login with password=REDACTED"));
    QCOMPARE(shown.seed, original.seed);
    QCOMPARE(shown.method, original.method);
    // The original keeps every credential.
    QCOMPARE(everything(original), everything(requestWithCredentials()));
    QVERIFY(RecordRedactor().redacted(original, RecordRedactor::Bodies::Omit).body.isEmpty());
}

void TestRecordRedactor::request_formFieldNamedLikeACredential_masked()
{
    RequestSpec request;
    request.bodySource.kind = BodySource::Kind::Multipart;
    request.bodySource.parts = {FormPart{"password", "SECRET-9", {}, {}, {}}, FormPart{"title", "hello", {}, {}, {}},
        FormPart{"api_key", {}, QStringLiteral("/tmp/key.txt"), {}, {}}};
    const RequestSpec shown = RecordRedactor().redacted(request);
    QCOMPARE(shown.bodySource.parts.at(0).value, QByteArray("REDACTED"));
    QCOMPARE(shown.bodySource.parts.at(1).value, QByteArray("hello"));
    QCOMPARE(shown.bodySource.parts.at(2).filePath, QStringLiteral("/tmp/key.txt")); // a file's path is no secret
    QCOMPARE(RecordRedactor(false).redacted(request).bodySource.parts.at(0).value, QByteArray("SECRET-9"));
}

void TestRecordRedactor::apiKeyUnderAnUnknownName_maskedByValue()
{
    // An API key under names the name rule does not know: "X-Tenant" and "?t=".
    RequestSpec header;
    header.url = QUrl(QStringLiteral("https://api.example/v1?page=2"));
    header.auth.kind = AuthSpec::Kind::ApiKey;
    header.auth.key = QStringLiteral("X-Tenant");
    header.auth.value = QStringLiteral("tn-9f2+k/x");
    header.headers = {{"X-Tenant", "tn-9f2+k/x"}, {"Accept", "*/*"}};
    RequestSpec query = header;
    query.auth.key = QStringLiteral("t");
    query.auth.value = QStringLiteral("q-7781");
    query.auth.inQuery = true;
    query.headers.clear();
    RunRecord run;
    run.requests.insert(1, header);
    run.requests.insert(2, query);

    AttemptRecord sent;
    sent.requestId = 1;
    sent.url = header.url;
    sent.requestHeaders = header.headers;
    sent.responseBody = R"({"echo":"tn-9f2+k/x"})";
    sent.errorString = QStringLiteral("refused for tn-9f2+k/x");
    AttemptRecord inUrl;
    inUrl.requestId = 2;
    inUrl.url = QUrl(QStringLiteral("https://api.example/v1?page=2&t=q-7781"));

    const RecordRedactor redactor(true, run);
    const AttemptRecord a = redactor.redacted(sent);
    QCOMPARE(a.requestHeaders.at(0).second, QByteArray("REDACTED"));
    QCOMPARE(a.requestHeaders.at(1).second, QByteArray("*/*"));
    QCOMPARE(a.responseBody, QByteArray(R"({"echo":"REDACTED"})"));
    QCOMPARE(a.errorString, QStringLiteral("refused for REDACTED"));
    QCOMPARE(redactor.redacted(inUrl).url.toString(), QStringLiteral("https://api.example/v1?page=2&t=REDACTED"));
    // A request masks its own secrets by value, with or without the run.
    const RequestSpec spec = RecordRedactor().redacted(header);
    QCOMPARE(spec.headers.at(0).second, QByteArray("REDACTED"));
    QCOMPARE(spec.auth.value, QStringLiteral("REDACTED"));
    // Without the run, an attempt cannot know which value is the key; a disabled one masks nothing.
    QCOMPARE(RecordRedactor().redacted(sent).requestHeaders.at(0).second, QByteArray("tn-9f2+k/x"));
    QCOMPARE(RecordRedactor(false, run).redacted(sent).requestHeaders.at(0).second, QByteArray("tn-9f2+k/x"));
}

void TestRecordRedactor::result_bodyReadByTheResponsesContentType()
{
    RequestResult result;
    result.requestId = 7;
    result.reason = QStringLiteral("gave up on https://u:SECRET-1@h.example/");
    result.body = "a=1&password=SECRET-2";
    const HeaderList form{{"Content-Type", "application/x-www-form-urlencoded"}};
    const RequestResult shown = RecordRedactor().redacted(result, form);
    QCOMPARE(shown.body, QByteArray("a=1&password=REDACTED"));
    QVERIFY(!shown.reason.contains(QLatin1String("SECRET")));
    QCOMPARE(shown.requestId, result.requestId);
    QVERIFY(result.body.contains("SECRET-2"));
}

void TestRecordRedactor::verdict_nameAndMessageMasked()
{
    const ExpectationResult verdict{QStringLiteral("login api_key=SECRET-1"), false,
        QStringLiteral("GET https://u:SECRET-2@h/x?access_token=SECRET-3 failed"), 2.5, {1, 2}};
    const ExpectationResult shown = RecordRedactor().redacted(verdict);
    QCOMPARE(shown.name, QStringLiteral("login api_key=REDACTED"));
    QVERIFY(!shown.message.contains(QLatin1String("SECRET")));
    QCOMPARE(shown.passed, false);
    QCOMPARE(shown.durationMs, 2.5);
    QCOMPARE(shown.requestIds, verdict.requestIds);
    QVERIFY(!RecordRedactor().redactedText(QStringLiteral("token=SECRET")).contains(QLatin1String("SECRET")));
}

void TestRecordRedactor::disabled_copiesUnchanged()
{
    const RecordRedactor off(false);
    QVERIFY(!off.isEnabled());
    const AttemptRecord attempt = attemptWithCredentials();
    QCOMPARE(everything(off.redacted(attempt)), everything(attempt));
    const RequestSpec request = requestWithCredentials();
    QCOMPARE(everything(off.redacted(request)), everything(request));
    const ExpectationResult verdict{QStringLiteral("token=SECRET"), true, QStringLiteral("password=SECRET"), 0, {}};
    QCOMPARE(off.redacted(verdict), verdict);
    QCOMPARE(off.redactedText(verdict.name), verdict.name);
}

QTEST_GUILESS_MAIN(TestRecordRedactor)
#include "tst_recordredactor.moc"
