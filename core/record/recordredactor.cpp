#include "core/record/recordredactor.h"

#include "core/record/secretmask.h"

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

} // namespace

RecordRedactor::RecordRedactor(bool enabled, const RunRecord &run) : m_redactor(enabled)
{
    QStringList secrets;
    for (const RequestSpec &request : run.requests)
        addSecretsOf(request, &secrets);
    m_secretForms = SecretMask::forms(secrets);
}

void RecordRedactor::addSecretsOf(const RequestSpec &request, QStringList *secrets)
{
    for (const QString &secret : request.auth.secrets()) {
        if (secret != QLatin1String(Redactor::mask()) && !secrets->contains(secret))
            secrets->append(secret);
    }
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
    SecretMask::apply(&out, m_secretForms);
    return out;
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
    // Its own secrets, wherever they were put (the run's are among them when given).
    QStringList own;
    addSecretsOf(request, &own);
    SecretMask::apply(&out, m_secretForms);
    SecretMask::apply(&out, SecretMask::forms(own));
    return out;
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
