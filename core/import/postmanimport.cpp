#include "core/import/postmanimport.h"

#include "core/import/postmanauth.h"
#include "core/import/postmanurl.h"

#include "core/import/importbody.h"
#include "core/import/importjson.h"
#include "core/util/coretr.h"
#include "core/util/jsonreader.h"
#include "core/util/variablesubstitution.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QUrl>

// One job: a Postman collection v2.1 into requests, by Postman's rules. Variables,
// inherited authorization, URL objects and the body modes are all applied while one
// item is read, with the same variables and the same error paths; split, the reader's
// state would be passed between files.

namespace {
Q_LOGGING_CATEGORY(lcPostmanImport, "retrylab.core.postmanimport")
} // namespace

namespace RetryLab::Core::PostmanImport {

namespace {

void addOnce(QStringList &list, const QString &item)
{
    if (!list.contains(item))
        list.append(item);
}

// The variables in scope: the collection's, then the environment's over them
// (Postman's precedence: an environment value wins over a collection value).
class Variables
{
public:
    void set(const QString &name, const QString &value) { m_values.insert(name, value); }

    /// `text` with every {{name}} replaced, by Postman's rules: anything between
    /// the braces is a name ("{{$guid}}"), and a value's own {{other}} is
    /// replaced once more. What is left stays as written and lands in `unresolved`.
    QString resolve(const QString &text, QStringList &unresolved) const
    {
        static constexpr VariableSubstitution::Rules postman{
            VariableSubstitution::Names::Loose, VariableSubstitution::Nesting::OneLevel};
        return VariableSubstitution::substitute(text, m_values, &unresolved, postman);
    }

private:
    QHash<QString, QString> m_values;
};

// What an item inherits from the folders around it.
struct Scope
{
    QStringList folders;
    std::optional<JsonReader> auth; ///< the innermost auth object, "noauth" included
    QString authOwner;
    QStringList scripts; ///< the scripts of the folders around it, as notes
    bool followRedirects = true; ///< Postman follows redirects unless told not to
};

QString collectionOwner()
{
    return Tr::tr("the collection");
}

QString folderOwner(const QString &name)
{
    return Tr::tr("folder \"%1\"").arg(name);
}

// A field that may be absent or null; anything else goes through `read`.
bool present(const JsonReader &reader, const QString &key)
{
    return reader.contains(key) && !reader.value(key).isNull();
}

// Scripts of an `event` list, as notes ("pre-request script of folder "Orders" (not run)").
void noteScripts(JsonReader &owner, const QString &ownerName, QStringList &notes)
{
    if (!present(owner, QStringLiteral("event")))
        return;
    auto events = owner.array(QStringLiteral("event"));
    if (!events)
        return;
    for (qsizetype i = 0; i < events->size(); ++i) {
        auto event = events->object(i, Presence::Required);
        if (!event)
            return;
        const QString listen = ImportJson::text(*event, QStringLiteral("listen")).value_or(QString());
        if (ImportJson::flag(*event, QStringLiteral("disabled")).value_or(false))
            continue;
        const QJsonValue exec = event->value(QStringLiteral("script")).toObject().value(QStringLiteral("exec"));
        QString code = exec.isArray() ? exec.toVariant().toStringList().join(QLatin1Char('\n')) : exec.toString();
        if (code.trimmed().isEmpty())
            continue;
        if (listen == QLatin1String("prerequest"))
            notes.append(Tr::tr("pre-request script of %1 (not run)").arg(ownerName));
        else if (listen == QLatin1String("test"))
            notes.append(Tr::tr("test script of %1 (not run)").arg(ownerName));
        else
            notes.append(Tr::tr("%1 script of %2 (not run)").arg(listen, ownerName));
    }
}

void readFollowRedirects(const JsonReader &owner, bool &followRedirects)
{
    const QJsonValue value
        = owner.value(QStringLiteral("protocolProfileBehavior")).toObject().value(QStringLiteral("followRedirects"));
    if (value.isBool())
        followRedirects = value.toBool();
}

// Reads a node's `auth` into the scope: absent, null or "inherit" leave the
// scope's as it is; anything else (noauth too) replaces it.
void readAuthInto(JsonReader &owner, const QString &ownerName, std::optional<JsonReader> &auth, QString &authOwner)
{
    if (!present(owner, QStringLiteral("auth")))
        return;
    auto object = owner.object(QStringLiteral("auth"));
    if (!object)
        return;
    const auto type = object->string(QStringLiteral("type"), Presence::Required);
    if (!type || *type == QLatin1String("inherit"))
        return;
    auth = *object;
    authOwner = ownerName;
}

// The fields of one request, resolved, before they become an ImportedRequest.
struct Building
{
    ImportedRequest request;
    QStringList unresolved;
    QList<QPair<QByteArray, QByteArray>> queryAdditions;
};

void addAuthHeader(Building &b, const QByteArray &name, const QByteArray &value, const QString &what)
{
    if (headerValue(b.request.spec.headers, name)) {
        b.request.ignored.append(Tr::tr("%1: the request sets %2 itself").arg(what, QString::fromUtf8(name)));
        return;
    }
    b.request.spec.headers.append({name, value});
}

void applyAuth(JsonReader &auth, const QString &owner, const Variables &variables, Building &b)
{
    const QString type = auth.string(QStringLiteral("type")).value_or(QString());
    if (type == QLatin1String("noauth"))
        return;
    const QHash<QString, QString> p = PostmanAuth::parameters(auth, type);
    if (auth.failed())
        return;
    QString unsupported;
    std::optional<AuthSpec> read = PostmanAuth::read(type, p, &unsupported);
    if (!read) {
        b.request.ignored.append(
            Tr::tr("%1 authorization of %2 (%3: add its header by hand)").arg(type, owner, unsupported));
        return;
    }
    read->forEachText([&](QString &text) { text = variables.resolve(text, b.unresolved); });
    switch (read->kind) {
    case AuthSpec::Kind::Inherit:
    case AuthSpec::Kind::None:
        return;
    case AuthSpec::Kind::Basic: {
        const QByteArray credentials = (read->username + QLatin1Char(':') + read->password).toUtf8();
        addAuthHeader(
            b, "Authorization", "Basic " + credentials.toBase64(), Tr::tr("basic authorization of %1").arg(owner));
        return;
    }
    case AuthSpec::Kind::Bearer:
        addAuthHeader(
            b, "Authorization", "Bearer " + read->token.toUtf8(), Tr::tr("bearer authorization of %1").arg(owner));
        return;
    case AuthSpec::Kind::ApiKey:
        if (read->key.isEmpty()) {
            b.request.ignored.append(Tr::tr("API key authorization of %1 names no key").arg(owner));
        } else if (read->inQuery) {
            // Placeholders stay readable in the URL text.
            b.queryAdditions.append(
                {QUrl::toPercentEncoding(read->key, "{}"), QUrl::toPercentEncoding(read->value, "{}")});
        } else {
            addAuthHeader(
                b, read->key.toUtf8(), read->value.toUtf8(), Tr::tr("API key authorization of %1").arg(owner));
        }
        return;
    default:
        // Signed, answered or fetched for every attempt: the request carries the auth itself.
        b.request.spec.auth = *read;
        return;
    }
}

QString insertQuery(QString text, const QList<QPair<QByteArray, QByteArray>> &additions)
{
    for (const auto &[key, value] : additions) {
        const qsizetype hashAt = text.indexOf(QLatin1Char('#'));
        const QString item = QString::fromUtf8(key + '=' + value);
        const QString head = hashAt < 0 ? text : text.left(hashAt);
        const QString tail = hashAt < 0 ? QString() : text.mid(hashAt);
        text = head + (head.contains(QLatin1Char('?')) ? QLatin1Char('&') : QLatin1Char('?')) + item + tail;
    }
    return text;
}

// The URL as text, resolved; nothing when the file is refused.
std::optional<QString> readUrl(JsonReader &request, const Variables &variables, Building &b)
{
    auto written = PostmanUrl::read(request);
    if (!written)
        return std::nullopt;
    for (QString &value : written->pathVariables)
        value = variables.resolve(value, b.unresolved);
    return PostmanUrl::withDefaultScheme(
        PostmanUrl::withPathVariables(variables.resolve(written->text, b.unresolved), written->pathVariables));
}

void readHeaders(JsonReader &request, const Variables &variables, Building &b)
{
    const QString key = QStringLiteral("header");
    if (!present(request, key))
        return;
    if (request.value(key).isString()) {
        // The older string form: "Name: value" lines.
        for (const QString &line : request.value(key).toString().split(QLatin1Char('\n'))) {
            const qsizetype colon = line.indexOf(QLatin1Char(':'));
            if (colon <= 0)
                continue;
            b.request.spec.headers.append({variables.resolve(line.left(colon).trimmed(), b.unresolved).toUtf8(),
                variables.resolve(line.mid(colon + 1).trimmed(), b.unresolved).toUtf8()});
        }
        return;
    }
    auto headers = request.array(key);
    for (qsizetype i = 0; headers && i < headers->size(); ++i) {
        auto header = headers->object(i, Presence::Required);
        if (!header)
            return;
        const auto name = ImportJson::text(*header, QStringLiteral("key"), Presence::Required);
        const QString value = ImportJson::text(*header, QStringLiteral("value")).value_or(QString());
        const bool disabled = ImportJson::flag(*header, QStringLiteral("disabled")).value_or(false);
        if (!name || header->failed())
            return;
        const QByteArray resolvedName = variables.resolve(name->trimmed(), b.unresolved).toUtf8();
        if (disabled || resolvedName.isEmpty())
            continue;
        b.request.spec.headers.append({resolvedName, variables.resolve(value, b.unresolved).toUtf8()});
    }
}

// A list of {key, value, disabled, ...} fields of a body.
template<typename Each>
void readFields(JsonReader &body, const QString &key, Each each)
{
    if (!present(body, key))
        return;
    auto fields = body.array(key);
    for (qsizetype i = 0; fields && i < fields->size(); ++i) {
        auto field = fields->object(i, Presence::Required);
        if (!field)
            return;
        if (ImportJson::flag(*field, QStringLiteral("disabled")).value_or(false))
            continue;
        each(*field);
        if (field->failed())
            return;
    }
}

void readBody(JsonReader &request, const Variables &variables, Building &b)
{
    if (!present(request, QStringLiteral("body")))
        return;
    auto body = request.object(QStringLiteral("body"));
    if (!body || ImportJson::flag(*body, QStringLiteral("disabled")).value_or(false))
        return;
    const QString mode = ImportJson::text(*body, QStringLiteral("mode")).value_or(QString());
    const auto resolve = [&](const QString &text) { return variables.resolve(text, b.unresolved); };
    QByteArray contentType;
    RequestSpec &spec = b.request.spec;
    if (mode.isEmpty()) {
        return;
    } else if (mode == QLatin1String("raw")) {
        spec.body = resolve(ImportJson::text(*body, QStringLiteral("raw")).value_or(QString())).toUtf8();
        const QString language = body->value(QStringLiteral("options"))
                                     .toObject()
                                     .value(QStringLiteral("raw"))
                                     .toObject()
                                     .value(QStringLiteral("language"))
                                     .toString();
        contentType = PostmanUrl::rawContentType(language);
    } else if (mode == QLatin1String("urlencoded")) {
        QList<QPair<QString, QString>> fields;
        readFields(*body, mode, [&](JsonReader &field) {
            const QString key = ImportJson::text(field, QStringLiteral("key")).value_or(QString());
            const QString value = ImportJson::text(field, QStringLiteral("value")).value_or(QString());
            fields.append({resolve(key), resolve(value)});
        });
        spec.body = ImportBody::urlEncoded(fields);
        contentType = "application/x-www-form-urlencoded";
    } else if (mode == QLatin1String("formdata")) {
        QList<ImportBody::FormField> parts;
        // Every part in order, files among them: with a file, the form is sent
        // streamed (the files read as each attempt is sent), not held as text.
        QList<FormPart> streamed;
        bool hasFile = false;
        readFields(*body, mode, [&](JsonReader &field) {
            const QString key = ImportJson::text(field, QStringLiteral("key")).value_or(QString());
            const QString type = ImportJson::text(field, QStringLiteral("contentType")).value_or(QString());
            if (ImportJson::text(field, QStringLiteral("type")).value_or(QString()) == QLatin1String("file")) {
                const QJsonValue src = field.value(QStringLiteral("src"));
                QStringList files = src.isArray() ? src.toVariant().toStringList() : QStringList{src.toString()};
                files.removeAll(QString());
                if (files.isEmpty()) {
                    b.request.ignored.append(
                        Tr::tr("form-data file field \"%1\": no file chosen, so it is not sent").arg(key));
                    return;
                }
                for (const QString &file : files)
                    streamed.append({resolve(key).toUtf8(), {}, file, {}, type.toUtf8()});
                hasFile = true;
                return;
            }
            const QString value = ImportJson::text(field, QStringLiteral("value")).value_or(QString());
            parts.append({resolve(key), resolve(value), type});
            streamed.append({resolve(key).toUtf8(), resolve(value).toUtf8(), {}, {}, type.toUtf8()});
        });
        if (hasFile) {
            spec.bodySource.kind = BodySource::Kind::Multipart;
            spec.bodySource.parts = streamed;
        } else if (!parts.isEmpty()) {
            const ImportBody::Multipart multipart = ImportBody::multipart(parts);
            spec.body = multipart.body;
            contentType = multipart.contentType;
        }
    } else if (mode == QLatin1String("graphql")) {
        const QJsonObject graphql = body->value(QStringLiteral("graphql")).toObject();
        QJsonObject payload{{QStringLiteral("query"), resolve(graphql.value(QStringLiteral("query")).toString())}};
        const QString variablesText = resolve(graphql.value(QStringLiteral("variables")).toString()).trimmed();
        if (!variablesText.isEmpty()) {
            QJsonParseError error;
            const QJsonDocument parsed = QJsonDocument::fromJson(variablesText.toUtf8(), &error);
            if (error.error == QJsonParseError::NoError && parsed.isObject())
                payload.insert(QStringLiteral("variables"), parsed.object());
            else
                b.request.ignored.append(Tr::tr("GraphQL variables that are not a JSON object: %1").arg(variablesText));
        }
        spec.body = QJsonDocument(payload).toJson(QJsonDocument::Compact);
        contentType = "application/json";
    } else if (mode == QLatin1String("file")) {
        const QString src = body->value(QStringLiteral("file")).toObject().value(QStringLiteral("src")).toString();
        if (src.isEmpty()) {
            b.request.ignored.append(Tr::tr("file body: no file chosen, so no body is sent"));
        } else {
            spec.bodySource.kind = BodySource::Kind::File;
            spec.bodySource.filePath = src;
        }
    } else {
        body->fail(QStringLiteral("mode"),
            Tr::tr("unknown body mode \"%1\" (raw, urlencoded, formdata, file, graphql)").arg(mode));
        return;
    }
    if (!spec.body.isEmpty() && !contentType.isEmpty() && !headerValue(spec.headers, "Content-Type"))
        spec.headers.append({QByteArrayLiteral("Content-Type"), contentType});
}

class CollectionReader
{
public:
    explicit CollectionReader(Collection &out) : m_out(out) { }

