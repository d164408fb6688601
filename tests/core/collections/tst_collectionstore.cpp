#include "core/assertions/assertionjson.h"
#include "core/collections/collectionjson.h"
#include "core/collections/collectionstore.h"
#include "core/collections/environmentsjson.h"
#include "core/collections/requesttemplate.h"
#include "core/collections/variables.h"
#include "core/policy/presets.h"
#include "core/record/secretmask.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace RetryLab;
using namespace RetryLab::Core;

class TestCollectionStore : public QObject
{
    Q_OBJECT

private:
    static Collection sample()
    {
        Collection collection;
        collection.name = QStringLiteral("Payments API");
        CollectionItem folder = CollectionItem::makeFolder(QStringLiteral("Auth"));
        RequestDraft login;
        login.method = QStringLiteral("POST");
        login.urlTemplate = QStringLiteral("{{base}}/login?token={{token}}");
        login.headers = {{QStringLiteral("Authorization"), QStringLiteral("Bearer {{token}}"), true},
            {QStringLiteral("X-Api-Key"), QStringLiteral("literal-secret-123"), true}};
        login.body = QStringLiteral("{\"password\": \"{{password}}\", \"user\": \"ann\"}");
        folder.items.append(CollectionItem::makeRequest(
            QStringLiteral("Login"), login, SavedPolicy::from(Core::Presets::all().constFirst().policy)));
        collection.items.append(folder);
        Core::BackoffPolicy custom;
        custom.name = QStringLiteral("Mine");
        custom.maxAttempts = 7;
        RequestDraft status;
        status.urlTemplate = QStringLiteral("{server}/status/200");
        collection.items.append(
            CollectionItem::makeRequest(QStringLiteral("Status"), status, SavedPolicy::from(custom)));
        return collection;
    }

    static QByteArray readAll(const QString &path)
    {
        QFile file(path);
        return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
    }

private Q_SLOTS:
    void json_roundTrip_keepsFoldersPoliciesAndVariables()
    {
        const Collection collection = sample();
        const QByteArray json = CollectionJson::toJson(collection);
        const auto read = CollectionJson::fromJson(json);
        QVERIFY2(read, qPrintable(read.error()));
        QVERIFY(read->leftOut.isEmpty());
        const Collection back = read->collection;
        QCOMPARE(back.name, collection.name);
        QCOMPARE(back.items.size(), 2);
        QVERIFY(back.items.at(0).isFolder());
        const CollectionItem &login = back.items.at(0).items.at(0);
        QCOMPARE(login.id, collection.items.at(0).items.at(0).id);
        QCOMPARE(login.request.urlTemplate, QStringLiteral("{{base}}/login?token={{token}}"));
        QCOMPARE(login.request.headers.at(0).value, QStringLiteral("Bearer {{token}}"));
        QCOMPARE(login.policy.preset, Core::Presets::all().constFirst().id);
        QCOMPARE(back.items.at(1).policy.preset, QString());
        QCOMPARE(back.items.at(1).policy.custom.maxAttempts, 7);
        // Stable output: written twice, the same bytes (readable diffs in git).
        QCOMPARE(CollectionJson::toJson(back), json);
        QVERIFY(json.contains("\"formatVersion\": 1"));
    }

