#include "core/collections/collectionjson.h"

#include "core/assertions/assertionjson.h"
#include "core/auth/authjson.h"
#include "core/collections/jsontext.h"
#include "core/http/redactor.h"
#include "core/policy/policyjson.h"
#include "core/util/coretr.h"
#include "core/util/jsonreader.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>

namespace RetryLab::Core::CollectionJson {

namespace {

const QString kFolder = QStringLiteral("folder");
const QString kRequest = QStringLiteral("request");

// Every {{name}} replaced by the mask: what the redactor would make of the
// value if the variables were the secrets.
QString probe(const QString &text)
{
    static const QRegularExpression reference(QStringLiteral("\\{\\{[^{}]*\\}\\}"));
    QString out = text;
    out.replace(reference, QString::fromLatin1(Redactor::mask()));
    return out;
}

QJsonObject itemToJson(const CollectionItem &item);

QJsonArray itemsToJson(const QList<CollectionItem> &items)
{
    QJsonArray array;
    for (const CollectionItem &item : items)
        array.append(itemToJson(item));
    return array;
}

QJsonObject itemToJson(const CollectionItem &item)
{
    QJsonObject object{
        {QStringLiteral("type"), item.isFolder() ? kFolder : kRequest},
        {QStringLiteral("id"), item.id},
        {QStringLiteral("name"), item.name},
    };
    if (item.isFolder()) {
        object.insert(QStringLiteral("items"), itemsToJson(item.items));
        if (item.auth.kind != AuthSpec::Kind::Inherit)
            object.insert(QStringLiteral("auth"), RequestDraft::authToJson(item.auth, false));
        return object;
    }
    object.insert(QStringLiteral("request"), requestToJson(item.request));
    QJsonObject policy;
    if (item.policy.preset.isEmpty())
        policy.insert(QStringLiteral("custom"), PolicyJson::toJsonObject(item.policy.custom));
    else
        policy.insert(QStringLiteral("preset"), item.policy.preset);
    object.insert(QStringLiteral("policy"), policy);
    // Only when there are some, so that the files written before them stay as they were.
    if (!item.assertions.isEmpty())
        object.insert(QStringLiteral("assertions"), AssertionJson::write(item.assertions));
    if (!item.extract.isEmpty())
        object.insert(QStringLiteral("extract"), ResponseVariables(item.extract).toJson());
    return object;
}

// The elements of the list at `key` that read, each other one listed in
// `leftOut` with its place: one misspelt assertion does not lose the request.
template<typename T, typename ReadOne>
QList<T> readList(
    const QJsonObject &object, const QString &key, const QString &path, QList<Error> *leftOut, ReadOne readOne)
{
    QList<T> out;
    const QJsonValue value = object.value(key);
    const QString listPath = path + QLatin1Char('.') + key;
    if (value.isUndefined() || value.isNull())
        return out;
    if (!value.isArray()) {
        leftOut->append({listPath, Tr::tr("must be a list, not %1").arg(JsonReader::describe(value))});
        return out;
    }
    const QJsonArray array = value.toArray();
    for (qsizetype i = 0; i < array.size(); ++i) {
        const QString elementPath = QStringLiteral("%1[%2]").arg(listPath).arg(i);
        if (!array.at(i).isObject()) {
            leftOut->append({elementPath, Tr::tr("must be an object, not %1").arg(JsonReader::describe(array.at(i)))});
            continue;
        }
        Result<T> one = readOne(array.at(i).toObject(), elementPath);
        if (one)
            out.append(std::move(one).value());
        else
            leftOut->append(one.errorDetail());
    }
    return out;
}

Result<Assertion> readAssertion(const QJsonObject &object, const QString &path)
{
    JsonReader reader(object, path);
    auto assertion = AssertionJson::readOne(reader);
    if (!assertion)
        return reader.firstError();
    return *assertion;
}

std::optional<SavedPolicy> readPolicy(JsonReader &reader)
{
    auto object = reader.object(QStringLiteral("policy"), Presence::Required);
    if (!object)
        return std::nullopt;
    object->rejectUnknown({QStringLiteral("preset"), QStringLiteral("custom")});
    SavedPolicy saved;
    if (object->contains(QStringLiteral("preset"))) {
        saved.preset = object->string(QStringLiteral("preset")).value_or(QString());
        if (!reader.failed() && saved.preset.isEmpty())
            object->fail(QStringLiteral("preset"), Tr::tr("must not be empty"));
    } else if (auto custom = object->object(QStringLiteral("custom"), Presence::Required)) {
        auto policy = PolicyJson::fromJsonObject(custom->object());
        if (policy)
            saved.custom = *policy;
        else
            object->fail(QStringLiteral("custom"), policy.errorDetail());
    }
    if (reader.failed())
        return std::nullopt;
    return saved;
}

QList<CollectionItem> readItems(const QJsonArray &array, const QString &path, QList<Error> *leftOut, int depth);

std::optional<CollectionItem> readItem(const QJsonValue &value, const QString &path, QList<Error> *leftOut, int depth)
{
    if (!value.isObject()) {
        leftOut->append({path, Tr::tr("must be an object, not %1").arg(JsonReader::describe(value))});
        return std::nullopt;
    }
    JsonReader reader(value.toObject(), path);
    CollectionItem item;
    const QString type = reader.string(QStringLiteral("type"), Presence::Required).value_or(QString());
    if (!reader.failed() && type != kFolder && type != kRequest)
        reader.fail(QStringLiteral("type"), Tr::tr("must be \"folder\" or \"request\", not \"%1\"").arg(type));
    item.kind = type == kFolder ? CollectionItem::Kind::Folder : CollectionItem::Kind::Request;
    if (item.isFolder()) {
        reader.rejectUnknown({QStringLiteral("type"), QStringLiteral("id"), QStringLiteral("name"),
            QStringLiteral("items"), QStringLiteral("auth")});
    } else {
        reader.rejectUnknown(
            {QStringLiteral("type"), QStringLiteral("id"), QStringLiteral("name"), QStringLiteral("request"),
                QStringLiteral("policy"), QStringLiteral("assertions"), QStringLiteral("extract")});
    }
    item.id = reader.string(QStringLiteral("id")).value_or(QString());
    if (item.id.isEmpty())
        item.id = CollectionItem::newId();
    item.name = reader.string(QStringLiteral("name"), Presence::Required).value_or(QString());
    if (item.isFolder()) {
        if (auto auth = reader.object(QStringLiteral("auth")))
            item.auth = AuthJson::read(*auth);
        if (depth > 32)
            reader.failHere(Tr::tr("folders nested more than 32 deep"));
        else if (auto items = reader.array(QStringLiteral("items")); items && !reader.failed())
            item.items = readItems(items->array(), items->path(), leftOut, depth + 1);
    } else if (auto request = reader.object(QStringLiteral("request"), Presence::Required)) {
        auto draft = RequestDraft::fromJson(request->object());
        if (draft)
            item.request = *draft;
        else
            reader.fail(QStringLiteral("request"), draft.errorDetail());
        if (auto policy = readPolicy(reader))
            item.policy = *policy;
        if (!reader.failed()) {
            item.assertions
                = readList<Assertion>(value.toObject(), QStringLiteral("assertions"), path, leftOut, readAssertion);
            item.extract = readList<ResponseVariables::Rule>(value.toObject(), QStringLiteral("extract"), path, leftOut,
                [](const QJsonObject &object, const QString &at) {
                    return ResponseVariables::ruleFromJson(object, at);
                });
        }
    }
    if (reader.failed()) {
        leftOut->append(reader.firstError());
        return std::nullopt;
    }
    return item;
}

QList<CollectionItem> readItems(const QJsonArray &array, const QString &path, QList<Error> *leftOut, int depth)
{
    QList<CollectionItem> items;
    for (qsizetype i = 0; i < array.size(); ++i) {
        if (auto item = readItem(array.at(i), QStringLiteral("%1[%2]").arg(path).arg(i), leftOut, depth))
            items.append(std::move(*item));
    }
    return items;
}

} // namespace

QJsonObject requestToJson(const RequestDraft &draft)
{
    QJsonObject out = draft.toJson(false);
    const QJsonObject raw = draft.toJson(true);
    RequestDraft probed = draft;
    probed.urlTemplate = probe(draft.urlTemplate);
    for (DraftHeader &header : probed.headers)
        header.value = probe(header.value);
    probed.body = probe(draft.body);
    const QJsonObject probeRaw = probed.toJson(true);
    const QJsonObject probeMasked = probed.toJson(false);
    // A value is kept as typed when the only things the redactor would remove
    // are the variables: the secret is then in the environment, not here.
    for (const QString &key : {QStringLiteral("url"), QStringLiteral("body")}) {
        if (probeRaw.value(key) == probeMasked.value(key))
            out.insert(key, raw.value(key));
    }
    QJsonArray headers = out.value(QStringLiteral("headers")).toArray();
    const QJsonArray rawHeaders = raw.value(QStringLiteral("headers")).toArray();
    const QJsonArray probeRawHeaders = probeRaw.value(QStringLiteral("headers")).toArray();
    const QJsonArray probeMaskedHeaders = probeMasked.value(QStringLiteral("headers")).toArray();
    for (qsizetype i = 0; i < headers.size(); ++i) {
        if (probeRawHeaders.at(i) == probeMaskedHeaders.at(i))
            headers.replace(i, rawHeaders.at(i));
    }
    out.insert(QStringLiteral("headers"), headers);
    return out;
}

QByteArray toJson(const Collection &collection)
{
    QJsonObject object{
        {QStringLiteral("formatVersion"), formatVersion},
        {QStringLiteral("name"), collection.name},
        {QStringLiteral("items"), itemsToJson(collection.items)},
    };
    if (collection.auth.kind != AuthSpec::Kind::Inherit)
        object.insert(QStringLiteral("auth"), RequestDraft::authToJson(collection.auth, false));
    return QJsonDocument(object).toJson(QJsonDocument::Indented);
}

Result<Read> fromJson(const QByteArray &json)
{
    using R = Result<Read>;
    const auto document = JsonText::object(json, Tr::tr("not a collection: the file must hold a JSON object"));
    if (!document)
        return R(document.errorDetail());

    JsonReader reader(*document, {}, JsonReader::Mode::Salvage);
    const auto version
        = reader.integer(QStringLiteral("formatVersion"), 1, std::numeric_limits<int>::max(), Presence::Required);
    if (!version)
        return R(reader.firstError());
    if (*version > formatVersion) {
        return R::failure(QStringLiteral("formatVersion"),
            Tr::tr("written by a newer RetryLab (format %1; this one reads format %2)")
                .arg(*version)
                .arg(formatVersion));
    }
    reader.rejectUnknown(
        {QStringLiteral("formatVersion"), QStringLiteral("name"), QStringLiteral("items"), QStringLiteral("auth")});
    Read read;
    read.collection.name = reader.string(QStringLiteral("name"), Presence::Required).value_or(QString());
    if (auto auth = reader.object(QStringLiteral("auth")))
        read.collection.auth = AuthJson::read(*auth);
    read.leftOut = reader.errors();
    const QJsonValue items = document->value(QStringLiteral("items"));
    if (items.isArray())
        read.collection.items = readItems(items.toArray(), QStringLiteral("items"), &read.leftOut, 0);
    else if (!items.isUndefined())
        read.leftOut.append(
            {QStringLiteral("items"), Tr::tr("must be a list, not %1").arg(JsonReader::describe(items))});
    return read;
}

} // namespace RetryLab::Core::CollectionJson
