#include "ui/import/importeddraft.h"

#include "core/http/redactor.h"
#include "ui/session/uitr.h"

#include <QStringDecoder>
#include <QUrl>

namespace RetryLab::Ui {

ImportedDraft ImportedDraft::from(const Core::ImportedRequest &request, const Core::RequestDraft &base)
{
    ImportedDraft out;
    Core::RequestDraft &draft = out.draft;
    draft = base;
    const Core::RequestSpec &spec = request.spec;
    draft.method = QString::fromLatin1(spec.method);
    draft.urlTemplate = request.urlText.isEmpty() ? spec.url.toString(QUrl::FullyEncoded) : request.urlText;
    draft.headers.clear();
    for (const auto &[name, value] : spec.headers) {
        if (draft.headers.size() >= Core::RequestDraft::maxHeaders) {
            out.notes.append(Tr::tr("only the first %1 of %2 headers fit in the header table")
                                 .arg(Core::RequestDraft::maxHeaders)
                                 .arg(spec.headers.size()));
            break;
        }
        draft.headers.append({QString::fromLatin1(name), QString::fromUtf8(value), true});
    }
    draft.body.clear();
    if (!spec.body.isEmpty()) {
        QStringDecoder decoder(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
        const QString text = decoder.decode(spec.body);
        if (decoder.hasError() || text.contains(QChar(0))) {
            out.notes.append(Tr::tr("the body (%1 bytes) is binary and the composer holds text: it was left out")
                                 .arg(spec.body.size()));
        } else if (text.size() > Core::RequestDraft::maxBodyLength) {
            out.notes.append(Tr::tr("the body (%1 characters) is longer than the composer takes (%2): it was "
                                    "left out")
                                 .arg(text.size())
                                 .arg(Core::RequestDraft::maxBodyLength));
        } else {
            draft.body = text;
        }
    }
    draft.bodyFrom = Core::DraftBody::fromSource(spec.bodySource);
    draft.idempotent = spec.idempotent;
    draft.attemptTimeoutMs = spec.attemptTimeoutMs;
    // Digest, SigV4 and the token kinds: the composer's Auth tab shows them.
    if (!spec.auth.isNone())
        draft.auth = spec.auth;
    // TLS, proxy and HTTP version come along; without any, the composer's own
    // (the preferences' default) stay. Ignoring certificate errors is never
    // switched on by a file: the user ticks it in Connection if that is meant.
    if (!spec.transport.isDefault()) {
        draft.transport = spec.transport;
        if (!draft.transport.insecureHosts.isEmpty()) {
            out.notes.append(Tr::tr("it ignores certificate errors for %1 (-k/--insecure); that was not carried "
                                    "over: tick \"Ignore certificate errors for this host\" under Connection if "
                                    "you mean it")
                                 .arg(draft.transport.insecureHosts.join(QStringLiteral(", "))));
            draft.transport.insecureHosts.clear();
        }
    }
    if (spec.kind != Core::RequestSpec::Kind::Single)
        out.notes.append(Tr::tr("it was a read-modify-write sequence; the composer sends its first request"));
    return out;
}

QString ImportedDraft::title(const Core::ImportedRequest &request)
{
    const Core::Redactor redactor;
    const QString url
        = request.urlText.isEmpty() ? redactor.urlString(request.spec.url) : redactor.text(request.urlText);
    const QString line = QString::fromLatin1(request.spec.method) + QLatin1Char(' ') + url;
    if (request.name.isEmpty())
        return line;
    return request.name + QStringLiteral(" \u2014 ") + line;
}

} // namespace RetryLab::Ui
