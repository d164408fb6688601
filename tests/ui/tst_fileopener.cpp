#include "core/collections/collectionjson.h"
#include "core/export/reportjson.h"
#include "tests/ui/windowparts.h"
#include "ui/collections/collectionmodel.h"
#include "ui/fileopener.h"
#include "ui/monitorcontroller.h"
#include "ui/session/monitor/monitorhost.h"

#include <QDir>
#include <QFile>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace RetryLab;
using Ui::FileOpener;
using Ui::MainWindow;

// A file given to the window (retrylab FILE, the file manager, a second instance)
// shown where its kind belongs, told by content: a run read-only in the run's views,
// a scenario in the composer, a collection in the Collections dock, a monitors file
// in the Monitors tab, a policy in the policy dock; and what it cannot show refused
// with the reason, the window as it was.
class TestFileOpener : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void kindOf_data();
    void kindOf();
    void report_opensReadOnlyInTheRunsViews();
    void scenario_opensInTheComposerWithItsPolicy();
    void collection_isAddedToTheDock_once();
    void monitorsFile_opensInTheMonitorsTab();
    void policy_opensInThePolicyDock();
    void observationReport_isRefused_withTheReason();
    void unreadableFile_isRefused();

private:
    QString writeFile(const QString &name, const QByteArray &bytes);

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<MainWindow> m_window;
};

void TestFileOpener::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
}

void TestFileOpener::init()
{
    QFile::remove(QSettings().fileName());
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    MainWindow::Options options;
    options.startServer = false;
    options.dataDirectory = m_dir->filePath(QStringLiteral("data"));
    options.systemTray = false;
    m_window = std::make_unique<MainWindow>(options);
    m_window->show();
}

void TestFileOpener::cleanup()
{
    m_window.reset();
    m_dir.reset();
    QFile::remove(QSettings().fileName());
}

QString TestFileOpener::writeFile(const QString &name, const QByteArray &bytes)
{
    const QString path = m_dir->filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size())
        return {};
    return path;
}

void TestFileOpener::kindOf_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<FileOpener::Kind>("kind");
    QTest::addRow("report") << QByteArray(R"({"attempts": [], "format": "retrylab-report"})")
                            << FileOpener::Kind::Report;
    QTest::addRow("scenario") << QByteArray(R"({"format": "retrylab-scenario"})") << FileOpener::Kind::Scenario;
    QTest::addRow("monitors") << QByteArray(R"({"format": "retrylab-monitors"})") << FileOpener::Kind::Monitors;
    QTest::addRow("policy") << QByteArray(R"({"format": "retrylab-policy"})") << FileOpener::Kind::Policy;
    QTest::addRow("observation") << QByteArray(R"({"clients": [], "format": "retrylab-observation"})")
                                 << FileOpener::Kind::Observation;
    QTest::addRow("collection") << QByteArray(R"({"formatVersion": 1, "items": [], "name": "x"})")
                                << FileOpener::Kind::Collection;
    QTest::addRow("a Postman collection")
        << QByteArray(R"({"info": {"schema": "x"}, "item": []})") << FileOpener::Kind::Other;
    QTest::addRow("no JSON") << QByteArray("GET / HTTP/1.1") << FileOpener::Kind::Unknown;
    QTest::addRow("a JSON array") << QByteArray("[1, 2]") << FileOpener::Kind::Unknown;
}

void TestFileOpener::kindOf()
{
    QFETCH(QByteArray, bytes);
    QFETCH(FileOpener::Kind, kind);
    QCOMPARE(FileOpener::kindOf(bytes), kind);
}

void TestFileOpener::report_opensReadOnlyInTheRunsViews()
{
    Core::RunRecord run;
    run.policy.name = QStringLiteral("Opened from the file manager");
    const QString path = m_dir->filePath(QStringLiteral("saved-run.json"));
    QVERIFY(Core::ReportJson::writeFile(path, run));
    const auto opened = m_window->fileOpener()->open(path);
    QVERIFY2(opened, qPrintable(opened.error()));
    QCOMPARE(*opened, FileOpener::Kind::Report);
    auto *openedRun = windowPart<Ui::OpenedRun>(*m_window, "openedRun");
    QVERIFY(openedRun->isOpen());
    QCOMPARE(openedRun->fileName(), path);
    QCOMPARE(m_window->currentTab(), MainWindow::Tab::Timeline);
}

