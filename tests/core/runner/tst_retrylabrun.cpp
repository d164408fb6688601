#include "core/assertions/assertionjson.h"
#include "core/collections/collectionjson.h"
#include "core/policy/presets.h"
#include "core/runner/retrylabrun.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

using namespace RetryLab::Core;

namespace {

QList<Assertion> assertionsOf(const QByteArray &json)
{
    const auto read = AssertionJson::read(QJsonDocument::fromJson(json).array());
    return read.ok() ? read.value() : QList<Assertion>{};
}

// Orders/Create (a preset, assertions, extract) and Status (a policy of its own).
Collection shop()
{
    Collection collection;
    collection.name = QStringLiteral("Shop");
    CollectionItem orders = CollectionItem::makeFolder(QStringLiteral("Orders"));
    RequestDraft create;
    create.method = QStringLiteral("POST");
    create.urlTemplate = QStringLiteral("{{base}}/orders");
    create.headers = {{QStringLiteral("Authorization"), QStringLiteral("Bearer {{token}}"), true}};
    create.body = QStringLiteral("{\"sku\": \"{{sku}}\"}");
    CollectionItem item = CollectionItem::makeRequest(
        QStringLiteral("Create"), create, SavedPolicy{Presets::all().constFirst().id, {}});
    item.assertions = assertionsOf(R"([{"kind": "status", "class": "2xx"},
        {"kind": "jsonPointer", "pointer": "/id", "exists": true}])");
    item.extract
        = {{QStringLiteral("orderId"), ResponseVariables::Rule::Source::JsonPointer, QStringLiteral("/id"), {}, {}}};
    orders.items.append(item);
    collection.items.append(orders);
    BackoffPolicy custom;
    custom.name = QStringLiteral("Mine");
    custom.maxAttempts = 7;
    RequestDraft status;
    status.urlTemplate = QStringLiteral("{{base}}/status");
    collection.items.append(CollectionItem::makeRequest(QStringLiteral("Status"), status, SavedPolicy{{}, custom}));
    return collection;
}

bool write(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

} // namespace

class TestRetryLabRun : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void fromCollection_keepsFoldersPoliciesAssertionsAndExtract();
    void fromCollection_presetNotBuiltIn_isRefusedWithItsPlace();
    void fromCollection_authInheritedFromFoldersAndCollection();
    void readFile_readsWhatCollectionJsonWrote();
    void readFile_anythingLeftOut_refusesTheFileNamingThePlace();
    void readFile_notJson_namesTheFileLineAndColumn();
};

void TestRetryLabRun::fromCollection_keepsFoldersPoliciesAssertionsAndExtract()
{
    const Collection collection = shop();
    const auto run = RetryLabRun::fromCollection(collection, QStringLiteral("shop.json"));
    QVERIFY2(run.ok(), qPrintable(run.error()));
    QCOMPARE(run->format, RunCollection::Format::RetryLab);
    QCOMPARE(run->name, QStringLiteral("Shop"));
    QCOMPARE(run->source, QStringLiteral("shop.json"));
    QCOMPARE(run->items.size(), 2);
    const RunItem &orders = run->items.at(0);
    QVERIFY(orders.isFolder());
    QCOMPARE(orders.place, QStringLiteral("items[0]"));
    QVERIFY(!orders.policy);

    const auto requests = run->requests();
    QCOMPARE(requests.size(), 2);
    QCOMPARE(requests.at(0).path, QStringLiteral("Orders/Create"));
    const RunItem &create = *requests.at(0).item;
    const CollectionItem &saved = collection.items.at(0).items.at(0);
    QCOMPARE(create.place, QStringLiteral("items[0].items[0]"));
    QCOMPARE(create.id, saved.id);
    QCOMPARE(create.request, saved.request);
    QCOMPARE(create.assertions.size(), 2);
    QCOMPARE(create.assertions, saved.assertions);
    QCOMPARE(create.extract, saved.extract);
    QCOMPARE(requests.at(0).policy, std::optional<SavedPolicy>(saved.policy));
    QCOMPARE(requests.at(0).auth.kind, RunAuth::Kind::None);
    QCOMPARE(requests.at(1).policy->custom.maxAttempts, 7);
    QVERIFY(requests.at(1).item->assertions.isEmpty());
}

