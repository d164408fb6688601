#include "core/monitor/monitorsfile.h"

#include "core/collections/collectionjson.h"
#include "core/policy/presets.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace RetryLab::Core;

class TestMonitorsFile : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void fullFile_readsEveryField();
    void noneAndPresetPolicies_readAsSpelled();
    void variables_comeFromTheChosenEnvironment();
    void badInput_namesThePath_data();
    void badInput_namesThePath();
    void readFile_namesTheFile();
    void maintenanceWindows_containTheirTimes();
    void collectionRequest_becomesAMonitorWithItsSavedPolicy();
    void serverPlaceholder_withoutTheOption_isRefusedNamingFileAndPath();
    void serverPlaceholder_allowed_staysInTheUrlTemplate();
    void serverPlaceholder_allowed_onlyInTheUrl();
    void collectionRequest_usingServer_keptOnlyWhenAllowed();
};

namespace {

QByteArray wrap(const QByteArray &monitors, const QByteArray &extra = {})
{
    return R"({"format": "retrylab-monitors", "version": 1, )" + extra + R"("monitors": [)" + monitors + "]}";
}

} // namespace

void TestMonitorsFile::fullFile_readsEveryField()
{
    const QByteArray json = wrap(R"({
        "name": "api", "method": "POST", "url": "https://api.example.test/health?key={id}",
        "headers": {"Authorization": "Bearer t"}, "body": "{}", "idempotent": true,
        "intervalMs": 10000, "downIntervalMs": 2000, "timeoutMs": 8000,
        "policy": {"preset": "aws-standard", "overrides": {"maxAttempts": 3}},
        "conditions": [{"status": "200,204"}, {"responseTimeUnderMs": 800}, {"bodyContains": "ok"},
                       {"jsonPointer": "/status", "equals": "ok"}, {"header": "Content-Type", "matches": "json"},
                       {"certificateValidDays": 14}],
        "downAfter": 3, "upAfter": 2,
        "maintenance": [{"daily": "02:00-02:30"}, {"from": "2026-12-01T00:00:00Z", "to": "2026-12-01T01:00:00Z"}],
        "objective": 0.999, "alerts": ["ops"], "paused": true})",
        R"("alerts": [{"name": "ops", "kind": "desktop"}], )");
    const auto read = MonitorsFileReader::fromJson(json);
    QVERIFY2(read, qPrintable(read.error()));
    QCOMPARE(read->monitors.size(), 1);
    const Monitor &m = read->monitors.constFirst();
    QCOMPARE(m.name, QStringLiteral("api"));
    QCOMPARE(m.request.method, QByteArray("POST"));
    QCOMPARE(m.urlTemplate, QStringLiteral("https://api.example.test/health?key={id}"));
    QVERIFY(m.request.idempotent);
    QCOMPARE(m.intervalMs, 10000.0);
    QCOMPARE(m.downIntervalMs, std::optional<double>(2000.0));
    QCOMPARE(m.timeoutMs, 8000.0);
    QCOMPARE(m.policy.maxAttempts, 3);
    QCOMPARE(m.conditions.size(), 6);
    QCOMPARE(m.conditions[0].statuses, (QSet<int>{200, 204}));
    QCOMPARE(m.conditions[3].expected, QJsonValue(QStringLiteral("ok")));
    QCOMPARE(m.downAfter, 3);
    QCOMPARE(m.upAfter, 2);
    QCOMPARE(m.maintenance.size(), 2);
    QCOMPARE(m.objective, std::optional<double>(0.999));
    QCOMPARE(m.alerts, QStringList{QStringLiteral("ops")});
    QVERIFY(m.paused);
    QVERIFY(m.request.responseCheck);
    QCOMPARE(read->alertNames(), QStringList{QStringLiteral("ops")});
    // The check's deadline is the timeout; the attempt timeout no longer than it.
    QCOMPARE(m.checkPolicy().deadlineMs, 8000.0);
    QVERIFY(m.checkPolicy().attemptTimeoutMs <= 8000.0);
}

