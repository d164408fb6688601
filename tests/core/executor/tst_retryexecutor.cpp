#include "core/executor/redirectstep.h"
#include "core/executor/retryexecutor.h"
#include "core/faultserver/faultserver.h"
#include "core/policy/backoff.h"
#include "core/policy/presets.h"
#include "core/record/runrecord.h"
#include "tests/core/capturingserver.h"
#include "tests/core/executor/executorcollector.h"
#include "tests/tools/requiredtool.h"

#include <QHstsPolicy>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QMutex>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QSslConfiguration>
#include <QSslKey>
#include <QSslServer>
#include <QSslSocket>
#include <QTest>
#include <QTimer>

#include <algorithm>
#include <cmath>
#include <memory>

using namespace RetryLab::Core;
using RetryLab::Core::Testing::Collector;
using RetryLab::Core::Testing::fastPolicy;
using RetryLab::Core::Testing::getSpec;

namespace {

// How late a real timer may fire on a shared, loaded machine (under the
// sanitizers, with other suites running beside). Deadline checks allow this
// much on top of the deadline; what they tell apart (a stall without end, a
// slot held for seconds) lies well beyond it.
constexpr double timerSlackMs = 600.0;

// Records what goes through the message handler while it lives.
class MessageCapture
{
public:
    struct Message
    {
        QtMsgType type;
        QString category;
        QString text;
    };

    MessageCapture() : m_previous(qInstallMessageHandler(&MessageCapture::handle)) { s_current = this; }
    ~MessageCapture()
    {
        qInstallMessageHandler(m_previous);
        s_current = nullptr;
    }

    QList<Message> messages(QtMsgType type, const QString &category) const
    {
        QMutexLocker lock(&m_mutex);
        QList<Message> out;
        for (const Message &m : m_messages) {
            if (m.type == type && m.category == category)
                out.append(m);
        }
        return out;
    }

private:
    static void handle(QtMsgType type, const QMessageLogContext &context, const QString &text)
    {
        if (!s_current)
            return;
        QMutexLocker lock(&s_current->m_mutex);
        s_current->m_messages.append({type, QString::fromLatin1(context.category), text});
    }

    static inline MessageCapture *s_current = nullptr;
    QtMessageHandler m_previous;
    mutable QMutex m_mutex;
    QList<Message> m_messages;
};

QByteArray headerOf(const HeaderList &headers, QByteArrayView name)
{
    return headerValue(headers, name).value_or(QByteArray());
}

// A self-signed certificate for a name nobody owns (valid until 2126): any
// client that checks certificates must refuse it.
constexpr char testCertificate[] = R"(-----BEGIN CERTIFICATE-----
MIIBlzCCAT2gAwIBAgIUGcyiDAVayPrDTMwSkC8DDeq651owCgYIKoZIzj0EAwIw
IDEeMBwGA1UEAwwVcmV0cnlsYWItdGVzdC5pbnZhbGlkMCAXDTI2MTEyMjE0MjAy
OVoYDzIxMjYxMDI5MTQyMDI5WjAgMR4wHAYDVQQDDBVyZXRyeWxhYi10ZXN0Lmlu
dmFsaWQwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAASYlBm4xjavODIzIduy93uq
Jajg6474FZE9/w5pvcdBoCoZcRFUqjoSJLMfFhXfMA3b7CJeLfOZvA99nibv/+PK
o1MwUTAdBgNVHQ4EFgQUS1uTOkl4NrG6diVQPqkVzH/wrUwwHwYDVR0jBBgwFoAU
S1uTOkl4NrG6diVQPqkVzH/wrUwwDwYDVR0TAQH/BAUwAwEB/zAKBggqhkjOPQQD
AgNIADBFAiEAoBMxLajLl608rZFrZzDoxWt/TYBMSLlFXgmMGJjF3wwCIFKFuFWK
ycqaFzJ1+i1JGCn7/KRRWgyJqGaa+h6BVyGb
-----END CERTIFICATE-----
)";
constexpr char testPrivateKey[] = R"(-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgZMcQM3qfAKTcewqJ
zO+K2rtPaROd198pGB/jfR5bguKhRANCAASYlBm4xjavODIzIduy93uqJajg6474
FZE9/w5pvcdBoCoZcRFUqjoSJLMfFhXfMA3b7CJeLfOZvA99nibv/+PK
-----END PRIVATE KEY-----
)";

// Presets scaled down in time so that a test takes milliseconds, not minutes.
BackoffPolicy scaled(BackoffPolicy p, double factor)
{
    p.baseDelayMs *= factor;
    p.maxBackoffMs *= factor;
    p.jitterMs *= factor;
    // A deadline keeps room for a few attempts and a 1 s stall on a loaded machine (the interactive
    // preset's 5 s would be 25 ms).
    if (p.deadlineMs > 0.0)
        p.deadlineMs = std::max(p.deadlineMs * factor, 1500.0);
    p.classification.maxRetryAfterMs *= factor;
    p.attemptTimeoutMs = 5000;
    return p;
}

// A TLS server on 127.0.0.1 with the self-signed test certificate: no client trusts it.
bool listenWithTestCertificate(QSslServer &server)
{
    QSslConfiguration configuration = QSslConfiguration::defaultConfiguration();
    configuration.setLocalCertificate(QSslCertificate(QByteArray(testCertificate)));
    configuration.setPrivateKey(QSslKey(QByteArray(testPrivateKey), QSsl::Ec));
    if (configuration.localCertificate().isNull() || configuration.privateKey().isNull())
        return false;
    server.setSslConfiguration(configuration);
    return server.listen(QHostAddress::LocalHost);
}

} // namespace

class TestRetryExecutor : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void failThenSucceed_exactAttemptCounts_data();
    void failThenSucceed_exactAttemptCounts();
    void presets_retryScriptedFaults_data();
    void presets_retryScriptedFaults();
    void connectionFaults_areRetried_data();
    void connectionFaults_areRetried();
    void truncatedBody_reportedWithoutError_isBrokenStream();
    void delays_actualNeverEarly_andAsOnTheWire();
    void seed_eachRequestDrawsFromItsOwnStream();
    void attemptsExhausted_reportsLastCause();
    void attemptTimeout_isDistinctFromNetworkError();
    void deadline_cutsAttemptInFlight();
    void deadline_dueWithTheAttemptTimeout_endsTheAttemptAsDeadline();
    void deadline_neverSleepsIntoCertainFailure();
    void retryAfter_isHonoured();
    void retryAfter_isBounded();
    void retryAfter_beyondDeadline_failsFast();
    void status404_retriedOnlyWhenPolicySaysSo();
    void post_notRetriedWithoutIdempotencyMark();
    void post_retriedWithIdempotencyKey();
    void cancel_oneRequest();
    void cancelAll_stopsTimersAndReplies();
    void invalidRequest_isRefusedWithReason();
    void circuitBreaker_throughAllThreeStates();
    void budget_exhaustion_failsWithReason();
    void readModifyWrite_tenWriters_valueIsExact();
    void concurrencyLimit_queueTimeIsRecorded();
    void concurrencyLimit_slotFreedByBackoff_startsQueuedRequest();
    void thousandConcurrentRequests_allComplete();
    void timingPoints_areRecorded();

    void sharedManager_isUsedAsConfigured_andExtrasCopyIt();
    void sharedManager_ownersRepliesAreLeftAlone();
    void signals_everyStepInOrder_withCompleteRecords();
    void attemptHeaders_identifyAttempts_andCanBeSwitchedOff();
    void logging_everyRetryAndEveryFinalFailure();
    void deadline_queuedRetry_neverStartsAfterIt();
    void circuitBreaker_perHost_failureRatio();
    void circuitBreaker_halfOpen_limitsTrials();
    void circuitBreaker_policyChanged_nextRequestsMeetTheNewBreaker();
    void reasonPhrase_eachAttemptKeepsItsOwn();
    void budget_grpcThrottling_refusesAtHalf();
    void budget_awsTimeoutRetries_costMore();
    void readModifyWrite_412_restartsTheWholeSequence();
    void staleWrite_singleRequest_givesUpAtOnce();
    void immediate_retriesOnceWhateverMaxAttempts();
    void brokenBody_isAFailureForBreakerAndClassifier_data();
    void brokenBody_isAFailureForBreakerAndClassifier();
    void circuitBreaker_halfOpen_onlyTheTrialDecides();
    void cancelFromStateSignal_requestEndsOnce_tokensBalance_data();
    void cancelFromStateSignal_requestEndsOnce_tokensBalance();
    void readModifyWrite_budgetRefundedOnce();
    void injectedManager_destroyedFirst_executorCarriesOn();
    void tlsErrors_areNeverIgnored();
    void tlsErrors_afterAnHstsUpgrade_areRecordedToo();
    void redirect_crossOrigin_dropsCredentials_andIsRecorded();
    void redirect_chainAcrossTwoServers_everyHopRecorded();
    void redirect_tooMany_isNoSuccess_andResumeIncompleteNeither();
    void presets_eachFaultMode_exactAttemptCounts_data();
    void presets_eachFaultMode_exactAttemptCounts();
    void presets_persistentFault_endAtTheirLimit_data();
    void presets_persistentFault_endAtTheirLimit();

private:
    // The executor under test and a Collector of what it reports: after
    // auto [executor, c] = underTest(policy), cleanup() checks that the test
    // left nothing running and destroys both. No event is processed between
    // a test's return and cleanup(), so a handler that captured the test's
    // locals is never called once they are gone.
    struct UnderTest
    {
        RetryExecutor &executor;
        Collector &c;
    };
    UnderTest underTest(const BackoffPolicy &policy);

    QString uniqueKey() { return QStringLiteral("k%1").arg(++m_keyCounter); }
    QUrl url(const QString &pathAndQuery) const { return QUrl(m_server.baseUrl().toString() + pathAndQuery); }

    FaultServer m_server;
    int m_keyCounter = 0;
    std::unique_ptr<RetryExecutor> m_executor;
    std::unique_ptr<Collector> m_collector;
};

void TestRetryExecutor::initTestCase()
{
    QVERIFY2(m_server.listen(), qPrintable(m_server.errorString()));
    // One line per retry is the point in a terminal, noise in a suite of thousands.
    QLoggingCategory::setFilterRules(QStringLiteral("retrylab.core.executor.info=false"));
}

void TestRetryExecutor::init()
{
    m_server.reset();
}

void TestRetryExecutor::cleanup()
{
    const auto destroy = qScopeGuard([this] {
        m_collector.reset();
        m_executor.reset();
    });
    if (!m_executor || QTest::currentTestFailed())
        return;
    // Whatever a test did, it ends with no logical request left and no attempt on the wire.
    QCOMPARE(m_executor->activeCount(), 0);
    QCOMPARE(m_executor->inFlightCount(), 0);
}

TestRetryExecutor::UnderTest TestRetryExecutor::underTest(const BackoffPolicy &policy)
{
    m_collector.reset();
    m_executor = std::make_unique<RetryExecutor>();
    m_executor->setPolicy(policy);
    m_collector = std::make_unique<Collector>(m_executor.get());
    return {*m_executor, *m_collector};
}

void TestRetryExecutor::failThenSucceed_exactAttemptCounts_data()
{
    QTest::addColumn<int>("failures");
    QTest::addColumn<int>("maxAttempts");
    QTest::addColumn<int>("expectedAttempts");
    QTest::addColumn<int>("expectedOutcome");
    QTest::addRow("no failure") << 0 << 3 << 1 << int(RequestOutcome::Succeeded);
    QTest::addRow("two failures") << 2 << 5 << 3 << int(RequestOutcome::Succeeded);
    QTest::addRow("four failures, five attempts") << 4 << 5 << 5 << int(RequestOutcome::Succeeded);
    QTest::addRow("five failures, five attempts") << 5 << 5 << 5 << int(RequestOutcome::AttemptsExhausted);
    QTest::addRow("one attempt only") << 1 << 1 << 1 << int(RequestOutcome::AttemptsExhausted);
}

