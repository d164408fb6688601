#include "core/collections/collectionstore.h"
#include "core/export/reportjson.h"
#include "core/faultserver/faultserver.h"
#include "ui/collectionruncontroller.h"
#include "ui/collections/collectionmodel.h"
#include "ui/collections/collectionrunmodel.h"
#include "ui/collections/collectionrunpanel.h"
#include "ui/collections/collectionsidebar.h"
#include "ui/session/request/collectionrunhost.h"
#include "ui/widgets/outcomestyle.h"

#include <QAction>
#include <QCheckBox>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

#include <memory>

using namespace RetryLab;
using Ui::CollectionRunController;
using Ui::CollectionRunModel;
using Ui::CollectionRunPanel;

namespace {

Core::BackoffPolicy panelRetries(int attempts)
{
    Core::BackoffPolicy policy;
    policy.name = QStringLiteral("quick");
    policy.maxAttempts = attempts;
    policy.baseDelayMs = 5;
    policy.maxBackoffMs = 20;
    policy.jitterMs = 5;
    policy.circuitBreaker = {};
    policy.retryBudget = {};
    return policy;
}

Core::RunItem panelRequest(const QString &name, const QString &url, int status)
{
    Core::RunItem item;
    item.kind = Core::RunItem::Kind::Request;
    item.name = name;
    item.id = name;
    item.request.urlTemplate = url;
    Core::Assertion assertion;
    assertion.kind = Core::Assertion::Kind::StatusEquals;
    assertion.statuses = {status};
    assertion.statusText = QString::number(status);
    item.assertions = {assertion};
    return item;
}

// "Orders/flaky" passes after two 503s under its own policy; "missing" gets a 404 its assertion refuses.
Core::RunCollection flakyAndMissing()
{
    Core::RunCollection collection;
    collection.name = QStringLiteral("Shop");
    Core::RunItem orders;
    orders.kind = Core::RunItem::Kind::Folder;
    orders.name = QStringLiteral("Orders");
    Core::RunItem flaky = panelRequest(QStringLiteral("flaky"), QStringLiteral("{server}/fail/2?key={id}"), 200);
    Core::SavedPolicy own;
    own.custom = panelRetries(4);
    flaky.policy = own;
    orders.items = {flaky};
    collection.items = {orders, panelRequest(QStringLiteral("missing"), QStringLiteral("{server}/status/404"), 200)};
    return collection;
}

} // namespace

class TestCollectionRunPanel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void run_showsEachRequestWithItsAssertions_andMarksTheRetried();
    void openAttempts_emitsARecordOfExactlyThatRequestsAttempts();
    void openAttempts_byEnterOnTheRequest();
    void export_writesAReadableReport_JUnitAndHar();
    void failedOnly_showsTheFailedRequestWithWhatFailed();
    void verdict_isAWordWithItsColour();
    void sidebar_runCollection_runsTheSavedCollectionInTheEnvironment();
    void stop_endsTheRun_andThePanelSaysSo();

private:
    /// Runs flakyAndMissing() through the controller (host and panel) to its end.
    bool runToEnd();

    Core::FaultServer m_server;
    std::unique_ptr<QWidget> m_window;
    std::unique_ptr<CollectionRunController> m_controller;
    QList<QPair<Core::RunRecord, QString>> m_opened;
};

void TestCollectionRunPanel::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY2(m_server.listen(), qPrintable(m_server.errorString()));
}

void TestCollectionRunPanel::init()
{
    m_window = std::make_unique<QWidget>();
    m_opened.clear();
    CollectionRunController::Parts parts;
    parts.panelParent = m_window.get();
    parts.serverUrl = [this] { return m_server.baseUrl(); };
    parts.openRecord = [this](const Core::RunRecord &record, const QString &title) {
        m_opened.append({record, title});
    };
    m_controller = std::make_unique<CollectionRunController>(parts);
    m_controller->panel()->resize(900, 420);
}