    void json_assertionsAndExtract_roundTrip_writtenOnlyWhenThere()
    {
        Collection collection = sample();
        QVERIFY(!CollectionJson::toJson(collection).contains("\"assertions\""));
        QVERIFY(!CollectionJson::toJson(collection).contains("\"extract\""));
        const auto assertions = AssertionJson::read(QJsonDocument::fromJson(R"([{"kind": "status", "equals": 200},
            {"kind": "jsonPointer", "pointer": "/token", "exists": true, "name": "has a token"},
            {"kind": "header", "header": "ETag", "not": true, "exists": true}])")
                                                        .array());
        QVERIFY2(assertions, qPrintable(assertions.error()));
        const auto extract = ResponseVariables::fromJson(QJsonDocument::fromJson(R"([
            {"name": "token", "from": "jsonPointer", "pointer": "/token"}, {"name": "etag", "from": "header",
            "header": "ETag"}])")
                                                             .array());
        QVERIFY2(extract, qPrintable(extract.error()));
        CollectionItem &login = collection.items[0].items[0];
        login.assertions = *assertions;
        login.extract = extract->rules();

        const QByteArray json = CollectionJson::toJson(collection);
        const auto read = CollectionJson::fromJson(json);
        QVERIFY2(read, qPrintable(read.error()));
        QVERIFY(read->leftOut.isEmpty());
        const CollectionItem &back = read->collection.items.at(0).items.at(0);
        QCOMPARE(back.assertions.size(), 3);
        QCOMPARE(AssertionJson::write(back.assertions), AssertionJson::write(*assertions));
        QCOMPARE(back.extract, extract->rules());
        QVERIFY(read->collection.items.at(1).assertions.isEmpty());
        QCOMPARE(CollectionJson::toJson(read->collection), json);
    }

    void json_badAssertionOrRule_isLeftOutWithItsPath_theRequestKept()
    {
        const QByteArray json = R"({"formatVersion": 1, "name": "c", "items": [
            {"type": "request", "id": "r1", "name": "Login", "request": {"method": "GET", "url": "{{base}}/"},
             "policy": {"preset": "aws-standard"},
             "assertions": [{"kind": "status", "equals": 200}, {"kind": "stauts", "equals": 200}, 5],
             "extract": [{"name": "token", "from": "header"}, {"name": "id", "from": "status"}]},
            {"type": "request", "id": "r2", "name": "Other", "request": {"method": "GET", "url": "{{base}}/"},
             "policy": {"preset": "aws-standard"}, "assertions": {}}]})";
        const auto read = CollectionJson::fromJson(json);
        QVERIFY2(read, qPrintable(read.error()));
        QStringList paths;
        for (const Error &error : read->leftOut)
            paths.append(error.path);
        QCOMPARE(paths,
            (QStringList{QStringLiteral("items[0].assertions[1].kind"), QStringLiteral("items[0].assertions[2]"),
                QStringLiteral("items[0].extract[0].header"), QStringLiteral("items[1].assertions")}));
        QCOMPARE(read->collection.items.size(), 2);
        QCOMPARE(read->collection.items.at(0).assertions.size(), 1);
        QCOMPARE(read->collection.items.at(0).extract.size(), 1);
        QCOMPARE(read->collection.items.at(0).extract.at(0).name, QStringLiteral("id"));
    }

    void json_neverHoldsLiteralSecrets()
    {
        const QByteArray json = CollectionJson::toJson(sample());
        QVERIFY(!json.contains("literal-secret-123"));
        QVERIFY(json.contains("REDACTED"));
        QVERIFY(json.contains("{{password}}"));
        QVERIFY(json.contains("Bearer {{token}}"));
    }

    void json_transport_keepsFilesAndProxy_neverPasswordsOrExemptions()
    {
        Collection collection;
        collection.name = QStringLiteral("Internal");
        RequestDraft draft;
        draft.urlTemplate = QStringLiteral("https://api.internal.test/health");
        Core::TransportOptions &t = draft.transport;
        t.caBundlePath = QStringLiteral("/etc/ssl/internal-ca.pem");
        t.clientCertificatePath = QStringLiteral("/home/ann/client.p12");
        t.clientKeyPassphrase = QStringLiteral("PLANTED-PASSPHRASE");
        t.tlsFloor = Core::TransportOptions::TlsFloor::Tls12;
        t.insecureHosts = {QStringLiteral("api.internal.test")};
        t.proxyMode = Core::TransportOptions::ProxyMode::Http;
        t.proxyHost = QStringLiteral("127.0.0.1");
        t.proxyPort = 3128;
        t.proxyPassword = QStringLiteral("PLANTED-PROXY");
        t.httpVersion = Core::TransportOptions::HttpVersion::Http2;
        collection.items.append(CollectionItem::makeRequest(
            QStringLiteral("Health"), draft, SavedPolicy::from(Core::Presets::all().constFirst().policy)));
        const QByteArray json = CollectionJson::toJson(collection);
        QVERIFY(!json.contains("PLANTED"));
        const auto read = CollectionJson::fromJson(json);
        QVERIFY2(read, qPrintable(read.error()));
        const Core::TransportOptions back = read->collection.items.at(0).request.transport;
        QCOMPARE(back.caBundlePath, t.caBundlePath);
        QCOMPARE(back.clientCertificatePath, t.clientCertificatePath);
        QCOMPARE(back.tlsFloor, t.tlsFloor);
        QCOMPARE(back.proxyMode, t.proxyMode);
        QCOMPARE(back.proxyPort, t.proxyPort);
        QCOMPARE(back.httpVersion, t.httpVersion);
        // Session-only: typed again, ticked again.
        QVERIFY(back.clientKeyPassphrase.isEmpty());
        QVERIFY(back.proxyPassword.isEmpty());
        QVERIFY(back.insecureHosts.isEmpty());
    }

    void json_badItems_areLeftOutWithTheirPath_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("path");
        QTest::addColumn<int>("kept");
        QTest::addRow("unknown type") << QByteArray(
            R"({"formatVersion":1,"name":"c","items":[{"type":"fodler","name":"x"},
            {"type":"request","name":"ok","request":{},"policy":{"preset":"p"}}]})")
                                      << QStringLiteral("items[0].type") << 1;
        QTest::addRow("bad policy") << QByteArray(
            R"({"formatVersion":1,"name":"c","items":[{"type":"folder","name":"f","items":[
            {"type":"request","name":"r","request":{},"policy":{"custom":{"maxAttempts":-3}}}]}]})")
                                    << QStringLiteral("items[0].items[0].policy.custom.maxAttempts") << 1;
        QTest::addRow("bad request") << QByteArray(R"({"formatVersion":1,"name":"c","items":[
            {"type":"request","name":"r","request":{"url":5},"policy":{"preset":"p"}}]})")
                                     << QStringLiteral("items[0].request.url") << 0;
    }

    void json_badItems_areLeftOutWithTheirPath()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, path);
        QFETCH(int, kept);
        const auto read = CollectionJson::fromJson(json);
        QVERIFY2(read, qPrintable(read.error()));
        QCOMPARE(read->leftOut.size(), 1);
        QCOMPARE(read->leftOut.at(0).path, path);
        QCOMPARE(read->collection.items.size(), kept);
    }

    void json_newerFormat_isRefused()
    {
        const auto read = CollectionJson::fromJson(R"({"formatVersion":2,"name":"c","items":[]})");
        QVERIFY(!read);
        QCOMPARE(read.errorDetail().path, QStringLiteral("formatVersion"));
    }

    void variables_resolveAndNameTheUndefined()
    {
        RequestDraft draft;
        draft.urlTemplate = QStringLiteral("{{base}}/x?k={{ key }}");
        draft.headers = {{QStringLiteral("Authorization"), QStringLiteral("Bearer {{token}}"), true}};
        const QHash<QString, QString> values{
            {QStringLiteral("base"), QStringLiteral("{server}")}, {QStringLiteral("key"), QStringLiteral("1")}};
        const auto missing = Variables::apply(draft, values, QStringLiteral("Staging"));
        QVERIFY(!missing);
        QVERIFY(missing.error().contains(QStringLiteral("{{token}}")));
        QVERIFY(missing.error().contains(QStringLiteral("Staging")));

        ExpansionContext context;
        context.serverUrl = QUrl(QStringLiteral("http://127.0.0.1:1234"));
        context.requestKey = QStringLiteral("k1");
        context.variables = values;
        context.variables.insert(QStringLiteral("token"), QStringLiteral("s3cret"));
        const auto spec = RequestTemplate::build(draft, context);
        QVERIFY2(spec, qPrintable(spec.error()));
        QCOMPARE(spec->url.toString(), QStringLiteral("http://127.0.0.1:1234/x?k=1"));
        QCOMPARE(spec->headers.at(0).second, QByteArray("Bearer s3cret"));

        // A secret without a value (not kept on disk, not typed again) is not resolved to "".
        const Environment restarted{QStringLiteral("Staging"),
            {{QStringLiteral("base"), QStringLiteral("{server}"), false}, {QStringLiteral("token"), QString(), true}},
            false};
        context.variables = restarted.values();
        context.environmentName = restarted.name;
        const auto noSecret = RequestTemplate::build(draft, context);
        QVERIFY(!noSecret);
        QVERIFY2(noSecret.error().contains(QStringLiteral("{{token}}")), qPrintable(noSecret.error()));

        context.variables.clear();
        const auto unresolved = RequestTemplate::build(draft, context);
        QVERIFY(!unresolved);
        QVERIFY(unresolved.error().contains(QStringLiteral("{{base}}")));
    }

    void secretMask_coversEveryPartOfARun()
    {
        const QStringList secrets{QStringLiteral("tok 123/x"), QStringLiteral("ab")};
        Core::RunRecord record;
        Core::RequestSpec spec;
        spec.url = QUrl(QStringLiteral("http://h.test/p?note=tok%20123%2Fx"));
        spec.headers = {{QByteArray("X-Echo"), QByteArray("tok 123/x")}};
        spec.body = "{\"v\": \"tok 123/x\"}";
        record.requests.insert(1, spec);
        Core::AttemptRecord attempt;
        attempt.url = spec.url;
        attempt.requestHeaders = spec.headers;
        attempt.responseBody = "echo tok 123/x";
        attempt.errorString = QStringLiteral("failed for tok 123/x");
        record.attempts.append(attempt);
        Core::RequestResult result;
        result.body = "tok 123/x";
        record.results.append(result);
        SecretMask::apply(&record, secrets);
        const Core::RequestSpec &masked = record.requests.value(1);
        QVERIFY(!masked.url.toEncoded().contains("tok"));
        QCOMPARE(masked.headers.at(0).second, QByteArray("REDACTED"));
        QVERIFY(!masked.body.contains("tok"));
        QVERIFY(!record.attempts.at(0).url.toEncoded().contains("tok"));
        QCOMPARE(record.attempts.at(0).responseBody, QByteArray("echo REDACTED"));
        QCOMPARE(record.attempts.at(0).errorString, QStringLiteral("failed for REDACTED"));
        QCOMPARE(record.results.at(0).body, QByteArray("REDACTED"));
        // Values too short to be secrets are not masked (they would mask half the file).
        QCOMPARE(SecretMask::text(QStringLiteral("abc"), secrets), QStringLiteral("abc"));
    }

    void store_roundTripThroughFiles()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const CollectionStore store(dir.path());
        Collection collection = sample();
        QVERIFY(store.save(&collection));
        QCOMPARE(collection.fileName, QStringLiteral("payments-api.json"));
        QVERIFY(QFileInfo::exists(dir.filePath(QStringLiteral("collections/payments-api.json"))));
        Collection other;
        other.name = QStringLiteral("Payments API");
        QVERIFY(store.save(&other));
        QCOMPARE(other.fileName, QStringLiteral("payments-api-2.json"));

        const auto loaded = store.loadCollections();
        QVERIFY2(loaded.problems.isEmpty(), qPrintable(loaded.problems.join(QLatin1Char('\n'))));
        QCOMPARE(loaded.collections.size(), 2);
        const Collection &back = loaded.collections.at(0).fileName == collection.fileName ? loaded.collections.at(0)
                                                                                          : loaded.collections.at(1);
        QCOMPARE(back.items.at(0).items.at(0).id, collection.items.at(0).items.at(0).id);
        QVERIFY(store.remove(other));
        QCOMPARE(store.loadCollections().collections.size(), 1);
    }

    void store_damagedFile_isCopiedAsideAndWhatReadsIsKept()
    {
        QTemporaryDir dir;
        const CollectionStore store(dir.path());
        QVERIFY(QDir().mkpath(store.collectionsDirectory()));
        const QString path = QDir(store.collectionsDirectory()).filePath(QStringLiteral("broken.json"));
        const QByteArray partly = R"({"formatVersion":1,"name":"Half","items":[{"type":"request","name":"good",
            "request":{"url":"{server}/x"},"policy":{"preset":"p"}},{"type":"request","name":"bad","request":[]}]})";
        {
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(partly);
        }
        const QString garbagePath = QDir(store.collectionsDirectory()).filePath(QStringLiteral("garbage.json"));
        {
            QFile file(garbagePath);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write("{\"formatVersion\": 1, \"name\": \"Gar");
        }
        const auto loaded = store.loadCollections();
        QCOMPARE(loaded.collections.size(), 1);
        QCOMPARE(loaded.collections.at(0).name, QStringLiteral("Half"));
        QCOMPARE(loaded.collections.at(0).items.size(), 1);
        QCOMPARE(loaded.problems.size(), 2);
        QVERIFY(loaded.problems.join(QLatin1Char('\n')).contains(QStringLiteral("items[1].request")));
        const QStringList copies = QDir(store.collectionsDirectory()).entryList({QStringLiteral("*.damaged-*")});
        QCOMPARE(copies.size(), 2);
        QCOMPARE(
            readAll(QDir(store.collectionsDirectory()).filePath(copies.filter(QStringLiteral("broken")).constFirst())),
            partly);
        // Opened again: the earlier copy is named, no second copy is taken.
        const auto again = store.loadCollections();
        QVERIFY(again.problems.join(QLatin1Char('\n')).contains(QStringLiteral("still damaged")));
        QCOMPARE(QDir(store.collectionsDirectory()).entryList({QStringLiteral("*.damaged-*")}).size(), 2);
    }

    void store_newerFormat_isLeftAlone()
    {
        QTemporaryDir dir;
        const CollectionStore store(dir.path());
        QVERIFY(QDir().mkpath(store.collectionsDirectory()));
        QFile file(QDir(store.collectionsDirectory()).filePath(QStringLiteral("future.json")));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"formatVersion": 9, "name": "Future"})");
        file.close();
        const auto loaded = store.loadCollections();
        QCOMPARE(loaded.collections.size(), 0);
        QCOMPARE(loaded.problems.size(), 1);
        QCOMPARE(QDir(store.collectionsDirectory()).entryList({QStringLiteral("*.damaged-*")}).size(), 0);
        QCOMPARE(store.freeFileName(QStringLiteral("Future")), QStringLiteral("future-2.json"));
    }

    void environments_secretsOnDiskOnlyWhenOptedIn()
    {
        QTemporaryDir dir;
        const CollectionStore store(dir.path());
        Environment staging{QStringLiteral("Staging"),
            {{QStringLiteral("base"), QStringLiteral("https://staging.test"), false},
                {QStringLiteral("token"), QStringLiteral("tok-SECRET-1"), true}},
            false};
        Environment local{
            QStringLiteral("Local"), {{QStringLiteral("token"), QStringLiteral("tok-LOCAL-2"), true}}, true};
        QVERIFY(store.saveEnvironments({staging, local}, QStringLiteral("Staging")));
        const QByteArray bytes = readAll(store.environmentsFile());
        QVERIFY(!bytes.contains("tok-SECRET-1"));
        QVERIFY(bytes.contains("tok-LOCAL-2"));
        QVERIFY(bytes.contains("https://staging.test"));
        QVERIFY(!store.environmentsFile().startsWith(store.collectionsDirectory()));

        const auto loaded = store.loadEnvironments();
        QVERIFY2(loaded.problems.isEmpty(), qPrintable(loaded.problems.join(QLatin1Char('\n'))));
        QCOMPARE(loaded.active, QStringLiteral("Staging"));
        QCOMPARE(loaded.environments.size(), 2);
        QCOMPARE(loaded.environments.at(0).find(QStringLiteral("token"))->value, QString());
        QVERIFY(loaded.environments.at(0).find(QStringLiteral("token"))->secret);
        QCOMPARE(loaded.environments.at(1).find(QStringLiteral("token"))->value, QStringLiteral("tok-LOCAL-2"));
    }

    void environments_damagedFile_keepsTheGoodOnes()
    {
        QTemporaryDir dir;
        const CollectionStore store(dir.path());
        QFile file(store.environmentsFile());
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(
            R"({"formatVersion":1,"active":"B","environments":[{"name":"A","variables":[{"name":"x","value":"1"}]},
            {"name":"B","variables":[{"name":"bad name","value":"2"}]}]})");
        file.close();
        const auto loaded = store.loadEnvironments();
        QCOMPARE(loaded.environments.size(), 1);
        QCOMPARE(loaded.active, QString());
        QCOMPARE(loaded.problems.size(), 1);
        QVERIFY(loaded.problems.constFirst().contains(QStringLiteral("environments[1].variables[0].name")));
        QCOMPARE(QDir(dir.path()).entryList({QStringLiteral("environments.json.damaged-*")}).size(), 1);
    }

    void requests_haveTheirFolderPaths_foundByPathOrName()
    {
        Collection collection = sample();
        CollectionItem admin = CollectionItem::makeFolder(QStringLiteral("Admin"));
        admin.items.append(CollectionItem::makeRequest(QStringLiteral("Login"), RequestDraft{}, SavedPolicy{}));
        CollectionItem nested = CollectionItem::makeFolder(QStringLiteral("Deep"));
        nested.items.append(CollectionItem::makeRequest(QStringLiteral("Status"), RequestDraft{}, SavedPolicy{}));
        admin.items.append(nested);
        collection.items.append(admin);

        QStringList paths;
        for (const Collection::Request &request : collection.requests())
            paths.append(request.path);
        QCOMPARE(paths,
            (QStringList{QStringLiteral("Auth/Login"), QStringLiteral("Status"), QStringLiteral("Admin/Login"),
                QStringLiteral("Admin/Deep/Status")}));
        QCOMPARE(collection.requests().size(), collection.requestCount());

        const auto byPath = collection.find(QStringLiteral("Admin/Login"));
        QCOMPARE(byPath.size(), 1);
        QCOMPARE(byPath.constFirst().item, &collection.items.at(2).items.at(0));
        // A name in two folders names both; a path names one.
        QCOMPARE(collection.find(QStringLiteral("Login")).size(), 2);
        // A request at the top has its name as its path: that one, not the nested namesake.
        const auto top = collection.find(QStringLiteral("Status"));
        QCOMPARE(top.size(), 1);
        QCOMPARE(top.constFirst().path, QStringLiteral("Status"));
        QVERIFY(collection.find(QStringLiteral("Nope")).isEmpty());
        QVERIFY(collection.find(QStringLiteral("Auth")).isEmpty()); // a folder is no request
    }

    void auth_inheritedFromFoldersAndCollection_savedMasked()
    {
        // Collection: bearer; folder Admin: basic; Admin/Deep: Inherit; requests: Inherit or their own.
        Collection collection;
        collection.name = QStringLiteral("Inheriting");
        collection.auth.kind = AuthSpec::Kind::Bearer;
        collection.auth.token = QStringLiteral("{{token}}");
        RequestDraft plain;
        RequestDraft own;
        own.auth.kind = AuthSpec::Kind::ApiKey;
        own.auth.key = QStringLiteral("X-Key");
        own.auth.value = QStringLiteral("{{key}}");
        CollectionItem admin = CollectionItem::makeFolder(QStringLiteral("Admin"));
        admin.auth.kind = AuthSpec::Kind::Basic;
        admin.auth.username = QStringLiteral("ann");
        admin.auth.password = QStringLiteral("typed-secret");
        CollectionItem deep = CollectionItem::makeFolder(QStringLiteral("Deep"));
        deep.items.append(CollectionItem::makeRequest(QStringLiteral("Inner"), plain, SavedPolicy{}));
        admin.items.append(deep);
        admin.items.append(CollectionItem::makeRequest(QStringLiteral("Own"), own, SavedPolicy{}));
        collection.items.append(admin);
        collection.items.append(CollectionItem::makeRequest(QStringLiteral("Top"), plain, SavedPolicy{}));

        const auto kinds = [](const Collection &c) {
            QStringList out;
            for (const Collection::Request &request : c.requests())
                out.append(request.path + QLatin1Char('=') + AuthSpec::kindName(request.effectiveAuth().kind));
            return out;
        };
        QCOMPARE(kinds(collection),
            (QStringList{QStringLiteral("Admin/Deep/Inner=basic"), QStringLiteral("Admin/Own=apikey"),
                QStringLiteral("Top=bearer")}));
        QCOMPARE(collection.inheritedAuth(deep.items.first().id).username, QStringLiteral("ann"));
        QCOMPARE(collection.inheritedAuth(deep.id).kind, AuthSpec::Kind::Basic);
        QCOMPARE(collection.inheritedAuth(admin.id).kind, AuthSpec::Kind::Bearer);
        QCOMPARE(collection.inheritedAuth(QStringLiteral("no-such-id")).kind, AuthSpec::Kind::Inherit);

        // Saved: the typed password masked, the {{token}} kept; read back the same otherwise.
        const QByteArray json = CollectionJson::toJson(collection);
        QVERIFY2(!json.contains("typed-secret"), json.constData());
        const auto read = CollectionJson::fromJson(json);
        QVERIFY2(read, qPrintable(read.error()));
        QVERIFY(read->leftOut.isEmpty());
        QCOMPARE(read->collection.auth, collection.auth);
        QCOMPARE(read->collection.items.first().auth.password, QStringLiteral("REDACTED"));
        QCOMPARE(read->collection.items.first().auth.username, QStringLiteral("ann"));
        QCOMPARE(kinds(read->collection), kinds(collection));

        // A folder's bad auth is named with its path.
        QJsonObject broken = QJsonDocument::fromJson(json).object();
        QJsonArray items = broken.value(QStringLiteral("items")).toArray();
        QJsonObject folder = items.first().toObject();
        folder.insert(QStringLiteral("auth"), QJsonObject{{QStringLiteral("type"), QStringLiteral("kerberos")}});
        items.replace(0, folder);
        broken.insert(QStringLiteral("items"), items);
        const auto damaged = CollectionJson::fromJson(QJsonDocument(broken).toJson());
        QVERIFY2(damaged, qPrintable(damaged.error()));
        QCOMPARE(damaged->leftOut.size(), 1);
        QVERIFY2(damaged->leftOut.first().path.startsWith(QLatin1String("items[0].auth")),
            qPrintable(damaged->leftOut.first().path));
    }

    void environmentsJson_readsWhatItWrites()
    {
        const QList<Environment> environments{
            {QStringLiteral("Local"), {{QStringLiteral("base"), QStringLiteral("{server}"), false}}, false},
            {QStringLiteral("Staging"), {{QStringLiteral("token"), QStringLiteral("tok-1"), true}}, true},
        };
        const auto read = EnvironmentsJson::fromJson(EnvironmentsJson::toJson(environments, QStringLiteral("Staging")));
        QVERIFY2(read, qPrintable(read.error()));
        QCOMPARE(read->environments, environments);
        QCOMPARE(read->active, QStringLiteral("Staging"));
        QVERIFY(read->leftOut.isEmpty());
        QCOMPARE(read->find(QStringLiteral("Local")), &read->environments.at(0));
        QCOMPARE(read->find(QStringLiteral("Prod")), nullptr);
        // The selection of an environment that is not there is dropped.
        const auto gone = EnvironmentsJson::fromJson(EnvironmentsJson::toJson(environments, QStringLiteral("Prod")));
        QVERIFY(gone);
        QCOMPARE(gone->active, QString());
    }

    void environmentsJson_notJsonOrNewer_isRefused()
    {
        const auto text = EnvironmentsJson::fromJson("not json");
        QVERIFY(!text);
        QVERIFY2(text.error().startsWith(QLatin1String("not valid JSON")), qPrintable(text.error()));
        QVERIFY(!EnvironmentsJson::fromJson("[]"));
        const auto newer = EnvironmentsJson::fromJson(R"({"formatVersion": 9, "environments": []})");
        QVERIFY(!newer);
        QCOMPARE(newer.errorDetail().path, QStringLiteral("formatVersion"));

        // The store leaves a newer file alone and says so.
        QTemporaryDir dir;
        const CollectionStore store(dir.path());
        QFile file(store.environmentsFile());
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"formatVersion": 9, "environments": []})");
        file.close();
        const auto loaded = store.loadEnvironments();
        QCOMPARE(loaded.problems,
            QStringList{QStringLiteral("The environments in %1 were written by a newer RetryLab (format 9); they are "
                                       "not used here.")
                            .arg(QDir::toNativeSeparators(store.environmentsFile()))});
        QCOMPARE(QDir(dir.path()).entryList({QStringLiteral("environments.json.damaged-*")}).size(), 0);
    }

    void readFile_namesTheFile()
    {
        QTemporaryDir dir;
        const QString missing = QDir(dir.path()).filePath(QStringLiteral("missing.json"));
        const auto read = CollectionStore::readFile(missing);
        QVERIFY(!read);
        QVERIFY2(read.error().startsWith(missing + QStringLiteral(" cannot be read: ")), qPrintable(read.error()));
        const QString present = QDir(dir.path()).filePath(QStringLiteral("present.json"));
        QFile file(present);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("{}");
        file.close();
        QCOMPARE(CollectionStore::readFile(present).value(), QByteArray("{}"));
    }
};

QTEST_GUILESS_MAIN(TestCollectionStore)
#include "tst_collectionstore.moc"