void TestRetryExecutor::failThenSucceed_exactAttemptCounts()
{
    QFETCH(int, failures);
    QFETCH(int, maxAttempts);
    QFETCH(int, expectedAttempts);
    QFETCH(int, expectedOutcome);

    auto [executor, c] = underTest(fastPolicy(maxAttempts, 5));
    QSignalSpy retries(&executor, &RetryExecutor::retryScheduled);
    RequestSpec spec;
    spec.url = url(QStringLiteral("/fail/%1?key=%2").arg(failures).arg(uniqueKey()));
    const quint64 id = executor.submit(spec);
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(id).has_value(), 20000);

    const auto result = *c.resultOf(id);
    QCOMPARE(int(result.outcome), expectedOutcome);
    QCOMPARE(result.attempts, expectedAttempts);
    const auto attempts = c.attemptsOf(id);
    QCOMPARE(attempts.size(), expectedAttempts);
    QCOMPARE(retries.size(), expectedAttempts - 1);
    for (int i = 0; i < attempts.size(); ++i) {
        QCOMPARE(attempts[i].attemptIndex, i);
        const bool ok = i >= failures;
        QCOMPARE(attempts[i].httpStatus, std::optional<int>(ok ? 200 : 503));
        QCOMPARE(attempts[i].succeeded(), ok);
        QVERIFY(attempts[i].startNs >= 0 && attempts[i].endNs >= attempts[i].startNs);
        if (i + 1 < attempts.size())
            QVERIFY(attempts[i].nextDelayMs >= 0);
        else
            QCOMPARE(attempts[i].nextDelayMs, -1.0);
        if (!ok)
            QVERIFY2(attempts[i].reason.contains(QLatin1String("503")), qPrintable(attempts[i].reason));
    }
    if (expectedOutcome == int(RequestOutcome::AttemptsExhausted))
        QVERIFY(result.reason.contains(QLatin1String("gave up after")));
}

void TestRetryExecutor::presets_retryScriptedFaults_data()
{
    QTest::addColumn<QString>("preset");
    // The delays between attempts are the backoff's: a hedging preset (grpc-hedging) sends its
    // attempts on the hedging delay instead, which tst_executorhedging checks.
    for (const auto &preset : Presets::all()) {
        if (!preset.policy.hedging.enabled)
            QTest::addRow("%s", qPrintable(preset.id)) << preset.id;
    }
}

void TestRetryExecutor::presets_retryScriptedFaults()
{
    QFETCH(QString, preset);
    const BackoffPolicy policy = scaled(*Presets::find(preset), 0.005);
    auto [executor, c] = underTest(policy);

    // Two transient server errors, then success: every preset retries 503 and allows >= 3 attempts.
    const Result<QString> created = m_server.createTest(
        {QStringLiteral("return-503"), QStringLiteral("return-503"), QStringLiteral("return-200")});
    QVERIFY2(created, qPrintable(created.error()));
    const QString testId = *created;
    RequestSpec spec;
    spec.url = url(QStringLiteral("/status/200"));
    spec.headers.append({QByteArray("X-Retry-Test-Id"), testId.toLatin1()});
    const quint64 id = executor.submit(spec);
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(id).has_value(), 30000);
    QCOMPARE(c.resultOf(id)->outcome, RequestOutcome::Succeeded);
    QCOMPARE(c.resultOf(id)->attempts, 3);
    QCOMPARE(m_server.consumedInstructions(testId), 3);

    // Delays follow the preset's own schedule (within the envelope).
    const auto attempts = c.attemptsOf(id);
    for (int i = 1; i < attempts.size(); ++i) {
        const auto range = Backoff::delayRange(policy, i - 1);
        QVERIFY2(attempts[i].plannedDelayMs >= range.minMs && attempts[i].plannedDelayMs <= range.maxMs,
            qPrintable(QStringLiteral("planned %1 outside [%2, %3]")
                           .arg(attempts[i].plannedDelayMs)
                           .arg(range.minMs)
                           .arg(range.maxMs)));
    }

    // A 401 is never retried by any preset.
    const quint64 denied = executor.submit(getSpec(url(QStringLiteral("/status/401"))));
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(denied).has_value(), 10000);
    QCOMPARE(c.resultOf(denied)->outcome, RequestOutcome::GaveUp);
    QCOMPARE(c.resultOf(denied)->attempts, 1);
}

void TestRetryExecutor::connectionFaults_areRetried_data()
{
    QTest::addColumn<QString>("instruction");
    QTest::addColumn<QString>("cause");
    QTest::addRow("reset") << "reset"
                           << "connection-reset";
    QTest::addRow("empty") << "empty"
                           << "connection-reset";
    QTest::addRow("broken stream") << "broken-stream"
                                   << "broken-stream";
    // Qt 6.4 often reports this one as a success with a short body.
    QTest::addRow("reset after headers") << "reset-after-headers"
                                         << "broken-stream";
    // Qt 6.4 reads a status line that does not start with "HTTP/" as a connection
    // closed before the response: after resending it reports RemoteHostClosedError.
    QTest::addRow("garbage") << "garbage"
                             << "connection-reset";
    QTest::addRow("503") << "return-503"
                         << "http-503";
    QTest::addRow("429") << "return-429"
                         << "http-429";
}

void TestRetryExecutor::connectionFaults_areRetried()
{
    QFETCH(QString, instruction);
    QFETCH(QString, cause);

    RetryExecutor executor;
    executor.setPolicy(fastPolicy(4, 10));
    Collector c(&executor);
    const Result<QString> created = m_server.createTest({instruction, QStringLiteral("return-200")});
    QVERIFY2(created, qPrintable(created.error()));
    const QString testId = *created;
    RequestSpec spec;
    spec.url = url(QStringLiteral("/status/200"));
    spec.headers.append({QByteArray("X-Retry-Test-Id"), testId.toLatin1()});
    const quint64 id = executor.submit(spec);
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(id).has_value(), 20000);

    const auto attempts = c.attemptsOf(id);
    QCOMPARE(attempts.size(), 2);
    QVERIFY2(
        attempts[0].cause.startsWith(cause), qPrintable(attempts[0].cause + QLatin1String(": ") + attempts[0].reason));
    QVERIFY(attempts[0].decision == Classification::Decision::RetryAfterDelay
        || attempts[0].decision == Classification::Decision::RetryImmediately);
    QCOMPARE(c.resultOf(id)->outcome, RequestOutcome::Succeeded);
}

void TestRetryExecutor::truncatedBody_reportedWithoutError_isBrokenStream()
{
    // With a busy event loop Qt 6.4 often finishes a reply whose connection was
    // reset after the headers without any error: only the body being shorter
    // than Content-Length tells. QSignalSpy::wait keeps the loop busy, as a GUI does.
    auto [executor, c] = underTest(fastPolicy(3, 5));
    QSignalSpy finished(&executor, &RetryExecutor::requestFinished);
    for (int i = 0; i < 10; ++i) {
        const QString testId
            = m_server.createTest({QStringLiteral("reset-after-headers"), QStringLiteral("return-200")}).value();
        RequestSpec spec = getSpec(url(QStringLiteral("/status/200")));
        spec.headers.append({QByteArray("X-Retry-Test-Id"), testId.toLatin1()});
        const quint64 id = executor.submit(spec);
        while (!c.resultOf(id))
            QVERIFY(finished.wait(10'000));
        const auto attempts = c.attemptsOf(id);
        QCOMPARE(attempts.size(), 2);
        QCOMPARE(attempts[0].end, AttemptEnd::NetworkError);
        QCOMPARE(c.resultOf(id)->outcome, RequestOutcome::Succeeded);
        if (!attempts[0].httpStatus) {
            // The reset overtook the headers in Qt's read (rare): a plain reset then.
            QCOMPARE(attempts[0].cause, QStringLiteral("connection-reset"));
            continue;
        }
        QCOMPARE(attempts[0].cause, QStringLiteral("broken-stream"));
        QCOMPARE(attempts[0].httpStatus, std::optional<int>(200));
        QCOMPARE(attempts[0].expectedBytes, 1024);
        QCOMPARE(attempts[0].bytesReceived, 0);
    }
}

void TestRetryExecutor::delays_actualNeverEarly_andAsOnTheWire()
{
    BackoffPolicy policy = fastPolicy(6, 40);
    policy.algorithm = BackoffAlgorithm::FullJitter;
    auto [executor, c] = underTest(policy);
    executor.setSeed(42);
    RequestSpec spec;
    spec.url = url(QStringLiteral("/fail/5?key=%1").arg(uniqueKey()));
    const quint64 id = executor.submit(spec);
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(id).has_value(), 20000);
    const auto attempts = c.attemptsOf(id);
    QCOMPARE(attempts.size(), 6);
    for (int i = 1; i < attempts.size(); ++i) {
        QCOMPARE(attempts[i].plannedDelayMs, attempts[i - 1].nextDelayMs);
        // Never early; late only by scheduling noise (generous on a shared machine:
        // how late, in milliseconds, is bench_executor's to measure, not a test's).
        QVERIFY2(attempts[i].actualDelayMs >= std::floor(attempts[i].plannedDelayMs) - 1.0,
            qPrintable(QStringLiteral("actual %1 < planned %2")
                           .arg(attempts[i].actualDelayMs)
                           .arg(attempts[i].plannedDelayMs)));
        QVERIFY2(attempts[i].actualDelayMs <= attempts[i].plannedDelayMs + timerSlackMs,
            qPrintable(QStringLiteral("actual %1 >> planned %2")
                           .arg(attempts[i].actualDelayMs)
                           .arg(attempts[i].plannedDelayMs)));
        // The gap between attempts on the wire matches the recorded delay.
        const double gapMs = (attempts[i].startNs - attempts[i - 1].endNs) / 1e6;
        QVERIFY(gapMs >= attempts[i].actualDelayMs - 1.0);
    }
}

void TestRetryExecutor::seed_eachRequestDrawsFromItsOwnStream()
{
    BackoffPolicy policy = fastPolicy(4, 20);
    policy.algorithm = BackoffAlgorithm::FullJitter;
    auto [executor, c] = underTest(policy);
    const auto delaysOf = [&c = c](quint64 id) {
        QList<double> delays;
        for (const AttemptRecord &a : c.attemptsOf(id))
            delays.append(a.nextDelayMs);
        return delays;
    };
    const auto spec = [this](quint64 stream) {
        RequestSpec s = getSpec(url(QStringLiteral("/status/503")));
        s.seed = 4242;
        s.seedStream = stream;
        return s;
    };
    const quint64 alone = executor.submit(spec(0));
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(alone).has_value(), 10000);
    const QList<double> first = delaysOf(alone);
    QCOMPARE(first.size(), 4);

    // Another request of the same run draws in between: stream 0 draws the same delays all the same.
    const quint64 other = executor.submit(spec(1));
    const quint64 again = executor.submit(spec(0));
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(again).has_value() && c.resultOf(other).has_value(), 10000);
    QCOMPARE(delaysOf(again), first);
    QVERIFY(delaysOf(other) != first);

    // Another seed, other delays.
    RequestSpec reseeded = spec(0);
    reseeded.seed = 4243;
    const quint64 third = executor.submit(reseeded);
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(third).has_value(), 10000);
    QVERIFY(delaysOf(third) != first);
}

void TestRetryExecutor::attemptsExhausted_reportsLastCause()
{
    auto [executor, c] = underTest(fastPolicy(3, 5));
    const quint64 id = executor.submit(getSpec(url(QStringLiteral("/status/502"))));
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(id).has_value(), 10000);
    QCOMPARE(c.resultOf(id)->outcome, RequestOutcome::AttemptsExhausted);
    QCOMPARE(c.resultOf(id)->attempts, 3);
    QCOMPARE(c.resultOf(id)->finalStatus, std::optional<int>(502));
    QVERIFY(c.resultOf(id)->reason.contains(QLatin1String("502")));
}

void TestRetryExecutor::attemptTimeout_isDistinctFromNetworkError()
{
    BackoffPolicy policy = fastPolicy(2, 5);
    policy.attemptTimeoutMs = 150;
    auto [executor, c] = underTest(policy);
    const quint64 id = executor.submit(getSpec(url(QStringLiteral("/fault/stall"))));
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(id).has_value(), 10000);
    const auto attempts = c.attemptsOf(id);
    QCOMPARE(attempts.size(), 2);
    for (const auto &a : attempts) {
        QCOMPARE(a.end, AttemptEnd::AttemptTimeout);
        QCOMPARE(a.cause, QStringLiteral("attempt-timeout"));
        QVERIFY(a.durationMs() >= 149 && a.durationMs() < 2000);
    }
    QCOMPARE(c.resultOf(id)->outcome, RequestOutcome::AttemptsExhausted);
}

void TestRetryExecutor::deadline_cutsAttemptInFlight()
{
    BackoffPolicy policy = fastPolicy(10, 5);
    policy.deadlineMs = 300;
    policy.attemptTimeoutMs = 0;
    auto [executor, c] = underTest(policy);
    const quint64 id = executor.submit(getSpec(url(QStringLiteral("/fault/stall"))));
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(id).has_value(), 10000);
    QCOMPARE(c.resultOf(id)->outcome, RequestOutcome::DeadlineExceeded);
    const auto attempts = c.attemptsOf(id);
    QCOMPARE(attempts.size(), 1);
    QCOMPARE(attempts[0].end, AttemptEnd::Deadline);
    QCOMPARE(attempts[0].cause, QStringLiteral("deadline"));
    // total time never past the deadline beyond a small bound
    QVERIFY2(c.resultOf(id)->totalMs() < 300 + timerSlackMs, qPrintable(QString::number(c.resultOf(id)->totalMs())));
}

