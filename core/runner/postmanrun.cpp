#include "core/runner/postmanrun.h"

#include "core/import/importjson.h"
#include "core/import/postmanauth.h"
#include "core/import/postmanimport.h"
#include "core/runner/postmanrunrequest.h"
#include "core/util/coretr.h"
#include "core/util/jsonreader.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLoggingCategory>

namespace RetryLab::Core::PostmanRun {

namespace {

Q_LOGGING_CATEGORY(lcPostmanRun, "retrylab.core.postmanrun")

// Deeper than this is not a collection anyone wrote, and would exhaust the stack.
constexpr int maxDepth = 64;

bool given(const JsonReader &reader, const QString &key)
{
    return reader.contains(key) && !reader.value(key).isNull();
}

// Whether the file is a collection v2.0 or v2.1; an error for anything else.
Result<void> checkVersion(const QJsonObject &document)
{
    const QString again = Tr::tr("export it again from Postman as Collection v2.1");
    if (!document.contains(QStringLiteral("info"))) {
        if (document.contains(QStringLiteral("requests")) || document.contains(QStringLiteral("order")))
            return Result<void>::failure(Tr::tr("Postman collection v1 is not supported: %1").arg(again));
        // Postman's SDK, and so newman, reads an "item" list without "info" as
        // a v2 collection named by its "name" (newman's own tests hold such files).
        if (document.value(QStringLiteral("item")).isArray())
            return {};
        return Result<void>::failure(
            QStringLiteral("info"), Tr::tr("missing: a Postman collection v2.0 or v2.1 starts with \"info\""));
    }
    JsonReader root(document);
    auto info = root.object(QStringLiteral("info"), Presence::Required);
    if (!info)
        return root.firstError();
    const QString key = QStringLiteral("schema");
    if (!given(*info, key))
        return {}; // Postman always writes one; newman reads a collection without it as v2.
    const auto schema = info->string(key);
    if (!schema)
        return root.firstError();
    const QString place = info->pathOf(key);
    if (schema->contains(QLatin1String("/collection/v2.1")) || schema->contains(QLatin1String("/collection/v2.0")))
        return {};
    if (schema->contains(QLatin1String("/collection/v1")))
        return Result<void>::failure(place, Tr::tr("Postman collection v1 is not supported: %1").arg(again));
    return Result<void>::failure(
        place, Tr::tr("\"%1\" is not the schema of a Postman collection v2.0 or v2.1").arg(*schema));
}

QString valueText(const QJsonValue &value)
{
    // A value of type "any" may be an object or an array: it is used as its JSON text.
    if (value.isObject())
        return QString::fromUtf8(QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact));
    if (value.isArray())
        return QString::fromUtf8(QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact));
    return ImportJson::scalarText(value).value_or(QString());
}

class Reader
{
public:
    explicit Reader(RunCollection &out) : m_out(out) { }

    void readVariables(JsonReader &root)
    {
        auto list = given(root, QStringLiteral("variable")) ? root.array(QStringLiteral("variable")) : std::nullopt;
        for (qsizetype i = 0; list && i < list->size() && !list->failed(); ++i) {
            auto variable = list->object(i, Presence::Required);
            if (!variable)
                return;
            // Older exports name a variable by "id".
            const bool byId = !variable->contains(QStringLiteral("key")) && variable->contains(QStringLiteral("id"));
            const auto name = variable->string(byId ? QStringLiteral("id") : QStringLiteral("key"), Presence::Required);
            const bool off = ImportJson::flag(*variable, QStringLiteral("disabled")).value_or(false);
            if (name && !off && !variable->failed())
                m_out.variables.append({*name, valueText(variable->value(QStringLiteral("value")))});
        }
    }

