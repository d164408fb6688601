#include "core/import/harimport.h"

#include "core/http/redactor.h"
#include "core/http/retryheaders.h"
#include "core/import/importbody.h"
#include "core/import/importjson.h"
#include "core/policy/policyjson.h"
#include "core/util/coretr.h"
#include "core/util/durationtext.h"
#include "core/util/jsonreader.h"

#include <QHash>
#include <QLoggingCategory>
#include <QSet>

#include <algorithm>
#include <cmath>
#include <limits>

namespace {
Q_LOGGING_CATEGORY(lcHarImport, "retrylab.core.harimport")
} // namespace

namespace RetryLab::Core::HarImport {

namespace {

// One element of log.entries as read, before RetryLab's attempts are grouped.
struct RawEntry
{
    qsizetype index = 0;
    ImportedRequest request;
    QString rawMethod; // as the file wrote them, to find RetryLab's label in the page title
    QString rawUrl;
    QString pageref;
    int status = 0;
    QString statusText;
    QString error;
    double timeMs = -1.0;
    QDateTime started;
    QString resourceType;
    QString responseMimeType;
    // RetryLab's own fields
    std::optional<qint64> requestId;
    int attemptIndex = 0;
    QString step;
    /// A redirect followed within an attempt (RetryLab's "_redirectHop"): part of the attempt after it.
    bool redirectHop = false;
    std::optional<QString> label;
};

// Headers the HTTP library writes itself for the connection it uses.
bool isHopByHop(const QByteArray &lowerName)
{
    static const QSet<QByteArray> names{
        "connection",
        "keep-alive",
        "proxy-connection",
        "transfer-encoding",
        "te",
        "upgrade",
        "trailer",
    };
    return names.contains(lowerName);
}

// "api.example.com" or "api.example.com:8443" is the URL's own host, which Qt
// sends by itself; another value (a virtual host behind an IP) is kept.
bool isOwnHost(const QByteArray &value, const QUrl &url)
{
    const QString host = QString::fromUtf8(value).trimmed().toLower();
    const QString urlHost = url.host(QUrl::FullyEncoded).toLower();
    const QString bracketed = urlHost.contains(QLatin1Char(':')) ? QStringLiteral("[%1]").arg(urlHost) : urlHost;
    const int defaultPort = url.scheme().compare(QLatin1String("https"), Qt::CaseInsensitive) == 0 ? 443 : 80;
    const int port = url.port(defaultPort);
    if (host == bracketed + QLatin1Char(':') + QString::number(port))
        return true;
    return port == defaultPort && host == bracketed;
}

bool isExecutorHeader(const QByteArray &name)
{
    return name.compare(RetryHeaders::requestId, Qt::CaseInsensitive) == 0
        || name.compare(RetryHeaders::attempt, Qt::CaseInsensitive) == 0;
}

// 2 for "h2", "HTTP/2", "http/2.0"; 3 for "h3", "HTTP/3"; 1 otherwise.
int majorVersion(const QString &httpVersion)
{
    const QString v = httpVersion.trimmed().toLower();
    if (v == QLatin1String("h2") || v.startsWith(QLatin1String("http/2")) || v.startsWith(QLatin1String("h2-")))
        return 2;
    if (v == QLatin1String("h3") || v.startsWith(QLatin1String("http/3")) || v.startsWith(QLatin1String("h3-")))
        return 3;
    return 1;
}

std::optional<TransportOptions::HttpVersion> httpVersionNamed(const QString &name)
{
    if (name == QLatin1String("http1.1") || name == QLatin1String("http1"))
        return TransportOptions::HttpVersion::Http1;
    if (name == QLatin1String("http2"))
        return TransportOptions::HttpVersion::Http2;
    if (name == QLatin1String("http2-prior-knowledge"))
        return TransportOptions::HttpVersion::Http2PriorKnowledge;
    return std::nullopt;
}

QString redactedUrlText(const QString &text)
{
    return Redactor().text(text);
}

void readHeaders(JsonReader &request, const QUrl &url, bool fromRetryLab, ImportedRequest &out)
{
    auto headers = request.array(QStringLiteral("headers"));
    if (!headers)
        return;
    for (qsizetype i = 0; i < headers->size(); ++i) {
        auto header = headers->object(i, Presence::Required);
        if (!header)
            return;
        const auto name = header->string(QStringLiteral("name"), Presence::Required);
        const auto value = ImportJson::text(*header, QStringLiteral("value"));
        if (!name || header->failed())
            return;
        const QByteArray nameBytes = name->trimmed().toUtf8();
        const QByteArray valueBytes = value.value_or(QString()).toUtf8();
        if (nameBytes.isEmpty()) {
            header->fail(QStringLiteral("name"), Tr::tr("a header needs a name"));
            return;
        }
        if (isExecutorHeader(nameBytes))
            continue;
        if (fromRetryLab) {
            // RetryLab's own export holds the headers the user wrote: all of them come back.
            out.spec.headers.append({nameBytes, valueBytes});
            continue;
        }
        const QByteArray lower = nameBytes.toLower();
        // HTTP/2 pseudo-headers repeat the method and URL; Content-Length and a
        // Host equal to the URL's are written by Qt from the URL and body.
        if (lower.startsWith(':') || lower == "content-length" || (lower == "host" && isOwnHost(valueBytes, url)))
            continue;
        if (isHopByHop(lower) || lower == "accept-encoding" || lower == "x-retry-test-id") {
            out.ignored.append(QString::fromUtf8(nameBytes + ": " + Redactor().headerValue(nameBytes, valueBytes)));
            continue;
        }
        out.spec.headers.append({nameBytes, valueBytes});
    }
}

// Cookies a browser listed only in `cookies` (Firefox lists them twice, Chrome
// sometimes only there) become the Cookie header that carried them.
void readCookies(JsonReader &request, ImportedRequest &out)
{
    auto cookies = request.array(QStringLiteral("cookies"));
    if (!cookies || cookies->size() == 0 || headerValue(out.spec.headers, "Cookie"))
        return;
    QByteArrayList pairs;
    for (qsizetype i = 0; i < cookies->size(); ++i) {
        auto cookie = cookies->object(i, Presence::Required);
        if (!cookie)
            return;
        const auto name = cookie->string(QStringLiteral("name"), Presence::Required);
        const auto value = ImportJson::text(*cookie, QStringLiteral("value"));
        if (!name || cookie->failed())
            return;
        pairs.append(name->toUtf8() + '=' + value.value_or(QString()).toUtf8());
    }
    out.spec.headers.append({QByteArrayLiteral("Cookie"), pairs.join("; ")});
}

void setContentType(HeaderList &headers, const QByteArray &type)
{
    headers.removeIf([](const auto &h) { return h.first.compare("Content-Type", Qt::CaseInsensitive) == 0; });
    headers.append({QByteArrayLiteral("Content-Type"), type});
}

void readPostData(JsonReader &request, bool fromRetryLab, ImportedRequest &out)
{
    auto post = request.object(QStringLiteral("postData"));
    if (!post)
        return;
    const QString mimeType = ImportJson::text(*post, QStringLiteral("mimeType")).value_or(QString()).trimmed();
    const QString encodingKey
        = post->contains(QStringLiteral("encoding")) ? QStringLiteral("encoding") : QStringLiteral("_encoding");
    const QString encoding = ImportJson::text(*post, encodingKey).value_or(QString()).trimmed();
    const QString text = ImportJson::text(*post, QStringLiteral("text")).value_or(QString());
    if (post->failed())
        return;

    if (!text.isEmpty()) {
        if (encoding.compare(QLatin1String("base64"), Qt::CaseInsensitive) == 0) {
            auto decoded = QByteArray::fromBase64Encoding(text.toLatin1(), QByteArray::AbortOnBase64DecodingErrors);
            if (!decoded) {
                post->fail(
                    QStringLiteral("text"), Tr::tr("not valid base64, although %1 says base64").arg(encodingKey));
                return;
            }
            out.spec.body = std::move(*decoded);
        } else if (!encoding.isEmpty()) {
            post->fail(encodingKey, Tr::tr("unknown encoding \"%1\" (HAR knows base64)").arg(encoding));
            return;
        } else {
            out.spec.body = text.toUtf8();
        }
    } else if (auto params = post->array(QStringLiteral("params")); params && params->size() > 0) {
        const bool multipart = mimeType.startsWith(QLatin1String("multipart/form-data"), Qt::CaseInsensitive);
        QList<QPair<QString, QString>> fields;
        QList<ImportBody::FormField> parts;
        for (qsizetype i = 0; i < params->size(); ++i) {
            auto param = params->object(i, Presence::Required);
            if (!param)
                return;
            const auto name = param->string(QStringLiteral("name"), Presence::Required);
            const QString value = ImportJson::text(*param, QStringLiteral("value")).value_or(QString());
            const QString fileName = ImportJson::text(*param, QStringLiteral("fileName")).value_or(QString());
            const QString contentType = ImportJson::text(*param, QStringLiteral("contentType")).value_or(QString());
            if (!name || param->failed())
                return;
            if (!fileName.isEmpty()) {
                out.ignored.append(
                    Tr::tr("file field \"%1\" (%2): the HAR does not hold the file").arg(*name, fileName));
                continue;
            }
            fields.append({*name, value});
            parts.append({*name, value, contentType});
        }
        if (multipart) {
            const ImportBody::Multipart body = ImportBody::multipart(parts);
            out.spec.body = body.body;
            // The body's boundary is ours, so the header must name it.
            setContentType(out.spec.headers, body.contentType);
        } else {
            out.spec.body = ImportBody::urlEncoded(fields);
            if (!headerValue(out.spec.headers, "Content-Type"))
                setContentType(out.spec.headers, QByteArrayLiteral("application/x-www-form-urlencoded"));
        }
    }
    // RetryLab's export writes a guessed mimeType where the user gave no
    // Content-Type (the executor adds one by itself): adding it would change the request.
    if (!fromRetryLab && !out.spec.body.isEmpty() && !mimeType.isEmpty()
        && !headerValue(out.spec.headers, "Content-Type")) {
        setContentType(out.spec.headers, mimeType.toUtf8());
    }
}

void readHttpVersion(const QString &httpVersion, ImportedRequest &out)
{
    const int major = majorVersion(httpVersion);
    if (major < 2)
        return;
    const bool tls = out.spec.url.scheme().compare(QLatin1String("https"), Qt::CaseInsensitive) == 0;
    // Browsers speak HTTP/2 only over TLS (ALPN); an http:// URL sent with
    // HTTP/2 was sent with prior knowledge (curl --http2-prior-knowledge, RetryLab).
    out.spec.transport.httpVersion
        = tls ? TransportOptions::HttpVersion::Http2 : TransportOptions::HttpVersion::Http2PriorKnowledge;
    if (major == 3)
        out.ignored.append(Tr::tr("HTTP/3 (Qt does not speak it: HTTP/2 is asked for instead)"));
}

// The request of one entry; nothing when the file is refused (the reader
// holds why) or the entry is left out (`skipped` says why).
std::optional<ImportedRequest> readRequest(JsonReader &entry, bool fromRetryLab, RawEntry &raw, QList<Error> &skipped)
{
    auto request = entry.object(QStringLiteral("request"), Presence::Required);
    if (!request)
        return std::nullopt;
    const auto method = request->string(QStringLiteral("method"), Presence::Required);
    const auto urlText = request->string(QStringLiteral("url"), Presence::Required);
    const QString httpVersion = ImportJson::text(*request, QStringLiteral("httpVersion")).value_or(QString());
    if (request->failed())
        return std::nullopt;
    const QString trimmedMethod = method->trimmed();
    if (trimmedMethod.isEmpty()
        || std::any_of(trimmedMethod.cbegin(), trimmedMethod.cend(), [](QChar c) { return c.isSpace(); })) {
        request->fail(QStringLiteral("method"), Tr::tr("\"%1\" is not an HTTP method").arg(*method));
        return std::nullopt;
    }
    raw.rawMethod = *method;
    raw.rawUrl = *urlText;
    if (urlText->trimmed().isEmpty()) {
        request->fail(QStringLiteral("url"), Tr::tr("empty; a request needs a URL"));
        return std::nullopt;
    }

    const QUrl url(urlText->trimmed(), QUrl::TolerantMode);
    const QString scheme = url.scheme().toLower();
    if (scheme.isEmpty()) {
        request->fail(
            QStringLiteral("url"), Tr::tr("\"%1\" is not an absolute URL (no scheme)").arg(redactedUrlText(*urlText)));
        return std::nullopt;
    }
    if (scheme != QLatin1String("http") && scheme != QLatin1String("https")) {
        skipped.append(Error{request->pathOf(QStringLiteral("url")),
            Tr::tr("%1: URLs are not HTTP requests RetryLab can send; entry left out").arg(scheme)});
        return std::nullopt;
    }
    if (!url.isValid() || url.host().isEmpty()) {
        request->fail(QStringLiteral("url"),
            Tr::tr("\"%1\" is not a valid URL: %2")
                .arg(redactedUrlText(*urlText), url.isValid() ? Tr::tr("no host") : url.errorString()));
        return std::nullopt;
    }

    ImportedRequest out;
    out.spec.method = trimmedMethod.toUtf8();
    out.spec.url = url;
    out.urlText = urlText->trimmed();
    readHeaders(*request, url, fromRetryLab, out);
    if (request->failed())
        return std::nullopt;
    readCookies(*request, out);
    if (request->failed())
        return std::nullopt;
    readPostData(*request, fromRetryLab, out);
    if (request->failed())
        return std::nullopt;
    QString version = httpVersion;
    if (version.isEmpty()) {
        if (const QJsonObject response = entry.value(QStringLiteral("response")).toObject(); !response.isEmpty())
            version = response.value(QStringLiteral("httpVersion")).toString();
    }
    readHttpVersion(version, out);
    return out;
}

// What the entry says about the response and about itself, for the picker.
// These fields only inform, so values of an unexpected type are passed over
// rather than refusing the file.
void readEntryDetails(const JsonReader &entry, RawEntry &raw)
{
    const QJsonObject object = entry.object();
    raw.pageref = object.value(QStringLiteral("pageref")).toString();
    const QString started = object.value(QStringLiteral("startedDateTime")).toString();
    raw.started = QDateTime::fromString(started, Qt::ISODateWithMs);
    if (!raw.started.isValid())
        raw.started = QDateTime::fromString(started, Qt::ISODate);
    const QJsonValue time = object.value(QStringLiteral("time"));
    if (time.isDouble() && std::isfinite(time.toDouble()) && time.toDouble() >= 0.0)
        raw.timeMs = time.toDouble();
    raw.resourceType = object.value(QStringLiteral("_resourceType")).toString();

    const QJsonObject response = object.value(QStringLiteral("response")).toObject();
    const double status = response.value(QStringLiteral("status")).toDouble();
    raw.status = (status >= 100 && status <= 999) ? int(status) : 0;
    raw.statusText = response.value(QStringLiteral("statusText")).toString();
    raw.error = response.value(QStringLiteral("_error")).toString();
    raw.responseMimeType
        = response.value(QStringLiteral("content")).toObject().value(QStringLiteral("mimeType")).toString();

    const QJsonValue requestId = object.value(QStringLiteral("_requestId"));
    if (requestId.isDouble())
        raw.requestId = qint64(requestId.toDouble());
    raw.attemptIndex = object.value(QStringLiteral("_attemptIndex")).toInt();
    raw.step = object.value(QStringLiteral("_step")).toString();
    raw.redirectHop = object.contains(QStringLiteral("_redirectHop"));
}

// The fields RetryLab's export of a single request writes (HarExport::requestEntry).
void readRetryLabRequestFields(JsonReader &entry, bool fromRetryLab, RawEntry &raw)
{
    if (!fromRetryLab)
        return;
    ImportedRequest &out = raw.request;
    if (const auto label = entry.string(QStringLiteral("_label")))
        raw.label = *label;
    if (const auto idempotent = entry.boolean(QStringLiteral("_idempotent")))
        out.spec.idempotent = *idempotent;
    if (entry.contains(QStringLiteral("_attemptTimeoutMs"))
        && !entry.value(QStringLiteral("_attemptTimeoutMs")).isNull()) {
        out.spec.attemptTimeoutMs = entry.number(QStringLiteral("_attemptTimeoutMs"), 0.0);
    }
    if (const auto kind = entry.string(QStringLiteral("_kind"))) {
        if (*kind == QLatin1String("read-modify-write"))
            out.spec.kind = RequestSpec::Kind::ReadModifyWrite;
        else if (*kind != QLatin1String("single"))
            entry.fail(QStringLiteral("_kind"), Tr::tr("unknown kind \"%1\" (single, read-modify-write)").arg(*kind));
    }
    if (const auto increment = entry.integer(QStringLiteral("_increment")))
        out.spec.increment = *increment;
    if (const auto version = entry.string(QStringLiteral("_httpVersion"))) {
        if (const auto known = httpVersionNamed(*version))
            out.spec.transport.httpVersion = *known;
        else
            entry.fail(QStringLiteral("_httpVersion"), Tr::tr("unknown HTTP version \"%1\"").arg(*version));
    }
}

// RetryLab's page title is "METHOD URL" or "METHOD URL (label)".
std::optional<QString> labelInTitle(const QString &title, const RawEntry &raw)
{
    const QString prefix = raw.rawMethod + QLatin1Char(' ') + raw.rawUrl;
    if (!title.startsWith(prefix))
        return std::nullopt;
    if (title.size() == prefix.size())
        return QString();
    const QString rest = title.mid(prefix.size());
    if (rest.startsWith(QLatin1String(" (")) && rest.endsWith(QLatin1Char(')')))
        return rest.mid(2).chopped(1);
    return std::nullopt;
}

Entry single(const RawEntry &raw, const QHash<QString, QString> &titles, bool fromRetryLab)
{
    Entry e;
    e.request = raw.request;
    e.sourceIndexes = {raw.index};
    e.status = raw.status;
    e.statusText = raw.statusText;
    e.error = raw.error;
    e.timeMs = raw.timeMs;
    e.started = raw.started;
    e.pageTitle = titles.value(raw.pageref);
    e.resourceType = raw.resourceType;
    e.responseMimeType = raw.responseMimeType;
    if (raw.label) {
        e.request.name = *raw.label;
        e.request.spec.label = *raw.label;
    } else if (fromRetryLab) {
        const auto label = labelInTitle(e.pageTitle, raw);
        e.request.name = label.value_or(e.pageTitle);
        e.request.spec.label = label.value_or(QString());
    } else {
        e.request.name = e.pageTitle;
    }
    return e;
}

// The attempts of one logical request of RetryLab's run export, as that request.
Entry grouped(QList<const RawEntry *> attempts, const QHash<QString, QString> &titles)
{
    std::stable_sort(attempts.begin(), attempts.end(),
        [](const RawEntry *a, const RawEntry *b) { return a->attemptIndex < b->attemptIndex; });
    const auto first = std::find_if(
        attempts.cbegin(), attempts.cend(), [](const RawEntry *a) { return a->step != QLatin1String("write"); });
    const RawEntry &source = first != attempts.cend() ? **first : *attempts.constFirst();
    const RawEntry &last = *attempts.constLast();

    Entry e = single(source, titles, true);
    e.sourceIndexes.clear();
    for (const RawEntry *a : std::as_const(attempts))
        e.sourceIndexes.append(a->index);
    std::sort(e.sourceIndexes.begin(), e.sourceIndexes.end());
    e.attempts = int(attempts.size());
    e.status = last.status;
    e.statusText = last.statusText;
    e.error = last.error;
    e.responseMimeType = last.responseMimeType;

    const bool readModifyWrite
        = std::any_of(attempts.cbegin(), attempts.cend(), [](const RawEntry *a) { return !a->step.isEmpty(); });
    if (readModifyWrite) {
        ImportedRequest &request = e.request;
        request.spec.kind = RequestSpec::Kind::ReadModifyWrite;
        const auto write = std::find_if(
            attempts.cbegin(), attempts.cend(), [](const RawEntry *a) { return a->step == QLatin1String("write"); });
        request.spec.method = write != attempts.cend() ? (*write)->request.spec.method : QByteArrayLiteral("PUT");
        request.spec.body.clear();
        request.ignored.append(Tr::tr("the increment of a read-modify-write request is not in a run's HAR: 1 is "
                                      "assumed"));
    }

    const bool allDated = std::all_of(
        attempts.cbegin(), attempts.cend(), [](const RawEntry *a) { return a->started.isValid() && a->timeMs >= 0.0; });
    if (allDated) {
        qint64 from = std::numeric_limits<qint64>::max();
        double to = -std::numeric_limits<double>::max();
        for (const RawEntry *a : std::as_const(attempts)) {
            from = std::min(from, a->started.toMSecsSinceEpoch());
            to = std::max(to, double(a->started.toMSecsSinceEpoch()) + a->timeMs);
        }
        e.timeMs = to - double(from);
        e.started = QDateTime::fromMSecsSinceEpoch(from, Qt::UTC);
    } else {
        e.timeMs = -1.0;
    }
    return e;
}

QHash<QString, QString> pageTitles(const JsonReader &log)
{
    QHash<QString, QString> titles;
    const QJsonArray pages = log.value(QStringLiteral("pages")).toArray();
    for (const QJsonValue &page : pages) {
        const QJsonObject object = page.toObject();
        const QString id = object.value(QStringLiteral("id")).toString();
        const QString title = object.value(QStringLiteral("title")).toString().trimmed();
        if (!id.isEmpty() && !title.isEmpty())
            titles.insert(id, title);
    }
    return titles;
}

} // namespace

QString Entry::summary() const
{
    const Redactor redactor;
    const QString url
        = request.spec.url.isValid() ? redactor.urlString(request.spec.url) : redactor.text(request.urlText);
    QString outcome;
    if (status > 0)
        outcome = statusText.isEmpty() ? QString::number(status) : QStringLiteral("%1 %2").arg(status).arg(statusText);
    else
        outcome = error.isEmpty() ? Tr::tr("no response") : redactor.text(error);
    QStringList parts{outcome};
    if (timeMs >= 0.0)
        parts.append(DurationText::format(timeMs));
    if (attempts > 1)
        parts.append(Tr::tr("%n attempt(s)", nullptr, attempts));
    return Tr::tr("%1 %2 → %3").arg(QString::fromUtf8(request.spec.method), url, parts.join(QStringLiteral(" · ")));
}

Result<Archive> read(const QByteArray &json)
{
    using R = Result<Archive>;
    if (json.size() > maxFileBytes) {
        return R::failure(ImportJson::tooLarge(json.size(), maxFileBytes, Tr::tr("HAR files")));
    }
    const auto document = ImportJson::parseObject(json, Tr::tr("a HAR file"));
    if (!document)
        return document.errorDetail();

    JsonReader root(*document);
    const QString logKey = QStringLiteral("log");
    if (!root.contains(logKey)) {
        const QJsonObject info = document->value(QStringLiteral("info")).toObject();
        if (info.value(QStringLiteral("schema")).toString().contains(QLatin1String("postman"), Qt::CaseInsensitive))
            return R::failure(logKey, Tr::tr("missing: this is a Postman collection, not a HAR file"));
        return R::failure(logKey, Tr::tr("missing: a HAR file holds {\"log\": {...}}"));
    }
    auto log = root.object(logKey, Presence::Required);
    if (!log)
        return root.firstError();

    Archive archive;
    const auto version = log->string(QStringLiteral("version"), Presence::Required);
    if (!version)
        return log->firstError();
    if (*version != QLatin1String("1.2") && *version != QLatin1String("1.1")) {
        return R::failure(log->pathOf(QStringLiteral("version")),
            Tr::tr("HAR version \"%1\" is not supported (RetryLab reads 1.1 and 1.2)").arg(*version));
    }
    archive.version = *version;
    const QJsonObject creator = log->value(QStringLiteral("creator")).toObject();
    archive.creator = creator.value(QStringLiteral("name")).toString();
    archive.creatorVersion = creator.value(QStringLiteral("version")).toString();
    archive.fromRetryLab = archive.creator == QLatin1String("RetryLab");
    if (archive.fromRetryLab) {
        archive.redacted = log->value(QStringLiteral("_redacted")).toBool();
        const QJsonValue policy = log->value(QStringLiteral("_policy"));
        if (policy.isObject()) {
            auto parsed = PolicyJson::fromJsonObject(policy.toObject());
            if (parsed)
                archive.policy = std::move(parsed).value();
            else
                archive.notes.append(Tr::tr("the run's policy could not be read: %1")
                                         .arg(parsed.errorDetail().under(QStringLiteral("log._policy")).text()));
        }
    }

    auto entries = log->array(QStringLiteral("entries"), Presence::Required);
    if (!entries)
        return log->firstError();
    if (entries->size() > maxEntries) {
        return R::failure(entries->path(),
            Tr::tr("%1 entries; HAR files with more than %2 entries are refused").arg(entries->size()).arg(maxEntries));
    }

    QList<RawEntry> raws;
    raws.reserve(entries->size());
    for (qsizetype i = 0; i < entries->size(); ++i) {
        auto entry = entries->object(i, Presence::Required);
        if (!entry)
            return entries->firstError();
        RawEntry raw;
        raw.index = i;
        auto request = readRequest(*entry, archive.fromRetryLab, raw, archive.skipped);
        if (entry->failed())
            return entry->firstError();
        if (!request)
            continue;
        raw.request = std::move(*request);
        readEntryDetails(*entry, raw);
        readRetryLabRequestFields(*entry, archive.fromRetryLab, raw);
        if (entry->failed())
            return entry->firstError();
        raws.append(std::move(raw));
    }

    const QHash<QString, QString> titles = pageTitles(*log);
    if (archive.fromRetryLab) {
        // The attempts of a request share its _requestId; it is listed where its first attempt is.
        QList<qint64> order;
        QHash<qint64, QList<const RawEntry *>> byRequest;
        for (const RawEntry &raw : std::as_const(raws)) {
            if (!raw.requestId || raw.redirectHop)
                continue;
            if (!byRequest.contains(*raw.requestId))
                order.append(*raw.requestId);
            byRequest[*raw.requestId].append(&raw);
        }
        QSet<qint64> done;
        for (const RawEntry &raw : std::as_const(raws)) {
            if (raw.redirectHop)
                continue;
            if (!raw.requestId) {
                archive.entries.append(single(raw, titles, true));
            } else if (!done.contains(*raw.requestId)) {
                done.insert(*raw.requestId);
                archive.entries.append(grouped(byRequest.value(*raw.requestId), titles));
            }
        }
    } else {
        for (const RawEntry &raw : std::as_const(raws))
            archive.entries.append(single(raw, titles, false));
    }
    qCDebug(lcHarImport) << "read" << entries->size() << "entries as" << archive.entries.size() << "requests,"
                         << archive.skipped.size() << "left out; creator" << archive.creator;
    return archive;
}

Result<Archive> readFile(const QString &path)
{
    auto bytes = ImportJson::readFile(path, maxFileBytes, Tr::tr("HAR files"));
    if (!bytes)
        return bytes.errorDetail();
    return read(*bytes);
}

Result<QList<ImportedRequest>> pick(const Archive &archive, const QList<qsizetype> &indexes)
{
    QList<ImportedRequest> picked;
    picked.reserve(indexes.size());
    for (qsizetype index : indexes) {
        if (index < 0 || index >= archive.entries.size()) {
            return Result<QList<ImportedRequest>>::failure(
                Tr::tr("entry %1 is not in the HAR file (it has %n request(s))", nullptr, int(archive.entries.size()))
                    .arg(index));
        }
        picked.append(archive.entries.at(index).request);
    }
    return picked;
}

QList<ImportedRequest> requests(const Archive &archive)
{
    QList<ImportedRequest> all;
    all.reserve(archive.entries.size());
    for (const Entry &entry : archive.entries)
        all.append(entry.request);
    return all;
}

} // namespace RetryLab::Core::HarImport
