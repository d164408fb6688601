#include "core/runner/postmanrunrequest.h"

#include "core/import/importbody.h"
#include "core/import/importjson.h"
#include "core/import/postmanurl.h"
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

std::optional<QString> readUrl(JsonReader &request)
{
    const auto written = PostmanUrl::read(request);
    if (!written)
        return std::nullopt;
    return PostmanUrl::withDefaultScheme(PostmanUrl::withPathVariables(written->text, written->pathVariables));
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
        contentType = QString::fromLatin1(PostmanUrl::rawContentType(language));
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
        // Every part in order, files among them: with a file, the form goes
        // streamed (the files read as each attempt is sent), as newman sends it.
        DraftBody streamed;
        streamed.mode = DraftBody::Mode::Multipart;
        bool hasFile = false;
        eachField(*body, mode, [&](JsonReader &field) {
            const QString key = ImportJson::text(field, QStringLiteral("key")).value_or(QString());
            const QString type = ImportJson::text(field, QStringLiteral("contentType")).value_or(QString());
            if (ImportJson::text(field, QStringLiteral("type")).value_or(QString()) == QLatin1String("file")) {
                const QJsonValue src = field.value(QStringLiteral("src"));
                QStringList files = src.isArray() ? src.toVariant().toStringList() : QStringList{src.toString()};
                files.removeAll(QString());
                if (files.isEmpty())
                    ignored.append(
                        field.path() + Tr::tr(": file field \"%1\" has no file, so it is not sent").arg(key));
                for (const QString &file : files)
                    streamed.fields.append({key, {}, file, {}, type, true});
                hasFile = hasFile || !files.isEmpty();
                return;
            }
            const QString value = ImportJson::text(field, QStringLiteral("value")).value_or(QString());
            parts.append({key, value, type});
            streamed.fields.append({key, value, {}, {}, type, true});
        });
        if (hasFile) {
            draft.bodyFrom = streamed;
        } else if (!parts.isEmpty()) {
            const ImportBody::Multipart multipart = ImportBody::multipart(parts);
            draft.body = QString::fromUtf8(multipart.body);
            contentType = QString::fromLatin1(multipart.contentType);
        }
    } else if (mode == QLatin1String("graphql")) {
        draft.body = graphqlBody(*body, ignored);
        contentType = QStringLiteral("application/json");
    } else if (mode == QLatin1String("file")) {
        const QString src = body->value(QStringLiteral("file")).toObject().value(QStringLiteral("src")).toString();
        if (src.isEmpty()) {
            ignored.append(body->path() + Tr::tr(": a file body without a file is not sent"));
        } else {
            draft.bodyFrom.mode = DraftBody::Mode::File;
            draft.bodyFrom.filePath = src;
        }
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
