#include "core/faultserver/faultserver.h"
#include "tests/ui/windowparts.h"
#include "ui/mainwindow.h"
#include "ui/proxy/faultrulesmodel.h"
#include "ui/proxy/proxyview.h"
#include "ui/run/timelineview.h"
#include "ui/server/serverview.h"
#include "ui/session/hosting/embeddedserver.h"
#include "ui/session/hosting/proxyinstance.h"
#include "ui/session/hosting/replayinstance.h"
#include "ui/session/run/runsession.h"
#include "ui/session/settings/settings.h"
#include "ui/widgets/serverlogmodel.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

using namespace RetryLab;

/// The Proxy tab in the real window: a proxy in front of a fault server the
/// suite runs, requests through it from a real QNetworkAccessManager, its rules
/// edited and switched in the tab and by its control port.
class TestProxyView : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<Ui::MainWindow> m_window;
    std::unique_ptr<Core::FaultServer> m_upstream;
    QNetworkAccessManager *m_manager = nullptr;

    Ui::ProxyView *view() const { return proxyViewOf(*m_window); }

    int send(const QUrl &url, const QByteArray &method = "GET")
    {
        QNetworkRequest request(url);
        request.setHeader(QNetworkRequest::UserAgentHeader, QByteArrayLiteral("shop-app/3.1"));
        if (method == "POST") // the control port takes JSON only
            request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        QNetworkReply *reply = m_manager->sendCustomRequest(request, method);
        QSignalSpy finished(reply, &QNetworkReply::finished);
        if (!reply->isFinished() && !finished.wait(10'000))
            return -1;
        reply->deleteLater();
        return reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    }

    QUrl through(const QString &path) const { return view()->currentProxy()->listenUrl().resolved(QUrl(path)); }

    void editRule(int row, const QString &line)
    {
        Ui::FaultRulesModel *model = view()->rulesModel();
        QVERIFY(model->setData(model->index(row, Ui::FaultRulesModel::Rule), line));
    }

    /// Adds a proxy in front of the fault server by the tab's buttons and starts it.
    void startProxy()
    {
        auto *add = view()->findChild<QPushButton *>(QStringLiteral("proxyAdd"));
        QVERIFY(add);
        const qsizetype before = view()->instances().size();
        add->click();
        QCOMPARE(view()->instances().size(), before + 1);
        QVERIFY(view()->currentProxy());
        view()->upstreamEdit()->setText(m_upstream->baseUrl().toString());
        QMetaObject::invokeMethod(view()->upstreamEdit(), "editingFinished");
        view()->startButton()->click();
        QVERIFY2(view()->currentProxy()->isRunning(), qPrintable(view()->status()->text()));
        QVERIFY2(view()->status()->text().contains(view()->currentProxy()->listenUrl().toString()),
            qPrintable(view()->status()->text()));
        QVERIFY(view()->status()->text().contains(QStringLiteral("/_control/faults")));
    }

private Q_SLOTS:
    void initTestCase()
    {
        // Settings of its own, removed around every test.
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("RetryLab"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_proxyview"));
        QVERIFY(QSettings().fileName().contains(QLatin1String("qttest")));
    }

    void init()
    {
        {
            QSettings settings; // cleared through Qt's cache of the file too
            settings.clear();
            settings.sync();
        }
        QFile::remove(QSettings().fileName());
        m_upstream = std::make_unique<Core::FaultServer>();
        QVERIFY(m_upstream->listen());
        Ui::MainWindow::Options options;
        options.dataDirectory = m_dir.filePath(QString::fromLatin1(QTest::currentTestFunction()));
        m_window = std::make_unique<Ui::MainWindow>(options);
        m_manager = new QNetworkAccessManager(m_window.get());
    }

    void cleanup()
    {
        m_window.reset();
        m_upstream.reset();
        QFile::remove(QSettings().fileName());
    }

    void at1366x768_resultsKeepMostOfTheTab_andTheUrlCopies()
    {
        // The window with its docks at 1366×768: the tab is short.
        m_window->resize(1366, 768);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        m_window->showTab(Ui::MainWindow::Tab::Proxy);
        startProxy();
        auto *results = view()->findChild<QTabWidget *>(QStringLiteral("proxyResults"));
        QVERIFY(results);
        QTRY_VERIFY(results->isVisible());
        QVERIFY2(results->height() * 5 >= view()->height() * 2,
            qPrintable(
                QStringLiteral("log, lanes and verdicts %1 px of %2").arg(results->height()).arg(view()->height())));
        // "Point the client at ..." whole, not cut in half.
        QLabel *status = view()->status();
        QTRY_VERIFY2(status->height() >= status->heightForWidth(status->width()),
            qPrintable(QStringLiteral("%1 px high, needs %2 at %3 px")
                           .arg(status->height())
                           .arg(status->heightForWidth(status->width()))
                           .arg(status->width())));
        // In sight without scrolling the settings, not half under the splitter.
        auto *settings = view()->findChild<QScrollArea *>(QStringLiteral("proxySettingsScroll"));
        QVERIFY(settings);
        const QRect inViewport(status->mapTo(settings->viewport(), QPoint(0, 0)), status->size());
        QVERIFY2(inViewport.top() >= 0 && inViewport.bottom() < settings->viewport()->height(),
            qPrintable(QStringLiteral("status at %1,%2 %3x%4 in %5x%6")
                           .arg(inViewport.left())
                           .arg(inViewport.top())
                           .arg(inViewport.width())
                           .arg(inViewport.height())
                           .arg(settings->viewport()->width())
                           .arg(settings->viewport()->height())));
        auto *copy = view()->findChild<QPushButton *>(QStringLiteral("copyProxyUrl"));
        QVERIFY(copy);
        QVERIFY(copy->isEnabled());
        QApplication::clipboard()->clear();
        copy->click();
        QCOMPARE(QApplication::clipboard()->text(), view()->currentProxy()->listenUrl().toString());
    }

    void forwardsLogsAndShowsLanes()
    {
        startProxy();
        // The starting rule is off: everything goes through.
        QCOMPARE(view()->rulesModel()->rowCount(), 1);
        QCOMPARE(
            view()->rulesModel()->data(view()->rulesModel()->index(0, Ui::FaultRulesModel::On), Qt::CheckStateRole),
            QVariant(Qt::Unchecked));
        QCOMPARE(send(through(QStringLiteral("/status/200"))), 200);
        QTRY_COMPARE(view()->logModel()->receivedCount(), quint64(1));
        view()->logModel()->flush();
        QCOMPARE(view()->logModel()->entry(0).action, QStringLiteral("forwarded"));
        QCOMPARE(m_upstream->log().size(), 1);

        // Switched on by its check box: the next request gets the fault, the upstream never sees it.
        Ui::FaultRulesModel *rules = view()->rulesModel();
        rules->setData(rules->index(0, Ui::FaultRulesModel::On), Qt::Checked, Qt::CheckStateRole);
        editRule(0, QStringLiteral("status=503 retry-after=0"));
        QCOMPARE(send(through(QStringLiteral("/status/200"))), 503);
        QCOMPARE(send(through(QStringLiteral("/status/200"))), 503);
        QCOMPARE(m_upstream->log().size(), 1);
        view()->refresh();
        QCOMPARE(rules->data(rules->index(0, Ui::FaultRulesModel::Fired)).toString(), QStringLiteral("2"));

        // The lanes: the client's logical request, its attempts as rows.
        Ui::RunSession *session = view()->currentProxy()->session();
        QTRY_VERIFY(session->laneCount() >= 1 && session->attemptRowCount() >= 2);
        auto *timeline = m_window->findChild<Ui::TimelineView *>(QStringLiteral("proxyTimeline"));
        QVERIFY(timeline);
        QCOMPARE(timeline->session(), session);
        // The clients: grouped and inferred.
        view()->refresh();
        QTRY_VERIFY(view()->clientsText()->toPlainText().contains(QStringLiteral("shop-app/3.1")));
    }

    // Record answers: the folder fills as requests pass; the Server tab replays it offline.
    void recordsAnswersThatTheServerTabReplays()
    {
        auto *add = view()->findChild<QPushButton *>(QStringLiteral("proxyAdd"));
        add->click();
        view()->upstreamEdit()->setText(m_upstream->baseUrl().toString());
        QMetaObject::invokeMethod(view()->upstreamEdit(), "editingFinished");
        auto *record = view()->findChild<QLineEdit *>(QStringLiteral("proxyRecord"));
        QVERIFY(record);
        // A folder that cannot be made: the proxy does not start, and says why.
        QFile blocker(m_dir.filePath(QStringLiteral("blocker")));
        QVERIFY(blocker.open(QIODevice::WriteOnly));
        blocker.close();
        record->setText(blocker.fileName() + QStringLiteral("/rec"));
        QMetaObject::invokeMethod(record, "editingFinished");
        view()->startButton()->click();
        QVERIFY(!view()->currentProxy()->isRunning());
        QVERIFY2(view()->status()->text().contains(QStringLiteral("recording: cannot make the recording folder")),
            qPrintable(view()->status()->text()));

        const QString folder = m_dir.filePath(QStringLiteral("recorded"));
        record->setText(folder);
        QMetaObject::invokeMethod(record, "editingFinished");
        QCOMPARE(view()->currentProxy()->settings().recordDirectory, folder);
        view()->startButton()->click();
        QVERIFY2(view()->currentProxy()->isRunning(), qPrintable(view()->status()->text()));
        QCOMPARE(send(through(QStringLiteral("/status/207"))), 207);
        QTRY_COMPARE(view()->currentProxy()->recordedCount(), 1);
        view()->refresh();
        QVERIFY2(view()->status()->text().contains(QStringLiteral("Recording answers into"))
                && view()->status()->text().contains(QStringLiteral(": 1 so far")),
            qPrintable(view()->status()->text()));
        view()->startButton()->click(); // stopped: the recording is complete on disk
        m_upstream->close();

        auto *server = m_window->findChild<Ui::ServerView *>();
        QVERIFY(server);
        QVERIFY(!server->startReplay(m_dir.filePath(QStringLiteral("nothing-here"))));
        auto *replayStatus = server->findChild<QLabel *>(QStringLiteral("serverReplayStatus"));
        QVERIFY(replayStatus);
        QVERIFY2(replayStatus->text().startsWith(QStringLiteral("Not replayed:")), qPrintable(replayStatus->text()));
        QVERIFY(server->startReplay(folder));
        QVERIFY2(
            replayStatus->text().contains(QStringLiteral("(1 recorded answers)")), qPrintable(replayStatus->text()));
        const QUrl replayed = server->replay()->baseUrl().resolved(QUrl(QStringLiteral("/status/207")));
        QCOMPARE(send(replayed), 207);
        QCOMPARE(send(server->replay()->baseUrl().resolved(QUrl(QStringLiteral("/status/208")))), 404);
        QTRY_VERIFY(server->logModel()->receivedCount() >= 2);
        server->logModel()->flush();
        QStringList actions;
        for (int row = 0; row < server->logModel()->rowCount(); ++row)
            actions << server->logModel()->entry(row).action;
        QVERIFY2(actions.contains(QStringLiteral("replayed")) && actions.contains(QStringLiteral("not-recorded")),
            qPrintable(actions.join(QLatin1Char(','))));
        auto *button = server->findChild<QToolButton *>(QStringLiteral("serverReplay"));
        QCOMPARE(button->text(), QStringLiteral("Stop replay"));
        button->click();
        QVERIFY(!server->replay()->isRunning());
        QVERIFY(replayStatus->isHidden());
    }

    // The same tab as a forward proxy: clients reach any server through it, grouped into lanes.
    void aForwardProxyServesClientsThatPointAtIt()
    {
        view()->findChild<QPushButton *>(QStringLiteral("proxyAdd"))->click();
        auto *forward = view()->findChild<QCheckBox *>(QStringLiteral("proxyForward"));
        QVERIFY(forward);
        forward->setChecked(true);
        QVERIFY(view()->currentProxy()->settings().forward);
        QVERIFY(!view()->upstreamEdit()->isEnabled());
        view()->startButton()->click();
        QVERIFY2(view()->currentProxy()->isRunning(), qPrintable(view()->status()->text()));
        QVERIFY2(
            view()->status()->text().contains(QStringLiteral("HTTP_PROXY=")), qPrintable(view()->status()->text()));
        m_manager->setProxy(QNetworkProxy(QNetworkProxy::HttpProxy, QStringLiteral("127.0.0.1"),
            quint16(view()->currentProxy()->listenUrl().port())));
        QCOMPARE(send(m_upstream->baseUrl().resolved(QUrl(QStringLiteral("/status/200")))), 200);
        QTRY_COMPARE(view()->logModel()->receivedCount(), quint64(1));
        view()->logModel()->flush();
        QCOMPARE(view()->logModel()->entry(0).target,
            m_upstream->baseUrl().resolved(QUrl(QStringLiteral("/status/200"))).toString());
        QTRY_VERIFY(view()->currentProxy()->session()->laneCount() >= 1);
        m_manager->setProxy(QNetworkProxy::NoProxy);
    }

    void aLineThatDoesNotReadKeepsTheRuleAndSaysWhy()
    {
        startProxy();
        editRule(0, QStringLiteral("status=418"));
        Ui::FaultRulesModel *rules = view()->rulesModel();
        rules->setData(rules->index(0, Ui::FaultRulesModel::On), Qt::Checked, Qt::CheckStateRole);
        QCOMPARE(send(through(QStringLiteral("/status/200"))), 418);
        editRule(0, QStringLiteral("status=418 p=7"));
        QVERIFY2(view()->rulesProblem()->text().contains(QStringLiteral("p: must be a probability")),
            qPrintable(view()->rulesProblem()->text()));
        // What was typed stays, shown as not applied; the rule before it still holds.
        QCOMPARE(rules->data(rules->index(0, Ui::FaultRulesModel::Rule)).toString(), QStringLiteral("status=418 p=7"));
        QCOMPARE(send(through(QStringLiteral("/status/200"))), 418);
        editRule(0, QStringLiteral("status=429"));
        QVERIFY(view()->rulesProblem()->text().isEmpty());
        QCOMPARE(send(through(QStringLiteral("/status/200"))), 429);
    }

    void theControlPortSwitchesWhatTheTabShows()
    {
        startProxy();
        Ui::FaultRulesModel *rules = view()->rulesModel();
        rules->setData(rules->index(0, Ui::FaultRulesModel::On), Qt::Checked, Qt::CheckStateRole);
        editRule(0, QStringLiteral("status=503"));
        QCOMPARE(send(through(QStringLiteral("/status/200"))), 503);
        QUrl off = view()->currentProxy()->controlUrl();
        off.setQuery(QStringLiteral("enabled=false"));
        QCOMPARE(send(off, "POST"), 200);
        QTRY_COMPARE(
            rules->data(rules->index(0, Ui::FaultRulesModel::On), Qt::CheckStateRole), QVariant(Qt::Unchecked));
        QCOMPARE(send(through(QStringLiteral("/status/200"))), 200);
        // "All on" in the tab: the next request gets the fault again.
        view()->findChild<QPushButton *>(QStringLiteral("proxyAllOn"))->click();
        QCOMPARE(send(through(QStringLiteral("/status/200"))), 503);
    }

    void proxiesAndRulesSurviveARestart()
    {
        startProxy();
        editRule(0, QStringLiteral("latency=50-150 at=response path=/api/*"));
        const QList<Ui::ProxySettings> saved = view()->proxies();
        QVERIFY(m_window->close());
        m_window.reset();
        Ui::MainWindow::Options options;
        options.dataDirectory = m_dir.filePath(QString::fromLatin1(QTest::currentTestFunction()));
        m_window = std::make_unique<Ui::MainWindow>(options);
        QCOMPARE(view()->proxies().size(), 1);
        QVERIFY(view()->proxies() == saved);
        QCOMPARE(view()->rulesModel()->rules().first().kind, Core::FaultRule::Kind::Latency);
        QVERIFY(!view()->currentProxy()->isRunning()); // a proxy starts when asked
    }

    void newProxy_forwardsToTheAppsOwnServer()
    {
        view()->findChild<QPushButton *>(QStringLiteral("proxyAdd"))->click();
        QCOMPARE(view()->upstreamEdit()->text(), QStringLiteral("{server}"));
        view()->startButton()->click();
        QVERIFY2(view()->currentProxy()->isRunning(), qPrintable(view()->status()->text()));
        const QString server = m_window->server()->baseUrl().toString();
        QVERIFY2(view()->status()->text().contains(server), qPrintable(view()->status()->text()));
        const qsizetype before = serverViewOf(*m_window)->logModel()->rowCount();
        QCOMPARE(send(through(QStringLiteral("/status/200"))), 200);
        QTRY_VERIFY(serverViewOf(*m_window)->logModel()->rowCount() > before);
        // A path after {server} is kept in front of every request's path.
        view()->startButton()->click();
        view()->upstreamEdit()->setText(QStringLiteral("{server}/status"));
        QMetaObject::invokeMethod(view()->upstreamEdit(), "editingFinished");
        view()->startButton()->click();
        QVERIFY2(view()->currentProxy()->isRunning(), qPrintable(view()->status()->text()));
        QCOMPARE(send(through(QStringLiteral("/418"))), 418);
    }

    void upstream_notAUrl_saysWhatToType()
    {
        view()->findChild<QPushButton *>(QStringLiteral("proxyAdd"))->click();
        for (const QString &typed : {QString(), QStringLiteral("{server"), QStringLiteral("ftp://files.example"),
                 QStringLiteral("server:80"), QStringLiteral("{server}api")}) {
            view()->upstreamEdit()->setText(typed);
            QMetaObject::invokeMethod(view()->upstreamEdit(), "editingFinished");
            view()->startButton()->click();
            QVERIFY2(!view()->currentProxy()->isRunning(), qPrintable(typed));
            const QString status = view()->status()->text();
            QVERIFY2(status.startsWith(QLatin1String("Cannot start:")), qPrintable(status));
            QVERIFY2(!status.contains(QLatin1String("\"\"")), qPrintable(status));
            QVERIFY2(status.contains(QLatin1String("{server}")), qPrintable(status));
        }
    }

    void restart_aSavedUpstreamThatDied_followsTheLiveServer()
    {
        view()->findChild<QPushButton *>(QStringLiteral("proxyAdd"))->click();
        const QUrl dead = m_upstream->baseUrl();
        view()->upstreamEdit()->setText(dead.resolved(QUrl(QStringLiteral("/status"))).toString());
        QMetaObject::invokeMethod(view()->upstreamEdit(), "editingFinished");
        QVERIFY(!view()->proxies().constFirst().upstreamIsServer);
        QVERIFY(m_window->close());
        m_window.reset();
        m_upstream.reset(); // the server of the earlier run is gone, its port with it

        Ui::MainWindow::Options options;
        options.dataDirectory = m_dir.filePath(QString::fromLatin1(QTest::currentTestFunction()));
        m_window = std::make_unique<Ui::MainWindow>(options);
        m_manager = new QNetworkAccessManager(m_window.get());
        QCOMPARE(view()->proxies().size(), 1);
        QVERIFY(view()->proxies().constFirst().upstreamIsServer);
        QCOMPARE(view()->upstreamEdit()->text(), QStringLiteral("{server}/status"));
        QVERIFY2(view()->status()->text().contains(dead.toString(QUrl::StripTrailingSlash)),
            qPrintable(view()->status()->text()));
        view()->startButton()->click();
        QVERIFY2(view()->currentProxy()->isRunning(), qPrintable(view()->status()->text()));
        QCOMPARE(send(through(QStringLiteral("/201"))), 201);
    }

    void settings_aDamagedProxyIsLeftOutAndNamed()
    {
        const QByteArray json = "{\"name\":\"x\",\"upstream\":\"http://127.0.0.1:1\",\"faults\":{\"format\":"
                                "\"retrylab-faults\",\"version\":1,\"rules\":[{\"name\":\"r\",\"status\":1000}]}}";
        const Core::Result<Ui::ProxySettings> bad = Ui::ProxySettings::fromJson(QJsonDocument::fromJson(json).object());
        QVERIFY(!bad.ok());
        QVERIFY2(bad.error().startsWith(QStringLiteral("faults.rules[0] (\"r\").status")), qPrintable(bad.error()));
    }
};

QTEST_MAIN(TestProxyView)
#include "tst_proxyview.moc"
