#include "core/faultserver/faultserver.h"
#include "core/observe/observationreport.h"
#include "core/observe/observer.h"

#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QSignalSpy>
#include <QTcpSocket>
#include <QTest>

using namespace RetryLab::Core;

namespace {

struct Answer
{
    int status = 0; ///< 0: no HTTP answer
    QNetworkReply::NetworkError error = QNetworkReply::NoError;
};

} // namespace

class TestObserver : public QObject
{
    Q_OBJECT

private:
    FaultServer *m_server = nullptr;
    Observer *m_observer = nullptr;
    QNetworkAccessManager *m_manager = nullptr;

    Answer send(const QString &path, const QByteArray &userAgent = "tester/1.0", const QByteArray &method = "GET",
        const QByteArray &body = {}, const QList<QPair<QByteArray, QByteArray>> &headers = {})
    {
        QNetworkRequest request(m_server->baseUrl().resolved(QUrl(path)));
        request.setHeader(QNetworkRequest::UserAgentHeader, userAgent);
        request.setTransferTimeout(10'000);
        for (const auto &[name, value] : headers)
            request.setRawHeader(name, value);
        QNetworkReply *reply = m_manager->sendCustomRequest(request, method, body);
        QSignalSpy finished(reply, &QNetworkReply::finished);
        if (!reply->isFinished() && !finished.wait(15'000))
            return {};
        Answer answer;
        answer.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        answer.error = reply->error();
        reply->deleteLater();
        return answer;
    }

private Q_SLOTS:
    void init()
    {
        m_server = new FaultServer(this);
        QVERIFY2(m_server->listen(), qPrintable(m_server->errorString()));
        m_observer = new Observer(this);
        m_observer->attach(m_server);
        m_manager = new QNetworkAccessManager(this);
    }

    void cleanup()
    {
        delete m_manager;
        delete m_observer;
        delete m_server;
    }

    void servesThePlanPerLogicalRequest()
    {
        // 503 three times, then 200, for each logical request as the grouping sees it.
        QCOMPARE(send(QStringLiteral("/items/1")).status, 503);
        QCOMPARE(send(QStringLiteral("/items/1")).status, 503);
        QCOMPARE(send(QStringLiteral("/items/1")).status, 503);
        QCOMPARE(send(QStringLiteral("/items/1")).status, 200);
        QCOMPARE(send(QStringLiteral("/items/2")).status, 503);

        const QList<ObservedClient> clients = m_observer->clients();
        QCOMPARE(clients.size(), 1);
        QCOMPARE(clients.first().userAgent, QStringLiteral("tester/1.0"));
        QCOMPARE(clients.first().address, QStringLiteral("127.0.0.1"));
        const QList<LogicalRequest> requests = m_observer->logicalRequests(clients.first().id);
        QCOMPARE(requests.size(), 2);
        const LogicalRequest &first = requests.first();
        QCOMPARE(first.attempts.size(), 4);
        QCOMPARE(first.closedBy, QStringLiteral("success"));
        QVERIFY(first.succeeded());
        QCOMPARE(first.attempts[0].rule, GroupingRule::NewRequest);
        QCOMPARE(first.attempts[0].planStep, QStringLiteral("return-503"));
        QCOMPARE(first.attempts[3].planStep, QStringLiteral("return-200"));
        for (int i = 1; i < 4; ++i) {
            const ObservedAttempt &a = first.attempts[i];
            QCOMPARE(a.rule, GroupingRule::SameRequest);
            QCOMPARE(a.attemptIndex, i + 1);
            QVERIFY(a.delayMs.has_value());
            QVERIFY(*a.delayMs >= 0.0);
            QVERIFY(a.arrivalMs >= first.attempts[i - 1].endMs);
            QCOMPARE(*a.delayMs, a.arrivalMs - first.attempts[i - 1].endMs);
        }
        QCOMPARE(first.attempts.last().status, 200);
        QVERIFY(first.attempts.first().sequence > 0);
        QCOMPARE(m_observer->totalAttempts(), 5);
        QCOMPARE(m_observer->finishedLogicalRequests(), 1);
    }

    void clientStopsAfterAFailure_closedAsGivenUpWhenTheGapWindowPasses()
    {
        m_observer->setGroupingSettings(AttemptGrouper::Settings{300.0});
        QSignalSpy closed(m_observer, &Observer::logicalRequestClosed);
        QCOMPARE(send(QStringLiteral("/items/7"), "quitter/1.0").status, 503);
        // Within the window the client may still come back: open.
        const auto requests = [this] { return m_observer->allLogicalRequests(); };
        QCOMPARE(requests().size(), 1);
        QVERIFY(requests().first().closedBy.isEmpty());
        // Nobody sends anything more; the window passes and the request closes by itself.
        QTRY_COMPARE_WITH_TIMEOUT(closed.size(), 1, 5'000);
        QCOMPARE(closed.first().at(0).toULongLong(), requests().first().id);
        QCOMPARE(requests().first().closedBy, QStringLiteral("gap"));
        QVERIFY(!requests().first().succeeded());
        QCOMPARE(m_observer->finishedLogicalRequests(), 1);
        // The same request again is a new logical request, served the plan from its start.
        QCOMPARE(send(QStringLiteral("/items/7"), "quitter/1.0").status, 503);
        QCOMPARE(requests().size(), 2);
    }

    void successfulRequest_isNotClosedTwiceByTheGapWindow()
    {
        m_observer->setGroupingSettings(AttemptGrouper::Settings{100.0});
        QSignalSpy closed(m_observer, &Observer::logicalRequestClosed);
        QCOMPARE(send(QStringLiteral("/status/200")).status, 200);
        QTRY_COMPARE(closed.size(), 1);
        QTest::qWait(400);
        QCOMPARE(closed.size(), 1);
        QCOMPARE(m_observer->allLogicalRequests().first().closedBy, QStringLiteral("success"));
    }

    void theEndpointsKeepWorking()
    {
        QCOMPARE(send(QStringLiteral("/status/418")).status, 418);
        QCOMPARE(send(QStringLiteral("/fail/1?key=k")).status, 503);
        QCOMPARE(send(QStringLiteral("/fail/1?key=k")).status, 200);
        const auto requests = m_observer->allLogicalRequests();
        QCOMPARE(requests.size(), 2);
        QVERIFY(requests[0].attempts[0].planStep.isEmpty());
        QCOMPARE(requests[1].attempts.size(), 2);
        // The control endpoints are not observed at all.
        QCOMPARE(send(QStringLiteral("/_control/log")).status, 200);
        QCOMPARE(m_observer->totalAttempts(), 3);
    }

    void scriptedTestsStillDecideFirst()
    {
        const auto id = m_server->createTest({QStringLiteral("return-500")});
        QVERIFY(id);
        QCOMPARE(
            send(QStringLiteral("/items/9"), "tester/1.0", "GET", {}, {{"X-Retry-Test-Id", id->toLatin1()}}).status,
            500);
        QCOMPARE(m_observer->totalAttempts(), 1);
    }

    void clientsAreUserAgentAndAddress()
    {
        m_observer->setPlan(*ObservationPlan::load(QStringLiteral("pass")));
        QCOMPARE(send(QStringLiteral("/a"), "one/1").status, 200);
        QCOMPARE(send(QStringLiteral("/a"), "two/2").status, 200);
        QCOMPARE(send(QStringLiteral("/b"), "one/1").status, 200);
        const auto clients = m_observer->clients();
        QCOMPARE(clients.size(), 2);
        QCOMPARE(clients[0].id, QStringLiteral("one/1 @ 127.0.0.1"));
        QCOMPARE(clients[0].logicalRequests, 2);
        QCOMPARE(clients[1].logicalRequests, 1);

        QSignalSpy changed(m_observer, &Observer::clientChanged);
        QVERIFY(m_observer->renameClient(clients[1].id, QStringLiteral("  billing service ")));
        QCOMPARE(m_observer->client(clients[1].id)->name, QStringLiteral("billing service"));
        QCOMPARE(changed.count(), 1);
        QVERIFY(m_observer->renameClient(clients[1].id, QString()));
        QCOMPARE(m_observer->client(clients[1].id)->name, clients[1].id);
        QVERIFY(!m_observer->renameClient(QStringLiteral("nobody"), QStringLiteral("x")));
    }

    void retryAfterAndFaultsAreRecorded_data()
    {
        QTest::addColumn<QString>("plan");
        QTest::addColumn<QString>("served");
        QTest::addColumn<bool>("connectionFault");
        QTest::addRow("429 with Retry-After") << "429-retry-after-2"
                                              << "429 (Retry-After 2 s)" << false;
        QTest::addRow("reset") << "reset-then-200"
                               << "reset" << true;
        QTest::addRow("empty") << "empty-then-200"
                               << "empty" << true;
        QTest::addRow("404") << "404-then-200"
                             << "404" << false;
    }

    void retryAfterAndFaultsAreRecorded()
    {
        QFETCH(QString, plan);
        QFETCH(QString, served);
        QFETCH(bool, connectionFault);
        m_observer->setPlan(*ObservationPlan::load(plan));
        send(QStringLiteral("/thing"));
        // Qt itself sends a request again once when the connection closes before
        // an answer: the observer sees that as the client's second attempt.
        QTRY_VERIFY(m_observer->totalAttempts() >= 1);
        QTRY_VERIFY(m_observer->allLogicalRequests().constFirst().attempts.constFirst().complete);
        const ObservedAttempt a = m_observer->allLogicalRequests().constFirst().attempts.constFirst();
        QCOMPARE(a.served(), served);
        QCOMPARE(a.connectionFault(), connectionFault);
        QCOMPARE(a.transientFault(), plan != QLatin1String("404-then-200"));
        QCOMPARE(a.permanentFault(), plan == QLatin1String("404-then-200"));
        if (plan == QLatin1String("429-retry-after-2"))
            QCOMPARE(a.retryAfterMs.value_or(-1), 2000.0);
    }

    void randomPlansAreSeeded()
    {
        const auto run = [this](quint64 seed) {
            m_observer->clear();
            m_observer->setPlan(*ObservationPlan::load(QStringLiteral("503-30pct")));
            m_observer->setSeed(seed);
            QList<int> statuses;
            for (int i = 0; i < 30; ++i)
                statuses.append(send(QStringLiteral("/r/%1").arg(i)).status);
            return statuses;
        };
        const QList<int> first = run(7);
        QCOMPARE(run(7), first);
        QVERIFY(first.contains(503));
        QVERIFY(first.contains(200));
        QVERIFY(first.count(503) < 20);
    }

    void memoryIsBounded()
    {
        m_observer->setMaxLogicalRequests(3);
        for (int i = 0; i < 5; ++i)
            send(QStringLiteral("/m/%1").arg(i));
        QCOMPARE(m_observer->allLogicalRequests().size(), 3);
        QCOMPARE(m_observer->droppedLogicalRequests(), 2);
        QCOMPARE(m_observer->allLogicalRequests().constFirst().target, QStringLiteral("/m/2"));
        const ObservedClient client = m_observer->clients().constFirst();
        QCOMPARE(client.logicalRequests, 3);
        QCOMPARE(client.droppedLogicalRequests, 2);
        QCOMPARE(client.attempts, 3);
        // The newest still get their answers recorded.
        send(QStringLiteral("/m/4"));
        QCOMPARE(m_observer->allLogicalRequests().constLast().attempts.size(), 2);
        QVERIFY(m_observer->allLogicalRequests().constLast().attempts.constLast().complete);
    }

    void theClientTableIsBounded()
    {
        // Beyond the table's size the client seen first is forgotten, and counted.
        m_observer->setPlan(*ObservationPlan::load(QStringLiteral("pass")));
        m_observer->setMaxClients(3);
        for (int i = 0; i < 5; ++i)
            QCOMPARE(send(QStringLiteral("/c"), "client/" + QByteArray::number(i)).status, 200);
        const QList<ObservedClient> clients = m_observer->clients();
        QCOMPARE(clients.size(), 3);
        QCOMPARE(clients.constFirst().userAgent, QStringLiteral("client/2"));
        QCOMPARE(m_observer->droppedClients(), 2);
        QCOMPARE(ObservationReport::from(*m_observer).droppedClients, 2);
        // A 60 KB User-Agent names its client by its first characters only.
        QCOMPARE(send(QStringLiteral("/c"), QByteArray(60 * 1024, 'u')).status, 200);
        const ObservedClient huge = m_observer->clients().constLast();
        QCOMPARE(huge.userAgent, QString(Observer::maxUserAgentChars, QLatin1Char('u')) + QStringLiteral("..."));
        QVERIFY(huge.id.size() < 300);
        m_observer->clear();
        QCOMPARE(m_observer->droppedClients(), 0);
    }

    void garbageIsShownAndLosesNothing()
    {
        QCOMPARE(send(QStringLiteral("/kept")).status, 503);
        QTcpSocket socket;
        socket.connectToHost(m_server->baseUrl().host(), m_server->serverPort());
        QVERIFY(socket.waitForConnected(5000));
        socket.write(QByteArray("\x16\x03\x01 not http at all\r\n\r\n", 24));
        QSignalSpy changed(m_observer, &Observer::clientChanged);
        QVERIFY(changed.wait(5000));
        const auto clients = m_observer->clients();
        QCOMPARE(clients.size(), 2);
        QCOMPARE(clients[1].rejectedRequests, 1);
        QVERIFY(!clients[1].lastRejection.isEmpty());
        QCOMPARE(m_observer->allLogicalRequests().size(), 1);
        QCOMPARE(m_observer->allLogicalRequests().constFirst().target, QStringLiteral("/kept"));
    }

    void credentialsInTargetsAreMasked()
    {
        send(QStringLiteral("/x?api_key=s3cr3t&user=bob"));
        const QString target = m_observer->allLogicalRequests().constFirst().attempts.constFirst().target;
        QVERIFY2(!target.contains(QStringLiteral("s3cr3t")), qPrintable(target));
    }

    void clearForgetsEverything()
    {
        send(QStringLiteral("/c"));
        QSignalSpy cleared(m_observer, &Observer::cleared);
        m_observer->clear();
        QCOMPARE(cleared.count(), 1);
        QVERIFY(m_observer->clients().isEmpty());
        QVERIFY(m_observer->allLogicalRequests().isEmpty());
        QCOMPARE(send(QStringLiteral("/c")).status, 503); // a fresh logical request: the plan starts again
    }

    void detachingRestoresThePaths()
    {
        m_observer->attach(nullptr);
        QCOMPARE(send(QStringLiteral("/items/1")).status, 404);
        QCOMPARE(m_observer->totalAttempts(), 0);
    }
};

QTEST_GUILESS_MAIN(TestObserver)
#include "tst_observer.moc"