    Variables variables;

    void readItems(JsonReader &items, const Scope &scope)
    {
        for (qsizetype i = 0; i < items.size() && !items.failed(); ++i) {
            auto item = items.object(i, Presence::Required);
            if (!item)
                return;
            const QString name = ImportJson::text(*item, QStringLiteral("name")).value_or(QString());
            if (item->contains(QStringLiteral("item"))) {
                Scope inner = scope;
                inner.folders.append(name);
                readAuthInto(*item, folderOwner(name), inner.auth, inner.authOwner);
                noteScripts(*item, folderOwner(name), inner.scripts);
                readFollowRedirects(*item, inner.followRedirects);
                auto children = item->array(QStringLiteral("item"), Presence::Required);
                if (children)
                    readItems(*children, inner);
            } else if (item->contains(QStringLiteral("request"))) {
                readRequest(*item, name, scope);
            } else {
                item->failHere(Tr::tr("neither a request (no \"request\") nor a folder (no \"item\")"));
            }
        }
    }

private:
    void readRequest(JsonReader &item, const QString &name, const Scope &scope)
    {
        Building b;
        b.request.name = name;
        b.request.folders = scope.folders;
        b.request.followRedirects = scope.followRedirects;
        readFollowRedirects(item, b.request.followRedirects);
        b.request.ignored = scope.scripts;
        noteScripts(item, Tr::tr("the request"), b.request.ignored);

        std::optional<JsonReader> auth = scope.auth;
        QString authOwner = scope.authOwner;
        QString url;
        const QString requestKey = QStringLiteral("request");
        if (item.value(requestKey).isString()) {
            // The short form: a request that is only its URL, sent with GET.
            QString text = variables.resolve(item.value(requestKey).toString().trimmed(), b.unresolved);
            if (text.isEmpty()) {
                item.fail(requestKey, Tr::tr("empty; a request needs a URL"));
                return;
            }
            if (!text.contains(QLatin1String("://")) && !text.startsWith(QLatin1String("{{")))
                text.prepend(QStringLiteral("http://"));
            url = text;
        } else {
            auto request = item.object(requestKey, Presence::Required);
            if (!request)
                return;
            const QString method = ImportJson::text(*request, QStringLiteral("method")).value_or(QString()).trimmed();
            b.request.spec.method = method.isEmpty() ? QByteArrayLiteral("GET") : method.toUpper().toUtf8();
            const auto resolvedUrl = readUrl(*request, variables, b);
            if (!resolvedUrl)
                return;
            url = *resolvedUrl;
            readHeaders(*request, variables, b);
            readBody(*request, variables, b);
            readAuthInto(*request, Tr::tr("the request"), auth, authOwner);
            if (present(*request, QStringLiteral("proxy")))
                b.request.ignored.append(Tr::tr("the request's proxy (set one in the request's connection options)"));
            if (present(*request, QStringLiteral("certificate")))
                b.request.ignored.append(Tr::tr("the request's client certificate (choose it in the TLS options)"));
            if (request->failed())
                return;
        }
        if (auth) {
            applyAuth(*auth, authOwner, variables, b);
            if (auth->failed())
                return;
        }
        url = insertQuery(url, b.queryAdditions);
        b.request.urlText = url;
        b.request.spec.url = QUrl(url, QUrl::TolerantMode);
        for (const QString &variable : std::as_const(b.unresolved)) {
            b.request.unknown.append(QStringLiteral("{{%1}}").arg(variable));
            addOnce(m_out.unresolvedVariables, variable);
        }
        m_out.requests.append(std::move(b.request));
    }

