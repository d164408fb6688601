#include "core/collections/requesttemplate.h"

#include "core/auth/authjson.h"
#include "core/collections/variables.h"
#include "core/executor/requestcheck.h"
#include "core/http/httpheaders.h"
#include "core/policy/fallbacktriggers.h"
#include "core/util/coretr.h"

#include <QCoreApplication>
#include <QRandomGenerator>

#include <algorithm>

namespace RetryLab::Core::RequestTemplate {

namespace {

QString serverText(const QUrl &server)
{
    QString text = server.toString(QUrl::FullyEncoded);
    while (text.endsWith(QLatin1Char('/')))
        text.chop(1);
    return text;
}

// Whether `text` begins as ^[A-Za-z][A-Za-z0-9+.-]*:// would say.
bool startsWithScheme(QStringView text)
{
    const auto letter = [](char16_t u) { return (u >= u'a' && u <= u'z') || (u >= u'A' && u <= u'Z'); };
    if (text.isEmpty() || !letter(text.front().unicode()))
        return false;
    qsizetype at = 1;
    while (at < text.size()) {
        const char16_t u = text.at(at).unicode();
        if (!letter(u) && !(u >= u'0' && u <= u'9') && u != u'+' && u != u'.' && u != u'-')
            break;
        ++at;
    }
    return text.mid(at).startsWith(QLatin1String("://"));
}

// {server} in `text` expanded, {id} left.
QString expandServer(const QString &text, const ExpansionContext &context)
{
    if (!text.contains(QLatin1Char('{')))
        return text;
    QString out = text;
    out.replace(serverPlaceholder(), serverText(context.serverUrl));
    return out;
}

// Whether a row of the draft's headers is sent (a row left blank or switched off is not).
bool isSent(const DraftHeader &header)
{
    return header.enabled && !header.name.trimmed().isEmpty();
}

} // namespace

QString serverPlaceholder()
{
    return QStringLiteral("{server}");
}

QString idPlaceholder()
{
    return QStringLiteral("{id}");
}

QString newKeyToken()
{
    return QString::number(QRandomGenerator::global()->bounded(36 * 36 * 36 * 36), 36)
        .rightJustified(4, QLatin1Char('0'));
}

QString unknownPlaceholder(const QString &urlText)
{
    // A brace, then none of "{}/?#" or white space, then a closing brace, as the
    // expression \{[^{}/?#\s]*\} would find them; scanned by hand, as every request of
    // a batch asks.
    const auto inside = [](QChar c) {
        const char16_t u = c.unicode();
        return u != u'{' && u != u'}' && u != u'/' && u != u'?' && u != u'#' && u != u' ' && (u < u'\t' || u > u'\r');
    };
    const qsizetype size = urlText.size();
    for (qsizetype open = urlText.indexOf(QLatin1Char('{')); open >= 0;
         open = urlText.indexOf(QLatin1Char('{'), open + 1)) {
        qsizetype end = open + 1;
        while (end < size && inside(urlText.at(end)))
            ++end;
        if (end == size || urlText.at(end) != QLatin1Char('}'))
            continue;
        const QStringView whole = QStringView(urlText).mid(open, end - open + 1);
        if (whole != serverPlaceholder() && whole != idPlaceholder())
            return whole.toString();
        open = end;
    }
    return {};
}

QString expand(const QString &text, const ExpansionContext &context)
{
    // Most texts hold no placeholder: a batch expands every field of every request.
    if (!text.contains(QLatin1Char('{')))
        return text;
    return expandServer(text, context).replace(idPlaceholder(), context.requestKey);
}

bool usesServer(const RequestDraft &draft)
{
    if (draft.urlTemplate.contains(serverPlaceholder()))
        return true;
    if (draft.bodyFrom.isRaw()
            ? draft.body.contains(serverPlaceholder())
            : std::any_of(draft.bodyFrom.fields.cbegin(), draft.bodyFrom.fields.cend(),
                [](const DraftFormField &f) { return f.enabled && f.value.contains(serverPlaceholder()); }))
        return true;
    return std::any_of(draft.headers.cbegin(), draft.headers.cend(),
        [](const DraftHeader &h) { return h.enabled && h.value.contains(serverPlaceholder()); });
}

namespace {

// The URL template with its {{variables}} put in, trimmed, and checked as far as it can
// be before its placeholders are expanded.
Result<QString> urlText(const QString &urlTemplate, const ExpansionContext &context)
{
    using R = Result<QString>;
    QStringList unresolved;
    QStringList unknownDynamic;
    const QString trimmed
        = Variables::resolve(urlTemplate, context.variables, context.dynamic, &unresolved, &unknownDynamic).trimmed();
    if (!unresolved.isEmpty() || !unknownDynamic.isEmpty()) {
        RequestDraft urlOnly;
        urlOnly.urlTemplate = urlTemplate;
        return R::failure(
            Variables::apply(urlOnly, context.variables, context.environmentName, context.dynamic).error());
    }
    if (trimmed.isEmpty())
        return R::failure(Tr::tr("Enter a URL, for example {server}/status/200."));
    if (trimmed.size() > RequestDraft::maxUrlLength)
        return R::failure(Tr::tr("The URL is longer than %1 characters.").arg(RequestDraft::maxUrlLength));

    if (const QString unknown = unknownPlaceholder(trimmed); !unknown.isEmpty()) {
        return R::failure(Tr::tr("%1 is not a placeholder; the URL may use {server} (the embedded server) and {id} "
                                 "(a new key for every request).")
                              .arg(unknown));
    }
    if (trimmed.contains(serverPlaceholder()) && context.serverUrl.isEmpty()) {
        return R::failure(context.serverProblem.isEmpty()
                ? Tr::tr("{server} stands for the embedded server, which is not running.")
                : Tr::tr("{server} stands for the embedded server, which is not running: %1")
                      .arg(context.serverProblem));
    }
    return trimmed;
}

// The expanded URL as a QUrl, or why it cannot be sent.
Result<QUrl> checkedUrl(const QString &expanded)
{
    using R = Result<QUrl>;
    const QUrl result(expanded, QUrl::TolerantMode);
    if (!startsWithScheme(expanded))
        return R::failure(Tr::tr("The URL must start with http:// or https:// (or {server})."));
    if (!result.isValid())
        return R::failure(Tr::tr("The URL is not valid: %1").arg(result.errorString()));
    const QString scheme = result.scheme().toLower();
    if (scheme != QLatin1String("http") && scheme != QLatin1String("https"))
        return R::failure(Tr::tr("Only http and https URLs can be sent, not %1.").arg(result.scheme()));
    if (result.host().isEmpty())
        return R::failure(Tr::tr("The URL has no host."));
    return result;
}

} // namespace

Result<QUrl> url(const QString &urlTemplate, const ExpansionContext &context)
{
    const auto text = urlText(urlTemplate, context);
    if (!text)
        return Result<QUrl>::failure(text.error());
    return checkedUrl(expand(*text, context));
}

QString methodProblem(const QString &method)
{
    const QString trimmed = method.trimmed();
    if (trimmed.isEmpty())
        return Tr::tr("Choose a method (GET, POST, ...).");
    if (!Core::isToken(trimmed))
        return Tr::tr("\"%1\" is not an HTTP method: letters, digits and !#$%&'*+-.^_`|~ only.").arg(trimmed);
    return {};
}

QString headerProblem(const DraftHeader &header, int row)
{
    if (!header.enabled)
        return {};
    const QString name = header.name.trimmed();
    if (name.isEmpty()) {
        if (header.value.isEmpty())
            return {};
        return Tr::tr("Header %1 has a value but no name.").arg(row + 1);
    }
    if (!Core::isToken(name))
        return Tr::tr("Header %1: \"%2\" is not a valid header name (no spaces or colons).").arg(row + 1).arg(name);
    if (name.compare(QLatin1String("Content-Length"), Qt::CaseInsensitive) == 0
        || name.compare(QLatin1String("Transfer-Encoding"), Qt::CaseInsensitive) == 0) {
        return Tr::tr("Header %1: %2 is set from the body; remove this row.").arg(row + 1).arg(name);
    }
    // After {{variables}} are put in: an environment's value must not smuggle a line in either.
    if (const QString problem = Core::fieldValueProblem(header.value.toUtf8()); !problem.isEmpty())
        return Tr::tr("Header %1 (%2): %3.").arg(row + 1).arg(name, problem);
    return {};
}

namespace {

// The body of `draft` into `spec`, the placeholders expanded; why it cannot be sent, or nothing.
QString applyBody(const RequestDraft &draft, const ExpansionContext &context, RequestSpec *spec)
{
    if (draft.bodyFrom.isRaw()) {
        spec->body = expand(draft.body, context).toUtf8();
        return {};
    }
    DraftBody body = draft.bodyFrom;
    body.forEachText([&context](QString &text) { text = expand(text, context); });
    if (body.mode == DraftBody::Mode::UrlEncoded) {
        const auto encoded = body.encodedForm();
        if (!encoded)
            return encoded.error();
        spec->body = *encoded;
        if (!headerValue(spec->headers, "Content-Type"))
            spec->headers.append(
                qMakePair(QByteArray("Content-Type"), QByteArray("application/x-www-form-urlencoded")));
        return {};
    }
    const auto source = body.source();
    if (!source)
        return source.error();
    // The form's boundary is in its Content-Type: a header of the table would break it.
    if (body.mode == DraftBody::Mode::Multipart && headerValue(spec->headers, "Content-Type"))
        return Tr::tr("Content-Type is set by the multipart form (with its boundary): remove it from the headers.");
    spec->bodySource = *source;
    return {};
}

} // namespace

Result<RequestSpec> build(const RequestDraft &typed, const ExpansionContext &context)
{
    using R = Result<RequestSpec>;
    const auto resolved = Variables::apply(typed, context.variables, context.environmentName, context.dynamic);
    if (!resolved)
        return R::failure(resolved.error());
    const RequestDraft &draft = *resolved;
    if (const QString problem = methodProblem(draft.method); !problem.isEmpty())
        return R::failure(problem);
    const auto target = url(draft.urlTemplate, context);
    if (!target)
        return R::failure(target.error());
    for (int row = 0; row < draft.headers.size(); ++row) {
        if (const QString problem = headerProblem(draft.headers.at(row), row); !problem.isEmpty())
            return R::failure(problem);
    }
    const bool needsServer = usesServer(draft);
    if (needsServer && context.serverUrl.isEmpty())
        return R::failure(Tr::tr("{server} is used in a header or the body, but the embedded server is not running."));
    if (draft.bodyFrom.isRaw() && draft.body.size() > RequestDraft::maxBodyLength)
        return R::failure(Tr::tr("The body is longer than %1 characters.").arg(RequestDraft::maxBodyLength));

    RequestSpec spec;
    spec.method = draft.method.trimmed().toLatin1();
    spec.url = *target;
    for (const DraftHeader &header : draft.headers) {
        if (isSent(header))
            spec.headers.append({header.name.trimmed().toLatin1(), expand(header.value, context).toUtf8()});
    }
    if (const QString problem = applyBody(draft, context, &spec); !problem.isEmpty())
        return R::failure(problem);
    spec.idempotent = draft.idempotent;
    spec.attemptHeaders = draft.attemptHeaders;
    spec.attemptTimeoutMs = draft.attemptTimeoutMs;
    for (qsizetype i = 0; i < draft.fallbackTemplates.size(); ++i) {
        const auto fallback = url(draft.fallbackTemplates.at(i), context);
        if (!fallback)
            return R::failure(Tr::tr("Fallback %1: %2").arg(i + 1).arg(fallback.error()));
        spec.fallbackUrls.append(*fallback);
    }
    if (auto triggers = FallbackTriggers::normalized(draft.fallbackOn); triggers)
        spec.fallbackOn = *triggers;
    else
        return R::failure(Tr::tr("Fallback on: %1").arg(triggers.error()));
    if (draft.readModifyWrite) {
        spec.kind = RequestSpec::Kind::ReadModifyWrite;
        spec.increment = draft.increment;
        spec.readModifyWrite = draft.shape;
        spec.readModifyWrite.writeUrl.clear();
        if (!draft.writeUrlTemplate.trimmed().isEmpty()) {
            const auto writeUrl = url(draft.writeUrlTemplate.trimmed(), context);
            if (!writeUrl)
                return R::failure(Tr::tr("The write's URL: %1").arg(writeUrl.error()));
            spec.readModifyWrite.writeUrl = *writeUrl;
        }
        if (const auto shape = checkShape(spec.readModifyWrite); !shape)
            return R::failure(Tr::tr("Read-modify-write: %1.").arg(shape.error()));
        if (!spec.fallbackUrls.isEmpty())
            return R::failure(Tr::tr("Fallback URLs are for single requests, not a read-modify-write."));
    }
    if (spec.fallbackUrls.size() > maxFallbacks)
        return R::failure(Tr::tr("At most %1 fallback URLs.").arg(maxFallbacks));
    if (const auto transport = checkTransport(draft.transport); !transport)
        return R::failure(transport.error());
    spec.transport = draft.transport;
    spec.auth = draft.auth;
    spec.auth.forEachText([&context](QString &text) { text = expand(text, context); });
    if (const QString problem = AuthJson::problem(spec.auth); !problem.isEmpty())
        return R::failure(Tr::tr("Auth: %1.").arg(problem));
    return spec;
}

BatchBuilder::BatchBuilder(RequestDraft draft, ExpansionContext context)
    : m_draft(std::move(draft)), m_context(std::move(context))
{
    // Dynamic variables differ from one request to the next.
    if (m_context.dynamic)
        return;
    const auto resolved = Variables::apply(m_draft, m_context.variables, m_context.environmentName, nullptr);
    if (!resolved)
        return; // build() says why, for every request
    const RequestDraft &r = *resolved;
    const QString id = idPlaceholder();
    const auto keyed = [&id](const QString &text) { return text.contains(id); };
    // A URL as url() expands it: resolved once more (a variable's value may name another).
    // One that cannot be expanded fails every request alike, whatever its key.
    const auto keyedUrl = [&](const QString &urlTemplate) {
        const auto text = urlText(urlTemplate, m_context);
        return text && keyed(*text);
    };
    bool elsewhere = std::any_of(r.fallbackTemplates.cbegin(), r.fallbackTemplates.cend(), keyedUrl)
        || keyedUrl(r.writeUrlTemplate);
    if (!r.bodyFrom.isRaw()) {
        DraftBody body = r.bodyFrom;
        body.forEachText([&](QString &text) { elsewhere = elsewhere || keyed(text); });
    }
    AuthSpec auth = r.auth;
    auth.forEachText([&](QString &text) { elsewhere = elsewhere || keyed(text); });
    if (elsewhere)
        return;

    // What build() expands, as it expands it: the URL resolved again (url() resolves what
    // it is given), {server} first.
    const auto text = urlText(r.urlTemplate, m_context);
    if (!text)
        return; // build() says why, for every request
    if (keyed(*text))
        m_urlText = expandServer(*text, m_context);
    qsizetype at = 0;
    for (const DraftHeader &header : r.headers) {
        if (!isSent(header))
            continue;
        if (keyed(header.value))
            m_keyedHeaders.append({at, expandServer(header.value, m_context)});
        ++at;
    }
    if (r.bodyFrom.isRaw() && keyed(r.body))
        m_keyedBody = expandServer(r.body, m_context);
    m_keyOnly = true;
}

Result<RequestSpec> BatchBuilder::buildInFull(const QString &key)
{
    m_context.requestKey = key;
    return RequestTemplate::build(m_draft, m_context);
}

Result<RequestSpec> BatchBuilder::build(const QString &key)
{
    if (!m_keyOnly)
        return buildInFull(key);
    if (!m_first) {
        auto first = buildInFull(key);
        if (first)
            m_first = *first;
        return first;
    }
    RequestSpec spec = *m_first;
    const QString id = idPlaceholder();
    if (!m_urlText.isNull()) {
        const auto url = checkedUrl(QString(m_urlText).replace(id, key));
        if (!url)
            return Result<RequestSpec>::failure(url.error());
        spec.url = *url;
    }
    for (const auto &[at, value] : std::as_const(m_keyedHeaders))
        spec.headers[at].second = QString(value).replace(id, key).toUtf8();
    if (!m_keyedBody.isNull())
        spec.body = QString(m_keyedBody).replace(id, key).toUtf8();
    return spec;
}

} // namespace RetryLab::Core::RequestTemplate