void TestFileOpener::scenario_opensInTheComposerWithItsPolicy()
{
    const QString path = QStringLiteral(RETRYLAB_SOURCE_DIR "/resources/scenarios/flaky-service.json");
    const auto opened = m_window->fileOpener()->open(path);
    QVERIFY2(opened, qPrintable(opened.error()));
    QCOMPARE(*opened, FileOpener::Kind::Scenario);
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray text = file.readAll();
    // The composer holds the scenario's first request as written ({server} and all).
    const QString url = composerOf(*m_window)->draft().urlTemplate;
    QVERIFY2(url.startsWith(QLatin1String("{server}/")) && text.contains(url.toUtf8()), qPrintable(url));
    const QString policy = policyPanelOf(*m_window)->policy().name;
    QVERIFY2(!policy.isEmpty() && policy != Core::BackoffPolicy{}.name, qPrintable(policy));
}

void TestFileOpener::collection_isAddedToTheDock_once()
{
    Core::Collection collection;
    collection.name = QStringLiteral("Shop");
    Core::CollectionItem request;
    request.kind = Core::CollectionItem::Kind::Request;
    request.name = QStringLiteral("Orders");
    request.request.urlTemplate = QStringLiteral("https://shop.example/orders");
    collection.items.append(request);
    const QString path = writeFile(QStringLiteral("shop.json"), Core::CollectionJson::toJson(collection));
    QVERIFY(!path.isEmpty());

    Ui::CollectionModel *model = collectionsOf(*m_window)->model();
    const int before = model->rowCount();
    const auto opened = m_window->fileOpener()->open(path);
    QVERIFY2(opened, qPrintable(opened.error()));
    QCOMPARE(*opened, FileOpener::Kind::Collection);
    QCOMPARE(model->rowCount(), before + 1);
    const Core::Collection added = model->collection(before);
    QCOMPARE(added.name, QStringLiteral("Shop"));
    QCOMPARE(added.items.size(), 1);
    QCOMPARE(added.items.first().request.urlTemplate, QStringLiteral("https://shop.example/orders"));
    QVERIFY(collectionsDockOf(*m_window)->isVisible());

    // The dock saved it in its own folder; opening that file selects it, adding nothing.
    const QString saved = QDir(collectionsOf(*m_window)->store().collectionsDirectory()).filePath(added.fileName);
    QTRY_VERIFY(QFile::exists(saved));
    const auto again = m_window->fileOpener()->open(saved);
    QVERIFY2(again, qPrintable(again.error()));
    QCOMPARE(model->rowCount(), before + 1);
}

void TestFileOpener::monitorsFile_opensInTheMonitorsTab()
{
    const QString path = writeFile(QStringLiteral("watch.json"),
        R"({"format": "retrylab-monitors", "version": 1,
            "monitors": [{"name": "opened-health", "url": "http://127.0.0.1:9/health", "intervalMs": 60000, "policy": "none"}]})");
    QVERIFY(!path.isEmpty());
    const auto opened = m_window->fileOpener()->open(path);
    QVERIFY2(opened, qPrintable(opened.error()));
    QCOMPARE(*opened, FileOpener::Kind::Monitors);
    QCOMPARE(m_window->currentTab(), MainWindow::Tab::Monitors);
    const auto *controller = windowPart<Ui::MonitorController>(*m_window, "monitorController");
    bool found = false;
    for (const Core::Monitor &monitor : controller->host()->monitors())
        found = found || monitor.name == QLatin1String("opened-health");
    QVERIFY(found);
}

void TestFileOpener::policy_opensInThePolicyDock()
{
    const auto opened = m_window->fileOpener()->open(QStringLiteral(RETRYLAB_SOURCE_DIR "/resources/presets/iam.json"));
    QVERIFY2(opened, qPrintable(opened.error()));
    QCOMPARE(*opened, FileOpener::Kind::Policy);
    QCOMPARE(policyPanelOf(*m_window)->policy().name, QStringLiteral("IAM"));
    QVERIFY(policyDockOf(*m_window)->isVisible());
}

void TestFileOpener::observationReport_isRefused_withTheReason()
{
    const QString path = writeFile(
        QStringLiteral("observed.json"), R"({"clients": [], "format": "retrylab-observation", "version": 1})");
    const QString policyBefore = policyPanelOf(*m_window)->policy().name;
    const auto opened = m_window->fileOpener()->open(path);
    QVERIFY(!opened);
    QVERIFY2(opened.error().contains(QLatin1String("observation report")), qPrintable(opened.error()));
    QCOMPARE(policyPanelOf(*m_window)->policy().name, policyBefore);
}

void TestFileOpener::unreadableFile_isRefused()
{
    const auto missing = m_window->fileOpener()->open(m_dir->filePath(QStringLiteral("missing.json")));
    QVERIFY(!missing);
    QVERIFY2(missing.error().contains(QLatin1String("missing.json")), qPrintable(missing.error()));
}

QTEST_MAIN(TestFileOpener)
#include "tst_fileopener.moc"