void TestRetryExecutor::deadline_dueWithTheAttemptTimeout_endsTheAttemptAsDeadline()
{
    // Both due at once: the attempt timeout's wake-up, set a moment after the
    // deadline's, may run first. The deadline passed, so it is the deadline that
    // ends the attempt (not a timeout counted against the breaker and budget).
    BackoffPolicy policy = fastPolicy(10, 5);
    policy.deadlineMs = 300;
    policy.attemptTimeoutMs = 300;
    auto [executor, c] = underTest(policy);
    for (int round = 0; round < 3; ++round) {
        const quint64 id = executor.submit(getSpec(url(QStringLiteral("/fault/stall"))));
        QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(id).has_value(), 10000);
        QCOMPARE(c.resultOf(id)->outcome, RequestOutcome::DeadlineExceeded);
        const auto attempts = c.attemptsOf(id);
        QCOMPARE(attempts.size(), 1);
        QCOMPARE(attempts[0].end, AttemptEnd::Deadline);
        QCOMPARE(attempts[0].cause, QStringLiteral("deadline"));
    }
}

void TestRetryExecutor::deadline_neverSleepsIntoCertainFailure()
{
    BackoffPolicy policy = fastPolicy(0, 100); // no attempt limit: only the deadline bounds it
    policy.deadlineMs = 2000;
    auto [executor, c] = underTest(policy);
    const quint64 id = executor.submit(getSpec(url(QStringLiteral("/status/503"))));
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(id).has_value(), 10000);
    const auto result = *c.resultOf(id);
    QCOMPARE(result.outcome, RequestOutcome::DeadlineExceeded);
    // 100 + 200 + 400 + 800 = 1,500 ms of sleep fit (with 500 ms to spare for five
    // answers); the next 1,600 ms would cross 2,000 ms: give up at once
    QCOMPARE(result.attempts, 5);
    QVERIFY(result.reason.contains(QLatin1String("would start after the deadline")));
    QVERIFY2(result.totalMs() < 2000, qPrintable(QString::number(result.totalMs())));
}

void TestRetryExecutor::retryAfter_isHonoured()
{
    RetryExecutor executor;
    executor.setPolicy(fastPolicy(3, 5));
    Collector c(&executor);
    const Result<QString> created
        = m_server.createTest({QStringLiteral("return-429-after-1s"), QStringLiteral("return-200")});
    QVERIFY2(created, qPrintable(created.error()));
    const QString testId = *created;
    RequestSpec spec;
    spec.url = url(QStringLiteral("/status/200"));
    spec.headers.append({QByteArray("X-Retry-Test-Id"), testId.toLatin1()});
    const quint64 id = executor.submit(spec);
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(id).has_value(), 10000);
    const auto attempts = c.attemptsOf(id);
    QCOMPARE(attempts.size(), 2);
    QCOMPARE(attempts[0].retryAfterMs, std::optional<double>(1000.0));
    QCOMPARE(attempts[0].nextDelayMs, 1000.0);
    QVERIFY(attempts[1].actualDelayMs >= 999.0);
}

void TestRetryExecutor::retryAfter_isBounded()
{
    BackoffPolicy policy = fastPolicy(3, 5);
    policy.classification.maxRetryAfterMs = 200;
    auto [executor, c] = underTest(policy);
    const quint64 id = executor.submit(getSpec(url(QStringLiteral("/status/503?retry_after=86400"))));
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(id).has_value(), 10000);
    const auto attempts = c.attemptsOf(id);
    QCOMPARE(attempts.size(), 3);
    QCOMPARE(attempts[0].retryAfterMs, std::optional<double>(86'400'000.0));
    QCOMPARE(attempts[0].nextDelayMs, 200.0);
}

void TestRetryExecutor::retryAfter_beyondDeadline_failsFast()
{
    BackoffPolicy policy = fastPolicy(5, 5);
    policy.deadlineMs = 2000;
    auto [executor, c] = underTest(policy);
    const quint64 id = executor.submit(getSpec(url(QStringLiteral("/status/429?retry_after=30"))));
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(id).has_value(), 10000);
    const auto result = *c.resultOf(id);
    QCOMPARE(result.outcome, RequestOutcome::DeadlineExceeded);
    QCOMPARE(result.attempts, 1);
    QVERIFY2(result.reason.contains(QLatin1String("giving up now")), qPrintable(result.reason));
    QVERIFY(result.totalMs() < 1000);
}

void TestRetryExecutor::status404_retriedOnlyWhenPolicySaysSo()
{
    for (const QString &preset : {QStringLiteral("iam"), QStringLiteral("iam-retry-404")}) {
        RetryExecutor executor;
        BackoffPolicy policy = scaled(*Presets::find(preset), 0.01); // base 10 ms, deadline 3 s
        executor.setPolicy(policy);
        Collector c(&executor);
        const QString name = uniqueKey();
        // Create the resource, then read it while it is still invisible (eventual consistency).
        QNetworkAccessManager manager;
        QNetworkRequest put(url(QStringLiteral("/eventual/%1?hidden_ms=150").arg(name)));
        QNetworkReply *created = manager.put(put, QByteArray("{}"));
        QTRY_VERIFY_WITH_TIMEOUT(created->isFinished(), 5000);
        QCOMPARE(created->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 201);
        created->deleteLater();

        const quint64 id = executor.submit(getSpec(url(QStringLiteral("/eventual/%1").arg(name))));
        QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(id).has_value(), 10000);
        if (preset == QLatin1String("iam")) {
            QCOMPARE(c.resultOf(id)->outcome, RequestOutcome::GaveUp);
            QCOMPARE(c.resultOf(id)->attempts, 1);
            QCOMPARE(c.resultOf(id)->finalStatus, std::optional<int>(404));
        } else {
            QCOMPARE(c.resultOf(id)->outcome, RequestOutcome::Succeeded);
            QVERIFY(c.resultOf(id)->attempts >= 2);
            QCOMPARE(c.attemptsOf(id).first().httpStatus, std::optional<int>(404));
        }
    }
}

void TestRetryExecutor::post_notRetriedWithoutIdempotencyMark()
{
    auto [executor, c] = underTest(fastPolicy(4, 5));
    RequestSpec spec;
    spec.method = "POST";
    spec.body = "{\"order\":1}";
    spec.url = url(QStringLiteral("/fail/2?key=%1").arg(uniqueKey()));
    const quint64 id = executor.submit(spec);
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(id).has_value(), 10000);
    QCOMPARE(c.resultOf(id)->outcome, RequestOutcome::GaveUp);
    QCOMPARE(c.resultOf(id)->attempts, 1);
    QVERIFY2(c.resultOf(id)->reason.contains(QLatin1String("not idempotent")), qPrintable(c.resultOf(id)->reason));

    spec.idempotent = true;
    spec.url = url(QStringLiteral("/fail/2?key=%1").arg(uniqueKey()));
    const quint64 marked = executor.submit(spec);
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(marked).has_value(), 10000);
    QCOMPARE(c.resultOf(marked)->outcome, RequestOutcome::Succeeded);
    QCOMPARE(c.resultOf(marked)->attempts, 3);
}

void TestRetryExecutor::post_retriedWithIdempotencyKey()
{
    auto [executor, c] = underTest(fastPolicy(4, 5));
    RequestSpec spec;
    spec.method = "PATCH";
    spec.body = "x";
    spec.headers.append({QByteArray("Idempotency-Key"), QByteArray("8e03978e")});
    spec.url = url(QStringLiteral("/fail/1?key=%1").arg(uniqueKey()));
    const quint64 id = executor.submit(spec);
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(id).has_value(), 10000);
    QCOMPARE(c.resultOf(id)->outcome, RequestOutcome::Succeeded);
    QCOMPARE(c.resultOf(id)->attempts, 2);
}

void TestRetryExecutor::cancel_oneRequest()
{
    BackoffPolicy policy = fastPolicy(5, 5);
    policy.attemptTimeoutMs = 0;
    auto [executor, c] = underTest(policy);
    QSignalSpy started(&executor, &RetryExecutor::attemptStarted);
    const quint64 stalled = executor.submit(getSpec(url(QStringLiteral("/fault/stall"))));
    const quint64 other = executor.submit(getSpec(url(QStringLiteral("/status/200"))));
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(other).has_value(), 10000);
    QTRY_VERIFY_WITH_TIMEOUT(started.size() >= 2, 5000);
    executor.cancel(stalled);
    QVERIFY(c.resultOf(stalled).has_value());
    QCOMPARE(c.resultOf(stalled)->outcome, RequestOutcome::Cancelled);
    QCOMPARE(c.attemptsOf(stalled).size(), 1);
    QCOMPARE(c.attemptsOf(stalled).first().end, AttemptEnd::Cancelled);
    QCOMPARE(c.attemptsOf(stalled).first().cause, QStringLiteral("cancelled"));
    QCOMPARE(executor.inFlightCount(), 0);
}

void TestRetryExecutor::cancelAll_stopsTimersAndReplies()
{
    BackoffPolicy policy = fastPolicy(5, 60'000); // the retry would wait a minute
    policy.maxBackoffMs = 60'000; // a cap below the base makes the policy unusable
    auto [executor, c] = underTest(policy);
    executor.setConcurrencyLimit(2);
    QSignalSpy retries(&executor, &RetryExecutor::retryScheduled);
    QSignalSpy idle(&executor, &RetryExecutor::idle);
    const quint64 sleeping = executor.submit(getSpec(url(QStringLiteral("/status/503"))));
    QTRY_COMPARE_WITH_TIMEOUT(retries.size(), 1, 5000);
    QList<quint64> ids{sleeping};
    for (int i = 0; i < 5; ++i)
        ids.append(executor.submit(getSpec(url(QStringLiteral("/fault/stall")))));
    QTRY_COMPARE_WITH_TIMEOUT(executor.inFlightCount(), 2, 5000);
    executor.cancelAll();
    QCOMPARE(c.results.size(), 6);
    for (quint64 id : ids)
        QCOMPARE(c.resultOf(id)->outcome, RequestOutcome::Cancelled);
    QCOMPARE(executor.activeCount(), 0);
    QCOMPARE(executor.inFlightCount(), 0);
    QCOMPARE(idle.size(), 1);
}

void TestRetryExecutor::invalidRequest_isRefusedWithReason()
{
    auto [executor, c] = underTest(fastPolicy());
    const quint64 badUrl = executor.submit(getSpec(QUrl(QStringLiteral("http://"))));
    const quint64 badScheme = executor.submit(getSpec(QUrl(QStringLiteral("ftp://127.0.0.1/x"))));
    QVERIFY(badUrl != badScheme);
    QVERIFY(c.results.isEmpty()); // reported after submit() returns
    QTRY_COMPARE_WITH_TIMEOUT(c.results.size(), 2, 5000);
    QCOMPARE(c.resultOf(badUrl)->outcome, RequestOutcome::InvalidRequest);
    QCOMPARE(c.resultOf(badScheme)->outcome, RequestOutcome::InvalidRequest);
    QVERIFY(c.resultOf(badScheme)->reason.contains(QLatin1String("ftp")));
    QCOMPARE(c.attempts.size(), 0);

    // A password in the user info never reaches the reason, however the URL is broken.
    for (const char *text : {"http://user:pw-secret@host:99999/x", "http://user:pw-secret@/path",
             "http://user:pw-secret@ho st/x?token=tok-secret"}) {
        const quint64 id = executor.submit(getSpec(QUrl(QString::fromLatin1(text))));
        QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(id).has_value(), 5000);
        const QString reason = c.resultOf(id)->reason;
        QCOMPARE(c.resultOf(id)->outcome, RequestOutcome::InvalidRequest);
        QVERIFY2(reason.contains(QLatin1String("not valid")), qPrintable(reason));
        QVERIFY2(!reason.contains(QLatin1String("secret")), qPrintable(reason));
    }

    BackoffPolicy broken = fastPolicy();
    broken.baseDelayMs = std::nan("");
    executor.setPolicy(broken);
    const quint64 badPolicy = executor.submit(getSpec(url(QStringLiteral("/status/200"))));
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(badPolicy).has_value(), 5000);
    QCOMPARE(c.resultOf(badPolicy)->outcome, RequestOutcome::InvalidRequest);
    QVERIFY(c.resultOf(badPolicy)->reason.contains(QLatin1String("policy")));
}