    // The pre-request and test scripts of `owner`'s `event` list.
    void readEvents(JsonReader &owner, RunScript &preRequest, RunScript &test)
    {
        const QString key = QStringLiteral("event");
        if (owner.value(key).isObject()) {
            // A single event, not in a list: Postman's SDK takes it as a list of one.
            const QString path = owner.pathOf(key);
            JsonReader one(QJsonArray{owner.value(key)}, path);
            readEventList(one, preRequest, test);
            if (one.failed()) {
                Error error = one.firstError();
                error.path = error.path.mid(path.size()); // "[0].script...", under the owner's "event"
                owner.fail(key, error);
            }
            return;
        }
        if (auto events = given(owner, key) ? owner.array(key) : std::nullopt)
            readEventList(*events, preRequest, test);
    }

    void readEventList(JsonReader &events, RunScript &preRequest, RunScript &test)
    {
        for (qsizetype i = 0; i < events.size() && !events.failed(); ++i) {
            auto event = events.object(i, Presence::Required);
            if (!event)
                return;
            const auto listen = event->string(QStringLiteral("listen"), Presence::Required);
            const bool off = ImportJson::flag(*event, QStringLiteral("disabled")).value_or(false);
            auto script
                = given(*event, QStringLiteral("script")) ? event->object(QStringLiteral("script")) : std::nullopt;
            QString source;
            if (script && given(*script, QStringLiteral("exec"))) {
                if (script->value(QStringLiteral("exec")).isString())
                    source = script->string(QStringLiteral("exec")).value_or(QString());
                else
                    source = script->strings(QStringLiteral("exec")).value_or(QStringList()).join(QLatin1Char('\n'));
            }
            if (event->failed() || off || source.trimmed().isEmpty())
                continue;
            RunScript *into = *listen == QLatin1String("prerequest") ? &preRequest
                : *listen == QLatin1String("test")                   ? &test
                                                                     : nullptr;
            if (!into) {
                m_out.ignored.append(event->path() + Tr::tr(": a \"%1\" script is not run").arg(*listen));
            } else if (into->source.isEmpty()) {
                *into = RunScript{source, event->path(), 0};
            } else {
                // Postman runs every script of a kind in turn: one after the other here too.
                into->source += QLatin1Char('\n') + source;
            }
        }
    }

    // `owner`'s `auth`: absent, null and "inherit" inherit.
    RunAuth readAuth(JsonReader &owner)
    {
        RunAuth auth;
        auto object = given(owner, QStringLiteral("auth")) ? owner.object(QStringLiteral("auth")) : std::nullopt;
        if (!object)
            return auth;
        const auto type = object->string(QStringLiteral("type"), Presence::Required);
        if (!type || *type == QLatin1String("inherit"))
            return auth;
        if (*type == QLatin1String("noauth")) {
            auth.kind = RunAuth::Kind::None;
            return auth;
        }
        const QHash<QString, QString> p = PostmanAuth::parameters(*object, *type);
        QString unsupported;
        if (std::optional<AuthSpec> read = PostmanAuth::read(*type, p, &unsupported)) {
            auth = *read;
        } else {
            auth.kind = RunAuth::Kind::None;
            m_out.ignored.append(
                object->path() + Tr::tr(": %1 authorization: %2; sent without authorization").arg(*type, unsupported));
        }
        return auth;
    }