void TestRetryLabRun::fromCollection_authInheritedFromFoldersAndCollection()
{
    // The collection's bearer reaches Status; the folder's basic reaches Orders/Create,
    // unless the request has its own (then its draft's, sent by the executor).
    Collection collection = shop();
    collection.auth.kind = AuthSpec::Kind::Bearer;
    collection.auth.token = QStringLiteral("{{token}}");
    collection.items[0].auth.kind = AuthSpec::Kind::Basic;
    collection.items[0].auth.username = QStringLiteral("{{user}}");
    auto run = RetryLabRun::fromCollection(collection, {});
    QVERIFY2(run.ok(), qPrintable(run.error()));
    auto requests = run->requests();
    QCOMPARE(requests.at(0).auth.kind, RunAuth::Kind::Basic);
    QCOMPARE(requests.at(0).auth.username, QStringLiteral("{{user}}"));
    QCOMPARE(requests.at(1).auth.kind, RunAuth::Kind::Bearer);

    collection.items[0].items[0].request.auth.kind = AuthSpec::Kind::Digest;
    run = RetryLabRun::fromCollection(collection, {});
    QVERIFY2(run.ok(), qPrintable(run.error()));
    requests = run->requests();
    QCOMPARE(requests.at(0).auth.kind, RunAuth::Kind::None);
    QCOMPARE(requests.at(0).item->request.auth.kind, AuthSpec::Kind::Digest);
}

void TestRetryLabRun::fromCollection_presetNotBuiltIn_isRefusedWithItsPlace()
{
    Collection collection = shop();
    collection.items[0].items[0].policy.preset = QStringLiteral("no-such-preset");
    const auto run = RetryLabRun::fromCollection(collection, {});
    QVERIFY(!run.ok());
    QCOMPARE(run.errorDetail().path, QStringLiteral("items[0].items[0].policy.preset"));
    QVERIFY2(run.errorDetail().message.contains(QLatin1String("no-such-preset")), qPrintable(run.error()));
}

void TestRetryLabRun::readFile_readsWhatCollectionJsonWrote()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("shop.json"));
    const Collection collection = shop();
    QVERIFY(write(path, CollectionJson::toJson(collection)));
    const auto run = RetryLabRun::readFile(path);
    QVERIFY2(run.ok(), qPrintable(run.error()));
    const auto expected = RetryLabRun::fromCollection(collection, path);
    QVERIFY(expected.ok());
    QCOMPARE(run->source, path);
    // Assertions hold compiled patterns and schemas: compared as their file form.
    const RunItem &create = run->items.at(0).items.at(0);
    QCOMPARE(
        AssertionJson::write(create.assertions), AssertionJson::write(expected->items.at(0).items.at(0).assertions));
    QCOMPARE(create.extract, expected->items.at(0).items.at(0).extract);
    QCOMPARE(create.request, expected->items.at(0).items.at(0).request);
    QCOMPARE(run->items.at(1), expected->items.at(1));
}

void TestRetryLabRun::readFile_anythingLeftOut_refusesTheFileNamingThePlace()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("bad.json"));
    QJsonObject file = QJsonDocument::fromJson(CollectionJson::toJson(shop())).object();
    QJsonArray items = file.value(QStringLiteral("items")).toArray();
    QJsonObject status = items.at(1).toObject();
    status.insert(
        QStringLiteral("assertions"), QJsonArray{QJsonObject{{QStringLiteral("kind"), QStringLiteral("stat")}}});
    items.replace(1, status);
    file.insert(QStringLiteral("items"), items);
    QVERIFY(write(path, QJsonDocument(file).toJson()));

    const auto run = RetryLabRun::readFile(path);
    QVERIFY(!run.ok());
    QCOMPARE(run.errorDetail().path, path);
    QVERIFY2(run.errorDetail().message.startsWith(QStringLiteral("items[1].assertions[0].kind: unknown kind \"stat\"")),
        qPrintable(run.error()));
}

void TestRetryLabRun::readFile_notJson_namesTheFileLineAndColumn()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("broken.json"));
    QVERIFY(write(path, "{\"formatVersion\": 1,\n \"items\": [}"));
    const auto run = RetryLabRun::readFile(path);
    QVERIFY(!run.ok());
    QCOMPARE(run.errorDetail().path, path);
    QVERIFY2(run.errorDetail().message.contains(QLatin1String("line 2")), qPrintable(run.error()));

    const QString missing = dir.filePath(QStringLiteral("none.json"));
    QCOMPARE(RetryLabRun::readFile(missing).errorDetail().path, missing);
}

QTEST_GUILESS_MAIN(TestRetryLabRun)
#include "tst_retrylabrun.moc"