void TestMonitorsFile::noneAndPresetPolicies_readAsSpelled()
{
    const auto read = MonitorsFileReader::fromJson(
        wrap(R"({"name": "a", "url": "http://127.0.0.1:1/", "intervalMs": 1000, "policy": "none"},
                {"name": "b", "url": "http://127.0.0.1:1/", "intervalMs": 1000, "policy": "aws-standard"})"));
    QVERIFY2(read, qPrintable(read.error()));
    QCOMPARE(read->monitors[0].policy.maxAttempts, 1);
    QCOMPARE(read->monitors[0].policyOrigin, QStringLiteral("none"));
    QVERIFY(read->monitors[1].policy.maxAttempts > 1);
    QVERIFY(!read->monitors[0].request.responseCheck);
}

void TestMonitorsFile::variables_comeFromTheChosenEnvironment()
{
    const QByteArray json = wrap(R"({"name": "a", "url": "{{base}}/health", "headers": {"X-Token": "{{token}}"},
        "intervalMs": 1000, "policy": "none"})",
        R"("environments": [{"name": "prod", "variables": [{"name": "base", "value": "https://prod.test"},
                                                          {"name": "token", "value": "p"}]},
                            {"name": "staging", "variables": [{"name": "base", "value": "https://staging.test"},
                                                              {"name": "token", "value": "s"}]}],
           "environment": "prod", )");
    const auto prod = MonitorsFileReader::fromJson(json);
    QVERIFY2(prod, qPrintable(prod.error()));
    QCOMPARE(prod->monitors[0].urlTemplate, QStringLiteral("https://prod.test/health"));
    QCOMPARE(prod->monitors[0].request.headers.constFirst().second, QByteArray("p"));
    const auto staging = MonitorsFileReader::fromJson(json, QStringLiteral("staging"));
    QVERIFY2(staging, qPrintable(staging.error()));
    QCOMPARE(staging->monitors[0].urlTemplate, QStringLiteral("https://staging.test/health"));
    const auto unknown = MonitorsFileReader::fromJson(json, QStringLiteral("qa"));
    QVERIFY(!unknown);
    QCOMPARE(unknown.errorDetail().path, QStringLiteral("environment"));
    QVERIFY2(unknown.error().contains(QStringLiteral("prod, staging")), qPrintable(unknown.error()));
}

void TestMonitorsFile::badInput_namesThePath_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("words");
    const QByteArray ok = R"("name": "a", "url": "http://127.0.0.1:1/", "policy": "none")";
    QTest::addRow("not JSON") << QByteArray("{\"format\": ") << QString() << "line 1";
    QTest::addRow("wrong format") << QByteArray(R"({"format": "retrylab-scenario", "version": 1, "monitors": []})")
                                  << "format"
                                  << "not a monitors file";
    QTest::addRow("newer version") << QByteArray(R"({"format": "retrylab-monitors", "version": 7, "monitors": []})")
                                   << "version"
                                   << "newer";
    QTest::addRow("no monitors") << wrap("") << "monitors"
                                 << "at least one";
    QTest::addRow("interval 0") << wrap("{" + ok + R"(, "intervalMs": 0})") << "monitors[0].intervalMs"
                                << "";
    QTest::addRow("interval NaN") << wrap("{" + ok + R"(, "intervalMs": "NaN"})") << "monitors[0].intervalMs"
                                  << "";
    QTest::addRow("interval missing") << wrap("{" + ok + "}") << "monitors[0].intervalMs"
                                      << "missing";
    QTest::addRow("policy missing") << wrap(R"({"name": "a", "url": "http://127.0.0.1:1/", "intervalMs": 1000})")
                                    << "monitors[0].policy"
                                    << "none";
    QTest::addRow("unknown preset") << wrap(R"({"name": "a", "url": "http://127.0.0.1:1/", "intervalMs": 1000,
                                                "policy": "nope"})")
                                    << "monitors[0].policy"
                                    << "unknown preset";
    QTest::addRow("bad URL") << wrap(R"({"name": "a", "url": "ftp://x/", "intervalMs": 1000, "policy": "none"})")
                             << "monitors[0].url"
                             << "http";
    QTest::addRow("count") << wrap("{" + ok + R"(, "intervalMs": 1000, "count": 3})") << "monitors[0].count"
                           << "scenarios";
    QTest::addRow("unknown field") << wrap("{" + ok + R"(, "intervalMs": 1000, "intervall": 3})")
                                   << "monitors[0].intervall"
                                   << "";
    QTest::addRow("two monitors one name")
        << wrap("{" + ok + R"(, "intervalMs": 1000}, {)" + ok + R"(, "intervalMs": 1000})") << "monitors[1].name"
        << "already";
    QTest::addRow("condition without kind")
        << wrap("{" + ok + R"(, "intervalMs": 1000, "conditions": [{}]})") << "monitors[0].conditions[0]"
        << "one of";
    QTest::addRow("bad status set") << wrap("{" + ok + R"(, "intervalMs": 1000, "conditions": [{"status": "2yy"}]})")
                                    << "monitors[0].conditions[0].status"
                                    << "2yy";
    QTest::addRow("bad pointer") << wrap(
        "{" + ok + R"(, "intervalMs": 1000, "conditions": [{"jsonPointer": "a", "equals": 1}]})")
                                 << "monitors[0].conditions[0].jsonPointer"
                                 << "pointer";
    QTest::addRow("bad regex") << wrap(
        "{" + ok + R"(, "intervalMs": 1000, "conditions": [{"header": "X", "matches": "("}]})")
                               << "monitors[0].conditions[0].matches"
                               << "regular expression";
    QTest::addRow("window backwards") << wrap("{" + ok + R"(, "intervalMs": 1000, "maintenance":
                    [{"from": "2026-12-01T01:00:00Z", "to": "2026-12-01T00:00:00Z"}]})")
                                      << "monitors[0].maintenance[0].to"
                                      << "before";
    QTest::addRow("daily garbage") << wrap("{" + ok + R"(, "intervalMs": 1000, "maintenance": [{"daily": "2am"}]})")
                                   << "monitors[0].maintenance[0].daily"
                                   << "02:00-02:30";
    QTest::addRow("objective 1") << wrap("{" + ok + R"(, "intervalMs": 1000, "objective": 1})")
                                 << "monitors[0].objective"
                                 << "0.999";
    QTest::addRow("unknown alert") << wrap("{" + ok + R"(, "intervalMs": 1000, "alerts": ["ops"]})")
                                   << "monitors[0].alerts"
                                   << "ops";
    QTest::addRow("undefined variable") << wrap(
        R"({"name": "a", "url": "{{base}}/x", "intervalMs": 1000, "policy": "none"})")
                                        << "monitors[0].url"
                                        << "{{base}}";
    QTest::addRow("embedded server") << wrap(R"({"name": "a", "url": "{server}/x", "intervalMs": 1000,
                                                 "policy": "none"})")
                                     << "monitors[0].url"
                                     << "retrylab serve";
}

