#include "core/record/secretmask.h"

#include "core/http/redactor.h"

#include <QUrl>

#include <algorithm>

namespace RetryLab::Core::SecretMask {

namespace {

QByteArray maskBytes(QByteArray data, const QList<QByteArray> &all)
{
    for (const QByteArray &secret : all)
        data.replace(secret, Redactor::mask());
    return data;
}

QString maskText(const QString &text, const QList<QByteArray> &all)
{
    QString out = text;
    for (const QByteArray &secret : all)
        out.replace(QString::fromUtf8(secret), QString::fromLatin1(Redactor::mask()));
    return out;
}

QUrl maskUrl(const QUrl &url, const QList<QByteArray> &all)
{
    const QByteArray encoded = url.toEncoded();
    const QByteArray masked = maskBytes(encoded, all);
    return masked == encoded ? url : QUrl::fromEncoded(masked);
}

void maskHeaders(HeaderList *headers, const QList<QByteArray> &all)
{
    for (auto &header : *headers)
        header.second = maskBytes(header.second, all);
}

} // namespace

// Longest first, so that a secret containing another is masked whole.
Forms forms(const QStringList &secrets)
{
    Forms out;
    for (const QString &secret : secrets) {
        if (secret.size() < 3)
            continue; // "1" or "ab" would mask half the file and hide nothing
        const QByteArray raw = secret.toUtf8();
        out.append(raw);
        const QByteArray encoded = QUrl::toPercentEncoding(secret);
        if (encoded != raw)
            out.append(encoded);
    }
    std::sort(out.begin(), out.end(), [](const QByteArray &a, const QByteArray &b) { return a.size() > b.size(); });
    return out;
}

QString text(const QString &text, const QStringList &secrets)
{
    return maskText(text, forms(secrets));
}

QByteArray bytes(const QByteArray &data, const QStringList &secrets)
{
    return maskBytes(data, forms(secrets));
}

void apply(RequestSpec *spec, const QStringList &secrets)
{
    apply(spec, forms(secrets));
}

void apply(RequestSpec *spec, const Forms &all)
{
    if (all.isEmpty())
        return;
    spec->url = maskUrl(spec->url, all);
    maskHeaders(&spec->headers, all);
    spec->body = maskBytes(spec->body, all);
    spec->label = maskText(spec->label, all);
}

void apply(AttemptRecord *attempt, const Forms &all)
{
    if (all.isEmpty())
        return;
    attempt->url = maskUrl(attempt->url, all);
    maskHeaders(&attempt->requestHeaders, all);
    attempt->requestBody = maskBytes(attempt->requestBody, all);
    maskHeaders(&attempt->responseHeaders, all);
    attempt->responseBody = maskBytes(attempt->responseBody, all);
    attempt->errorString = maskText(attempt->errorString, all);
    attempt->reason = maskText(attempt->reason, all);
    attempt->step = maskText(attempt->step, all);
    for (RedirectHop &hop : attempt->redirects) {
        hop.from = maskUrl(hop.from, all);
        hop.to = maskUrl(hop.to, all);
        hop.note = maskText(hop.note, all);
    }
}

void apply(RunRecord *record, const QStringList &secrets)
{
    const auto all = forms(secrets);
    if (all.isEmpty())
        return;
    for (RequestSpec &spec : record->requests)
        apply(&spec, secrets);
    for (AttemptRecord &attempt : record->attempts)
        apply(&attempt, all);
    for (RequestResult &result : record->results) {
        result.reason = maskText(result.reason, all);
        result.body = maskBytes(result.body, all);
    }
}

} // namespace RetryLab::Core::SecretMask
