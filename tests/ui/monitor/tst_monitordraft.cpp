#include "core/collections/collection.h"
#include "core/collections/collectionjson.h"
#include "core/policy/presets.h"
#include "ui/monitor/monitordraft.h"

#include <QFile>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace RetryLab;

namespace {

// A collection file with Health at the top and Orders/List, Orders/Create, Orders/Upload (uses {server}).
QString writeShop(const QTemporaryDir &dir)
{
    Core::Collection collection;
    collection.name = QStringLiteral("Shop");
    Core::RequestDraft health;
    health.urlTemplate = QStringLiteral("https://shop.test/health");
    collection.items.append(Core::CollectionItem::makeRequest(QStringLiteral("Health"), health,
        Core::SavedPolicy::from(*Core::Presets::find(QStringLiteral("aws-standard")))));
    Core::CollectionItem orders = Core::CollectionItem::makeFolder(QStringLiteral("Orders"));
    Core::RequestDraft list;
    list.urlTemplate = QStringLiteral("https://shop.test/orders");
    orders.items.append(Core::CollectionItem::makeRequest(
        QStringLiteral("List"), list, Core::SavedPolicy::from(Core::BackoffPolicy{})));
    Core::RequestDraft create = list;
    create.method = QStringLiteral("POST");
    orders.items.append(Core::CollectionItem::makeRequest(
        QStringLiteral("Create"), create, Core::SavedPolicy::from(Core::BackoffPolicy{})));
    Core::RequestDraft upload;
    upload.urlTemplate = QStringLiteral("{server}/upload");
    orders.items.append(Core::CollectionItem::makeRequest(
        QStringLiteral("Upload"), upload, Core::SavedPolicy::from(Core::BackoffPolicy{})));
    collection.items.append(orders);
    const QString path = dir.filePath(QStringLiteral("shop.json"));
    QFile out(path);
    if (!out.open(QIODevice::WriteOnly))
        return {};
    out.write(Core::CollectionJson::toJson(collection));
    return path;
}

} // namespace

class TestMonitorDraft : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void uniqueName_addsANumberUntilFree();
    void fromRequest_namedAfterHostAndPath_keepsSpecAndPolicy();
    void fromRequest_withTypedTemplate_keepsServerAndId();
    void fromCollection_oneRequest_keepsItsSavedPolicy();
    void fromCollection_folder_oneMonitorPerRequest_andSaysWhyNotForTheOthers();
    void fromCollection_unknownPathOrFile_isAnError();
};

void TestMonitorDraft::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
}

void TestMonitorDraft::uniqueName_addsANumberUntilFree()
{
    QCOMPARE(Ui::uniqueMonitorName(QStringLiteral("api"), {}), QStringLiteral("api"));
    QCOMPARE(Ui::uniqueMonitorName(QStringLiteral("api"), {QStringLiteral("api"), QStringLiteral("api (2)")}),
        QStringLiteral("api (3)"));
    QCOMPARE(Ui::uniqueMonitorName(QStringLiteral("  "), {}), QStringLiteral("monitor"));
    const QString longName(150, QLatin1Char('x'));
    const QString unique = Ui::uniqueMonitorName(longName, {longName.left(100)});
    QCOMPARE(unique.size(), 100);
    QVERIFY(unique.endsWith(QStringLiteral(" (2)")));
}

