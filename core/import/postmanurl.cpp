#include "core/import/postmanurl.h"

#include "core/import/importjson.h"
#include "core/util/coretr.h"

#include <QJsonObject>
#include <QRegularExpression>
#include <QStringList>

namespace RetryLab::Core::PostmanUrl {

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

} // namespace

QString assemble(JsonReader &url)
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

QString withPathVariables(const QString &text, const QHash<QString, QString> &pathVariables)
{
    if (pathVariables.isEmpty())
        return text;
    const qsizetype queryAt = text.indexOf(QRegularExpression(QStringLiteral("[?#]")));
    const QString before = queryAt < 0 ? text : text.left(queryAt);
    const QString after = queryAt < 0 ? QString() : text.mid(queryAt);
    const qsizetype schemeEnd = before.indexOf(QLatin1String("://"));
    const qsizetype pathAt = before.indexOf(QLatin1Char('/'), schemeEnd < 0 ? 0 : schemeEnd + 3);
    if (pathAt < 0)
        return text;
    QStringList segments = before.mid(pathAt).split(QLatin1Char('/'));
    for (QString &segment : segments) {
        if (segment.startsWith(QLatin1Char(':')) && pathVariables.contains(segment.mid(1)))
            segment = pathVariables.value(segment.mid(1));
    }
    return before.left(pathAt) + segments.join(QLatin1Char('/')) + after;
}

QByteArray rawContentType(const QString &language)
{
    static const QHash<QString, QByteArray> types{
        {QStringLiteral("json"), "application/json"},
        {QStringLiteral("xml"), "application/xml"},
        {QStringLiteral("html"), "text/html"},
        {QStringLiteral("javascript"), "application/javascript"},
        {QStringLiteral("text"), "text/plain"},
    };
    return types.value(language.toLower(), QByteArrayLiteral("text/plain"));
}

std::optional<Written> read(JsonReader &request)
{
    const QString key = QStringLiteral("url");
    if (!given(request, key)) {
        request.fail(key, Tr::tr("missing; a request needs a URL"));
        return std::nullopt;
    }
    Written written;
    if (request.value(key).isString()) {
        written.text = request.value(key).toString();
    } else {
        auto url = request.object(key);
        if (!url)
            return std::nullopt;
        if (given(*url, QStringLiteral("host")) || given(*url, QStringLiteral("path"))) {
            written.text = assemble(*url);
        } else if (given(*url, QStringLiteral("raw"))) {
            written.text = url->string(QStringLiteral("raw")).value_or(QString());
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
                written.pathVariables.insert(*name, value);
        }
    }
    if (request.failed())
        return std::nullopt;
    written.text = written.text.trimmed();
    if (written.text.isEmpty()) {
        request.fail(key, Tr::tr("empty; a request needs a URL"));
        return std::nullopt;
    }
    return written;
}

QString withDefaultScheme(QString text)
{
    if (!text.contains(QLatin1String("://")) && !text.startsWith(QLatin1String("{{")))
        text.prepend(QStringLiteral("http://"));
    return text;
}

} // namespace RetryLab::Core::PostmanUrl
