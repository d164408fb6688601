#include "core/record/recordredactor.h"

#include <algorithm>

namespace RetryLab::Core {

namespace {

// A reason phrase is server text in bytes. The JSON report redacted it as a body
// without headers (JSON keys when it is JSON), CSV and HAR as text: it gets both,
// so that no export shows more of it than it did. Bytes that are not UTF-8 stay as
// they are unless the text rules find something in them.
QByteArray redactedReasonPhrase(const Redactor &redactor, const QByteArray &phrase)
{
    const QByteArray asBody = redactor.body(phrase, {});
    const QString text = QString::fromUtf8(asBody);
    const QString redacted = redactor.text(text);
    return redacted == text ? asBody : redacted.toUtf8();
}

QString maskedIfSet(const QString &secret)
{
    return secret.isEmpty() ? secret : QString::fromLatin1(Redactor::mask());
}

// A secret shorter than this is not looked for by value: it would mask every "1234" of a record.
constexpr qsizetype minSecretValue = 4;

QByteArray withoutSecretBytes(QByteArray text, const QList<QByteArray> &values)
{
    for (const QByteArray &value : values)
        text.replace(value, Redactor::mask());
    return text;
}

QString withoutSecretText(QString text, const QList<QByteArray> &values)
{
    for (const QByteArray &value : values)
        text.replace(QString::fromUtf8(value), QString::fromLatin1(Redactor::mask()));
    return text;
}

// In a URL a secret may stand as typed or percent-encoded.
QUrl withoutSecretInUrl(const QUrl &url, const QList<QByteArray> &values)
{
    QByteArray encoded = url.toEncoded();
    const QByteArray before = encoded;
    for (const QByteArray &value : values) {
        encoded.replace(value.toPercentEncoding(), Redactor::mask());
        encoded.replace(value, Redactor::mask());
    }
    return encoded == before ? url : QUrl::fromEncoded(encoded);
}

HeaderList withoutSecretHeaders(HeaderList headers, const QList<QByteArray> &values)
{
    for (auto &header : headers)
        header.second = withoutSecretBytes(header.second, values);
    return headers;
}

AttemptRecord attemptWithoutValues(const AttemptRecord &in, const QList<QByteArray> &values)
{
    if (values.isEmpty())
        return in;
    AttemptRecord out = in;
    out.url = withoutSecretInUrl(in.url, values);
    out.requestHeaders = withoutSecretHeaders(in.requestHeaders, values);
    out.responseHeaders = withoutSecretHeaders(in.responseHeaders, values);
    out.requestBody = withoutSecretBytes(in.requestBody, values);
    out.responseBody = withoutSecretBytes(in.responseBody, values);
    out.errorString = withoutSecretText(in.errorString, values);
    out.reason = withoutSecretText(in.reason, values);
    for (RedirectHop &hop : out.redirects) {
        hop.from = withoutSecretInUrl(hop.from, values);
        hop.to = withoutSecretInUrl(hop.to, values);
        hop.note = withoutSecretText(hop.note, values);
    }
    return out;
}

RequestSpec requestWithoutValues(const RequestSpec &in, const QList<QByteArray> &values)
{
    if (values.isEmpty())
        return in;
    RequestSpec out = in;
    out.url = withoutSecretInUrl(in.url, values);
    out.headers = withoutSecretHeaders(in.headers, values);
    out.body = withoutSecretBytes(in.body, values);
    return out;
}

} // namespace

RecordRedactor::RecordRedactor(bool enabled, const RunRecord &run) : m_redactor(enabled)
{
    for (const RequestSpec &request : run.requests)
        addSecretsOf(request, &m_secretValues);
}

void RecordRedactor::addSecretsOf(const RequestSpec &request, QList<QByteArray> *values) const
{
    for (const QString &secret : request.auth.secrets()) {
        const QByteArray bytes = secret.toUtf8();
        if (bytes.size() >= minSecretValue && bytes != Redactor::mask() && !values->contains(bytes))
            values->append(bytes);
    }
    // The longest first: a secret that holds another is masked whole.
    std::sort(
        values->begin(), values->end(), [](const QByteArray &a, const QByteArray &b) { return a.size() > b.size(); });
}

AttemptRecord RecordRedactor::redacted(const AttemptRecord &attempt, Bodies bodies) const
{
    AttemptRecord out = attempt;
    if (bodies == Bodies::Omit) {
        out.requestBody.clear();
        out.responseBody.clear();
    }
    if (!isEnabled())
        return out;

    out.url = m_redactor.url(attempt.url);
    out.requestHeaders = m_redactor.headers(attempt.requestHeaders);
    out.responseHeaders = m_redactor.headers(attempt.responseHeaders);
    if (bodies == Bodies::Include) {
        // Read by the headers they travelled with, as they were: their Content-Type says JSON or form.
        out.requestBody = m_redactor.body(attempt.requestBody, attempt.requestHeaders);
        out.responseBody = m_redactor.body(attempt.responseBody, attempt.responseHeaders);
    }
    out.reasonPhrase = redactedReasonPhrase(m_redactor, attempt.reasonPhrase);
    out.errorString = m_redactor.text(attempt.errorString);
    out.reason = m_redactor.text(attempt.reason);
    // The raw copy of a response header shows no more than the header does.
    out.retryAfterRaw = m_redactor.headerValue("Retry-After", attempt.retryAfterRaw);
    for (RedirectHop &hop : out.redirects) {
        hop.from = m_redactor.url(hop.from);
        hop.to = m_redactor.url(hop.to);
        hop.note = m_redactor.text(hop.note);
    }
    return attemptWithoutValues(out, m_secretValues);
}

RequestSpec RecordRedactor::redacted(const RequestSpec &request, Bodies bodies) const
{
    RequestSpec out = request;
    if (bodies == Bodies::Omit)
        out.body.clear();
    if (!isEnabled())
        return out;

    out.url = m_redactor.url(request.url);
    out.headers = m_redactor.headers(request.headers);
    if (bodies == Bodies::Include)
        out.body = m_redactor.body(request.body, request.headers);
    out.label = m_redactor.text(request.label);
    out.readModifyWrite.writeUrl = m_redactor.url(request.readModifyWrite.writeUrl);
    for (QUrl &url : out.fallbackUrls)
        url = m_redactor.url(url);
    // No export writes these (TransportJson leaves them out), and a copy need not hold them either.
    out.transport.proxyUser = maskedIfSet(request.transport.proxyUser);
    out.transport.proxyPassword = maskedIfSet(request.transport.proxyPassword);
    out.transport.clientKeyPassphrase = maskedIfSet(request.transport.clientKeyPassphrase);
    out.auth.forEachSecret([](QString &secret) { secret = maskedIfSet(secret); });
    // A form field named like a credential (password=..., api_key=...) is masked as a query parameter would be.
    for (FormPart &part : out.bodySource.parts) {
        if (!part.isFile() && !part.value.isEmpty() && Redactor::isSensitiveName(QString::fromUtf8(part.name)))
            part.value = Redactor::mask();
    }
    // Its own secrets and the run's, wherever they were put.
    QList<QByteArray> values = m_secretValues;
    addSecretsOf(request, &values);
    return requestWithoutValues(out, values);
}

RequestResult RecordRedactor::redacted(const RequestResult &result, const HeaderList &responseHeaders) const
{
    RequestResult out = result;
    if (!isEnabled())
        return out;
    out.reason = m_redactor.text(result.reason);
    out.body = m_redactor.body(result.body, responseHeaders);
    return out;
}

ExpectationResult RecordRedactor::redacted(const ExpectationResult &verdict) const
{
    ExpectationResult out = verdict;
    if (!isEnabled())
        return out;
    out.name = m_redactor.text(verdict.name);
    out.message = m_redactor.text(verdict.message);
    return out;
}

QString RecordRedactor::redactedText(const QString &text) const
{
    return m_redactor.text(text);
}

} // namespace RetryLab::Core