void TestCollectionRunPanel::cleanup()
{
    m_controller.reset();
    m_window.reset();
}

bool TestCollectionRunPanel::runToEnd()
{
    QSignalSpy finished(m_controller->host(), &Ui::CollectionRunHost::finished);
    Core::CollectionRunOptions options;
    options.defaultPolicy = panelRetries(4);
    options.defaultPolicyName = QStringLiteral("quick");
    if (!m_controller->run(flakyAndMissing(), options))
        return false;
    return finished.wait(30'000);
}

void TestCollectionRunPanel::run_showsEachRequestWithItsAssertions_andMarksTheRetried()
{
    CollectionRunPanel *panel = m_controller->panel();
    QSignalSpy finished(m_controller->host(), &Ui::CollectionRunHost::finished);
    QVERIFY(m_controller->run(flakyAndMissing(), {}));
    QVERIFY(panel->isRunning());
    QVERIFY(panel->stopAction()->isEnabled());
    QVERIFY(!panel->exportAction()->isEnabled());
    QCOMPARE(panel->progressText(), QStringLiteral("0/2"));
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 30'000);

    QVERIFY(!panel->isRunning());
    QVERIFY(!panel->stopAction()->isEnabled());
    QVERIFY(panel->exportAction()->isEnabled());
    QCOMPARE(panel->progressText(), QStringLiteral("2/2"));
    QCOMPARE(panel->countsText(), QStringLiteral("0 passed · 1 failed · 1 retried"));
    const CollectionRunModel *model = panel->model();
    QCOMPARE(model->rowCount(), 2);
    QCOMPARE(model->index(0, CollectionRunModel::RequestColumn).data().toString(), QStringLiteral("Orders/flaky"));
    QCOMPARE(model->index(0, CollectionRunModel::StatusColumn).data().toString(),
        QStringLiteral("200 after 3 attempts: 503 → 503 → 200"));
    QCOMPARE(model->index(0, CollectionRunModel::VerdictColumn).data().toString(), QStringLiteral("retried"));
    QCOMPARE(model->index(1, CollectionRunModel::StatusColumn).data().toString(), QStringLiteral("404"));
    QCOMPARE(model->index(1, CollectionRunModel::VerdictColumn).data().toString(), QStringLiteral("failed"));

    const QModelIndex flaky = model->index(0, 0);
    QCOMPARE(model->rowCount(flaky), 1);
    QCOMPARE(model->index(0, CollectionRunModel::RequestColumn, flaky).data().toString(),
        QStringLiteral("Assertion: status 200"));
    QCOMPARE(model->index(0, CollectionRunModel::VerdictColumn, flaky).data().toString(), QStringLiteral("passed"));
    const QModelIndex missing = model->index(1, 0);
    QCOMPARE(model->rowCount(missing), 1);
    QCOMPARE(model->index(0, CollectionRunModel::VerdictColumn, missing).data().toString(), QStringLiteral("failed"));
    QVERIFY(!model->index(0, CollectionRunModel::StatusColumn, missing).data().toString().isEmpty());
    // A failed request is opened to show what failed.
    QVERIFY(panel->view()->isExpanded(panel->view()->model()->index(1, 0)));
}

void TestCollectionRunPanel::openAttempts_emitsARecordOfExactlyThatRequestsAttempts()
{
    QVERIFY(runToEnd());
    CollectionRunPanel *panel = m_controller->panel();
    QVERIFY(panel->selectRequest(0));
    QVERIFY(panel->openAttemptsAction()->isEnabled());
    panel->openAttemptsAction()->trigger();
    QCOMPARE(m_opened.size(), 1);
    const Core::CollectionRequestRun &flaky = panel->result().requests.at(0);
    const Core::RunRecord &record = m_opened.at(0).first;
    QCOMPARE(record.requests.size(), 1);
    QVERIFY(record.requests.contains(flaky.requestId));
    QCOMPARE(record.attempts.size(), 3);
    for (const Core::AttemptRecord &attempt : record.attempts)
        QCOMPARE(attempt.requestId, flaky.requestId);
    QCOMPARE(record.results.size(), 1);
    QCOMPARE(record.results.at(0).attempts, 3);
    QCOMPARE(record.policy.maxAttempts, 4);
    QCOMPARE(record.startedAt, panel->result().record.startedAt);
    // The whole run holds four attempts; the record only that request's.
    QCOMPARE(panel->result().record.attempts.size(), 4);
    QCOMPARE(m_opened.at(0).second, QStringLiteral("Orders/flaky in Shop"));
}

void TestCollectionRunPanel::openAttempts_byEnterOnTheRequest()
{
    QVERIFY(runToEnd());
    CollectionRunPanel *panel = m_controller->panel();
    QVERIFY(panel->selectRequest(1));
    QTest::keyClick(panel->view(), Qt::Key_Return);
    QCOMPARE(m_opened.size(), 1);
    QCOMPARE(m_opened.at(0).first.attempts.size(), 1);
    QCOMPARE(m_opened.at(0).first.attempts.at(0).httpStatus, std::optional<int>(404));
    // Enter on a verdict's row shows the verdict; it opens nothing.
    QTreeView *view = panel->view();
    view->setCurrentIndex(view->model()->index(0, 0, view->model()->index(1, 0)));
    QTest::keyClick(view, Qt::Key_Return);
    QCOMPARE(m_opened.size(), 1);
}

void TestCollectionRunPanel::export_writesAReadableReport_JUnitAndHar()
{
    QVERIFY(runToEnd());
    CollectionRunPanel *panel = m_controller->panel();
    QTemporaryDir dir;
    QVERIFY(dir.isValid());

    const QString json = dir.filePath(QStringLiteral("run.json"));
    const auto wroteJson = panel->exportTo(json);
    QVERIFY2(wroteJson, qPrintable(wroteJson.error()));
    const auto report = Core::ReportJson::readFile(json);
    QVERIFY2(report, qPrintable(report.error()));
    QCOMPARE(report->run.attempts.size(), 4);
    QCOMPARE(report->run.requests.size(), 2);
    QCOMPARE(report->expectations.size(), 2);
    QCOMPARE(report->expectations.at(0).name, QStringLiteral("Orders/flaky › status 200"));
    QVERIFY(report->expectations.at(0).passed);
    QVERIFY(!report->expectations.at(1).passed);
    QCOMPARE(report->expectations.at(1).requestIds, QList<quint64>{panel->result().requests.at(1).requestId});

    const QString xml = dir.filePath(QStringLiteral("run.xml"));
    QVERIFY(panel->exportTo(xml));
    QFile junit(xml);
    QVERIFY(junit.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(junit.readAll());
    QVERIFY2(text.contains(QLatin1String("<testsuite name=\"Orders/flaky\"")), qPrintable(text));
    QVERIFY2(text.contains(QLatin1String("<property name=\"attempts\" value=\"3\"/>")), qPrintable(text));
    QVERIFY2(text.contains(QLatin1String("<property name=\"retried\" value=\"true\"/>")), qPrintable(text));
    QVERIFY2(text.contains(QLatin1String("<testsuite name=\"missing\"")), qPrintable(text));
    QCOMPARE(text.count(QLatin1String("<failure")), 1);

    const QString harPath = dir.filePath(QStringLiteral("run.har"));
    QVERIFY(panel->exportTo(harPath));
    QFile har(harPath);
    QVERIFY(har.open(QIODevice::ReadOnly));
    const QJsonObject log = QJsonDocument::fromJson(har.readAll()).object().value(QStringLiteral("log")).toObject();
    QCOMPARE(log.value(QStringLiteral("entries")).toArray().size(), 4);
}

void TestCollectionRunPanel::failedOnly_showsTheFailedRequestWithWhatFailed()
{
    QVERIFY(runToEnd());
    CollectionRunPanel *panel = m_controller->panel();
    const QAbstractItemModel *shown = panel->view()->model();
    QCOMPARE(shown->rowCount(), 2);
    panel->failedOnlyBox()->click();
    QCOMPARE(shown->rowCount(), 1);
    QCOMPARE(shown->index(0, 0).data().toString(), QStringLiteral("missing"));
    QCOMPARE(shown->rowCount(shown->index(0, 0)), 1);
    panel->setFailedOnly(false);
    QCOMPARE(shown->rowCount(), 2);
    QVERIFY(!panel->failedOnlyBox()->isChecked());
}

void TestCollectionRunPanel::verdict_isAWordWithItsColour()
{
    QVERIFY(runToEnd());
    CollectionRunPanel *panel = m_controller->panel();
    m_window->resize(1000, 480);
    panel->resize(1000, 480);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    // A picture for people to look at, when asked for.
    if (const QString path = qEnvironmentVariable("RETRYLAB_RUNPANEL_PICTURE"); !path.isEmpty())
        QVERIFY(m_window->grab().save(path));
    QTreeView *view = panel->view();
    // A selected row tints its swatch; the colours are those of rows not selected.
    view->setCurrentIndex(view->model()->index(0, 0, view->model()->index(1, 0)));
    const QImage picture = view->viewport()->grab().toImage();
    const qreal ratio = picture.devicePixelRatio();
    const auto holds = [&](const QModelIndex &index, const QColor &wanted) {
        const QRect area = view->visualRect(index);
        for (int y = area.top(); y <= area.bottom(); ++y) {
            for (int x = area.left(); x <= area.right(); ++x) {
                if (picture.pixelColor(QPoint(int(x * ratio), int(y * ratio))) == wanted)
                    return true;
            }
        }
        return false;
    };
    const QAbstractItemModel *shown = view->model();
    const QColor retried = Ui::outcomeColor(Core::AttemptOutcome::Retried);
    const QColor failed = Ui::outcomeColor(Core::AttemptOutcome::Failed);
    QVERIFY(holds(shown->index(0, CollectionRunModel::VerdictColumn), retried));
    QVERIFY(!holds(shown->index(0, CollectionRunModel::VerdictColumn), failed));
    QVERIFY(holds(shown->index(1, CollectionRunModel::VerdictColumn), failed));
}

void TestCollectionRunPanel::sidebar_runCollection_runsTheSavedCollectionInTheEnvironment()
{
    QTemporaryDir root;
    QVERIFY(root.isValid());
    const Core::CollectionStore store(root.path());
    Core::Environment local;
    local.name = QStringLiteral("Local");
    local.variables = {{QStringLiteral("base"), m_server.baseUrl().toString(), false}};
    QVERIFY(store.saveEnvironments({local}, QStringLiteral("Local")));
    Ui::CollectionSidebar sidebar(root.path());
    QCOMPARE(sidebar.activeEnvironment(), QStringLiteral("Local"));

    // Made in the sidebar, as a person would.
    Ui::CollectionModel *model = sidebar.model();
    const QModelIndex collection = model->addCollection(QStringLiteral("Saved"));
    Core::CollectionItem folder = Core::CollectionItem::makeFolder(QStringLiteral("Flaky"));
    Core::RequestDraft draft;
    draft.urlTemplate = QStringLiteral("{{base}}/fail/1?key={id}");
    folder.items.append(
        Core::CollectionItem::makeRequest(QStringLiteral("once"), draft, Core::SavedPolicy::from(panelRetries(3))));
    model->addItem(collection, folder);
    Core::RequestDraft other;
    other.urlTemplate = QStringLiteral("{server}/status/204");
    model->addItem(collection,
        Core::CollectionItem::makeRequest(QStringLiteral("plain"), other, Core::SavedPolicy::from(panelRetries(3))));
    QCOMPARE(model->rowCount(collection), 2);

    QList<QString> asked;
    Core::CollectionRunOptions proposedSeen;
    sidebar.setRunOptionsAsker([&](const QString &what, const Core::CollectionRunOptions &proposed) {
        asked.append(what);
        proposedSeen = proposed;
        Core::CollectionRunOptions chosen = proposed;
        chosen.iterations = 2;
        return std::optional<Core::CollectionRunOptions>(chosen);
    });
    m_controller.reset();
    CollectionRunController::Parts parts;
    parts.collections = &sidebar;
    parts.panelParent = m_window.get();
    parts.serverUrl = [this] { return m_server.baseUrl(); };
    m_controller = std::make_unique<CollectionRunController>(parts);
    QSignalSpy finished(m_controller->host(), &Ui::CollectionRunHost::finished);

    sidebar.setCurrentIndex(model->index(0, 0, collection));
    QVERIFY(sidebar.runFolderAction()->isEnabled());
    sidebar.runFolderAction()->trigger();
    QCOMPARE(asked, QList<QString>{QStringLiteral("Flaky of Saved")});
    QCOMPARE(proposedSeen.folders, QStringList{QStringLiteral("Flaky")});
    QCOMPARE(proposedSeen.environmentName, QStringLiteral("Local"));
    QCOMPARE(proposedSeen.scopes.environment.value(QStringLiteral("base")).toString(), m_server.baseUrl().toString());
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 30'000);
    const CollectionRunPanel *panel = m_controller->panel();
    QCOMPARE(panel->model()->rowCount(), 2);
    QCOMPARE(panel->model()->index(1, 0).data().toString(), QStringLiteral("Flaky/once (iteration 2)"));
    QCOMPARE(panel->model()->index(0, CollectionRunModel::StatusColumn).data().toString(),
        QStringLiteral("200 after 2 attempts: 503 → 200"));
    QCOMPARE(panel->countsText(), QStringLiteral("0 passed · 0 failed · 2 retried"));

    // The whole collection, from a request's row: Run folder is for folders.
    sidebar.setCurrentIndex(model->index(1, 0, collection));
    QVERIFY(!sidebar.runFolderAction()->isEnabled());
    sidebar.runCollectionAction()->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 2, 30'000);
    QCOMPARE(asked.constLast(), QStringLiteral("Saved"));
    QCOMPARE(panel->model()->rowCount(), 4);
    QCOMPARE(panel->result().collectionName, QStringLiteral("Saved"));
    QVERIFY(panel->result().passed());
}

void TestCollectionRunPanel::stop_endsTheRun_andThePanelSaysSo()
{
    CollectionRunPanel *panel = m_controller->panel();
    Core::RunCollection slow;
    slow.name = QStringLiteral("Slow");
    slow.items = {panelRequest(QStringLiteral("hang"), QStringLiteral("{server}/delay/60000"), 200),
        panelRequest(QStringLiteral("never"), QStringLiteral("{server}/status/200"), 200)};
    QSignalSpy finished(m_controller->host(), &Ui::CollectionRunHost::finished);
    QVERIFY(m_controller->run(slow, {}));
    // A second run is refused while this one goes on.
    QVERIFY(!m_controller->run(slow, {}));
    QTRY_COMPARE_WITH_TIMEOUT(panel->model()->rowCount(), 1, 10'000);
    QCOMPARE(panel->model()->index(0, CollectionRunModel::VerdictColumn).data().toString(), QStringLiteral("running"));
    panel->stopAction()->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 10'000);
    QCOMPARE(panel->model()->rowCount(), 1);
    QCOMPARE(panel->progressText(), QStringLiteral("1/2"));
    QVERIFY(!panel->isRunning());
    QVERIFY(panel->findChild<QLabel *>(QStringLiteral("collectionRunNote"))->text().contains(QLatin1String("stopped")));
}

QTEST_MAIN(TestCollectionRunPanel)
#include "tst_collectionrunpanel.moc"