    void readItems(JsonReader &items, QList<RunItem> &into, int depth)
    {
        for (qsizetype i = 0; i < items.size() && !items.failed(); ++i) {
            auto object = items.object(i, Presence::Required);
            if (!object)
                return;
            RunItem item;
            item.place = object->path();
            item.name = ImportJson::text(*object, QStringLiteral("name")).value_or(QString());
            item.id = ImportJson::text(*object, QStringLiteral("id")).value_or(QString());
            if (item.id.isEmpty())
                item.id = ImportJson::text(*object, QStringLiteral("_postman_id")).value_or(QString());
            readEvents(*object, item.preRequest, item.test);
            noteVariables(*object);
            if (object->contains(QStringLiteral("item"))) {
                item.kind = RunItem::Kind::Folder;
                item.auth = readAuth(*object);
                if (depth >= maxDepth) {
                    object->failHere(Tr::tr("folders nested more than %1 deep").arg(maxDepth));
                    return;
                }
                if (auto children = object->array(QStringLiteral("item")))
                    readItems(*children, item.items, depth + 1);
            } else if (object->contains(QStringLiteral("request"))) {
                item.kind = RunItem::Kind::Request;
                auto draft = PostmanRunRequest::read(*object, m_out.ignored);
                if (!draft)
                    return;
                item.request = *draft;
                if (object->value(QStringLiteral("request")).isObject()) {
                    auto request = object->object(QStringLiteral("request"));
                    item.auth = readAuth(*request);
                }
            } else {
                object->failHere(Tr::tr("neither a request (no \"request\") nor a folder (no \"item\")"));
            }
            if (object->failed())
                return;
            into.append(std::move(item));
        }
    }

private:
    // Folders and requests may carry variables of their own (v2.1 allows it);
    // newman does not use them, and neither does this runner.
    void noteVariables(const JsonReader &object)
    {
        const QJsonValue variables = object.value(QStringLiteral("variable"));
        if (variables.isArray() && !variables.toArray().isEmpty())
            m_out.ignored.append(
                object.pathOf(QStringLiteral("variable")) + Tr::tr(": variables of an item are not used"));
    }

    RunCollection &m_out;
};

} // namespace

Result<RunCollection> read(const QByteArray &json)
{
    using R = Result<RunCollection>;
    if (json.size() > PostmanImport::maxFileBytes)
        return R::failure(
            ImportJson::tooLarge(json.size(), PostmanImport::maxFileBytes, Tr::tr("Postman collections")));
    auto document = ImportJson::parseObject(json, Tr::tr("a Postman collection"));
    if (!document)
        return document.errorDetail();
    // Postman's API (GET /collections/ID) and its exports wrap the collection
    // in {"collection": {...}}; newman runs such a file, so the runner does too.
    if (const QJsonValue wrapped = document->value(QStringLiteral("collection"));
        wrapped.isObject() && !document->contains(QStringLiteral("info")))
        document = wrapped.toObject();
    if (const auto version = checkVersion(*document); !version)
        return version.errorDetail();

    RunCollection collection;
    collection.format = RunCollection::Format::Postman;
    collection.dialect = ScriptDialect::Postman;
    JsonReader root(*document);
    if (!root.contains(QStringLiteral("info")))
        collection.name = ImportJson::text(root, QStringLiteral("name")).value_or(QString());
    else if (auto info = root.object(QStringLiteral("info"), Presence::Required))
        collection.name = ImportJson::text(*info, QStringLiteral("name")).value_or(QString());
    Reader reader(collection);
    reader.readVariables(root);
    reader.readEvents(root, collection.preRequest, collection.test);
    collection.auth = reader.readAuth(root);
    auto items = root.array(QStringLiteral("item"), Presence::Required);
    if (items && !root.failed())
        reader.readItems(*items, collection.items, 0);
    if (root.failed())
        return root.firstError();
    qCDebug(lcPostmanRun) << "read" << collection.requestCount() << "requests of" << collection.name;
    return collection;
}

Result<RunCollection> readFile(const QString &path)
{
    auto bytes = ImportJson::readFile(path, PostmanImport::maxFileBytes, Tr::tr("Postman collections"));
    if (!bytes)
        return Error{path, bytes.errorDetail().message};
    auto collection = read(*bytes);
    if (!collection) {
        const Error error = collection.errorDetail();
        return Error{path, error.text(), error.offset};
    }
    RunCollection out = std::move(collection).value();
    out.source = path;
    return out;
}

Result<RunEnvironment> readEnvironmentFile(const QString &path)
{
    const auto environment = PostmanImport::readEnvironmentFile(path);
    if (!environment) {
        const Error error = environment.errorDetail();
        return Error{path, error.text(), error.offset};
    }
    return RunEnvironment{environment->name, environment->values};
}

} // namespace RetryLab::Core::PostmanRun