void TestRetryExecutor::circuitBreaker_throughAllThreeStates()
{
    BackoffPolicy policy = fastPolicy(1, 5); // no retries: each request is one outcome
    policy.circuitBreaker.enabled = true;
    policy.circuitBreaker.consecutiveFailures = 3;
    policy.circuitBreaker.openMs = 3000; // over two seconds, where Qt's default timer is coarse and may wake early
    policy.circuitBreaker.halfOpenTrials = 1;
    auto [executor, c] = underTest(policy);
    executor.setConcurrencyLimit(1);
    QSignalSpy states(&executor, &RetryExecutor::circuitStateChanged);

    QList<quint64> failing;
    for (int i = 0; i < 3; ++i)
        failing.append(executor.submit(getSpec(url(QStringLiteral("/status/503")))));
    QTRY_COMPARE_WITH_TIMEOUT(c.results.size(), 3, 10000);
    const QString host = executor.hosts().value(0);
    QCOMPARE(executor.circuitState(host), CircuitBreaker::State::Open);

    const quint64 rejected = executor.submit(getSpec(url(QStringLiteral("/status/200"))));
    QVERIFY(!c.resultOf(rejected).has_value()); // reported after submit() returns, like any result
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(rejected).has_value(), 5000);
    QCOMPARE(c.resultOf(rejected)->outcome, RequestOutcome::CircuitOpen);
    QCOMPARE(c.resultOf(rejected)->attempts, 0);
    QVERIFY(c.resultOf(rejected)->reason.contains(QLatin1String("circuit open")));

    // after the open period the state change is signalled without any request
    QTRY_COMPARE_WITH_TIMEOUT(executor.circuitState(host), CircuitBreaker::State::HalfOpen, 15'000);
    QTRY_VERIFY_WITH_TIMEOUT(
        !states.isEmpty() && states.last().at(1).value<CircuitBreaker::State>() == CircuitBreaker::State::HalfOpen,
        5000);
    const quint64 trial = executor.submit(getSpec(url(QStringLiteral("/status/200"))));
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(trial).has_value(), 5000);
    QCOMPARE(c.resultOf(trial)->outcome, RequestOutcome::Succeeded);
    QCOMPARE(executor.circuitState(host), CircuitBreaker::State::Closed);

    QList<CircuitBreaker::State> seen;
    for (const auto &args : states)
        seen.append(args.at(1).value<CircuitBreaker::State>());
    QCOMPARE(seen,
        (QList<CircuitBreaker::State>{
            CircuitBreaker::State::Open, CircuitBreaker::State::HalfOpen, CircuitBreaker::State::Closed}));
}

void TestRetryExecutor::budget_exhaustion_failsWithReason()
{
    BackoffPolicy policy = fastPolicy(10, 1);
    policy.maxBackoffMs = 2;
    policy.retryBudget.kind = RetryBudgetKind::AwsStandard;
    policy.retryBudget.awsCapacity = 20; // four retries in all
    auto [executor, c] = underTest(policy);
    QSignalSpy budget(&executor, &RetryExecutor::budgetChanged);
    const quint64 id = executor.submit(getSpec(url(QStringLiteral("/status/500"))));
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(id).has_value(), 10000);
    QCOMPARE(c.resultOf(id)->outcome, RequestOutcome::BudgetExhausted);
    QCOMPARE(c.resultOf(id)->attempts, 5);
    QVERIFY(c.resultOf(id)->reason.contains(QLatin1String("retry budget")));
    QCOMPARE(executor.budgetTokens(), 0.0);
    QVERIFY(!budget.isEmpty());
    QCOMPARE(budget.last().at(0).toDouble(), 0.0);

    // a success refunds a token; still not enough for a retry
    const quint64 ok = executor.submit(getSpec(url(QStringLiteral("/status/200"))));
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(ok).has_value(), 10000);
    QCOMPARE(executor.budgetTokens(), 1.0);
}

void TestRetryExecutor::readModifyWrite_tenWriters_valueIsExact()
{
    BackoffPolicy policy = fastPolicy(50, 2);
    policy.algorithm = BackoffAlgorithm::FullJitter;
    policy.maxBackoffMs = 50;
    auto [executor, c] = underTest(policy);
    executor.setConcurrencyLimit(10);
    const QString name = uniqueKey();
    QList<quint64> ids;
    for (int i = 0; i < 10; ++i) {
        RequestSpec spec;
        spec.kind = RequestSpec::Kind::ReadModifyWrite;
        spec.url = url(QStringLiteral("/occ/%1?delay_ms=5").arg(name));
        ids.append(executor.submit(spec));
    }
    QTRY_COMPARE_WITH_TIMEOUT(c.results.size(), 10, 30000);
    for (quint64 id : ids)
        QCOMPARE(c.resultOf(id)->outcome, RequestOutcome::Succeeded);

    bool sawConflict = false;
    for (const auto &a : c.attempts) {
        if (a.httpStatus == 409) {
            sawConflict = true;
            QCOMPARE(a.step, QStringLiteral("write"));
            QCOMPARE(a.cause, QStringLiteral("http-409-aborted"));
        }
    }
    QVERIFY2(sawConflict, "ten concurrent writers should have collided at least once");

    QNetworkAccessManager manager;
    QNetworkReply *reply = manager.get(QNetworkRequest(url(QStringLiteral("/occ/%1").arg(name))));
    QTRY_VERIFY_WITH_TIMEOUT(reply->isFinished(), 5000);
    const QJsonObject object = QJsonDocument::fromJson(reply->readAll()).object();
    QCOMPARE(object.value(QStringLiteral("value")).toInteger(), 10);
    reply->deleteLater();
}

void TestRetryExecutor::concurrencyLimit_queueTimeIsRecorded()
{
    BackoffPolicy policy = fastPolicy(1, 5);
    policy.attemptTimeoutMs = 1000; // queue time must not count against it
    auto [executor, c] = underTest(policy);
    executor.setConcurrencyLimit(2);
    int maxInFlight = 0;
    connect(&executor, &RetryExecutor::attemptStarted, this,
        [&] { maxInFlight = std::max(maxInFlight, executor.inFlightCount()); });
    for (int i = 0; i < 8; ++i)
        executor.submit(getSpec(url(QStringLiteral("/delay/300"))));
    QTRY_COMPARE_WITH_TIMEOUT(c.results.size(), 8, 20000);
    QCOMPARE(maxInFlight, 2);
    double maxQueuedMs = 0;
    for (const auto &r : c.results)
        QCOMPARE(r.outcome, RequestOutcome::Succeeded);
    for (const auto &a : c.attempts)
        maxQueuedMs = std::max(maxQueuedMs, a.queuedNs / 1e6);
    // the last pair waited for three pairs of 300 ms: far beyond the 1 s timeout in total
    QVERIFY2(maxQueuedMs >= 850, qPrintable(QString::number(maxQueuedMs)));
}

void TestRetryExecutor::concurrencyLimit_slotFreedByBackoff_startsQueuedRequest()
{
    // A request sleeping before its retry holds no slot: the queued one goes at once.
    auto [executor, c] = underTest(fastPolicy(2, 600));
    executor.setConcurrencyLimit(1);
    const quint64 failing = executor.submit(getSpec(url(QStringLiteral("/status/503"))));
    const quint64 waiting = executor.submit(getSpec(url(QStringLiteral("/status/200"))));
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(waiting).has_value(), 10000);
    QCOMPARE(c.resultOf(waiting)->outcome, RequestOutcome::Succeeded);
    QVERIFY2(!c.resultOf(failing).has_value(), "the waiting request should not wait for the other's backoff");
    const AttemptRecord first = c.attemptsOf(waiting).value(0);
    QVERIFY2(first.queuedNs / 1e6 < 400, qPrintable(QString::number(first.queuedNs / 1e6)));
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(failing).has_value(), 10000);
    QCOMPARE(c.resultOf(failing)->attempts, 2);
}

void TestRetryExecutor::thousandConcurrentRequests_allComplete()
{
    BackoffPolicy policy = fastPolicy(5, 10);
    policy.algorithm = BackoffAlgorithm::FullJitter;
    policy.maxBackoffMs = 100;
    policy.attemptTimeoutMs = 20'000;
    auto [executor, c] = underTest(policy);
    executor.setConcurrencyLimit(1000);
    QSignalSpy idle(&executor, &RetryExecutor::idle);
    const QString prefix = uniqueKey();
    for (int i = 0; i < 1000; ++i)
        executor.submit(getSpec(url(QStringLiteral("/fail/2?key=%1-%2").arg(prefix).arg(i))));
    QTRY_COMPARE_WITH_TIMEOUT(idle.size(), 1, 120'000);
    QCOMPARE(c.results.size(), 1000);
    QCOMPARE(c.attempts.size(), 3000);
    QHash<quint64, int> perRequest;
    for (const auto &r : c.results) {
        QCOMPARE(r.outcome, RequestOutcome::Succeeded);
        QCOMPARE(r.attempts, 3);
    }
    for (const auto &a : c.attempts) {
        const int index = perRequest[a.requestId]++;
        QCOMPARE(a.attemptIndex, index);
        QCOMPARE(a.httpStatus, std::optional<int>(index < 2 ? 503 : 200));
    }
    QCOMPARE(perRequest.size(), 1000);
}

void TestRetryExecutor::timingPoints_areRecorded()
{
    auto [executor, c] = underTest(fastPolicy(1));
    const quint64 id = executor.submit(getSpec(url(QStringLiteral("/delay/50"))));
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(id).has_value(), 10000);
    const auto a = c.attemptsOf(id).value(0);
    QVERIFY(a.requestSentNs >= a.startNs);
    QVERIFY(a.firstByteNs >= a.requestSentNs);
    QVERIFY((a.firstByteNs - a.startNs) / 1e6 >= 50); // the start is taken before the request goes out
    QVERIFY(a.finishedNs >= a.firstByteNs);
    QVERIFY(a.bytesReceived > 0);
    QVERIFY(a.startWall.isValid());
}

