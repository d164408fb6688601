#include "core/executor/operationpoller.h"
#include "core/executor/retryexecutor.h"
#include "core/faultserver/faultserver.h"
#include "core/util/englishplurals.h"
#include "tests/core/executor/executorcollector.h"

#include <QLoggingCategory>
#include <QSignalSpy>
#include <QTest>

#include <memory>

using namespace RetryLab::Core;
using RetryLab::Core::Testing::fastPolicy;
using RetryLab::Core::Testing::getSpec;

namespace {

// Google's schedule scaled down: 20 ms, then 1.5 times longer, at most 200 ms.
PollingPolicy scaledPolicy(double totalTimeoutMs, int maxPolls = 0)
{
    PollingPolicy p;
    p.initialDelayMs = 20;
    p.multiplier = 1.5;
    p.maxDelayMs = 200;
    p.totalTimeoutMs = totalTimeoutMs;
    p.maxPolls = maxPolls;
    return p;
}

// Generous: a loaded machine under the sanitizers is slow, and nothing here waits near it.
constexpr int finishTimeoutMs = 30000;

} // namespace

class TestOperationPoller : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void doneAfter_pollsUntilDone();
    void doneWithError_failsWithTheErrorCode();
    void totalTimeout_shorterThanTheOperation_endsWithTheTimeout();
    void maxPolls_endsAfterThatManyPolls();
    void pollMeeting503s_isRetriedAndCountsAsOnePoll();
    void pollFailingAfterItsRetries_endsThePolling();
    void answerThatIsNotAnOperation_isUnreadable();
    void policyWithoutAnEnd_isRefusedBeforeAnythingIsSent();
    void cancel_endsAtOnce();
    void destroyedWhilePolling_cancelsItsRequestQuietly();

private:
    QUrl url(const QString &pathAndQuery) const { return QUrl(m_server.baseUrl().toString() + pathAndQuery); }
    QUrl operationUrl(const QString &query)
    {
        return url(QStringLiteral("/operation/op%1?%2").arg(++m_operationCounter).arg(query));
    }
    OperationResult runToEnd(
        OperationPoller &poller, const RequestSpec &first, const RequestSpec &poll, const PollingPolicy &policy);

    FaultServer m_server;
    int m_operationCounter = 0;
    std::unique_ptr<RetryExecutor> m_executor;
};

void TestOperationPoller::initTestCase()
{
    QVERIFY2(m_server.listen(), qPrintable(m_server.errorString()));
    EnglishPlurals::install(); // "3 polls", as the commands print it
    QLoggingCategory::setFilterRules(
        QStringLiteral("retrylab.core.executor.info=false\nretrylab.core.executor.warning=false"));
}

void TestOperationPoller::init()
{
    m_server.reset();
    m_executor = std::make_unique<RetryExecutor>();
    m_executor->setPolicy(fastPolicy(4, 10));
}

void TestOperationPoller::cleanup()
{
    if (!QTest::currentTestFailed()) {
        QCOMPARE(m_executor->activeCount(), 0);
        QCOMPARE(m_executor->inFlightCount(), 0);
    }
    m_executor.reset();
}

OperationResult TestOperationPoller::runToEnd(
    OperationPoller &poller, const RequestSpec &first, const RequestSpec &poll, const PollingPolicy &policy)
{
    QSignalSpy finished(&poller, &OperationPoller::finished);
    const auto started = poller.start(first, poll, policy);
    if (!started) {
        qWarning("start refused: %s", qPrintable(started.error()));
        return {};
    }
    if (!finished.wait(finishTimeoutMs) && finished.isEmpty())
        qWarning("the poller did not finish");
    if (finished.size() != 1)
        return {};
    return finished.at(0).at(0).value<OperationResult>();
}