    Collection &m_out;
};

Result<void> checkVersion(const QJsonObject &document)
{
    const QString info = QStringLiteral("info");
    const QString v21 = QStringLiteral("https://schema.getpostman.com/json/collection/v2.1.0/collection.json");
    const QString again = Tr::tr("export it again from Postman as Collection v2.1");
    if (!document.contains(info)) {
        if (document.contains(QStringLiteral("requests")) || document.contains(QStringLiteral("order")))
            return Result<void>::failure(Tr::tr("this is a Postman collection v1, an old format: %1").arg(again));
        if (document.contains(QStringLiteral("values")))
            return Result<void>::failure(Tr::tr("this is a Postman environment, not a collection"));
        if (document.contains(QStringLiteral("log")))
            return Result<void>::failure(Tr::tr("this is a HAR file, not a Postman collection"));
        return Result<void>::failure(info, Tr::tr("missing: a Postman collection v2.1 starts with \"info\""));
    }
    JsonReader root(document);
    auto infoReader = root.object(info, Presence::Required);
    if (!infoReader)
        return root.firstError();
    const QString schemaKey = QStringLiteral("schema");
    const auto schema = infoReader->string(schemaKey, Presence::Required);
    if (!schema) {
        Error error = infoReader->firstError();
        error.message += Tr::tr("; a Postman collection v2.1 names its schema, %1").arg(v21);
        return error;
    }
    const QString path = infoReader->pathOf(schemaKey);
    if (schema->contains(QLatin1String("/collection/v2.1")))
        return {};
    if (schema->contains(QLatin1String("/collection/v2.0")))
        return Result<void>::failure(path, Tr::tr("this is a Postman collection v2.0: %1").arg(again));
    if (schema->contains(QLatin1String("/collection/v1")))
        return Result<void>::failure(path, Tr::tr("this is a Postman collection v1, an old format: %1").arg(again));
    return Result<void>::failure(
        path, Tr::tr("\"%1\" is not the schema of a Postman collection v2.1 (%2)").arg(*schema, v21));
}

void readCollectionVariables(JsonReader &root, Variables &variables)
{
    if (!present(root, QStringLiteral("variable")))
        return;
    auto list = root.array(QStringLiteral("variable"));
    for (qsizetype i = 0; list && i < list->size(); ++i) {
        auto variable = list->object(i, Presence::Required);
        if (!variable)
            return;
        // Older exports name a variable by "id".
        const bool byId = !variable->contains(QStringLiteral("key")) && variable->contains(QStringLiteral("id"));
        const QString keyField = byId ? QStringLiteral("id") : QStringLiteral("key");
        const auto name = variable->string(keyField, Presence::Required);
        const QJsonValue raw = variable->value(QStringLiteral("value"));
        // A value of type "any" may be an object or array: it is sent as its JSON text.
        const QString value = raw.isObject()
            ? QString::fromUtf8(QJsonDocument(raw.toObject()).toJson(QJsonDocument::Compact))
            : raw.isArray() ? QString::fromUtf8(QJsonDocument(raw.toArray()).toJson(QJsonDocument::Compact))
                            : ImportJson::scalarText(raw).value_or(QString());
        const bool disabled = ImportJson::flag(*variable, QStringLiteral("disabled")).value_or(false);
        if (!name || variable->failed())
            return;
        if (!disabled)
            variables.set(*name, value);
    }
}

} // namespace

Result<Environment> readEnvironment(const QByteArray &json)
{
    using R = Result<Environment>;
    const auto document = ImportJson::parseObject(json, Tr::tr("a Postman environment file"));
    if (!document)
        return document.errorDetail();
    if (document->contains(QStringLiteral("info")) && document->contains(QStringLiteral("item")))
        return R::failure(Tr::tr("this is a Postman collection, not an environment"));
    JsonReader root(*document);
    Environment environment;
    environment.name = ImportJson::text(root, QStringLiteral("name")).value_or(QString());
    auto values = root.array(QStringLiteral("values"), Presence::Required);
    for (qsizetype i = 0; values && i < values->size(); ++i) {
        auto value = values->object(i, Presence::Required);
        if (!value)
            break;
        const auto key = value->string(QStringLiteral("key"), Presence::Required);
        const auto text = ImportJson::text(*value, QStringLiteral("value"));
        const bool enabled = ImportJson::flag(*value, QStringLiteral("enabled")).value_or(true);
        if (!key || value->failed())
            break;
        if (enabled)
            environment.values.append({*key, text.value_or(QString())});
    }
    if (root.failed())
        return root.firstError();
    return environment;
}

Result<Environment> readEnvironmentFile(const QString &path)
{
    auto bytes = ImportJson::readFile(path, maxFileBytes, Tr::tr("Postman environment files"));
    if (!bytes)
        return bytes.errorDetail();
    return readEnvironment(*bytes);
}

Result<Collection> read(const QByteArray &json, const Environment &environment)
{
    using R = Result<Collection>;
    if (json.size() > maxFileBytes) {
        return R::failure(ImportJson::tooLarge(json.size(), maxFileBytes, Tr::tr("Postman collections")));
    }
    const auto document = ImportJson::parseObject(json, Tr::tr("a Postman collection"));
    if (!document)
        return document.errorDetail();
    if (const auto version = checkVersion(*document); !version)
        return version.errorDetail();

    JsonReader root(*document);
    Collection collection;
    collection.name = document->value(QStringLiteral("info")).toObject().value(QStringLiteral("name")).toString();
    CollectionReader reader(collection);
    readCollectionVariables(root, reader.variables);
    for (const auto &[name, value] : environment.values)
        reader.variables.set(name, value);

    Scope scope;
    readAuthInto(root, collectionOwner(), scope.auth, scope.authOwner);
    noteScripts(root, collectionOwner(), scope.scripts);
    readFollowRedirects(root, scope.followRedirects);
    auto items = root.array(QStringLiteral("item"), Presence::Required);
    if (items && !root.failed())
        reader.readItems(*items, scope);
    if (root.failed())
        return root.firstError();
    qCDebug(lcPostmanImport) << "read" << collection.requests.size() << "requests of" << collection.name << ","
                             << collection.unresolvedVariables.size() << "variables unresolved";
    return collection;
}

Result<Collection> readFile(const QString &path, const Environment &environment)
{
    auto bytes = ImportJson::readFile(path, maxFileBytes, Tr::tr("Postman collections"));
    if (!bytes)
        return bytes.errorDetail();
    return read(*bytes, environment);
}

} // namespace RetryLab::Core::PostmanImport
