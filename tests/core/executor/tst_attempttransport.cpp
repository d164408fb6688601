#include "core/executor/attempttransport.h"
#include "core/executor/executorrequest.h"
#include "core/executor/retryplanner.h"
#include "core/faultserver/faultserver.h"
#include "core/util/clock.h"

#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QPointer>
#include <QRegularExpression>
#include <QTest>

#include <algorithm>
#include <memory>

using namespace RetryLab::Core;

namespace {

/// An AttemptTransport driven as RetryExecutor drives it, without the executor:
/// a table of requests, the managers' finished() handed to finished(), and an
/// attempt concluded and released once it ends.
class Harness final
{
public:
    Harness()
        : m_transport(&m_context, m_clock, m_requests, &m_shared, nullptr, [this](QNetworkAccessManager &manager) {
              QObject::connect(&manager, &QNetworkAccessManager::finished, &m_context,
                  [this](QNetworkReply *reply) { handleFinished(reply); });
          })
    {
        m_transport.setBodyLimit(1024 * 1024);
    }

    AttemptTransport &transport() { return m_transport; }

    /// Starts attempt `attemptIndex` of a new request for `spec`.
    std::shared_ptr<ExecutorRequest> start(const RequestSpec &spec, int attemptIndex = 0)
    {
        auto r = std::make_shared<ExecutorRequest>(spec, m_policy);
        r->id = ++m_lastId;
        r->plan = RetryPlanner::initialState(spec);
        r->attemptIndex = attemptIndex;
        r->queuedSinceNs = m_clock.nowNs();
        m_transport.interner().intern(r->spec.headers);
        m_requests.insert(r->id, r);
        m_transport.start(*r, m_clock.nowNs());
        return r;
    }

    /// Ends `r`'s attempt as the executor does once its end is known.
    void conclude(ExecutorRequest &r, AttemptEnd end)
    {
        m_classifications.insert(r.id, m_transport.conclude(r, end));
        m_transport.release(r);
        m_concluded.append(r.id);
    }

    bool isConcluded(const ExecutorRequest &r) const { return m_concluded.contains(r.id); }
    Classification classificationOf(const ExecutorRequest &r) const { return m_classifications.value(r.id); }
    int concludedCount() const { return int(m_concluded.size()); }

private:
    void handleFinished(QNetworkReply *reply)
    {
        const quint64 id = m_transport.requestOf(reply);
        if (id == 0)
            return;
        const std::shared_ptr<ExecutorRequest> r = m_requests.value(id);
        if (const std::optional<AttemptEnd> end = m_transport.finished(*r))
            conclude(*r, *end);
    }

    SteadyClock m_clock;
    // Before the context, so that it goes after it: the context's end cuts every
    // connection into this harness before the shared manager's replies go.
    QNetworkAccessManager m_shared;
    QObject m_context;
    AttemptTransport::Requests m_requests;
    BackoffPolicy m_policy;
    AttemptTransport m_transport;
    QHash<quint64, Classification> m_classifications;
    QList<quint64> m_concluded;
    quint64 m_lastId = 0;
};

RequestSpec specFor(const QUrl &url, const QByteArray &method = "GET")
{
    RequestSpec spec;
    spec.method = method;
    spec.url = url;
    return spec;
}

} // namespace

// One attempt's life on the network, alone: AttemptTransport against the fault
// server on loopback, driven as RetryExecutor drives it, with no executor.
class TestAttemptTransport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void start_answerIsRecordedWithItsTimings();
    void attemptHeaders_numberTheAttempt_andCanBeLeftOut();
    void redirect_isFollowed_andEachHopRecorded();
    void bodyLimit_keepsThePrefix_andCountsEveryByte_data();
    void bodyLimit_keepsThePrefix_andCountsEveryByte();
    void cut_keepsWhatArrived_andItsEndIsNotHeard();
    void release_leavesNoReplyAnsweringToTheRequest();
    void lostManager_concludesAsANetworkError();