void TestOperationPoller::doneAfter_pollsUntilDone()
{
    OperationPoller poller(m_executor.get());
    QSignalSpy scheduled(&poller, &OperationPoller::pollScheduled);
    QSignalSpy finishedPolls(&poller, &OperationPoller::pollFinished);
    const RequestSpec spec = getSpec(operationUrl(QStringLiteral("done_after_ms=300")));
    const PollingPolicy policy = scaledPolicy(20000);

    const OperationResult result = runToEnd(poller, spec, spec, policy);
    QVERIFY2(result.succeeded(), qPrintable(result.reason));
    QCOMPARE(result.ending, OperationResult::Ending::Done);
    // The waits before polls 1 to 6 add up to 415.625 ms, past the 300 ms: poll 6 at the latest
    // finds it done; on a slow machine, with slow answers, an earlier one does.
    QVERIFY2(result.pollCount() >= 1 && result.pollCount() <= 6, qPrintable(QString::number(result.pollCount())));
    QCOMPARE(result.polls.size(), result.pollCount() + 1);
    QCOMPARE(scheduled.size(), result.pollCount());
    QCOMPARE(finishedPolls.size(), result.polls.size());
    QVERIFY(result.body.contains("\"done\":true"));

    QSet<quint64> ids;
    for (int i = 0; i < result.polls.size(); ++i) {
        const OperationPoll &poll = result.polls.at(i);
        QCOMPARE(poll.index, i);
        QCOMPARE(poll.state, i + 1 == result.polls.size() ? OperationPoll::State::Done : OperationPoll::State::NotDone);
        QCOMPARE(poll.attempts.size(), 1);
        QCOMPARE(poll.attempts.constFirst().requestId, poll.requestId);
        QCOMPARE(poll.request.requestId, poll.requestId);
        ids.insert(poll.requestId);
        if (i == 0) {
            QCOMPARE(poll.delayMs, 0.0);
            continue;
        }
        QCOMPARE(poll.delayMs, policy.delayBeforePoll(i - 1));
        QCOMPARE(scheduled.at(i - 1).at(0).toInt(), i);
        QCOMPARE(scheduled.at(i - 1).at(1).toDouble(), poll.delayMs);
        // The poll went out no earlier than its wait after the answer before it.
        const double waitedMs = (poll.attempts.constFirst().startNs - result.polls.at(i - 1).request.endNs) / 1e6;
        QVERIFY2(waitedMs >= poll.delayMs - 1.0,
            qPrintable(QStringLiteral("poll %1 waited %2 ms of %3").arg(i).arg(waitedMs).arg(poll.delayMs)));
    }
    QCOMPARE(ids.size(), result.polls.size()); // each poll a logical request of its own
    QCOMPARE(result.attemptCount(), result.polls.size());
}

void TestOperationPoller::doneWithError_failsWithTheErrorCode()
{
    OperationPoller poller(m_executor.get());
    const RequestSpec spec = getSpec(operationUrl(QStringLiteral("done_after_ms=100&error=5")));
    const OperationResult result = runToEnd(poller, spec, spec, scaledPolicy(20000));
    QCOMPARE(result.ending, OperationResult::Ending::OperationFailed);
    QVERIFY(!result.succeeded());
    QCOMPARE(result.errorCode, std::optional<qint64>(5));
    QCOMPARE(result.errorMessage, QStringLiteral("the operation failed, as asked"));
    QVERIFY2(result.reason.contains(QLatin1String("code 5")), qPrintable(result.reason));
    QCOMPARE(result.polls.constLast().state, OperationPoll::State::OperationFailed);
    QVERIFY(result.pollCount() >= 2);
}

void TestOperationPoller::totalTimeout_shorterThanTheOperation_endsWithTheTimeout()
{
    OperationPoller poller(m_executor.get());
    const RequestSpec spec = getSpec(operationUrl(QStringLiteral("done_after_ms=5000")));
    const OperationResult result = runToEnd(poller, spec, spec, scaledPolicy(250));
    QCOMPARE(result.ending, OperationResult::Ending::TotalTimeout);
    QVERIFY2(result.reason.contains(QLatin1String("total timeout of 250 ms")), qPrintable(result.reason));
    QVERIFY(result.pollCount() >= 2);
    QVERIFY2(result.totalMs() < 5000, qPrintable(QString::number(result.totalMs())));
    for (const OperationPoll &poll : result.polls)
        QCOMPARE(poll.state, OperationPoll::State::NotDone);
}

void TestOperationPoller::maxPolls_endsAfterThatManyPolls()
{
    OperationPoller poller(m_executor.get());
    const RequestSpec spec = getSpec(operationUrl(QStringLiteral("done_after_ms=60000")));
    const OperationResult result = runToEnd(poller, spec, spec, scaledPolicy(0, 3));
    QCOMPARE(result.ending, OperationResult::Ending::PollLimit);
    QCOMPARE(result.pollCount(), 3);
    QVERIFY2(result.reason.contains(QLatin1String("not done after 3 polls")), qPrintable(result.reason));
}

void TestOperationPoller::pollMeeting503s_isRetriedAndCountsAsOnePoll()
{
    const Result<QString> created = m_server.createTest({QStringLiteral("return-503*2")});
    QVERIFY2(created, qPrintable(created.error()));
    OperationPoller poller(m_executor.get());
    const RequestSpec first = getSpec(operationUrl(QStringLiteral("done_after_ms=200")));
    RequestSpec poll = first;
    poll.headers.append({QByteArray("X-Retry-Test-Id"), created->toLatin1()}); // the polls only

    const OperationResult result = runToEnd(poller, first, poll, scaledPolicy(20000));
    QVERIFY2(result.succeeded(), qPrintable(result.reason));
    QCOMPARE(m_server.consumedInstructions(*created), 2);
    const OperationPoll &firstPoll = result.polls.at(1);
    QCOMPARE(firstPoll.index, 1);
    QCOMPARE(firstPoll.attempts.size(), 3);
    QCOMPARE(firstPoll.attempts.at(0).httpStatus, std::optional<int>(503));
    QCOMPARE(firstPoll.attempts.at(1).httpStatus, std::optional<int>(503));
    QCOMPARE(firstPoll.attempts.at(2).httpStatus, std::optional<int>(200));
    QCOMPARE(firstPoll.request.attempts, 3);
    QCOMPARE(firstPoll.state, OperationPoll::State::NotDone);
    // The retries are the executor's; the polls after them keep the polling schedule.
    QCOMPARE(result.polls.at(2).delayMs, 30.0);
    QCOMPARE(result.attemptCount(), result.polls.size() + 2);
}

