#include "core/observe/observationplan.h"
#include "core/policy/backoffpolicy.h"
#include "core/util/englishplurals.h"
#include "tests/ui/windowparts.h"
#include "ui/mainwindow.h"
#include "ui/observe/clientlistmodel.h"
#include "ui/observe/clientsview.h"
#include "ui/observe/verdictpanel.h"
#include "ui/policy/policypanel.h"
#include "ui/run/timelineview.h"
#include "ui/session/hosting/embeddedserver.h"
#include "ui/session/hosting/observation.h"
#include "ui/session/run/runsession.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace RetryLab;

/// The Clients tab in the real window, watching requests the suite sends to the
/// embedded server through a real QNetworkAccessManager.
class TestClientsView : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<Ui::MainWindow> m_window;
    QNetworkAccessManager *m_manager = nullptr;

    Ui::ClientsView *view() const { return clientsViewOf(*m_window); }

    int get(const QString &path, const QByteArray &agent = "shop-app/3.1")
    {
        QNetworkRequest request(m_window->server()->baseUrl().resolved(QUrl(path)));
        request.setHeader(QNetworkRequest::UserAgentHeader, agent);
        QNetworkReply *reply = m_manager->get(request);
        QSignalSpy finished(reply, &QNetworkReply::finished);
        if (!reply->isFinished() && !finished.wait(10'000))
            return -1;
        reply->deleteLater();
        return reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    }

private Q_SLOTS:
    void initTestCase() { Core::EnglishPlurals::install(); }

    void init()
    {
        Ui::MainWindow::Options options;
        options.dataDirectory = m_dir.filePath(QStringLiteral("data"));
        m_window = std::make_unique<Ui::MainWindow>(options);
        QVERIFY(m_window->server()->isRunning());
        m_manager = new QNetworkAccessManager(m_window.get());
    }

    void cleanup() { m_window.reset(); }

    void offUntilAskedFor()
    {
        QVERIFY(!view()->observeToggle()->isChecked());
        QVERIFY(!observationOf(*m_window)->isActive());
        // The server answers unknown paths as it always did.
        QCOMPARE(get(QStringLiteral("/observe/items/1")), 404);
        view()->refresh();
        QCOMPARE(view()->clientModel()->rowCount(), 0);
        QVERIFY(view()->status()->text().contains(QStringLiteral("Not observing")));
    }

    void clientsAppearWithLanesAndVerdicts()
    {
        view()->observeToggle()->setChecked(true);
        QVERIFY(observationOf(*m_window)->isActive());
        // The default plan: 503 three times per logical request, then 200.
        QList<int> statuses;
        for (int i = 0; i < 4; ++i)
            statuses.append(get(QStringLiteral("/observe/items/1")));
        QCOMPARE(statuses, (QList<int>{503, 503, 503, 200}));
        QCOMPARE(get(QStringLiteral("/observe/items/2"), "batch-job/1"), 503);

        QTRY_COMPARE(view()->clientModel()->rowCount(), 2);
        const QString shop = QStringLiteral("shop-app/3.1 @ 127.0.0.1");
        QCOMPARE(view()->clientModel()->clientId(0), shop);
        QCOMPARE(view()->clientModel()->data(view()->clientModel()->index(0, Ui::ClientListModel::LogicalRequests)), 1);
        QCOMPARE(view()->clientModel()->data(view()->clientModel()->index(0, Ui::ClientListModel::Attempts)), 4);
        // Lanes on the tab's own timeline: one per logical request, one row per answered attempt.
        Ui::RunSession *session = observationOf(*m_window)->session();
        QTRY_COMPARE(session->laneCount(), 2);
        QTRY_COMPARE(session->finishedCount(), 4); // the 503 of batch-job waits: retried or not?
        QCOMPARE(m_window->findChild<Ui::TimelineView *>(QStringLiteral("observedTimeline"))->session(), session);

        view()->selectClient(shop);
        view()->refresh();
        QCOMPARE(view()->selectedClient(), shop);
        QTableWidget *verdicts = view()->verdictPanel()->verdictTable();
        QCOMPARE(verdicts->rowCount(), 7);
        QVERIFY(verdicts->item(6, 1)->text().contains(QStringLiteral("not observable")));
        QVERIFY(view()->verdictPanel()->policyTable()->rowCount() >= 7);
        QVERIFY(view()->verdictPanel()->makePolicyButton()->isEnabled());
        QVERIFY2(view()->status()->text().contains(QStringLiteral("2 client")), qPrintable(view()->status()->text()));

        // Counted right in the tooltips: "1 attempt", not "1 attempts".
        const QModelIndex batch = view()->clientModel()->index(1, Ui::ClientListModel::Name);
        QCOMPARE(view()->clientModel()->clientId(1), QStringLiteral("batch-job/1 @ 127.0.0.1"));
        const QString tip = batch.data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QLatin1String("1 logical request, 1 attempt kept")), qPrintable(tip));
        const QString shopTip = view()->clientModel()->index(0, 0).data(Qt::ToolTipRole).toString();
        QVERIFY2(shopTip.contains(QLatin1String("1 logical request, 4 attempts kept")), qPrintable(shopTip));
    }

    void renamingKeepsTheClient()
    {
        view()->observeToggle()->setChecked(true);
        QCOMPARE(get(QStringLiteral("/observe/a")), 503);
        QTRY_COMPARE(view()->clientModel()->rowCount(), 1);
        QVERIFY(view()->clientModel()->setData(
            view()->clientModel()->index(0, Ui::ClientListModel::Name), QStringLiteral("Shop front end")));
        QTRY_COMPARE(observationOf(*m_window)->clients().constFirst().name, QStringLiteral("Shop front end"));
        view()->refresh();
        QCOMPARE(view()->clientModel()->data(view()->clientModel()->index(0, Ui::ClientListModel::Name)).toString(),
            QStringLiteral("Shop front end"));
    }

    void thePlanDecidesWhatIsServed()
    {
        view()->observeToggle()->setChecked(true);
        QComboBox *plans = view()->planCombo();
        const int always = plans->findData(QStringLiteral("always-503"));
        QVERIFY(always >= 0);
        plans->setCurrentIndex(always);
        for (int i = 0; i < 5; ++i)
            QCOMPARE(get(QStringLiteral("/observe/b")), 503);
        plans->setCurrentIndex(plans->findData(QStringLiteral("pass")));
        QCOMPARE(get(QStringLiteral("/observe/c")), 200);
        // The endpoints keep answering by their path.
        QCOMPARE(get(QStringLiteral("/status/418")), 418);
    }

    void clearEmptiesEverything()
    {
        view()->observeToggle()->setChecked(true);
        QCOMPARE(get(QStringLiteral("/observe/d")), 503);
        QTRY_COMPARE(view()->clientModel()->rowCount(), 1);
        view()->findChild<QPushButton *>(QStringLiteral("clearObservation"))->click();
        QCOMPARE(view()->clientModel()->rowCount(), 0);
        QCOMPARE(observationOf(*m_window)->session()->laneCount(), 0);
        QVERIFY(observationOf(*m_window)->clients().isEmpty());
    }

    void makeAPolicyLikeThisClient()
    {
        view()->observeToggle()->setChecked(true);
        for (int r = 0; r < 3; ++r) {
            for (int i = 0; i < 4; ++i)
                get(QStringLiteral("/observe/p/%1").arg(r));
        }
        QTRY_COMPARE(view()->clientModel()->rowCount(), 1);
        view()->refresh();
        QVERIFY(view()->verdictPanel()->makePolicyButton()->isEnabled());
        policyDockOf(*m_window)->hide();
        view()->verdictPanel()->makePolicyButton()->click();
        const Core::BackoffPolicy policy = policyPanelOf(*m_window)->policy();
        QVERIFY2(policy.name.startsWith(QStringLiteral("Like shop-app/3.1")), qPrintable(policy.name));
        QVERIFY(Core::isUsable(policy));
        QVERIFY(!policyDockOf(*m_window)->isHidden());
    }

    void stoppingTheServerStopsObserving()
    {
        view()->observeToggle()->setChecked(true);
        QVERIFY(observationOf(*m_window)->isActive());
        QSignalSpy active(observationOf(*m_window), &Ui::Observation::activeChanged);
        m_window->server()->stop();
        QCOMPARE(active.count(), 1);
        QVERIFY(!observationOf(*m_window)->isActive());
        QVERIFY(m_window->server()->start());
        QVERIFY(observationOf(*m_window)->isActive());
        QCOMPARE(get(QStringLiteral("/observe/e")), 503);
    }
};

QTEST_MAIN(TestClientsView)
#include "tst_clientsview.moc"