void TestMonitorsFile::badInput_namesThePath()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, path);
    QFETCH(QString, words);
    const auto read = MonitorsFileReader::fromJson(json);
    QVERIFY(!read);
    QCOMPARE(read.errorDetail().path, path);
    QVERIFY2(read.error().contains(words), qPrintable(read.error()));
}

void TestMonitorsFile::readFile_namesTheFile()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("night.json"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(wrap(R"({"name": "a", "url": "http://127.0.0.1:1/", "intervalMs": 0, "policy": "none"})"));
    file.close();
    const auto read = MonitorsFileReader::readFile(path);
    QVERIFY(!read);
    QVERIFY2(read.error().startsWith(path + QStringLiteral(": monitors[0].intervalMs")), qPrintable(read.error()));
    const auto missing = MonitorsFileReader::readFile(dir.filePath(QStringLiteral("absent.json")));
    QVERIFY(!missing);
    QVERIFY2(missing.error().contains(QStringLiteral("absent.json")), qPrintable(missing.error()));
}

void TestMonitorsFile::maintenanceWindows_containTheirTimes()
{
    MaintenanceWindow daily;
    daily.dailyFrom = QTime(23, 30);
    daily.dailyTo = QTime(0, 30);
    const qint64 day = 86'400'000;
    const qint64 base = 20'000 * day;
    QVERIFY(daily.contains(base + 23 * 3'600'000 + 45 * 60'000));
    QVERIFY(daily.contains(base + 10 * 60'000));
    QVERIFY(!daily.contains(base + 31 * 60'000));
    MaintenanceWindow once;
    once.fromMs = base;
    once.toMs = base + 1000;
    QVERIFY(once.contains(base));
    QVERIFY(!once.contains(base + 1000));
}

void TestMonitorsFile::collectionRequest_becomesAMonitorWithItsSavedPolicy()
{
    QTemporaryDir dir;
    Collection collection;
    collection.name = QStringLiteral("Shop");
    CollectionItem folder = CollectionItem::makeFolder(QStringLiteral("Orders"));
    RequestDraft draft;
    draft.method = QStringLiteral("POST");
    draft.urlTemplate = QStringLiteral("https://shop.test/orders");
    draft.body = QStringLiteral("{}");
    draft.idempotent = true;
    folder.items.append(CollectionItem::makeRequest(
        QStringLiteral("Create"), draft, SavedPolicy::from(*Presets::find(QStringLiteral("aws-standard")))));
    collection.items.append(folder);
    QFile out(dir.filePath(QStringLiteral("shop.json")));
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(CollectionJson::toJson(collection));
    out.close();

    const QByteArray json = wrap(R"({"name": "create-order", "collection": "shop.json", "request": "Orders/Create",
        "intervalMs": 5000})");
    const auto read = MonitorsFileReader::fromJson(json, {}, dir.path());
    QVERIFY2(read, qPrintable(read.error()));
    const Monitor &m = read->monitors.constFirst();
    QCOMPARE(m.name, QStringLiteral("create-order"));
    QCOMPARE(m.request.method, QByteArray("POST"));
    QCOMPARE(m.urlTemplate, QStringLiteral("https://shop.test/orders"));
    QVERIFY(m.request.idempotent);
    QCOMPARE(m.policy.maxAttempts, Presets::find(QStringLiteral("aws-standard"))->maxAttempts);
    // A policy of the monitor's own wins over the saved one.
    const auto none = MonitorsFileReader::fromJson(wrap(R"({"name": "c", "collection": "shop.json",
        "request": "Create", "intervalMs": 5000, "policy": "none"})"),
        {}, dir.path());
    QVERIFY2(none, qPrintable(none.error()));
    QCOMPARE(none->monitors.constFirst().policy.maxAttempts, 1);
    // A name that is not there: the error names the field and what the collection has.
    const auto missing = MonitorsFileReader::fromJson(wrap(R"({"name": "c", "collection": "shop.json",
        "request": "Orders/Delete", "intervalMs": 5000})"),
        {}, dir.path());
    QVERIFY(!missing);
    QCOMPARE(missing.errorDetail().path, QStringLiteral("monitors[0].collection"));
    QVERIFY2(
        missing.error().contains(QStringLiteral("monitors[0].request \"Orders/Delete\"")), qPrintable(missing.error()));
    QVERIFY2(missing.error().contains(QStringLiteral("Orders/Create")), qPrintable(missing.error()));
    // Request fields of their own do not go with a saved request.
    const auto mixed = MonitorsFileReader::fromJson(wrap(R"({"name": "c", "collection": "shop.json",
        "request": "Create", "url": "https://x.test/", "intervalMs": 5000})"),
        {}, dir.path());
    QVERIFY(!mixed);
    QCOMPARE(mixed.errorDetail().path, QStringLiteral("monitors[0].url"));
}

void TestMonitorsFile::serverPlaceholder_withoutTheOption_isRefusedNamingFileAndPath()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("window.json"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(wrap(R"({"name": "ok", "url": "http://127.0.0.1:1/", "intervalMs": 1000, "policy": "none"},
        {"name": "local", "url": "{server}/status/200", "intervalMs": 1000, "policy": "none"})"));
    file.close();
    const auto read = MonitorsFileReader::readFile(path);
    QVERIFY(!read);
    QVERIFY2(read.error().startsWith(path + QStringLiteral(": monitors[1].url: ")), qPrintable(read.error()));
    QVERIFY2(read.error().contains(QStringLiteral("embedded fault server")), qPrintable(read.error()));
    QVERIFY2(read.error().contains(QStringLiteral("retrylab serve")), qPrintable(read.error()));
    QVERIFY2(MonitorsFileReader::readFile(path, {}, {.allowServer = true}), "the window reads it");
}

void TestMonitorsFile::serverPlaceholder_allowed_staysInTheUrlTemplate()
{
    // A variable may hold {server} too: it is filled in before the check expands {server}.
    const QByteArray json = wrap(R"({"name": "local", "url": "{server}/fail/2?key={id}", "intervalMs": 1000,
            "policy": "none"},
        {"name": "via-variable", "url": "{{base}}/status/200", "intervalMs": 1000, "policy": "none"})",
        R"("environments": [{"name": "here", "variables": [{"name": "base", "value": "{server}"}]}],
        "environment": "here", )");
    const auto read = MonitorsFileReader::fromJson(json, {}, {}, {.allowServer = true});
    QVERIFY2(read, qPrintable(read.error()));
    QCOMPARE(read->monitors.size(), 2);
    QCOMPARE(read->monitors.at(0).urlTemplate, QStringLiteral("{server}/fail/2?key={id}"));
    QCOMPARE(read->monitors.at(1).urlTemplate, QStringLiteral("{server}/status/200"));
    const auto refused = MonitorsFileReader::fromJson(json);
    QVERIFY(!refused);
    QCOMPARE(refused.errorDetail().path, QStringLiteral("monitors[0].url"));
}

void TestMonitorsFile::serverPlaceholder_allowed_onlyInTheUrl()
{
    // A check expands the URL only: a fallback to {server} would be sent as written.
    const QByteArray json = wrap(R"({"name": "f", "url": "{server}/status/503", "intervalMs": 1000,
        "policy": "none", "fallbacks": ["http://127.0.0.1:1/", "{server}/status/200"]})");
    const auto read = MonitorsFileReader::fromJson(json, {}, {}, {.allowServer = true});
    QVERIFY(!read);
    QCOMPARE(read.errorDetail().path, QStringLiteral("monitors[0].fallbacks"));
    QVERIFY2(read.error().contains(QStringLiteral("fallback 2")), qPrintable(read.error()));
    const auto header = MonitorsFileReader::fromJson(wrap(R"({"name": "h", "url": "{server}/status/200",
        "intervalMs": 1000, "policy": "none", "headers": {"X-Back": "{server}/hook"}})"),
        {}, {}, {.allowServer = true});
    QVERIFY(!header);
    QCOMPARE(header.errorDetail().path, QStringLiteral("monitors[0].headers"));
    QVERIFY2(header.error().contains(QStringLiteral("X-Back")), qPrintable(header.error()));
    const auto body = MonitorsFileReader::fromJson(wrap(R"({"name": "b", "url": "{server}/status/200",
        "intervalMs": 1000, "policy": "none", "method": "POST", "body": "{server}/hook"})"),
        {}, {}, {.allowServer = true});
    QVERIFY(!body);
    QCOMPARE(body.errorDetail().path, QStringLiteral("monitors[0].body"));
}