void TestMonitorDraft::fromRequest_namedAfterHostAndPath_keepsSpecAndPolicy()
{
    Core::RequestSpec spec;
    spec.method = "HEAD";
    spec.url = QUrl(QStringLiteral("https://api.example.com/v1/health?full=1"));
    Core::BackoffPolicy policy;
    policy.maxAttempts = 3;
    const Core::Monitor monitor = Ui::monitorFromRequest(spec, policy, {QStringLiteral("api.example.com/v1/health")});
    QCOMPARE(monitor.name, QStringLiteral("api.example.com/v1/health (2)"));
    QCOMPARE(monitor.request.method, QByteArray("HEAD"));
    QCOMPARE(monitor.urlTemplate, QStringLiteral("https://api.example.com/v1/health?full=1"));
    QCOMPARE(monitor.request.label, monitor.name);
    QCOMPARE(monitor.policy.maxAttempts, 3);
    QCOMPARE(monitor.intervalMs, 60'000.0);

    spec.url = QUrl(QStringLiteral("http://10.0.0.1/"));
    QCOMPARE(Ui::monitorFromRequest(spec, policy, {}).name, QStringLiteral("10.0.0.1"));
}

void TestMonitorDraft::fromRequest_withTypedTemplate_keepsServerAndId()
{
    // As the window builds it: {server} filled in with today's port, {id} with a key.
    Core::RequestSpec spec;
    spec.url = QUrl(QStringLiteral("http://127.0.0.1:41234/fail/3?key=retrylab-monitor-id"));
    Core::BackoffPolicy policy;
    policy.maxAttempts = 5;
    const QString typed = QStringLiteral("{server}/fail/3?key={id}");
    const Core::Monitor monitor
        = Ui::monitorFromRequest(spec, QStringLiteral("  %1 ").arg(typed), policy, {QStringLiteral("{server}/fail/3")});
    QCOMPARE(monitor.urlTemplate, typed);
    QCOMPARE(monitor.name, QStringLiteral("{server}/fail/3 (2)"));
    QCOMPARE(monitor.request.label, monitor.name);
    QCOMPARE(monitor.policy.maxAttempts, 5);
    QCOMPARE(monitor.policyOrigin, QStringLiteral("inline"));

    // Without {server}, named after host and path as before, the template as typed.
    spec.url = QUrl(QStringLiteral("https://api.example.com/orders?key=retrylab-monitor-id"));
    const Core::Monitor plain
        = Ui::monitorFromRequest(spec, QStringLiteral("https://api.example.com/orders?key={id}"), policy, {});
    QCOMPARE(plain.name, QStringLiteral("api.example.com/orders"));
    QCOMPARE(plain.urlTemplate, QStringLiteral("https://api.example.com/orders?key={id}"));
    // No template: the first overload.
    QCOMPARE(Ui::monitorFromRequest(spec, QString(), policy, {}).urlTemplate, spec.url.toString());
}

void TestMonitorDraft::fromCollection_oneRequest_keepsItsSavedPolicy()
{
    QTemporaryDir dir;
    const QString file = writeShop(dir);
    QVERIFY(!file.isEmpty());
    const auto made = Ui::monitorsFromCollection(file, QStringLiteral("Health"), {}, {}, {});
    QVERIFY2(made.errors.isEmpty(), qPrintable(made.errors.join(QLatin1Char('\n'))));
    QCOMPARE(made.monitors.size(), 1);
    const Core::Monitor &health = made.monitors.constFirst();
    QCOMPARE(health.name, QStringLiteral("Health"));
    QCOMPARE(health.urlTemplate, QStringLiteral("https://shop.test/health"));
    QCOMPARE(health.policy.maxAttempts, Core::Presets::find(QStringLiteral("aws-standard"))->maxAttempts);
    QVERIFY2(health.policyOrigin.contains(QStringLiteral("aws-standard")), qPrintable(health.policyOrigin));
}

void TestMonitorDraft::fromCollection_folder_oneMonitorPerRequest_andSaysWhyNotForTheOthers()
{
    QTemporaryDir dir;
    const QString file = writeShop(dir);
    const auto made
        = Ui::monitorsFromCollection(file, QStringLiteral("Orders"), {}, {}, {QStringLiteral("Orders/List")});
    QCOMPARE(made.monitors.size(), 2);
    QCOMPARE(made.monitors.at(0).name, QStringLiteral("Orders/List (2)"));
    QCOMPARE(made.monitors.at(1).name, QStringLiteral("Orders/Create"));
    QCOMPARE(made.monitors.at(1).request.method, QByteArray("POST"));
    QCOMPARE(made.errors.size(), 1);
    QVERIFY2(made.errors.constFirst().contains(QStringLiteral("{server}")), qPrintable(made.errors.constFirst()));

    const auto all = Ui::monitorsFromCollection(file, {}, {}, {}, {});
    QCOMPARE(all.monitors.size(), 3);

    // The window's monitors may keep {server}: the engine fills it in.
    const auto window = Ui::monitorsFromCollection(file, QStringLiteral("Orders"), {}, {}, {}, true);
    QVERIFY2(window.errors.isEmpty(), qPrintable(window.errors.join(QLatin1Char('\n'))));
    QCOMPARE(window.monitors.size(), 3);
    QCOMPARE(window.monitors.at(2).urlTemplate, QStringLiteral("{server}/upload"));
}

void TestMonitorDraft::fromCollection_unknownPathOrFile_isAnError()
{
    QTemporaryDir dir;
    const QString file = writeShop(dir);
    const auto unknown = Ui::monitorsFromCollection(file, QStringLiteral("Payments"), {}, {}, {});
    QVERIFY(unknown.monitors.isEmpty());
    QCOMPARE(unknown.errors.size(), 1);
    QVERIFY(unknown.errors.constFirst().contains(QStringLiteral("Payments")));
    const auto missing = Ui::monitorsFromCollection(dir.filePath(QStringLiteral("none.json")), {}, {}, {}, {});
    QCOMPARE(missing.errors.size(), 1);
}

QTEST_MAIN(TestMonitorDraft)
#include "tst_monitordraft.moc"
