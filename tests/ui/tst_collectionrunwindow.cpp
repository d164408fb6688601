// A collection run from the window's Collections dock: the results dock opens,
// the requests appear as they end, and a request's attempts open in the timeline.
#include "windowparts.h"

#include "core/collections/collection.h"
#include "core/policy/presets.h"
#include "ui/collectionruncontroller.h"
#include "ui/collections/collectionmodel.h"
#include "ui/collections/collectionrunmodel.h"
#include "ui/collections/collectionrunpanel.h"
#include "ui/collections/collectionsidebar.h"
#include "ui/mainwindow.h"
#include "ui/openedrun.h"
#include "ui/request/requestcomposer.h"
#include "ui/session/request/collectionrunhost.h"

#include <QDockWidget>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace RetryLab;
using namespace RetryLab::Ui;

namespace {

Core::BackoffPolicy quick(int attempts)
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

} // namespace

class TestCollectionRunWindow : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("RetryLab"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_collectionrunwindow"));
    }

    void runFromTheDock_showsResults_andOpensAttemptsInTheTimeline()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        MainWindow::Options options;
        options.dataDirectory = dir.path();
        options.systemTray = false;
        MainWindow window(options);
        window.resize(1024, 640);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));

        auto *dock = windowPart<QDockWidget>(window, "collectionRunDock");
        QVERIFY(!dock->isVisible());
        auto *sidebar = windowPart<CollectionSidebar>(window, "collections");
        CollectionModel *model = sidebar->model();
        const QModelIndex collection = model->addCollection(QStringLiteral("Checkout"));
        Core::RequestDraft flaky;
        flaky.urlTemplate = QStringLiteral("{server}/fail/2?key={id}");
        model->addItem(collection,
            Core::CollectionItem::makeRequest(QStringLiteral("pay"), flaky, Core::SavedPolicy::from(quick(4))));
        Core::RequestDraft plain;
        plain.urlTemplate = QStringLiteral("{server}/status/204");
        model->addItem(collection,
            Core::CollectionItem::makeRequest(QStringLiteral("receipt"), plain, Core::SavedPolicy::from(quick(4))));
        Core::RequestDraft create;
        create.method = QStringLiteral("POST");
        create.urlTemplate = QStringLiteral("{server}/status/503");
        create.body = QStringLiteral("{\"request\": \"{id}\"}");
        model->addItem(collection,
            Core::CollectionItem::makeRequest(QStringLiteral("create"), create,
                Core::SavedPolicy::from(*Core::Presets::find(QStringLiteral("google-cloud-storage")))));
        sidebar->setRunOptionsAsker(
            [](const QString &, const Core::CollectionRunOptions &proposed) { return std::optional(proposed); });
        sidebar->setCurrentIndex(collection);

        auto *controller = windowPart<CollectionRunController>(window, "collectionRuns");
        QSignalSpy finished(controller->host(), &CollectionRunHost::finished);
        QVERIFY(sidebar->runCollectionAction()->isEnabled());
        sidebar->runCollectionAction()->trigger();
        QTRY_VERIFY(dock->isVisible());
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 30'000);

        CollectionRunPanel *panel = controller->panel();
        QVERIFY(dock->isAncestorOf(panel));
        QCOMPARE(panel->model()->rowCount(), 3);
        QCOMPARE(panel->model()->index(0, CollectionRunModel::StatusColumn).data().toString(),
            QStringLiteral("200 after 3 attempts: 503 → 503 → 200"));
        QVERIFY(panel->result().passed());

        QVERIFY(panel->selectRequest(0));
        panel->openAttemptsAction()->trigger();
        QCOMPARE(window.currentTab(), MainWindow::Tab::Timeline);
        auto *opened = windowPart<OpenedRun>(window, "openedRun");
        QVERIFY2(opened->title().contains(QStringLiteral("pay")), qPrintable(opened->title()));
    }

    void checks_savedWithTheRequest_andBackInTheComposerWhenOpened()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        MainWindow::Options options;
        options.dataDirectory = dir.path();
        options.systemTray = false;
        MainWindow window(options);
        window.resize(1024, 640);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));

        auto *sidebar = windowPart<CollectionSidebar>(window, "collections");
        const QModelIndex collection = sidebar->model()->addCollection(QStringLiteral("Checked"));
        Core::RequestDraft other;
        other.urlTemplate = QStringLiteral("{server}/status/204");
        const QModelIndex plain = sidebar->model()->addItem(
            collection, Core::CollectionItem::makeRequest(QStringLiteral("plain"), other, Core::SavedPolicy{}));
        auto *composer = windowPart<RequestComposer>(window, "composer");
        RequestChecks checks;
        Core::Assertion created;
        created.statuses = {201};
        created.statusText = QStringLiteral("201");
        checks.assertions = {created};
        Core::ResponseVariables::Rule id;
        id.name = QStringLiteral("orderId");
        id.pointer = QStringLiteral("/id");
        checks.extract = {id};
        composer->setChecks(checks);
        sidebar->setCurrentIndex(collection);
        sidebar->saveAsNewAction()->trigger();
        const Core::Collection saved = sidebar->model()->collection(0);
        const auto withChecks = std::find_if(saved.items.cbegin(), saved.items.cend(),
            [](const Core::CollectionItem &item) { return !item.assertions.isEmpty(); });
        QVERIFY(withChecks != saved.items.cend());
        QCOMPARE(withChecks->extract.size(), 1);

        // Another request clears the tab; the saved one fills it again.
        sidebar->activate(sidebar->model()->indexOfId(plain.data(CollectionModel::IdRole).toString()));
        QVERIFY(composer->checks().assertions.isEmpty());
        sidebar->activate(sidebar->model()->indexOfId(withChecks->id));
        QCOMPARE(composer->checks().assertions.size(), 1);
        QCOMPARE(composer->checks().assertions.at(0).statusText, QStringLiteral("201"));
        QCOMPARE(composer->checks().extract.at(0).name, QStringLiteral("orderId"));
    }
};

QTEST_MAIN(TestCollectionRunWindow)
#include "tst_collectionrunwindow.moc"