private:
    QUrl url(const QString &path) const { return QUrl(m_server.baseUrl().toString() + path); }
    /// Stores `size` bytes on the server as /eventual/{name}, visible at once.
    void store(const QString &name, qsizetype size);

    FaultServer m_server;
};

void TestAttemptTransport::initTestCase()
{
    QVERIFY2(m_server.listen(), qPrintable(m_server.errorString()));
}

void TestAttemptTransport::store(const QString &name, qsizetype size)
{
    Harness h;
    RequestSpec put = specFor(url(QStringLiteral("/eventual/%1?hidden_ms=0").arg(name)), "PUT");
    put.headers = {{"Content-Type", "text/plain"}};
    put.body = QByteArray(size, 'b');
    const auto r = h.start(put);
    QTRY_VERIFY_WITH_TIMEOUT(h.isConcluded(*r), 10'000);
    QCOMPARE(r->current.httpStatus, 201);
}

void TestAttemptTransport::start_answerIsRecordedWithItsTimings()
{
    Harness h;
    const auto r = h.start(specFor(url(QStringLiteral("/status/503"))), 2);
    QCOMPARE(r->current.requestId, r->id);
    QCOMPARE(r->current.attemptIndex, 2);
    QCOMPARE(r->current.method, QByteArray("GET"));
    QCOMPARE(r->current.url, url(QStringLiteral("/status/503")));
    QVERIFY(r->manager);
    QVERIFY(r->reply);
    QCOMPARE(h.transport().requestOf(r->reply), r->id);

    QTRY_VERIFY_WITH_TIMEOUT(h.isConcluded(*r), 10'000);
    const AttemptRecord &a = r->current;
    QCOMPARE(a.end, AttemptEnd::Response);
    QCOMPARE(a.httpStatus, 503);
    QCOMPARE(a.reasonPhrase, QByteArray("Service Unavailable"));
    QCOMPARE(a.protocol, QStringLiteral("HTTP/1.1"));
    QCOMPARE(a.networkError, QNetworkReply::ServiceUnavailableError);
    QVERIFY(!a.errorString.isEmpty());
    QVERIFY(headerValue(a.responseHeaders, "Content-Type").has_value());
    QCOMPARE(a.bytesReceived, a.responseBody.size());
    QVERIFY(a.bytesReceived > 0);
    QCOMPARE(a.expectedBytes, a.bytesReceived);
    // Each point of the exchange after the one before it.
    QVERIFY(a.connectionStartedNs >= a.startNs);
    QVERIFY(a.requestSentNs >= a.connectionStartedNs);
    QVERIFY(a.firstByteNs >= a.requestSentNs);
    QVERIFY(a.finishedNs >= a.firstByteNs);
    QCOMPARE(a.endNs, a.finishedNs);
    QCOMPARE(h.classificationOf(*r).decision, Classification::Decision::RetryAfterDelay);
    // Released: no reply, no manager.
    QVERIFY(!r->reply);
    QVERIFY(!r->manager);
}

void TestAttemptTransport::attemptHeaders_numberTheAttempt_andCanBeLeftOut()
{
    Harness h;
    RequestSpec spec = specFor(url(QStringLiteral("/status/200")));
    spec.headers = {{"x-retry-attempt", "999"}}; // replaced, not doubled
    const auto first = h.start(spec, 0);
    QTRY_VERIFY_WITH_TIMEOUT(h.isConcluded(*first), 10'000);
    const QByteArray requestId = headerValue(first->current.requestHeaders, "X-Retry-Request-Id").value_or("");
    QVERIFY2(requestId.endsWith(QByteArray("-" + QByteArray::number(first->id))), requestId.constData());
    QCOMPARE(headerValue(first->current.requestHeaders, "X-Retry-Attempt").value_or(""), QByteArray("1"));
    QCOMPARE(std::count_if(first->current.requestHeaders.cbegin(), first->current.requestHeaders.cend(),
                 [](const auto &header) { return header.first.compare("X-Retry-Attempt", Qt::CaseInsensitive) == 0; }),
        1);
    QCOMPARE(m_server.log().last().clientAttempt, QStringLiteral("1"));

    // The third attempt of a request says so, under the request's id.
    first->attemptIndex = 2;
    h.transport().start(*first, 0);
    QTRY_COMPARE_WITH_TIMEOUT(m_server.log().last().clientAttempt, QStringLiteral("3"), 10'000);
    QCOMPARE(headerValue(first->current.requestHeaders, "X-Retry-Request-Id").value_or(""), requestId);

    // Off for the transport, or for one request.
    h.transport().setAttemptHeadersEnabled(false);
    const auto bare = h.start(specFor(url(QStringLiteral("/status/200"))));
    QTRY_VERIFY_WITH_TIMEOUT(h.isConcluded(*bare), 10'000);
    QVERIFY(!headerValue(bare->current.requestHeaders, "X-Retry-Attempt"));
    QVERIFY(!headerValue(bare->current.requestHeaders, "X-Retry-Request-Id"));
    QCOMPARE(m_server.log().last().clientAttempt, QString());
    h.transport().setAttemptHeadersEnabled(true);
    RequestSpec untagged = specFor(url(QStringLiteral("/status/200")));
    untagged.attemptHeaders = false;
    const auto own = h.start(untagged);
    QTRY_VERIFY_WITH_TIMEOUT(h.isConcluded(*own), 10'000);
    QVERIFY(!headerValue(own->current.requestHeaders, "X-Retry-Attempt"));
}

void TestAttemptTransport::redirect_isFollowed_andEachHopRecorded()
{
    Harness h;
    const QString target = url(QStringLiteral("/status/200")).toString();
    const QString middle = m_server.baseUrl().toString() + QStringLiteral("/redirect?code=301&to=")
        + QString::fromLatin1(QUrl::toPercentEncoding(target));
    const auto r = h.start(
        specFor(url(QStringLiteral("/redirect?code=307&to=") + QString::fromLatin1(QUrl::toPercentEncoding(middle)))));
    QTRY_VERIFY_WITH_TIMEOUT(h.isConcluded(*r), 10'000);
    QCOMPARE(h.concludedCount(), 1); // one attempt, three exchanges
    const AttemptRecord &a = r->current;
    QCOMPARE(a.httpStatus, 200);
    QCOMPARE(a.redirects.size(), 2);
    QCOMPARE(a.redirects[0].status, 307);
    QCOMPARE(a.redirects[1].status, 301);
    QVERIFY(a.redirects[0].followed && a.redirects[1].followed);
    QCOMPARE(a.redirects[1].to, QUrl(target));
    QCOMPARE(r->hop.url, QUrl(target));
    qint64 previousEnd = a.startNs;
    for (const RedirectHop &hop : a.redirects) {
        QCOMPARE(hop.startNs, previousEnd);
        QVERIFY(hop.finishedNs >= hop.startNs);
        previousEnd = hop.finishedNs;
    }
    QVERIFY(a.requestSentNs >= previousEnd);
}

void TestAttemptTransport::bodyLimit_keepsThePrefix_andCountsEveryByte_data()
{
    QTest::addColumn<qsizetype>("size");
    QTest::addColumn<qint64>("limit");
    QTest::addColumn<bool>("readAsItArrives");
    // A body announced to fit waits in the reply until it ends; any other is read
    // as it arrives, so that only what is kept stays in memory.
    QTest::addRow("fits") << qsizetype(20'000) << qint64(64 * 1024) << false;
    QTest::addRow("exactly the limit") << qsizetype(4096) << qint64(4096) << false;
    QTest::addRow("over the limit") << qsizetype(300'000) << qint64(4096) << true;
}

void TestAttemptTransport::bodyLimit_keepsThePrefix_andCountsEveryByte()
{
    QFETCH(qsizetype, size);
    QFETCH(qint64, limit);
    QFETCH(bool, readAsItArrives);
    const QString name
        = QStringLiteral("transport-%1")
              .arg(QString::fromLatin1(QTest::currentDataTag()).replace(QLatin1Char(' '), QLatin1Char('-')));
    store(name, size);

    Harness h;
    h.transport().setBodyLimit(limit);
    const auto r = h.start(specFor(url(QStringLiteral("/eventual/%1").arg(name))));
    QTRY_VERIFY_WITH_TIMEOUT(h.isConcluded(*r), 10'000);
    const AttemptRecord &a = r->current;
    QCOMPARE(a.httpStatus, 200);
    QCOMPARE(r->readingBody, readAsItArrives);
    QCOMPARE(a.expectedBytes, qint64(size));
    QCOMPARE(a.bytesReceived, qint64(size));
    QCOMPARE(a.responseBody, QByteArray(std::min<qint64>(size, limit), 'b'));
    QCOMPARE(a.responseBodyTruncated, size > limit);
}

void TestAttemptTransport::cut_keepsWhatArrived_andItsEndIsNotHeard()
{
    Harness h;
    const auto r = h.start(specFor(url(QStringLiteral("/fault/drip?bytes=100&ms=20"))));
    // Some bytes arrive, not all: a byte every 20 ms.
    QTRY_VERIFY_WITH_TIMEOUT(r->reply && r->reply->bytesAvailable() + r->bytesReceived >= 5, 10'000);
    QVERIFY(!h.isConcluded(*r));
    const QNetworkReply *reply = r->reply;
    h.transport().cut(*r);
    QCOMPARE(h.transport().requestOf(reply), quint64(0));
    h.conclude(*r, AttemptEnd::AttemptTimeout);
    const AttemptRecord &a = r->current;
    QCOMPARE(a.end, AttemptEnd::AttemptTimeout);
    QCOMPARE(a.networkError, QNetworkReply::OperationCanceledError);
    QVERIFY2(a.bytesReceived >= 5 && a.bytesReceived < 100, qPrintable(QString::number(a.bytesReceived)));
    QCOMPARE(a.responseBody.size(), a.bytesReceived);
    QCOMPARE(h.classificationOf(*r).cause, QStringLiteral("attempt-timeout"));
    // The aborted reply's finished() reached no one: the attempt ended once.
    QTest::qWait(50);
    QCOMPARE(h.concludedCount(), 1);
}

void TestAttemptTransport::release_leavesNoReplyAnsweringToTheRequest()
{
    Harness h;
    const auto r = h.start(specFor(url(QStringLiteral("/fault/stall"))));
    QPointer<QNetworkReply> reply = r->reply.data();
    QVERIFY(reply);
    QCOMPARE(h.transport().requestOf(reply), r->id);
    h.transport().release(*r);
    QVERIFY(!r->reply);
    QVERIFY(!r->manager);
    QCOMPARE(h.transport().requestOf(reply), quint64(0));
    // Not finished, so not heard: it is deleted without ending the attempt.
    QTRY_VERIFY_WITH_TIMEOUT(reply.isNull(), 10'000);
    QVERIFY(!h.isConcluded(*r));
}

void TestAttemptTransport::lostManager_concludesAsANetworkError()
{
    Harness h;
    const auto r = h.start(specFor(url(QStringLiteral("/fault/stall"))));
    const QNetworkReply *reply = r->reply;
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("lost its QNetworkAccessManager")));
    h.transport().loseManager(*r);
    QCOMPARE(h.transport().requestOf(reply), quint64(0));
    QVERIFY(!r->manager);
    h.conclude(*r, AttemptEnd::NetworkError);
    QCOMPARE(r->current.end, AttemptEnd::NetworkError);
    QCOMPARE(r->current.networkError, QNetworkReply::UnknownNetworkError);
    QVERIFY(r->current.errorString.contains(QStringLiteral("QNetworkAccessManager")));
    QVERIFY(!r->current.httpStatus);
}

QTEST_GUILESS_MAIN(TestAttemptTransport)
#include "tst_attempttransport.moc"