void TestMonitorsFile::collectionRequest_usingServer_keptOnlyWhenAllowed()
{
    QTemporaryDir dir;
    Collection collection;
    collection.name = QStringLiteral("Local");
    RequestDraft draft;
    draft.urlTemplate = QStringLiteral("{server}/fail/3?key={id}");
    collection.items.append(CollectionItem::makeRequest(
        QStringLiteral("Flaky"), draft, SavedPolicy::from(*Presets::find(QStringLiteral("aws-standard")))));
    RequestDraft inBody;
    inBody.method = QStringLiteral("POST");
    inBody.urlTemplate = QStringLiteral("{server}/status/200");
    inBody.body = QStringLiteral("{\"callback\": \"{server}/hook\"}");
    collection.items.append(CollectionItem::makeRequest(
        QStringLiteral("Callback"), inBody, SavedPolicy::from(*Presets::find(QStringLiteral("aws-standard")))));
    QFile out(dir.filePath(QStringLiteral("local.json")));
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(CollectionJson::toJson(collection));
    out.close();

    const QByteArray json
        = wrap(R"({"name": "flaky", "collection": "local.json", "request": "Flaky", "intervalMs": 5000})");
    const auto refused = MonitorsFileReader::fromJson(json, {}, dir.path());
    QVERIFY(!refused);
    QCOMPARE(refused.errorDetail().path, QStringLiteral("monitors[0].request"));
    QVERIFY2(refused.error().contains(QStringLiteral("{server}")), qPrintable(refused.error()));

    const auto read = MonitorsFileReader::fromJson(json, {}, dir.path(), {.allowServer = true});
    QVERIFY2(read, qPrintable(read.error()));
    const Monitor &m = read->monitors.constFirst();
    QVERIFY2(m.urlTemplate.startsWith(QStringLiteral("{server}/fail/3?key=")), qPrintable(m.urlTemplate));
    QVERIFY2(!m.request.url.toString().contains(QStringLiteral("invalid")), "the stand-in is never kept");

    // Only the URL is expanded at each check: {server} in the body is refused still.
    const auto body = MonitorsFileReader::fromJson(
        wrap(R"({"name": "cb", "collection": "local.json", "request": "Callback", "intervalMs": 5000})"), {},
        dir.path(), {.allowServer = true});
    QVERIFY(!body);
    QCOMPARE(body.errorDetail().path, QStringLiteral("monitors[0].request"));
    QVERIFY2(body.error().contains(QStringLiteral("outside its URL")), qPrintable(body.error()));
}

QTEST_GUILESS_MAIN(TestMonitorsFile)
#include "tst_monitorsfile.moc"
