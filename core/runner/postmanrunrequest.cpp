#include "core/runner/postmanrunrequest.h"

#include "core/import/importbody.h"
#include "core/import/importjson.h"
#include "core/util/coretr.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QUrl>

#include <algorithm>

namespace RetryLab::Core::PostmanRunRequest {

namespace {

// A field that may be absent or null; anything else goes through the reader.
bool given(const JsonReader &reader, const QString &key)
{
    return reader.contains(key) && !reader.value(key).isNull();
}

bool disabled(JsonReader &reader)
{
    return ImportJson::flag(reader, QStringLiteral("disabled")).value_or(false);
}

QString segmentText(const QJsonValue &value)
{
    if (value.isObject())
        return ImportJson::scalarText(value.toObject().value(QStringLiteral("value"))).value_or(QString());
    return ImportJson::scalarText(value).value_or(QString());
}

QString joinedSegments(JsonReader &url, const QString &key, QChar separator)
{
    const QJsonValue value = url.value(key);
    if (value.isString())
        return value.toString();
    auto list = url.array(key);
    QStringList parts;
    for (qsizetype i = 0; list && i < list->size(); ++i) {
        const QJsonValue part = list->value(i);
        if (part.isArray() || (part.isObject() && part.toObject().value(QStringLiteral("value")).isObject())) {
            list->fail(i, Tr::tr("expected a string, got %1").arg(JsonReader::describe(part)));
            return {};
        }
        parts.append(segmentText(part));
    }
    return parts.join(separator);
}

// The URL object's parts as Postman's library puts them together when the
// object has a host or a path (`raw` is then only what the app shows).
QString assembleUrl(JsonReader &url)
{
    QString text;
    const QString protocol = ImportJson::text(url, QStringLiteral("protocol")).value_or(QString());
    if (!protocol.isEmpty())
        text += protocol + (protocol.endsWith(QLatin1Char(':')) ? QString() : QStringLiteral(":"))
            + QStringLiteral("//");
    if (given(url, QStringLiteral("host")))
        text += joinedSegments(url, QStringLiteral("host"), QLatin1Char('.'));
    const QString port = ImportJson::text(url, QStringLiteral("port")).value_or(QString());
    if (!port.isEmpty())
        text += QLatin1Char(':') + port;
    if (given(url, QStringLiteral("path"))) {
        const QString path = joinedSegments(url, QStringLiteral("path"), QLatin1Char('/'));
        if (!path.isEmpty())
            text += (path.startsWith(QLatin1Char('/')) ? QString() : QStringLiteral("/")) + path;
    }
    if (given(url, QStringLiteral("query"))) {
        auto query = url.array(QStringLiteral("query"));
        QStringList items;
        for (qsizetype i = 0; query && i < query->size(); ++i) {
            auto item = query->object(i, Presence::Required);
            if (!item || disabled(*item))
                continue;
            const QString key = ImportJson::text(*item, QStringLiteral("key")).value_or(QString());
            const auto value = ImportJson::text(*item, QStringLiteral("value"));
            const bool hasValue = given(*item, QStringLiteral("value"));
            items.append(hasValue ? key + QLatin1Char('=') + value.value_or(QString()) : key);
        }
        if (!items.isEmpty())
            text += QLatin1Char('?') + items.join(QLatin1Char('&'));
    }
    const QString hash = ImportJson::text(url, QStringLiteral("hash")).value_or(QString());
    if (!hash.isEmpty())
        text += QLatin1Char('#') + hash;
    return text;
}

// Path segments `:name` replaced by the URL's path variables, as written: their
// {{variables}} are filled in with the rest of the URL's.
QString withPathVariables(const QString &text, const QHash<QString, QString> &variables)
{
    if (variables.isEmpty())
        return text;
    static const QRegularExpression queryOrHash(QStringLiteral("[?#]"));
    const qsizetype end = text.indexOf(queryOrHash);
    QStringList segments = (end < 0 ? text : text.left(end)).split(QLatin1Char('/'));
    for (QString &segment : segments) {
        if (segment.startsWith(QLatin1Char(':')) && variables.contains(segment.mid(1)))
            segment = variables.value(segment.mid(1));
    }
    return segments.join(QLatin1Char('/')) + (end < 0 ? QString() : text.mid(end));
}

std::optional<QString> readUrl(JsonReader &request)
{
    const QString key = QStringLiteral("url");
    if (!given(request, key)) {
        request.fail(key, Tr::tr("missing; a request needs a URL"));
        return std::nullopt;
    }
    QString text;
    QHash<QString, QString> pathVariables;
    if (request.value(key).isString()) {
        text = request.value(key).toString();
    } else {
        auto url = request.object(key);
        if (!url)
            return std::nullopt;
        if (given(*url, QStringLiteral("host")) || given(*url, QStringLiteral("path"))) {
            text = assembleUrl(*url);
        } else if (given(*url, QStringLiteral("raw"))) {
            text = url->string(QStringLiteral("raw")).value_or(QString());
        } else {
            url->failHere(Tr::tr("neither \"raw\" nor \"host\" and \"path\": a request needs a URL"));
            return std::nullopt;
        }
        auto list = given(*url, QStringLiteral("variable")) ? url->array(QStringLiteral("variable")) : std::nullopt;
        for (qsizetype i = 0; list && i < list->size(); ++i) {
            auto variable = list->object(i, Presence::Required);
            if (!variable || disabled(*variable))
                continue;
            const auto name = ImportJson::text(*variable, QStringLiteral("key"), Presence::Required);
            const QString value = ImportJson::text(*variable, QStringLiteral("value")).value_or(QString());
            if (name && !name->isEmpty())
                pathVariables.insert(*name, value);
        }
    }
    if (request.failed())
        return std::nullopt;
    text = withPathVariables(text.trimmed(), pathVariables);
    if (text.isEmpty()) {
        request.fail(key, Tr::tr("empty; a request needs a URL"));
        return std::nullopt;
    }
    // Postman sends a URL without a scheme over http; one that starts with a
    // variable ({{baseUrl}}/users) gets its scheme from the variable.
    if (!text.contains(QLatin1String("://")) && !text.startsWith(QLatin1String("{{")))
        text.prepend(QStringLiteral("http://"));
    return text;
}

void readHeaders(JsonReader &request, QList<DraftHeader> &headers)
{
    const QString key = QStringLiteral("header");
    if (!given(request, key))
        return;
    if (request.value(key).isString()) {
        // The older form: "Name: value" lines.
        for (const QString &line : request.value(key).toString().split(QLatin1Char('\n'))) {
            const qsizetype colon = line.indexOf(QLatin1Char(':'));
            if (colon > 0)
                headers.append({line.left(colon).trimmed(), line.mid(colon + 1).trimmed(), true});
        }
        return;
    }
    auto list = request.array(key);
    for (qsizetype i = 0; list && i < list->size(); ++i) {
        auto header = list->object(i, Presence::Required);
        if (!header)
            return;
        const auto name = ImportJson::text(*header, QStringLiteral("key"), Presence::Required);
        const QString value = ImportJson::text(*header, QStringLiteral("value")).value_or(QString());
        if (!name || header->failed())
            return;
        if (!disabled(*header) && !name->trimmed().isEmpty())
            headers.append({name->trimmed(), value, true});
    }
}

bool hasHeader(const QList<DraftHeader> &headers, const QString &name)
{
    return std::any_of(headers.cbegin(), headers.cend(),
        [&](const DraftHeader &header) { return header.name.compare(name, Qt::CaseInsensitive) == 0; });
}

QString rawContentType(const QString &language)
{
    static const QHash<QString, QString> types{
        {QStringLiteral("json"), QStringLiteral("application/json")},
        {QStringLiteral("xml"), QStringLiteral("application/xml")},
        {QStringLiteral("html"), QStringLiteral("text/html")},
        {QStringLiteral("javascript"), QStringLiteral("application/javascript")},
        {QStringLiteral("text"), QStringLiteral("text/plain")},
    };
    return types.value(language.toLower(), QStringLiteral("text/plain"));
}

// Form encoding of `text` as newman writes it (postman-request's qs, RFC 3986:
// every byte but A-Z a-z 0-9 - . _ ~ as %XX, a space as %20, not the browsers'
// "+"), so that a server sees the same bytes from both; its {{variables}} are
// left as they are, so that the runner can still fill them in.
QString formEncodedKeepingVariables(const QString &text)
{
    static const QRegularExpression reference(QStringLiteral("\\{\\{[^{}]*\\}\\}"));
    QString out;
    qsizetype at = 0;
    const auto encode = [](const QString &piece) { return QString::fromLatin1(QUrl::toPercentEncoding(piece)); };
    for (auto match = reference.globalMatch(text); match.hasNext();) {
        const auto found = match.next();
        out += encode(text.mid(at, found.capturedStart() - at)) + found.captured();
        at = found.capturedEnd();
    }
    return out + encode(text.mid(at));
}

// Each enabled {key, value, ...} field of a body list.
template<typename Each>
void eachField(JsonReader &body, const QString &key, Each each)
{
    auto fields = given(body, key) ? body.array(key) : std::nullopt;
    for (qsizetype i = 0; fields && i < fields->size() && !fields->failed(); ++i) {
        auto field = fields->object(i, Presence::Required);
        if (field && !disabled(*field))
            each(*field);
    }
}

QString graphqlBody(JsonReader &body, QStringList &ignored)
{
    auto graphql = body.object(QStringLiteral("graphql"));
    if (!graphql)
        return {};
    const QString query = ImportJson::text(*graphql, QStringLiteral("query")).value_or(QString());
    const QString variables = ImportJson::text(*graphql, QStringLiteral("variables")).value_or(QString()).trimmed();
    QString out = QStringLiteral("{\"query\":")
        + QString::fromUtf8(QJsonDocument(QJsonArray{query}).toJson(QJsonDocument::Compact)).mid(1).chopped(1);
    if (!variables.isEmpty()) {
        QJsonParseError error;
        const QJsonDocument parsed = QJsonDocument::fromJson(variables.toUtf8(), &error);
        if (error.error == QJsonParseError::NoError && parsed.isObject()) {
            out += QStringLiteral(",\"variables\":") + QString::fromUtf8(parsed.toJson(QJsonDocument::Compact));
        } else if (variables.contains(QLatin1String("{{"))) {
            // JSON only once its {{variables}} are filled in: kept as written.
            out += QStringLiteral(",\"variables\":") + variables;
        } else {
            ignored.append(graphql->pathOf(QStringLiteral("variables"))
                + Tr::tr(": not a JSON object, so not sent: %1").arg(variables));
        }
    }
    return out + QLatin1Char('}');
}

void readBody(JsonReader &request, RequestDraft &draft, QStringList &ignored)
{
    auto body = given(request, QStringLiteral("body")) ? request.object(QStringLiteral("body")) : std::nullopt;
    if (!body || disabled(*body))
        return;
    const QString mode = ImportJson::text(*body, QStringLiteral("mode")).value_or(QString());
    QString contentType;
    if (mode.isEmpty()) {
        return;
    } else if (mode == QLatin1String("raw")) {
        draft.body = ImportJson::text(*body, QStringLiteral("raw")).value_or(QString());
        const QString language = body->value(QStringLiteral("options"))
                                     .toObject()
                                     .value(QStringLiteral("raw"))
                                     .toObject()
                                     .value(QStringLiteral("language"))
                                     .toString();
        contentType = rawContentType(language);
    } else if (mode == QLatin1String("urlencoded")) {
        QStringList pairs;
        eachField(*body, mode, [&](JsonReader &field) {
            const QString key = ImportJson::text(field, QStringLiteral("key")).value_or(QString());
            const QString value = ImportJson::text(field, QStringLiteral("value")).value_or(QString());
            pairs.append(formEncodedKeepingVariables(key) + QLatin1Char('=') + formEncodedKeepingVariables(value));
        });
        draft.body = pairs.join(QLatin1Char('&'));
        contentType = QStringLiteral("application/x-www-form-urlencoded");
    } else if (mode == QLatin1String("formdata")) {
        QList<ImportBody::FormField> parts;
        eachField(*body, mode, [&](JsonReader &field) {
            const QString key = ImportJson::text(field, QStringLiteral("key")).value_or(QString());
            if (ImportJson::text(field, QStringLiteral("type")).value_or(QString()) == QLatin1String("file")) {
                ignored.append(field.path() + Tr::tr(": file field \"%1\" is not sent").arg(key));
                return;
            }
            const QString value = ImportJson::text(field, QStringLiteral("value")).value_or(QString());
            const QString type = ImportJson::text(field, QStringLiteral("contentType")).value_or(QString());
            parts.append({key, value, type});
        });
        if (!parts.isEmpty()) {
            const ImportBody::Multipart multipart = ImportBody::multipart(parts);
            draft.body = QString::fromUtf8(multipart.body);
            contentType = QString::fromLatin1(multipart.contentType);
        }
    } else if (mode == QLatin1String("graphql")) {
        draft.body = graphqlBody(*body, ignored);
        contentType = QStringLiteral("application/json");
    } else if (mode == QLatin1String("file")) {
        ignored.append(body->path() + Tr::tr(": a file body is not sent"));
    } else {
        body->fail(QStringLiteral("mode"),
            Tr::tr("unknown body mode \"%1\" (raw, urlencoded, formdata, file, graphql)").arg(mode));
        return;
    }
    if (!draft.body.isEmpty() && !hasHeader(draft.headers, QStringLiteral("Content-Type")))
        draft.headers.append({QStringLiteral("Content-Type"), contentType, true});
}

} // namespace

std::optional<RequestDraft> read(JsonReader &item, QStringList &ignored)
{
    const QString key = QStringLiteral("request");
    RequestDraft draft;
    if (item.value(key).isString()) {
        // The short form: a request that is only its URL, sent with GET.
        JsonReader wrapper(QJsonObject{{QStringLiteral("url"), item.value(key)}});
        const auto url = readUrl(wrapper);
        if (!url) {
            item.fail(key, wrapper.firstError().message);
            return std::nullopt;
        }
        draft.method = QStringLiteral("GET");
        draft.urlTemplate = *url;
        return draft;
    }
    auto request = item.object(key, Presence::Required);
    if (!request)
        return std::nullopt;
    const QString method = ImportJson::text(*request, QStringLiteral("method")).value_or(QString()).trimmed();
    draft.method = method.isEmpty() ? QStringLiteral("GET") : method.toUpper();
    const auto url = readUrl(*request);
    if (!url)
        return std::nullopt;
    draft.urlTemplate = *url;
    readHeaders(*request, draft.headers);
    readBody(*request, draft, ignored);
    if (request->failed())
        return std::nullopt;
    return draft;
}

} // namespace RetryLab::Core::PostmanRunRequest