void TestOperationPoller::pollFailingAfterItsRetries_endsThePolling()
{
    m_executor->setPolicy(fastPolicy(2, 10));
    const Result<QString> created = m_server.createTest({QStringLiteral("return-503*5")});
    QVERIFY2(created, qPrintable(created.error()));
    OperationPoller poller(m_executor.get());
    const RequestSpec first = getSpec(operationUrl(QStringLiteral("done_after_ms=5000")));
    RequestSpec poll = first;
    poll.headers.append({QByteArray("X-Retry-Test-Id"), created->toLatin1()});

    const OperationResult result = runToEnd(poller, first, poll, scaledPolicy(20000));
    QCOMPARE(result.ending, OperationResult::Ending::RequestFailed);
    QCOMPARE(result.pollCount(), 1);
    QCOMPARE(result.polls.constLast().state, OperationPoll::State::RequestFailed);
    QCOMPARE(result.polls.constLast().attempts.size(), 2);
    QVERIFY2(result.reason.startsWith(QLatin1String("poll 1 failed after 2 attempts")), qPrintable(result.reason));
}

void TestOperationPoller::answerThatIsNotAnOperation_isUnreadable()
{
    OperationPoller poller(m_executor.get());
    // A body of bytes that are not JSON.
    const RequestSpec spec = getSpec(url(QStringLiteral("/fault/drip?bytes=4&ms=1")));
    const OperationResult result = runToEnd(poller, spec, spec, scaledPolicy(20000));
    QCOMPARE(result.ending, OperationResult::Ending::Unreadable);
    QCOMPARE(result.polls.size(), 1);
    QVERIFY2(result.reason.startsWith(QLatin1String("the first request: ")), qPrintable(result.reason));
}

void TestOperationPoller::policyWithoutAnEnd_isRefusedBeforeAnythingIsSent()
{
    OperationPoller poller(m_executor.get());
    QSignalSpy started(&poller, &OperationPoller::pollStarted);
    const RequestSpec spec = getSpec(operationUrl(QStringLiteral("done_after_ms=100")));
    const auto refused = poller.start(spec, spec, PollingPolicy{});
    QVERIFY(!refused.ok());
    QVERIFY2(refused.error().contains(QLatin1String("a polling policy without an end")), qPrintable(refused.error()));
    QVERIFY(started.isEmpty());
    QVERIFY(!poller.isRunning());
    QCOMPARE(m_executor->activeCount(), 0);
}

void TestOperationPoller::cancel_endsAtOnce()
{
    OperationPoller poller(m_executor.get());
    QSignalSpy finished(&poller, &OperationPoller::finished);
    QSignalSpy polled(&poller, &OperationPoller::pollFinished);
    const RequestSpec spec = getSpec(operationUrl(QStringLiteral("done_after_ms=60000")));
    QVERIFY(poller.start(spec, spec, scaledPolicy(60000)).ok());
    QTRY_VERIFY_WITH_TIMEOUT(polled.size() >= 2, finishTimeoutMs);
    poller.cancel();
    QCOMPARE(finished.size(), 1);
    const auto result = finished.at(0).at(0).value<OperationResult>();
    QCOMPARE(result.ending, OperationResult::Ending::Cancelled);
    QVERIFY(!poller.isRunning());
    QTRY_COMPARE_WITH_TIMEOUT(m_executor->activeCount(), 0, finishTimeoutMs);
    QCOMPARE(finished.size(), 1);
}

void TestOperationPoller::destroyedWhilePolling_cancelsItsRequestQuietly()
{
    auto poller = std::make_unique<OperationPoller>(m_executor.get());
    QSignalSpy finished(poller.get(), &OperationPoller::finished);
    QSignalSpy started(poller.get(), &OperationPoller::pollStarted);
    // A first request that stays on the wire until it is cancelled.
    const RequestSpec spec = getSpec(url(QStringLiteral("/fault/stall")));
    QVERIFY(poller->start(spec, spec, scaledPolicy(60000)).ok());
    QCOMPARE(started.size(), 1);
    QTRY_COMPARE_WITH_TIMEOUT(m_executor->inFlightCount(), 1, finishTimeoutMs);
    poller.reset();
    QCOMPARE(finished.size(), 0); // nothing is reported from a destructor
    QTRY_COMPARE_WITH_TIMEOUT(m_executor->activeCount(), 0, finishTimeoutMs);
}

QTEST_GUILESS_MAIN(TestOperationPoller)
#include "tst_operationpoller.moc"