void TestRetryExecutor::sharedManager_isUsedAsConfigured_andExtrasCopyIt()
{
    QNetworkAccessManager shared;
    shared.setAutoDeleteReplies(true);
    shared.setTransferTimeout(150);
    QSignalSpy viaShared(&shared, &QNetworkAccessManager::finished);
    BackoffPolicy policy = fastPolicy(2, 5);
    policy.attemptTimeoutMs = 0; // only Qt's transfer timeout ends these
    RetryExecutor executor(&shared);
    executor.setPolicy(policy);
    executor.setConcurrencyLimit(12);
    Collector c(&executor);
    for (int i = 0; i < 12; ++i)
        executor.submit(getSpec(url(QStringLiteral("/fault/stall"))));
    QTRY_COMPARE_WITH_TIMEOUT(c.results.size(), 12, 20'000);

    // Six connections per manager: the first six attempts went through the
    // shared manager, the other six through managers that copied its timeout.
    QVERIFY2(viaShared.size() >= 6 && viaShared.size() < 24, qPrintable(QString::number(viaShared.size())));
    QCOMPARE(c.attempts.size(), 24);
    for (const auto &a : std::as_const(c.attempts)) {
        QCOMPARE(a.end, AttemptEnd::NetworkError);
        QCOMPARE(a.networkError, QNetworkReply::OperationCanceledError);
        // Qt's own transfer timeout is a timeout, not an unknown error.
        QCOMPARE(a.cause, QStringLiteral("timeout"));
        QVERIFY2(a.durationMs() >= 140 && a.durationMs() < 5000, qPrintable(QString::number(a.durationMs())));
    }
    for (const auto &r : std::as_const(c.results))
        QCOMPARE(r.outcome, RequestOutcome::AttemptsExhausted);
    // The caller's manager is left as it was configured.
    QVERIFY(shared.autoDeleteReplies());
    QCOMPARE(shared.transferTimeout(), 150);
}

void TestRetryExecutor::sharedManager_ownersRepliesAreLeftAlone()
{
    // The executor hears every reply of a manager it was given end (the
    // manager's finished()): those its owner sent are not its business.
    QNetworkAccessManager shared;
    RetryExecutor executor(&shared);
    executor.setPolicy(fastPolicy(2, 5));
    Collector c(&executor);
    for (int i = 0; i < 3; ++i)
        executor.submit(getSpec(url(QStringLiteral("/status/503"))));
    QPointer<QNetworkReply> own = shared.get(QNetworkRequest(url(QStringLiteral("/status/200"))));
    QTRY_COMPARE_WITH_TIMEOUT(c.results.size(), 3, 10'000);
    QTRY_VERIFY_WITH_TIMEOUT(own && own->isFinished(), 10'000);
    QCOMPARE(own->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
    QCOMPARE(own->readAll().trimmed(), QByteArray(R"({"status":200})"));
    for (const auto &r : std::as_const(c.results))
        QCOMPARE(r.outcome, RequestOutcome::AttemptsExhausted);
    QCOMPARE(c.attempts.size(), 6);
    for (const auto &a : std::as_const(c.attempts))
        QCOMPARE(a.httpStatus, 503);
    delete own;
}

void TestRetryExecutor::signals_everyStepInOrder_withCompleteRecords()
{
    RetryExecutor &executor = underTest(fastPolicy(5, 5)).executor;
    QStringList events;
    QList<AttemptRecord> records;
    connect(&executor, &RetryExecutor::attemptStarted, this,
        [&](quint64, int index) { events.append(QStringLiteral("started %1").arg(index)); });
    connect(&executor, &RetryExecutor::attemptFinished, this, [&](const AttemptRecord &r) {
        events.append(QStringLiteral("finished %1").arg(r.attemptIndex));
        records.append(r);
    });
    connect(&executor, &RetryExecutor::retryScheduled, this,
        [&](quint64, int next, double delayMs, const QString &reason, int left) {
            QVERIFY(delayMs >= 0.0);
            QVERIFY(reason.contains(QLatin1String("503")));
            events.append(QStringLiteral("retry %1 left %2").arg(next).arg(left));
        });
    connect(&executor, &RetryExecutor::requestFinished, this,
        [&](const RequestResult &r) { events.append(QStringLiteral("done %1").arg(requestOutcomeName(r.outcome))); });
    connect(&executor, &RetryExecutor::idle, this, [&] { events.append(QStringLiteral("idle")); });

    const QString key = uniqueKey();
    executor.submit(getSpec(url(QStringLiteral("/fail/2?key=%1&retry_after=0").arg(key))));
    QTRY_VERIFY_WITH_TIMEOUT(events.contains(QStringLiteral("idle")), 10'000);
    QCOMPARE(events,
        (QStringList{QStringLiteral("started 0"), QStringLiteral("finished 0"), QStringLiteral("retry 1 left 4"),
            QStringLiteral("started 1"), QStringLiteral("finished 1"), QStringLiteral("retry 2 left 3"),
            QStringLiteral("started 2"), QStringLiteral("finished 2"), QStringLiteral("done succeeded"),
            QStringLiteral("idle")}));

    QCOMPARE(records.size(), 3);
    for (int i = 0; i < 3; ++i) {
        const AttemptRecord &a = records[i];
        QVERIFY(a.requestId > 0);
        QCOMPARE(a.attemptIndex, i);
        QCOMPARE(a.method, QByteArray("GET"));
        QCOMPARE(a.url.path(), QStringLiteral("/fail/2"));
        QVERIFY(a.startWall.isValid());
        QVERIFY(a.queuedNs >= 0);
        QVERIFY(a.startNs >= 0 && a.endNs >= a.startNs);
        QVERIFY(a.requestSentNs >= a.startNs);
        QVERIFY(a.firstByteNs >= a.requestSentNs);
        QVERIFY(a.finishedNs >= a.firstByteNs);
        QCOMPARE(a.end, AttemptEnd::Response);
        QCOMPARE(a.httpStatus, std::optional<int>(i < 2 ? 503 : 200));
        QCOMPARE(a.networkError, i < 2 ? QNetworkReply::ServiceUnavailableError : QNetworkReply::NoError);
        QVERIFY(a.bytesReceived > 0);
        QCOMPARE(a.expectedBytes, a.bytesReceived);
        QCOMPARE(headerOf(a.responseHeaders, "X-RetryLab-Action"), QByteArray("respond"));
        QCOMPARE(headerOf(a.requestHeaders, "X-Retry-Attempt"), QByteArray::number(i + 1));
        QVERIFY(!a.reason.isEmpty());
        if (i < 2) {
            QCOMPARE(a.decision, Classification::Decision::RetryAfterDelay);
            QCOMPARE(a.cause, QStringLiteral("http-503"));
            QCOMPARE(a.retryAfterRaw, QByteArray("0"));
            QCOMPARE(a.retryAfterMs, std::optional<double>(0.0));
            QCOMPARE(a.nextDelayMs, 0.0); // Retry-After: 0 replaces the backoff
        } else {
            QVERIFY(a.succeeded());
            QCOMPARE(a.nextDelayMs, -1.0);
        }
        if (i > 0) {
            QCOMPARE(a.plannedDelayMs, records[i - 1].nextDelayMs);
            QVERIFY(a.actualDelayMs >= 0.0);
        }
    }
    QVERIFY(records[0].connectionStartedNs >= records[0].startNs); // a new connection
}

void TestRetryExecutor::attemptHeaders_identifyAttempts_andCanBeSwitchedOff()
{
    auto [executor, c] = underTest(fastPolicy(3, 5));
    QVERIFY(executor.attemptHeadersEnabled());
    RequestSpec spec = getSpec(url(QStringLiteral("/fail/1?key=%1").arg(uniqueKey())));
    spec.headers.append({QByteArray("X-Retry-Attempt"), QByteArray("999")}); // replaced, not doubled
    const quint64 id = executor.submit(spec);
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(id).has_value(), 10'000);
    const auto attempts = c.attemptsOf(id);
    QCOMPARE(attempts.size(), 2);
    const QByteArray requestId = headerOf(attempts[0].requestHeaders, "X-Retry-Request-Id");
    QVERIFY(requestId.endsWith(QByteArray("-" + QByteArray::number(id))));
    QCOMPARE(headerOf(attempts[1].requestHeaders, "X-Retry-Request-Id"), requestId);
    QCOMPARE(headerOf(attempts[0].requestHeaders, "X-Retry-Attempt"), QByteArray("1"));
    QCOMPARE(headerOf(attempts[1].requestHeaders, "X-Retry-Attempt"), QByteArray("2"));
    const auto served = m_server.log();
    QCOMPARE(served.size(), 2);
    QCOMPARE(served[0].clientAttempt, QStringLiteral("1"));
    QCOMPARE(served[1].clientAttempt, QStringLiteral("2"));

    // Another executor numbers its requests apart from this one.
    RetryExecutor other;
    other.setPolicy(fastPolicy(1));
    Collector oc(&other);
    const quint64 otherId = other.submit(getSpec(url(QStringLiteral("/status/200"))));
    QTRY_VERIFY_WITH_TIMEOUT(oc.resultOf(otherId).has_value(), 10'000);
    QVERIFY(headerOf(oc.attempts.first().requestHeaders, "X-Retry-Request-Id") != requestId);

    other.setAttemptHeadersEnabled(false);
    const quint64 plain = other.submit(getSpec(url(QStringLiteral("/status/200"))));
    QTRY_VERIFY_WITH_TIMEOUT(oc.resultOf(plain).has_value(), 10'000);
    QVERIFY(!headerValue(oc.attemptsOf(plain).first().requestHeaders, "X-Retry-Attempt"));
    QVERIFY(!headerValue(oc.attemptsOf(plain).first().requestHeaders, "X-Retry-Request-Id"));
    QCOMPARE(m_server.log().last().clientAttempt, QString());

    // Or per request: this one goes without them, the executor's others keep them.
    other.setAttemptHeadersEnabled(true);
    RequestSpec untagged = getSpec(url(QStringLiteral("/status/200")));
    untagged.attemptHeaders = false;
    const quint64 bare = other.submit(untagged);
    QTRY_VERIFY_WITH_TIMEOUT(oc.resultOf(bare).has_value(), 10'000);
    QVERIFY(!headerValue(oc.attemptsOf(bare).first().requestHeaders, "X-Retry-Attempt"));
    QCOMPARE(m_server.log().last().clientAttempt, QString());
    const quint64 tagged = other.submit(getSpec(url(QStringLiteral("/status/200"))));
    QTRY_VERIFY_WITH_TIMEOUT(oc.resultOf(tagged).has_value(), 10'000);
    QCOMPARE(headerOf(oc.attemptsOf(tagged).first().requestHeaders, "X-Retry-Attempt"), QByteArray("1"));
}

void TestRetryExecutor::logging_everyRetryAndEveryFinalFailure()
{
    QLoggingCategory::setFilterRules(QStringLiteral("retrylab.core.executor.info=true"));
    const auto restore
        = qScopeGuard([] { QLoggingCategory::setFilterRules(QStringLiteral("retrylab.core.executor.info=false")); });
    MessageCapture capture;
    const QString category = QStringLiteral("retrylab.core.executor");

    auto [executor, c] = underTest(fastPolicy(3, 5));
    const quint64 exhausted = executor.submit(getSpec(url(QStringLiteral("/status/503"))));
    const quint64 refused = executor.submit(getSpec(url(QStringLiteral("/status/401"))));
    const quint64 fine = executor.submit(getSpec(url(QStringLiteral("/status/200"))));
    QTRY_COMPARE_WITH_TIMEOUT(c.results.size(), 3, 10'000);

    const auto retries = capture.messages(QtInfoMsg, category);
    QCOMPARE(retries.size(), 2); // one per retry of the 503 request
    QVERIFY2(retries[0].text.contains(QStringLiteral("request %1 attempt 1 failed").arg(exhausted)),
        qPrintable(retries[0].text));
    QVERIFY(retries[0].text.contains(QLatin1String("HTTP 503")));
    QVERIFY(retries[0].text.contains(QLatin1String("retrying in")));
    QVERIFY(retries[1].text.contains(QLatin1String("attempt 2 failed")));

    const auto finals = capture.messages(QtWarningMsg, category);
    QCOMPARE(finals.size(), 2); // the exhausted one and the refused one; no line for the success
    const QString all = finals[0].text + finals[1].text;
    QVERIFY2(all.contains(QStringLiteral("request %1 failed (attempts-exhausted) after 3 attempt(s)").arg(exhausted)),
        qPrintable(all));
    QVERIFY2(
        all.contains(QStringLiteral("request %1 failed (gave-up) after 1 attempt(s)").arg(refused)), qPrintable(all));
    QVERIFY(all.contains(QLatin1String("HTTP 401")));
    QVERIFY(!all.contains(QStringLiteral("request %1 ").arg(fine)));
}

void TestRetryExecutor::deadline_queuedRetry_neverStartsAfterIt()
{
    BackoffPolicy policy = fastPolicy(10, 50);
    policy.deadlineMs = 300;
    auto [executor, c] = underTest(policy);
    executor.setConcurrencyLimit(1);
    QSignalSpy retries(&executor, &RetryExecutor::retryScheduled);
    const quint64 late = executor.submit(getSpec(url(QStringLiteral("/status/503"))));
    QTRY_COMPARE_WITH_TIMEOUT(retries.size(), 1, 5000);
    // While it sleeps, a slow request (without a deadline) takes the only slot;
    // the retry then waits in the queue.
    executor.setPolicy(fastPolicy(1));
    const quint64 slow = executor.submit(getSpec(url(QStringLiteral("/delay/3000"))));
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(late).has_value(), 5000);
    QCOMPARE(c.resultOf(late)->outcome, RequestOutcome::DeadlineExceeded);
    QCOMPARE(c.resultOf(late)->attempts, 1);
    QCOMPARE(c.attemptsOf(late).size(), 1);
    QVERIFY2(
        c.resultOf(late)->totalMs() < 300 + timerSlackMs, qPrintable(QString::number(c.resultOf(late)->totalMs())));
    QVERIFY(c.resultOf(late)->reason.contains(QLatin1String("deadline")));
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(slow).has_value(), 10'000);
    QCOMPARE(c.resultOf(slow)->outcome, RequestOutcome::Succeeded);
}

void TestRetryExecutor::circuitBreaker_perHost_failureRatio()
{
    FaultServer other;
    QVERIFY(other.listen());
    BackoffPolicy policy = fastPolicy(1, 5);
    policy.circuitBreaker.enabled = true;
    policy.circuitBreaker.consecutiveFailures = 0;
    policy.circuitBreaker.failureRatio = 0.5;
    policy.circuitBreaker.window = 4;
    policy.circuitBreaker.openMs = 60'000;
    auto [executor, c] = underTest(policy);
    executor.setConcurrencyLimit(1); // outcomes in order
    QSignalSpy states(&executor, &RetryExecutor::circuitStateChanged);

    for (const char *path : {"/status/200", "/status/503", "/status/200", "/status/503"})
        executor.submit(getSpec(url(QLatin1String(path))));
    QTRY_COMPARE_WITH_TIMEOUT(c.results.size(), 4, 10'000);
    const QString hostA = QStringLiteral("127.0.0.1:%1").arg(m_server.serverPort());
    QCOMPARE(executor.circuitState(hostA), CircuitBreaker::State::Open); // 2 of the last 4 failed
    QCOMPARE(states.size(), 1);
    QCOMPARE(states.first().at(0).toString(), hostA);

    const quint64 blocked = executor.submit(getSpec(url(QStringLiteral("/status/200"))));
    const quint64 elsewhere
        = executor.submit(getSpec(QUrl(other.baseUrl().toString() + QStringLiteral("/status/200"))));
    QTRY_COMPARE_WITH_TIMEOUT(c.results.size(), 6, 10'000);
    QCOMPARE(c.resultOf(blocked)->outcome, RequestOutcome::CircuitOpen);
    QCOMPARE(c.resultOf(elsewhere)->outcome, RequestOutcome::Succeeded);
    const QString hostB = QStringLiteral("127.0.0.1:%1").arg(other.serverPort());
    QCOMPARE(executor.circuitState(hostB), CircuitBreaker::State::Closed);
    QStringList expectedHosts{hostA, hostB};
    expectedHosts.sort();
    QCOMPARE(executor.hosts(), expectedHosts);
}

void TestRetryExecutor::circuitBreaker_policyChanged_nextRequestsMeetTheNewBreaker()
{
    BackoffPolicy policy = fastPolicy(1, 5);
    policy.circuitBreaker.enabled = true;
    policy.circuitBreaker.consecutiveFailures = 1;
    policy.circuitBreaker.openMs = 60'000;
    auto [executor, c] = underTest(policy);
    executor.setConcurrencyLimit(1);
    QSignalSpy states(&executor, &RetryExecutor::circuitStateChanged);
    const QString host = QStringLiteral("127.0.0.1:%1").arg(m_server.serverPort());

    executor.submit(getSpec(url(QStringLiteral("/status/503"))));
    QTRY_COMPARE_WITH_TIMEOUT(c.results.size(), 1, 10'000);
    QCOMPARE(executor.circuitState(host), CircuitBreaker::State::Open);

    // A breaker of another shape: the open one goes, and is said to.
    policy.circuitBreaker.consecutiveFailures = 2;
    executor.setPolicy(policy);
    QCOMPARE(states.size(), 2);
    QCOMPARE(states.last().at(1).value<CircuitBreaker::State>(), CircuitBreaker::State::Closed);

    // Both go out (not refused by the old breaker); the second failure opens the new one.
    const quint64 first = executor.submit(getSpec(url(QStringLiteral("/status/503"))));
    QTRY_COMPARE_WITH_TIMEOUT(c.results.size(), 2, 10'000);
    QCOMPARE(c.attemptsOf(first).size(), 1); // sent, not refused
    QCOMPARE(executor.circuitState(host), CircuitBreaker::State::Closed);
    const quint64 second = executor.submit(getSpec(url(QStringLiteral("/status/503"))));
    QTRY_COMPARE_WITH_TIMEOUT(c.results.size(), 3, 10'000);
    QCOMPARE(c.attemptsOf(second).size(), 1);
    QCOMPARE(executor.circuitState(host), CircuitBreaker::State::Open);
    QCOMPARE(states.size(), 3);
    const quint64 refused = executor.submit(getSpec(url(QStringLiteral("/status/200"))));
    QTRY_COMPARE_WITH_TIMEOUT(c.results.size(), 4, 10'000);
    QCOMPARE(c.resultOf(refused)->outcome, RequestOutcome::CircuitOpen);
}

void TestRetryExecutor::reasonPhrase_eachAttemptKeepsItsOwn()
{
    auto [executor, c] = underTest(fastPolicy(1, 5));
    executor.setConcurrencyLimit(1); // answers in order
    const QList<std::pair<const char *, QByteArray>> expected{{"/status/503", "Service Unavailable"},
        {"/status/200", "OK"}, {"/status/200", "OK"}, {"/status/503", "Service Unavailable"},
        {"/status/404", "Not Found"}};
    QList<quint64> ids;
    for (const auto &[path, phrase] : expected)
        ids.append(executor.submit(getSpec(url(QLatin1String(path)))));
    QTRY_COMPARE_WITH_TIMEOUT(c.results.size(), expected.size(), 10'000);
    for (qsizetype i = 0; i < expected.size(); ++i) {
        const QList<AttemptRecord> attempts = c.attemptsOf(ids.at(i));
        QCOMPARE(attempts.size(), 1);
        QCOMPARE(attempts.first().reasonPhrase, expected.at(i).second);
    }
}

void TestRetryExecutor::circuitBreaker_halfOpen_limitsTrials()
{
    BackoffPolicy policy = fastPolicy(1, 5);
    policy.circuitBreaker.enabled = true;
    policy.circuitBreaker.consecutiveFailures = 1;
    policy.circuitBreaker.openMs = 2000; // long enough to be seen open on a slow machine
    policy.circuitBreaker.halfOpenTrials = 2;
    auto [executor, c] = underTest(policy);
    executor.setConcurrencyLimit(10);
    executor.submit(getSpec(url(QStringLiteral("/status/500"))));
    QTRY_COMPARE_WITH_TIMEOUT(c.results.size(), 1, 5000);
    const QString host = executor.hosts().value(0);
    QCOMPARE(executor.circuitState(host), CircuitBreaker::State::Open);
    QTRY_COMPARE_WITH_TIMEOUT(executor.circuitState(host), CircuitBreaker::State::HalfOpen, 15'000);

    QList<quint64> ids;
    for (int i = 0; i < 3; ++i)
        ids.append(executor.submit(getSpec(url(QStringLiteral("/delay/100")))));
    QTRY_COMPARE_WITH_TIMEOUT(c.results.size(), 4, 5000);
    QCOMPARE(c.resultOf(ids[0])->outcome, RequestOutcome::Succeeded);
    QCOMPARE(c.resultOf(ids[1])->outcome, RequestOutcome::Succeeded);
    QCOMPARE(c.resultOf(ids[2])->outcome, RequestOutcome::CircuitOpen); // only two trials
    QCOMPARE(executor.circuitState(host), CircuitBreaker::State::Closed); // both trials succeeded
}

void TestRetryExecutor::budget_grpcThrottling_refusesAtHalf()
{
    BackoffPolicy policy = fastPolicy(10, 1);
    policy.maxBackoffMs = 2;
    policy.retryBudget.kind = RetryBudgetKind::GrpcThrottling;
    policy.retryBudget.grpcMaxTokens = 4;
    policy.retryBudget.grpcTokenRatio = 0.5;
    auto [executor, c] = underTest(policy);
    QSignalSpy budget(&executor, &RetryExecutor::budgetChanged);
    QCOMPARE(executor.budgetTokens(), 4.0);
    QCOMPARE(executor.budgetCapacity(), 4.0);

    // 4 -> 3 (still above half: retry) -> 2 (at half: no retry)
    const quint64 first = executor.submit(getSpec(url(QStringLiteral("/status/500"))));
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(first).has_value(), 5000);
    QCOMPARE(c.resultOf(first)->outcome, RequestOutcome::BudgetExhausted);
    QCOMPARE(c.resultOf(first)->attempts, 2);
    QVERIFY(c.resultOf(first)->reason.contains(QLatin1String("retry budget")));
    QCOMPARE(executor.budgetTokens(), 2.0);

    const quint64 ok = executor.submit(getSpec(url(QStringLiteral("/status/200"))));
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(ok).has_value(), 5000);
    QCOMPARE(executor.budgetTokens(), 2.5); // a success adds tokenRatio
    QCOMPARE(budget.last().at(0).toDouble(), 2.5);
    QCOMPARE(budget.last().at(1).toDouble(), 4.0);

    const quint64 second = executor.submit(getSpec(url(QStringLiteral("/status/500"))));
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(second).has_value(), 5000);
    QCOMPARE(c.resultOf(second)->outcome, RequestOutcome::BudgetExhausted);
    QCOMPARE(c.resultOf(second)->attempts, 1);
    QCOMPARE(executor.budgetTokens(), 1.5);
}

void TestRetryExecutor::budget_awsTimeoutRetries_costMore()
{
    BackoffPolicy policy = fastPolicy(10, 1);
    policy.maxBackoffMs = 2;
    policy.attemptTimeoutMs = 100;
    policy.retryBudget.kind = RetryBudgetKind::AwsStandard;
    policy.retryBudget.awsCapacity = 25;
    auto [executor, c] = underTest(policy);
    // Each retry after a timeout costs 10: 25 -> 15 -> 5, then 10 are not there.
    const quint64 id = executor.submit(getSpec(url(QStringLiteral("/fault/stall"))));
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(id).has_value(), 10'000);
    QCOMPARE(c.resultOf(id)->outcome, RequestOutcome::BudgetExhausted);
    QCOMPARE(c.resultOf(id)->attempts, 3);
    QCOMPARE(executor.budgetTokens(), 5.0);
    for (const auto &a : c.attemptsOf(id))
        QCOMPARE(a.end, AttemptEnd::AttemptTimeout);
}

void TestRetryExecutor::readModifyWrite_412_restartsTheWholeSequence()
{
    RetryExecutor executor;
    executor.setPolicy(fastPolicy(6, 5));
    Collector c(&executor);
    // The first write is refused with 412 by script; everything else reaches /occ.
    const Result<QString> created = m_server.createTest(
        {QStringLiteral("pass"), QStringLiteral("return-412"), QStringLiteral("pass"), QStringLiteral("pass")});
    QVERIFY2(created, qPrintable(created.error()));
    const QString testId = *created;
    RequestSpec spec;
    spec.kind = RequestSpec::Kind::ReadModifyWrite;
    spec.url = url(QStringLiteral("/occ/%1").arg(uniqueKey()));
    spec.headers.append({QByteArray("X-Retry-Test-Id"), testId.toLatin1()});
    spec.increment = 5;
    const quint64 id = executor.submit(spec);
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(id).has_value(), 10'000);
    QCOMPARE(c.resultOf(id)->outcome, RequestOutcome::Succeeded);

    const auto attempts = c.attemptsOf(id);
    QCOMPARE(attempts.size(), 4);
    const QStringList steps{attempts[0].step, attempts[1].step, attempts[2].step, attempts[3].step};
    QCOMPARE(steps,
        (QStringList{
            QStringLiteral("read"), QStringLiteral("write"), QStringLiteral("read"), QStringLiteral("write")}));
    QCOMPARE(attempts[1].httpStatus, std::optional<int>(412));
    QCOMPARE(attempts[1].cause, QStringLiteral("http-412"));
    QCOMPARE(attempts[1].method, QByteArray("PUT"));
    QVERIFY(headerValue(attempts[1].requestHeaders, "If-Match").has_value());
    QCOMPARE(attempts[2].sequenceRound, 1);
    QCOMPARE(attempts[3].httpStatus, std::optional<int>(200));
    QCOMPARE(QJsonDocument::fromJson(c.resultOf(id)->body).object().value(QStringLiteral("value")).toInt(), 5);
    QCOMPARE(m_server.consumedInstructions(testId), 4);
}

void TestRetryExecutor::redirect_crossOrigin_dropsCredentials_andIsRecorded()
{
    CapturingServer::Server other;
    QVERIFY(other.start());
    auto [executor, c] = underTest(fastPolicy());
    const QByteArray target = other.baseUrl() + "/landing";
    RequestSpec spec
        = getSpec(url(QStringLiteral("/redirect?code=302&to=") + QString::fromLatin1(target.toPercentEncoding())));
    const auto testId = m_server.createTest({QStringLiteral("pass")}); // the test id selects this origin's script
    QVERIFY2(testId.ok(), qPrintable(testId.error()));
    spec.headers = {{"Authorization", "Bearer secret-token"}, {"Cookie", "session=abc"},
        {"Proxy-Authorization", "Basic cHJveHk6cHc="}, {"X-Api-Key", "k-123"}, {"X-Auth-Token", "t-456"},
        {"X-Retry-Test-Id", testId->toLatin1()}, {"X-Custom", "kept"}};
    const quint64 id = executor.submit(spec);
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(id).has_value(), 10'000);
    QCOMPARE(c.resultOf(id)->outcome, RequestOutcome::Succeeded);

    QCOMPARE(other.requests.size(), 1);
    const CapturingServer::Request &arrived = other.requests.first();
    QCOMPARE(arrived.target, QByteArray("/landing"));
    QVERIFY(arrived.header("Authorization").isEmpty());
    QVERIFY(arrived.header("Cookie").isEmpty());
    QVERIFY(arrived.header("Proxy-Authorization").isEmpty());
    QVERIFY(arrived.header("X-Api-Key").isEmpty());
    QVERIFY(arrived.header("X-Auth-Token").isEmpty());
    QVERIFY(arrived.header("X-Retry-Test-Id").isEmpty());
    QCOMPARE(arrived.header("X-Custom"), QByteArray("kept"));

    const auto attempts = c.attemptsOf(id);
    QCOMPARE(attempts.size(), 1);
    const AttemptRecord &a = attempts.first();
    QCOMPARE(a.httpStatus, std::optional<int>(200));
    QCOMPARE(a.redirects.size(), 1);
    const RedirectHop &hop = a.redirects.first();
    QCOMPARE(hop.status, 302);
    QVERIFY(hop.followed);
    QVERIFY(hop.crossOrigin);
    QCOMPARE(hop.to, QUrl::fromEncoded(target));
    QCOMPARE(hop.droppedHeaders,
        (QList<QByteArray>{QByteArray("Authorization"), QByteArray("Cookie"), QByteArray("Proxy-Authorization"),
            QByteArray("X-Api-Key"), QByteArray("X-Auth-Token"), QByteArray("X-Retry-Test-Id")}));
    QVERIFY2(a.reason.contains(QLatin1String("followed 1 redirect")), qPrintable(a.reason));
    QVERIFY2(a.reason.contains(QLatin1String("not sent to")), qPrintable(a.reason));
}

void TestRetryExecutor::redirect_tooMany_isNoSuccess_andResumeIncompleteNeither()
{
    auto [executor, c] = underTest(fastPolicy(3, 5));
    // Eleven redirects, one more than an attempt follows: the last 302 is the answer, and it is not the resource.
    QString target = QStringLiteral("/status/200");
    for (int i = 0; i <= maxRedirectsPerAttempt; ++i)
        target = QStringLiteral("/redirect?code=302&to=") + QString::fromLatin1(QUrl::toPercentEncoding(target));
    const quint64 loop = executor.submit(getSpec(url(target)));
    // A 308 without a Location: Cloud Storage's Resume Incomplete.
    const quint64 resume = executor.submit(getSpec(url(QStringLiteral("/status/308"))));
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(loop).has_value() && c.resultOf(resume).has_value(), 10'000);

    QCOMPARE(c.resultOf(loop)->outcome, RequestOutcome::GaveUp);
    QCOMPARE(c.resultOf(loop)->finalStatus, 302);
    const auto loopAttempts = c.attemptsOf(loop);
    QCOMPARE(loopAttempts.size(), 1); // not retried: the same request meets the same chain
    QCOMPARE(loopAttempts.constFirst().cause, QStringLiteral("redirect-not-followed"));
    QCOMPARE(loopAttempts.constFirst().redirects.size(), maxRedirectsPerAttempt + 1);
    QVERIFY(!loopAttempts.constFirst().redirects.constLast().followed);
    QVERIFY2(loopAttempts.constFirst().reason.contains(QLatin1String("was not followed")),
        qPrintable(loopAttempts.constFirst().reason));

    QCOMPARE(c.resultOf(resume)->outcome, RequestOutcome::GaveUp);
    QCOMPARE(c.attemptsOf(resume).constFirst().cause, QStringLiteral("http-308-resume-incomplete"));
}

void TestRetryExecutor::redirect_chainAcrossTwoServers_everyHopRecorded()
{
    FaultServer other;
    QVERIFY(other.listen());
    auto [executor, c] = underTest(fastPolicy(3, 5));
    // here -> other (307) -> here (303, so a POST becomes a GET) -> 503, and again on the retry.
    const QString back = url(QStringLiteral("/status/503")).toString();
    const QString middle = other.baseUrl().toString() + QStringLiteral("/redirect?code=303&to=")
        + QString::fromLatin1(QUrl::toPercentEncoding(back));
    RequestSpec spec
        = getSpec(url(QStringLiteral("/redirect?code=307&to=") + QString::fromLatin1(QUrl::toPercentEncoding(middle))));
    spec.method = "POST";
    spec.body = "{}";
    spec.idempotent = true;
    spec.headers = {{"Authorization", "Bearer secret-token"}};
    const quint64 id = executor.submit(spec);
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(id).has_value(), 10'000);
    QCOMPARE(c.resultOf(id)->outcome, RequestOutcome::AttemptsExhausted);

    const auto attempts = c.attemptsOf(id);
    QCOMPARE(attempts.size(), 3);
    for (const AttemptRecord &a : attempts) {
        QCOMPARE(a.httpStatus, std::optional<int>(503));
        QCOMPARE(a.redirects.size(), 2);
        QCOMPARE(a.redirects[0].status, 307);
        QCOMPARE(a.redirects[0].to.port(), int(other.serverPort()));
        QVERIFY(a.redirects[0].crossOrigin);
        QCOMPARE(a.redirects[0].droppedHeaders, QList<QByteArray>{QByteArray("Authorization")});
        QCOMPARE(a.redirects[1].status, 303);
        QCOMPARE(a.redirects[1].to.port(), int(m_server.serverPort()));
        QVERIFY(a.redirects[1].droppedHeaders.isEmpty()); // already gone
        QCOMPARE(a.redirects[0].method, QByteArray("POST"));
        QCOMPARE(a.redirects[1].method, QByteArray("POST"));
        QCOMPARE(a.redirects[1].nextMethod(), QByteArray("GET"));
        // Each hop timed on its own, one after the other; the attempt's own points are its last exchange's.
        qint64 previousEnd = a.startNs;
        for (const RedirectHop &hop : a.redirects) {
            QCOMPARE(hop.startNs, previousEnd);
            QVERIFY(hop.requestSentNs >= hop.startNs);
            QVERIFY(hop.firstByteNs >= hop.requestSentNs);
            QVERIFY(hop.finishedNs >= hop.firstByteNs);
            previousEnd = hop.finishedNs;
        }
        QCOMPARE(a.lastExchangeStartNs(), previousEnd);
        QVERIFY(a.requestSentNs >= previousEnd);
        QVERIFY(a.firstByteNs >= a.requestSentNs);
        QVERIFY(a.endNs >= a.firstByteNs);
    }
    // Per attempt: the POST, kept by the 307, and the GET the 303 asked for.
    int posts = 0;
    int gets = 0;
    for (const ServerLogEntry &e : m_server.log()) {
        posts += e.method == "POST" && e.target.startsWith(QLatin1String("/redirect"));
        gets += e.method == "GET" && e.target == QLatin1String("/status/503");
    }
    QCOMPARE(posts, 3);
    QCOMPARE(gets, 3);
    QCOMPARE(other.log().size(), 3);
    QCOMPARE(other.log().first().method, QByteArray("POST"));
}

void TestRetryExecutor::staleWrite_singleRequest_givesUpAtOnce()
{
    auto [executor, c] = underTest(fastPolicy(5, 5));
    RequestSpec spec = getSpec(url(QStringLiteral("/occ/%1").arg(uniqueKey())));
    spec.method = "PUT";
    spec.body = R"({"value": 1})";
    spec.headers = {{"If-Match", "\"999\""}}; // a version the resource never had
    const quint64 id = executor.submit(spec);
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(id).has_value(), 10'000);
    QCOMPARE(c.resultOf(id)->outcome, RequestOutcome::GaveUp);
    QCOMPARE(c.resultOf(id)->attempts, 1);
    QCOMPARE(c.resultOf(id)->finalStatus, std::optional<int>(409));
    QVERIFY2(c.resultOf(id)->reason.contains(QLatin1String("re-read first")), qPrintable(c.resultOf(id)->reason));
}

void TestRetryExecutor::immediate_retriesOnceWhateverMaxAttempts()
{
    BackoffPolicy policy = fastPolicy(5, 5);
    policy.algorithm = BackoffAlgorithm::Immediate;
    auto [executor, c] = underTest(policy);
    QSignalSpy retries(&executor, &RetryExecutor::retryScheduled);
    const quint64 id = executor.submit(getSpec(url(QStringLiteral("/status/503"))));
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(id).has_value(), 10'000);
    QCOMPARE(c.resultOf(id)->outcome, RequestOutcome::AttemptsExhausted);
    QCOMPARE(c.resultOf(id)->attempts, 2);
    QCOMPARE(retries.size(), 1);
    QCOMPARE(retries.first().at(2).toDouble(), 0.0);
    QVERIFY2(c.resultOf(id)->reason.contains(QLatin1String("retries only once")), qPrintable(c.resultOf(id)->reason));
}

void TestRetryExecutor::brokenBody_isAFailureForBreakerAndClassifier_data()
{
    QTest::addColumn<QString>("path");
    QTest::addRow("shorter than Content-Length") << QStringLiteral("/fault/broken?total=4000&sent=100");
    QTest::addRow("chunked, last chunk missing") << QStringLiteral("/fault/broken?chunked=1&sent=100");
}

void TestRetryExecutor::brokenBody_isAFailureForBreakerAndClassifier()
{
    QFETCH(QString, path);
    BackoffPolicy policy = fastPolicy(1, 5); // no retry: one outcome for the breaker
    policy.circuitBreaker.enabled = true;
    policy.circuitBreaker.consecutiveFailures = 1;
    policy.circuitBreaker.openMs = 60'000;
    auto [executor, c] = underTest(policy);
    const quint64 id = executor.submit(getSpec(url(path)));
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(id).has_value(), 10'000);
    QVERIFY(c.resultOf(id)->outcome != RequestOutcome::Succeeded);
    const auto attempts = c.attemptsOf(id);
    QCOMPARE(attempts.size(), 1);
    QCOMPARE(attempts.first().decision, Classification::Decision::RetryAfterDelay); // transient, not a success
    QCOMPARE(attempts.first().end, AttemptEnd::NetworkError);
    QCOMPARE(executor.circuitState(executor.hosts().value(0)), CircuitBreaker::State::Open);
}

void TestRetryExecutor::circuitBreaker_halfOpen_onlyTheTrialDecides()
{
    BackoffPolicy policy = fastPolicy(1, 5);
    policy.circuitBreaker.enabled = true;
    policy.circuitBreaker.consecutiveFailures = 1;
    policy.circuitBreaker.openMs = 200;
    policy.circuitBreaker.halfOpenTrials = 1;
    auto [executor, c] = underTest(policy);
    executor.setConcurrencyLimit(10);
    // A slow request goes out while the breaker is closed, then a failure opens it.
    const quint64 slow = executor.submit(getSpec(url(QStringLiteral("/delay/900"))));
    const quint64 failing = executor.submit(getSpec(url(QStringLiteral("/status/500"))));
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(failing).has_value(), 5000);
    const QString host = executor.hosts().value(0);
    QTRY_COMPARE_WITH_TIMEOUT(executor.circuitState(host), CircuitBreaker::State::HalfOpen, 5000);
    QVERIFY(!c.resultOf(slow).has_value());
    const quint64 trial = executor.submit(getSpec(url(QStringLiteral("/delay/2500"))));

    // The slow request succeeds while the trial is out: the breaker waits for the trial.
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(slow).has_value(), 5000);
    QCOMPARE(c.resultOf(slow)->outcome, RequestOutcome::Succeeded);
    QVERIFY2(!c.resultOf(trial).has_value(), "the trial must still be out for this test to say anything");
    QCOMPARE(executor.circuitState(host), CircuitBreaker::State::HalfOpen);
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(trial).has_value(), 10'000);
    QCOMPARE(c.resultOf(trial)->outcome, RequestOutcome::Succeeded);
    QCOMPARE(executor.circuitState(host), CircuitBreaker::State::Closed);
}

void TestRetryExecutor::cancelFromStateSignal_requestEndsOnce_tokensBalance_data()
{
    QTest::addColumn<bool>("fromBreaker");
    QTest::addRow("circuitStateChanged") << true;
    QTest::addRow("budgetChanged") << false;
}

void TestRetryExecutor::cancelFromStateSignal_requestEndsOnce_tokensBalance()
{
    QFETCH(bool, fromBreaker);
    BackoffPolicy policy = fastPolicy(5, 50);
    policy.retryBudget.kind = RetryBudgetKind::AwsStandard;
    policy.retryBudget.awsCapacity = 20;
    policy.circuitBreaker.enabled = true;
    policy.circuitBreaker.consecutiveFailures = 1;
    policy.circuitBreaker.openMs = 60'000;
    RetryExecutor &executor = underTest(policy).executor;
    QStringList events;
    quint64 id = 0;
    connect(&executor, &RetryExecutor::attemptFinished, this,
        [&](const AttemptRecord &a) { events.append(QStringLiteral("attempt %1").arg(a.attemptIndex)); });
    connect(&executor, &RetryExecutor::requestFinished, this,
        [&](const RequestResult &r) { events.append(QStringLiteral("finished ") + requestOutcomeName(r.outcome)); });
    // The first 503 opens the breaker and pays for a retry; the handler cancels right there.
    if (fromBreaker) {
        connect(&executor, &RetryExecutor::circuitStateChanged, this, [&] { executor.cancel(id); });
    } else {
        connect(&executor, &RetryExecutor::budgetChanged, this, [&] { executor.cancel(id); });
    }
    id = executor.submit(getSpec(url(QStringLiteral("/status/503"))));
    QTRY_VERIFY_WITH_TIMEOUT(events.size() >= 2, 10'000);
    QCOMPARE(events, (QStringList{QStringLiteral("attempt 0"), QStringLiteral("finished cancelled")}));
    QCOMPARE(executor.activeCount(), 0);
    QCOMPARE(executor.inFlightCount(), 0);
    // The retry that was paid for never went out: its tokens are back.
    QCOMPARE(executor.budgetTokens(), 20.0);
}

void TestRetryExecutor::readModifyWrite_budgetRefundedOnce()
{
    BackoffPolicy policy = fastPolicy(6, 5);
    policy.retryBudget.kind = RetryBudgetKind::AwsStandard;
    policy.retryBudget.awsCapacity = 20; // a retry costs 5, a success without retry refunds 1
    auto [executor, c] = underTest(policy);
    // Drain the budget, then refill it to 5 with plain successes (one token each),
    // so that a refund shows instead of vanishing under the capacity.
    const quint64 spent = executor.submit(getSpec(url(QStringLiteral("/status/503"))));
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(spent).has_value(), 10'000);
    QCOMPARE(executor.budgetTokens(), 0.0);
    for (int i = 0; i < 5; ++i) {
        const quint64 ok = executor.submit(getSpec(url(QStringLiteral("/status/200"))));
        QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(ok).has_value(), 10'000);
    }
    QCOMPARE(executor.budgetTokens(), 5.0);

    // The first write meets a stale version: one retry (5 tokens) of the whole sequence.
    const Result<QString> created = m_server.createTest(
        {QStringLiteral("pass"), QStringLiteral("return-412"), QStringLiteral("pass"), QStringLiteral("pass")});
    QVERIFY2(created, qPrintable(created.error()));
    const QString testId = *created;
    RequestSpec spec;
    spec.kind = RequestSpec::Kind::ReadModifyWrite;
    spec.url = url(QStringLiteral("/occ/%1").arg(uniqueKey()));
    spec.headers.append({QByteArray("X-Retry-Test-Id"), testId.toLatin1()});
    const quint64 id = executor.submit(spec);
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(id).has_value(), 10'000);
    QCOMPARE(c.resultOf(id)->outcome, RequestOutcome::Succeeded);
    QCOMPARE(c.attemptsOf(id).size(), 4);
    // 5 - 5 for the retry + 5 back once for the sequence's success: balanced (it used to be 11).
    QCOMPARE(executor.budgetTokens(), 5.0);
}

void TestRetryExecutor::injectedManager_destroyedFirst_executorCarriesOn()
{
    auto *manager = new QNetworkAccessManager;
    manager->setProxy(QNetworkProxy::NoProxy);
    auto executor = std::make_unique<RetryExecutor>(manager);
    executor->setPolicy(fastPolicy(3, 5));
    executor->setConcurrencyLimit(20); // enough to need extra managers of the executor's own
    Collector c(executor.get());
    QList<quint64> slow;
    for (int i = 0; i < 8; ++i)
        slow.append(executor->submit(getSpec(url(QStringLiteral("/delay/3000")))));
    QTRY_COMPARE_WITH_TIMEOUT(executor->inFlightCount(), 8, 5000);
    delete manager;
    // The attempts on the dead manager end at once, with a reason; the others go on.
    QTRY_COMPARE_WITH_TIMEOUT(c.results.size(), 6, 5000);
    for (const RequestResult &r : std::as_const(c.results)) {
        QCOMPARE(r.outcome, RequestOutcome::GaveUp);
        QCOMPARE(c.attemptsOf(r.requestId).size(), 1);
        QVERIFY2(c.attemptsOf(r.requestId).first().errorString.contains(QLatin1String("destroyed")),
            qPrintable(c.attemptsOf(r.requestId).first().errorString));
    }
    const quint64 later = executor->submit(getSpec(url(QStringLiteral("/status/200"))));
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(later).has_value(), 10'000);
    QCOMPARE(c.resultOf(later)->outcome, RequestOutcome::Succeeded);
    executor->cancelAll();
    QCOMPARE(executor->activeCount(), 0);
    executor.reset();
}

void TestRetryExecutor::tlsErrors_areNeverIgnored()
{
    if (!QSslSocket::supportsSsl())
        RETRYLAB_MISSING_TOOL("Qt has no TLS backend here: install the Debian package libqt6network6 with its OpenSSL "
                              "plugin (scripts/deps.sh installs qt6-base-dev)");
    QSslServer tlsServer;
    QVERIFY(listenWithTestCertificate(tlsServer));

    MessageCapture capture;
    auto [executor, c] = underTest(fastPolicy(3, 5));
    const quint64 id
        = executor.submit(getSpec(QUrl(QStringLiteral("https://127.0.0.1:%1/status/200").arg(tlsServer.serverPort()))));
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(id).has_value(), 10'000);

    QCOMPARE(c.resultOf(id)->outcome, RequestOutcome::GaveUp); // a certificate problem is not transient
    const auto attempts = c.attemptsOf(id);
    QCOMPARE(attempts.size(), 1);
    QCOMPARE(attempts[0].end, AttemptEnd::NetworkError);
    QCOMPARE(attempts[0].networkError, QNetworkReply::SslHandshakeFailedError);
    QCOMPARE(attempts[0].cause, QStringLiteral("tls-failure"));
    QVERIFY2(attempts[0].errorString.contains(QLatin1String("TLS:"))
            && attempts[0].errorString.contains(QLatin1String("not ignored")),
        qPrintable(attempts[0].errorString));
    QVERIFY(!attempts[0].httpStatus.has_value());
    const auto warnings = capture.messages(QtWarningMsg, QStringLiteral("retrylab.core.executor"));
    QVERIFY(std::any_of(warnings.cbegin(), warnings.cend(),
        [](const MessageCapture::Message &m) { return m.text.contains(QLatin1String("TLS error")); }));
}

void TestRetryExecutor::tlsErrors_afterAnHstsUpgrade_areRecordedToo()
{
    // A manager with HSTS on sends an http:// URL of a known host over TLS: its
    // certificate errors are the attempt's, though the URL says http.
    if (!QSslSocket::supportsSsl())
        RETRYLAB_MISSING_TOOL("Qt has no TLS backend here: install the Debian package libqt6network6 with its OpenSSL "
                              "plugin (scripts/deps.sh installs qt6-base-dev)");
    QSslServer tlsServer;
    QVERIFY(listenWithTestCertificate(tlsServer));

    QNetworkAccessManager manager;
    manager.setStrictTransportSecurityEnabled(true);
    // Not an IP address: HSTS never applies to one (RFC 6797, 8.1.1).
    manager.addStrictTransportSecurityHosts(
        {QHstsPolicy(QDateTime::currentDateTimeUtc().addDays(1), {}, QStringLiteral("localhost"))});
    RetryExecutor executor(&manager);
    executor.setPolicy(fastPolicy(3, 5));
    Collector c(&executor);
    const quint64 id
        = executor.submit(getSpec(QUrl(QStringLiteral("http://localhost:%1/status/200").arg(tlsServer.serverPort()))));
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(id).has_value(), 10'000);
    const auto attempts = c.attemptsOf(id);
    QCOMPARE(attempts.size(), 1);
    QCOMPARE(attempts[0].networkError, QNetworkReply::SslHandshakeFailedError);
    QVERIFY2(!attempts[0].tls.errors.isEmpty(), qPrintable(attempts[0].errorString));
    QVERIFY2(attempts[0].errorString.contains(QLatin1String("not ignored")), qPrintable(attempts[0].errorString));
}

void TestRetryExecutor::presets_eachFaultMode_exactAttemptCounts_data()
{
    QTest::addColumn<QString>("preset");
    QTest::addColumn<QString>("instruction");
    QTest::addColumn<QString>("cause");

    // What each fault mode of the server is to the executor; whether a preset
    // retries it comes from the preset's own rules.
    const QList<QPair<QString, QString>> faults{
        {QStringLiteral("return-503"), QStringLiteral("http-503")},
        {QStringLiteral("return-500"), QStringLiteral("http-500")},
        {QStringLiteral("return-429"), QStringLiteral("http-429")},
        {QStringLiteral("reset"), QStringLiteral("connection-reset")},
        {QStringLiteral("empty"), QStringLiteral("connection-reset")},
        {QStringLiteral("garbage"), QStringLiteral("connection-reset")},
        {QStringLiteral("broken-stream"), QStringLiteral("broken-stream")},
        {QStringLiteral("reset-after-headers"), QStringLiteral("broken-stream")},
        {QStringLiteral("stall"), QStringLiteral("attempt-timeout")},
    };
    for (const auto &preset : Presets::all()) {
        if (preset.policy.hedging.enabled)
            continue; // one attempt at a time, each after its backoff: not a hedge (tst_executorhedging)
        for (const auto &[instruction, cause] : faults)
            QTest::addRow("%s, %s", qPrintable(preset.id), qPrintable(instruction))
                << preset.id << instruction << cause;
    }
}

void TestRetryExecutor::presets_eachFaultMode_exactAttemptCounts()
{
    QFETCH(QString, preset);
    QFETCH(QString, instruction);
    QFETCH(QString, cause);

    const BackoffPolicy policy = scaled(*Presets::find(preset), 0.005);
    const ClassificationRules &rules = policy.classification;
    bool retried = false;
    if (cause.startsWith(QLatin1String("http-")))
        retried = rules.retryableStatuses.contains(cause.mid(5).toInt());
    else if (cause == QLatin1String("attempt-timeout"))
        retried = rules.networkActions.value(NetworkFaultClass::Timeout) != FaultAction::GiveUp;
    else if (cause == QLatin1String("broken-stream"))
        retried = rules.networkActions.value(NetworkFaultClass::BrokenStream) != FaultAction::GiveUp;
    else
        retried = rules.networkActions.value(NetworkFaultClass::ConnectionReset) != FaultAction::GiveUp;

    RetryExecutor executor;
    executor.setPolicy(policy);
    Collector c(&executor);
    const QString testId = m_server.createTest({instruction, QStringLiteral("return-200")}).value();
    RequestSpec spec = getSpec(url(QStringLiteral("/status/200")));
    spec.headers.append({QByteArray("X-Retry-Test-Id"), testId.toLatin1()});
    // Long enough for the answer after the stall even in a slow sanitizer build.
    spec.attemptTimeoutMs = 1000;
    const quint64 id = executor.submit(spec);
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(id).has_value(), 10'000);

    const auto attempts = c.attemptsOf(id);
    QCOMPARE(attempts.size(), retried ? 2 : 1);
    QCOMPARE(c.resultOf(id)->attempts, retried ? 2 : 1);
    QCOMPARE(c.resultOf(id)->outcome, retried ? RequestOutcome::Succeeded : RequestOutcome::GaveUp);
    QCOMPARE(m_server.consumedInstructions(testId), retried ? 2 : 1);
    // A reset that overtakes the headers in Qt's read looks like a plain reset (rare).
    const bool raced = instruction == QLatin1String("reset-after-headers") && !attempts[0].httpStatus;
    const QString seen = attempts[0].cause;
    QVERIFY2(seen.startsWith(raced ? QStringLiteral("connection-reset") : cause), qPrintable(seen));
    QCOMPARE(attempts[0].decision == Classification::Decision::GiveUp, !retried);
    if (retried)
        QVERIFY(attempts[1].succeeded());
}

void TestRetryExecutor::presets_persistentFault_endAtTheirLimit_data()
{
    QTest::addColumn<QString>("preset");
    for (const auto &preset : Presets::all())
        QTest::addRow("%s", qPrintable(preset.id)) << preset.id;
}

void TestRetryExecutor::presets_persistentFault_endAtTheirLimit()
{
    QFETCH(QString, preset);
    const BackoffPolicy policy = scaled(*Presets::find(preset), 0.005);
    RetryExecutor executor;
    executor.setPolicy(policy);
    Collector c(&executor);
    const QString testId = m_server.createTest({QStringLiteral("return-503*1000")}).value();
    RequestSpec spec = getSpec(url(QStringLiteral("/status/200")));
    spec.headers.append({QByteArray("X-Retry-Test-Id"), testId.toLatin1()});
    const quint64 id = executor.submit(spec);
    QTRY_VERIFY_WITH_TIMEOUT(c.resultOf(id).has_value(), 20'000);
    const RequestResult result = *c.resultOf(id);
    QCOMPARE(result.attempts, int(c.attemptsOf(id).size()));
    QCOMPARE(m_server.consumedInstructions(testId), result.attempts);
    if (policy.maxAttempts > 0) {
        QCOMPARE(result.outcome, RequestOutcome::AttemptsExhausted);
        QCOMPARE(result.attempts, policy.maxAttempts);
    } else {
        // Only the deadline bounds it: it gives up before crossing it.
        QCOMPARE(result.outcome, RequestOutcome::DeadlineExceeded);
        QVERIFY(result.attempts >= 3);
        QVERIFY2(result.totalMs() <= policy.deadlineMs + timerSlackMs, qPrintable(QString::number(result.totalMs())));
    }
}

QTEST_GUILESS_MAIN(TestRetryExecutor)
#include "tst_retryexecutor.moc"
