#include "core/executor/retryplanner.h"
#include "core/policy/backoff.h"
#include "core/policy/classifier.h"
#include "core/policy/presets.h"
#include "core/policy/retrybudget.h"
#include "core/util/randomsource.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace RetryLab::Core;
using Action = RetryPlanner::Decision::Action;

namespace {

// The reason of a retryable failure, as the classifier would give it.
const QString what = QStringLiteral("HTTP 503: server error; transient, retry after a delay");
constexpr quint64 seed = 7;

Classification retryable(Classification::Decision decision = Classification::Decision::RetryAfterDelay)
{
    Classification c;
    c.decision = decision;
    c.cause = QStringLiteral("http-503");
    c.reason = what;
    return c;
}

// Exponential without jitter: 100, 200, 400, 800, 1000, 1000, ... ms.
BackoffPolicy exponential(int maxAttempts = 5, double deadlineMs = 0.0)
{
    BackoffPolicy p;
    p.algorithm = BackoffAlgorithm::Exponential;
    p.baseDelayMs = 100;
    p.multiplier = 2;
    p.maxBackoffMs = 1000;
    p.maxAttempts = maxAttempts;
    p.deadlineMs = deadlineMs;
    return p;
}

// The same with full jitter, for the tests that check whether anything was drawn.
BackoffPolicy jittered(int maxAttempts = 5)
{
    BackoffPolicy p = exponential(maxAttempts);
    p.algorithm = BackoffAlgorithm::FullJitter;
    return p;
}

RequestSpec readModifyWrite()
{
    RequestSpec spec;
    spec.kind = RequestSpec::Kind::ReadModifyWrite;
    spec.url = QUrl(QStringLiteral("http://127.0.0.1:1/occ/x"));
    return spec;
}

RetryPlanner::State failedBefore(int failures, qint64 retryIndex = 0)
{
    RetryPlanner::State state;
    state.failures = failures;
    state.retryIndex = retryIndex;
    return state;
}

// Whether `random` is where a fresh generator with `seed` is: nothing was drawn.
bool untouched(RandomSource &random)
{
    RandomSource fresh(seed);
    return random.engine()() == fresh.engine()();
}

} // namespace

class TestRetryPlanner : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initialState_readModifyWriteStartsWithTheRead();
    void success_finishesWithTheClassificationReason();
    void notRetried_outcomeFollowsHowTheAttemptEnded_data();
    void notRetried_outcomeFollowsHowTheAttemptEnded();
    void classifiedThenDecided_data();
    void classifiedThenDecided();
    void attemptLimit_data();
    void attemptLimit();
    void backoff_everyAlgorithm_data();
    void backoff_everyAlgorithm();
    void backoff_seededSequence_threadsThroughTheState();
    void backoff_delayFactorOfTheFaultClass();
    void immediate_onlyOnce_data();
    void immediate_onlyOnce();
    void deadline_neverSleepsIntoCertainFailure_data();
    void deadline_neverSleepsIntoCertainFailure();
    void retryAfter_honouredBoundedOrFailsFast_data();
    void retryAfter_honouredBoundedOrFailsFast();
    void rateLimitReset_waitedWithoutAUsableRetryAfter_data();
    void rateLimitReset_waitedWithoutAUsableRetryAfter();
    void budget_askedLast_neverSpent_data();
    void budget_askedLast_neverSpent();
    void readModifyWrite_steps_data();
    void readModifyWrite_steps();
    void attemptRequest_perStep_data();
    void attemptRequest_perStep();
    void readModifyWrite_iamShape_bodyEtagPointerAndEnvelope();
    void fallback_takenAfterGivingUpOnly_data();
    void fallback_takenAfterGivingUpOnly();
    void fallback_oneAttemptEach();
};

void TestRetryPlanner::initialState_readModifyWriteStartsWithTheRead()
{
    QCOMPARE(RetryPlanner::initialState(readModifyWrite()).step, QStringLiteral("read"));
    const RetryPlanner::State single = RetryPlanner::initialState(RequestSpec{});
    QVERIFY(single.step.isEmpty());
    QCOMPARE(single, RetryPlanner::State{});
}

void TestRetryPlanner::success_finishesWithTheClassificationReason()
{
    Classification c;
    c.decision = Classification::Decision::Success;
    c.cause = QStringLiteral("http-200");
    c.reason = QStringLiteral("HTTP 200: success");
    RandomSource random(seed);
    const auto d = RetryPlanner::decide(failedBefore(2, 2), RequestSpec{}, {}, c, jittered(), RetryBudget{}, random);
    QCOMPARE(d.action, Action::Finish);
    QCOMPARE(d.outcome, RequestOutcome::Succeeded);
    QCOMPARE(d.reason, c.reason);
    QCOMPARE(d.recordDecision, Classification::Decision::Success);
    QCOMPARE(d.recordReason, c.reason);
    QCOMPARE(d.nextDelayMs, -1.0);
    QCOMPARE(d.state, failedBefore(2, 2)); // a success is not a failure
    QVERIFY(untouched(random));
}

void TestRetryPlanner::notRetried_outcomeFollowsHowTheAttemptEnded_data()
{
    QTest::addColumn<int>("end");
    QTest::addColumn<int>("outcome");
    QTest::addRow("response") << int(AttemptEnd::Response) << int(RequestOutcome::GaveUp);
    QTest::addRow("network error") << int(AttemptEnd::NetworkError) << int(RequestOutcome::GaveUp);
    QTest::addRow("attempt timeout") << int(AttemptEnd::AttemptTimeout) << int(RequestOutcome::GaveUp);
    QTest::addRow("cancelled") << int(AttemptEnd::Cancelled) << int(RequestOutcome::Cancelled);
    QTest::addRow("deadline") << int(AttemptEnd::Deadline) << int(RequestOutcome::DeadlineExceeded);
}

void TestRetryPlanner::notRetried_outcomeFollowsHowTheAttemptEnded()
{
    QFETCH(int, end);
    QFETCH(int, outcome);
    Classification c;
    c.decision = Classification::Decision::GiveUp;
    c.reason = QStringLiteral("not transient");
    RetryPlanner::Attempt attempt;
    attempt.end = AttemptEnd(end);
    RandomSource random(seed);
    const auto d
        = RetryPlanner::decide(failedBefore(1, 1), RequestSpec{}, attempt, c, jittered(), RetryBudget{}, random);
    QCOMPARE(d.action, Action::Finish);
    QCOMPARE(int(d.outcome), outcome);
    QCOMPARE(d.reason, c.reason);
    QCOMPARE(d.recordDecision, Classification::Decision::GiveUp);
    QCOMPARE(d.recordReason, c.reason);
    QCOMPARE(d.nextDelayMs, -1.0);
    QCOMPARE(d.state.failures, 2);
    QVERIFY(untouched(random));
}

void TestRetryPlanner::classifiedThenDecided_data()
{
    QTest::addColumn<QString>("preset"); // empty: the default rules
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<int>("status");
    QTest::addColumn<bool>("markedIdempotent");
    QTest::addColumn<QByteArray>("idempotencyKey");
    QTest::addColumn<int>("outcome"); // -1: a retry
    QTest::addColumn<QString>("reasonContains");

    const int retry = -1;
    QTest::addRow("GET 503") << QString() << QByteArray("GET") << 503 << false << QByteArray() << retry
                             << QStringLiteral("HTTP 503");
    QTest::addRow("GET 200") << QString() << QByteArray("GET") << 200 << false << QByteArray()
                             << int(RequestOutcome::Succeeded) << QStringLiteral("HTTP 200: success");
    QTest::addRow("GET 401") << QString() << QByteArray("GET") << 401 << false << QByteArray()
                             << int(RequestOutcome::GaveUp) << QStringLiteral("not transient");
    QTest::addRow("POST 503, not idempotent") << QString() << QByteArray("POST") << 503 << false << QByteArray()
                                              << int(RequestOutcome::GaveUp) << QStringLiteral("not idempotent");
    QTest::addRow("POST 503, marked idempotent")
        << QString() << QByteArray("POST") << 503 << true << QByteArray() << retry << QStringLiteral("HTTP 503");
    QTest::addRow("PATCH 503 with Idempotency-Key") << QString() << QByteArray("PATCH") << 503 << false
                                                    << QByteArray("8e03978e") << retry << QStringLiteral("HTTP 503");
    QTest::addRow("GET 404, iam") << QStringLiteral("iam") << QByteArray("GET") << 404 << false << QByteArray()
                                  << int(RequestOutcome::GaveUp) << QStringLiteral("HTTP 404");
    QTest::addRow("GET 404, iam-retry-404") << QStringLiteral("iam-retry-404") << QByteArray("GET") << 404 << false
                                            << QByteArray() << retry << QStringLiteral("eventual consistency");
}

void TestRetryPlanner::classifiedThenDecided()
{
    QFETCH(QString, preset);
    QFETCH(QByteArray, method);
    QFETCH(int, status);
    QFETCH(bool, markedIdempotent);
    QFETCH(QByteArray, idempotencyKey);
    QFETCH(int, outcome);
    QFETCH(QString, reasonContains);

    BackoffPolicy policy = exponential();
    if (!preset.isEmpty()) {
        const auto found = Presets::find(preset);
        QVERIFY(found);
        policy = *found;
    }
    AttemptObservation observation;
    observation.method = method;
    observation.markedIdempotent = markedIdempotent;
    if (!idempotencyKey.isEmpty())
        observation.requestHeaders.append({QByteArray("Idempotency-Key"), idempotencyKey});
    observation.httpStatus = status;
    const Classification c = classify(observation, policy.classification);
    RandomSource random(seed);
    const auto d = RetryPlanner::decide({}, RequestSpec{}, {}, c, policy, RetryBudget{}, random);

    QCOMPARE(d.action, outcome < 0 ? Action::Retry : Action::Finish);
    if (outcome >= 0)
        QCOMPARE(int(d.outcome), outcome);
    QVERIFY2(d.reason.contains(reasonContains), qPrintable(d.reason));
}

void TestRetryPlanner::attemptLimit_data()
{
    QTest::addColumn<int>("maxAttempts");
    QTest::addColumn<int>("failuresBefore");
    QTest::addColumn<int>("action");
    QTest::addColumn<QString>("reason");
    QTest::addColumn<int>("attemptsLeft");

    const QString retrying = what + QStringLiteral(" (Exponential, no jitter backoff)");
    QTest::addRow("first failure of five attempts") << 5 << 0 << int(Action::Retry) << retrying << 4;
    QTest::addRow("fourth failure of five") << 5 << 3 << int(Action::Retry) << retrying << 1;
    QTest::addRow("fifth failure of five")
        << 5 << 4 << int(Action::Finish) << QStringLiteral("gave up after 5 attempt(s): ") + what << -1;
    QTest::addRow("one attempt only") << 1 << 0 << int(Action::Finish)
                                      << QStringLiteral("gave up after 1 attempt(s): ") + what << -1;
    // Only the deadline bounds it: attemptsLeft says so with -1.
    QTest::addRow("no attempt limit") << 0 << 41 << int(Action::Retry) << retrying << -1;
}

void TestRetryPlanner::attemptLimit()
{
    QFETCH(int, maxAttempts);
    QFETCH(int, failuresBefore);
    QFETCH(int, action);
    QFETCH(QString, reason);
    QFETCH(int, attemptsLeft);

    const BackoffPolicy policy = exponential(maxAttempts, maxAttempts > 0 ? 0.0 : 600'000.0);
    RandomSource random(seed);
    const auto d = RetryPlanner::decide(
        failedBefore(failuresBefore), RequestSpec{}, {}, retryable(), policy, RetryBudget{}, random);
    QCOMPARE(int(d.action), action);
    QCOMPARE(d.reason, reason);
    QCOMPARE(d.state.failures, failuresBefore + 1);
    QCOMPARE(d.recordDecision, Classification::Decision::RetryAfterDelay);
    if (d.action == Action::Finish) {
        // The last attempt says why the client stopped.
        QCOMPARE(d.recordReason, what + QStringLiteral("; gave up: attempt limit reached: %1 of %1").arg(maxAttempts));
        QCOMPARE(d.outcome, RequestOutcome::AttemptsExhausted);
        QCOMPARE(d.nextDelayMs, -1.0);
    } else {
        QCOMPARE(d.recordReason, what);
        QCOMPARE(d.attemptsLeft, attemptsLeft);
        QCOMPARE(d.nextDelayMs, 100.0);
    }
}

void TestRetryPlanner::backoff_everyAlgorithm_data()
{
    QTest::addColumn<int>("algorithm");
    QTest::addColumn<qint64>("retryIndex");
    QTest::addColumn<double>("previousDelayMs");
    for (BackoffAlgorithm algorithm : allAlgorithms()) {
        const QByteArray name = algorithmName(algorithm).toLatin1();
        QTest::addRow("%s, first retry", name.constData()) << int(algorithm) << qint64(0) << -1.0;
        QTest::addRow("%s, fifth retry", name.constData()) << int(algorithm) << qint64(4) << 1300.0;
    }
}

void TestRetryPlanner::backoff_everyAlgorithm()
{
    QFETCH(int, algorithm);
    QFETCH(qint64, retryIndex);
    QFETCH(double, previousDelayMs);

    BackoffPolicy policy;
    policy.algorithm = BackoffAlgorithm(algorithm);
    policy.maxAttempts = 10;
    RetryPlanner::State state;
    state.retryIndex = retryIndex;
    state.previousDelayMs = previousDelayMs;
    RandomSource random(seed);
    const auto d = RetryPlanner::decide(state, RequestSpec{}, {}, retryable(), policy, RetryBudget{}, random);

    // The delay is Backoff's, drawn from the same generator, for the state's retry.
    RandomSource same(seed);
    const double expected = Backoff::delayMs(policy, retryIndex, previousDelayMs, same);
    QCOMPARE(d.action, Action::Retry);
    QCOMPARE(d.nextDelayMs, expected);
    const auto range = Backoff::delayRange(policy, retryIndex);
    QVERIFY(d.nextDelayMs >= range.minMs && d.nextDelayMs <= range.maxMs);
    QCOMPARE(d.state.retryIndex, retryIndex + 1);
    QCOMPARE(d.state.previousDelayMs, expected);
    QCOMPARE(d.reason, what + QStringLiteral(" (%1 backoff)").arg(algorithmTitle(policy.algorithm)));
}

void TestRetryPlanner::backoff_seededSequence_threadsThroughTheState()
{
    // Decorrelated jitter draws from the previous delay: the planner's state
    // must carry it from one decision to the next, as Backoff::Sequence does.
    BackoffPolicy policy;
    policy.algorithm = BackoffAlgorithm::DecorrelatedJitter;
    policy.maxAttempts = 0;
    policy.deadlineMs = 3'600'000;
    RandomSource random(seed);
    RandomSource reference(seed);
    Backoff::Sequence sequence(policy);
    RetryPlanner::State state;
    for (int i = 0; i < 12; ++i) {
        const auto d = RetryPlanner::decide(state, RequestSpec{}, {}, retryable(), policy, RetryBudget{}, random);
        QCOMPARE(d.action, Action::Retry);
        QCOMPARE(d.nextDelayMs, sequence.next(reference));
        state = d.state;
    }
    QCOMPARE(state.failures, 12);
    QCOMPARE(state.retryIndex, sequence.retryIndex());
}

void TestRetryPlanner::backoff_delayFactorOfTheFaultClass()
{
    BackoffPolicy policy = exponential();
    policy.classification.networkDelayFactors[NetworkFaultClass::ConnectionReset] = 0.25;
    RandomSource random(seed);
    Classification reset = retryable();
    reset.cause = QStringLiteral("connection-reset");
    reset.networkFault = NetworkFaultClass::ConnectionReset;
    // A reset waits a quarter of the backoff and says so; the backoff's own state is unscaled.
    const auto d = RetryPlanner::decide(failedBefore(1, 2), RequestSpec{}, {}, reset, policy, RetryBudget{}, random);
    QCOMPARE(d.action, Action::Retry);
    QCOMPARE(d.nextDelayMs, 100.0); // 400 ms x 0.25
    QCOMPARE(d.state.previousDelayMs, 400.0);
    QVERIFY2(d.reason.contains(QStringLiteral("\u00d7 0.25 for connection-reset")), qPrintable(d.reason));
    // A 503 waits the whole backoff.
    const auto status
        = RetryPlanner::decide(failedBefore(1, 2), RequestSpec{}, {}, retryable(), policy, RetryBudget{}, random);
    QCOMPARE(status.nextDelayMs, 400.0);

    // By status: a 429 may wait longer than a 503 (never beyond the cap).
    policy.classification.statusDelayFactors[429] = 2.0;
    Classification limited = retryable();
    limited.cause = QStringLiteral("http-429");
    limited.httpStatus = 429;
    const auto slow
        = RetryPlanner::decide(failedBefore(1, 2), RequestSpec{}, {}, limited, policy, RetryBudget{}, random);
    QCOMPARE(slow.nextDelayMs, 800.0); // 400 ms x 2
    QVERIFY2(slow.reason.contains(QStringLiteral("\u00d7 2 for HTTP 429")), qPrintable(slow.reason));
    Classification unavailable = retryable();
    unavailable.httpStatus = 503;
    QCOMPARE(RetryPlanner::decide(failedBefore(1, 2), RequestSpec{}, {}, unavailable, policy, RetryBudget{}, random)
                 .nextDelayMs,
        400.0);
}

void TestRetryPlanner::immediate_onlyOnce_data()
{
    QTest::addColumn<int>("algorithm");
    QTest::addColumn<int>("decision");
    QTest::addColumn<bool>("usedBefore");
    QTest::addColumn<int>("failuresBefore");
    QTest::addColumn<int>("action");
    QTest::addColumn<double>("delayMs");
    QTest::addColumn<QString>("reason");
    QTest::addColumn<bool>("backoff"); // the backoff schedule moved on

    const int jitter = int(BackoffAlgorithm::FullJitter);
    const int exp = int(BackoffAlgorithm::Exponential);
    const int immediate = int(BackoffAlgorithm::Immediate);
    const int rare = int(Classification::Decision::RetryImmediately);
    const int delayed = int(Classification::Decision::RetryAfterDelay);
    QTest::addRow("rare fault, first time") << jitter << rare << false << 0 << int(Action::Retry) << 0.0
                                            << what + QStringLiteral(" (retrying immediately once)") << false;
    QTest::addRow("rare fault, second time") << exp << rare << true << 1 << int(Action::Retry) << 100.0
                                             << what + QStringLiteral(" (Exponential, no jitter backoff)") << true;
    QTest::addRow("Immediate, first failure") << immediate << delayed << false << 0 << int(Action::Retry) << 0.0
                                              << what + QStringLiteral(" (Immediate backoff)") << true;
    // SPEC section 1: whatever maxAttempts allows.
    QTest::addRow("Immediate, second failure")
        << immediate << delayed << false << 1 << int(Action::Finish) << -1.0
        << QStringLiteral("gave up after 2 attempt(s): %1; the Immediate algorithm retries only once").arg(what)
        << false;
}

void TestRetryPlanner::immediate_onlyOnce()
{
    QFETCH(int, algorithm);
    QFETCH(int, decision);
    QFETCH(bool, usedBefore);
    QFETCH(int, failuresBefore);
    QFETCH(int, action);
    QFETCH(double, delayMs);
    QFETCH(QString, reason);
    QFETCH(bool, backoff);

    BackoffPolicy policy = exponential(10);
    policy.algorithm = BackoffAlgorithm(algorithm);
    RetryPlanner::State state = failedBefore(failuresBefore);
    state.usedImmediateRetry = usedBefore;
    RandomSource random(seed);
    const auto d = RetryPlanner::decide(
        state, RequestSpec{}, {}, retryable(Classification::Decision(decision)), policy, RetryBudget{}, random);
    QCOMPARE(int(d.action), action);
    QCOMPARE(d.nextDelayMs, delayMs);
    QCOMPARE(d.reason, reason);
    if (d.action == Action::Finish)
        QCOMPARE(d.outcome, RequestOutcome::AttemptsExhausted);
    QCOMPARE(d.state.usedImmediateRetry, usedBefore || decision == int(Classification::Decision::RetryImmediately));
    QCOMPARE(d.state.retryIndex, backoff ? 1 : 0);
    // A retry at once draws nothing, even under a jittered policy.
    if (!backoff)
        QVERIFY(untouched(random));
}

void TestRetryPlanner::deadline_neverSleepsIntoCertainFailure_data()
{
    QTest::addColumn<double>("deadlineMs");
    QTest::addColumn<double>("elapsedMs");
    QTest::addColumn<qint64>("retryIndex");
    QTest::addColumn<QString>("reason"); // empty: a retry

    QTest::addRow("fits") << 500.0 << 0.0 << qint64(0) << QString();
    // 100 + 200 ms of sleep fit in 500 ms; the next 400 ms would cross it.
    QTest::addRow("would cross") << 500.0 << 300.0 << qint64(2)
                                 << what
            + QStringLiteral("; the next retry in 400 ms would start after the deadline (200 ms left): giving up now");
    QTest::addRow("would start exactly at it") << 500.0 << 400.0 << qint64(0)
                                               << what
            + QStringLiteral("; the next retry in 100 ms would start after the deadline (100 ms left): giving up now");
    QTest::addRow("half a millisecond to spare") << 500.0 << 399.5 << qint64(0) << QString();
    QTest::addRow("already past") << 500.0 << 650.0 << qint64(0)
                                  << what
            + QStringLiteral("; the next retry in 100 ms would start after the deadline (0 ms left): giving up now");
    QTest::addRow("no deadline") << 0.0 << 1e9 << qint64(3) << QString();
}

void TestRetryPlanner::deadline_neverSleepsIntoCertainFailure()
{
    QFETCH(double, deadlineMs);
    QFETCH(double, elapsedMs);
    QFETCH(qint64, retryIndex);
    QFETCH(QString, reason);

    RetryPlanner::Attempt attempt;
    attempt.elapsedMs = elapsedMs;
    RandomSource random(seed);
    const auto d = RetryPlanner::decide(failedBefore(0, retryIndex), RequestSpec{}, attempt, retryable(),
        exponential(0, deadlineMs), RetryBudget{}, random);
    if (reason.isEmpty()) {
        QCOMPARE(d.action, Action::Retry);
        QCOMPARE(d.attemptsLeft, -1);
        return;
    }
    QCOMPARE(d.action, Action::Finish);
    QCOMPARE(d.outcome, RequestOutcome::DeadlineExceeded);
    QCOMPARE(d.reason, reason);
    QVERIFY2(d.recordReason.startsWith(what + QStringLiteral("; gave up: deadline: the next retry in ")),
        qPrintable(d.recordReason));
    QCOMPARE(d.nextDelayMs, -1.0);
}

void TestRetryPlanner::retryAfter_honouredBoundedOrFailsFast_data()
{
    QTest::addColumn<QByteArray>("retryAfter");
    QTest::addColumn<double>("maxRetryAfterMs");
    QTest::addColumn<double>("deadlineMs");
    QTest::addColumn<double>("elapsedMs");
    QTest::addColumn<int>("action");
    QTest::addColumn<double>("delayMs");
    QTest::addColumn<QString>("reason");

    const int retry = int(Action::Retry);
    const int finish = int(Action::Finish);
    QTest::addRow("honoured") << QByteArray("1") << 60'000.0 << 0.0 << 0.0 << retry << 1000.0
                              << what + QStringLiteral(" (Retry-After asks for 1 s)");
    QTest::addRow("zero replaces the backoff") << QByteArray("0") << 60'000.0 << 0.0 << 0.0 << retry << 0.0
                                               << what + QStringLiteral(" (Retry-After asks for 0 s)");
    QTest::addRow("bounded") << QByteArray("86400") << 200.0 << 0.0 << 0.0 << retry << 200.0
                             << what + QStringLiteral(" (Retry-After asks for 86400 s, bounded to 200 ms)");
    QTest::addRow("within the deadline") << QByteArray("1") << 60'000.0 << 5000.0 << 1000.0 << retry << 1000.0
                                         << what + QStringLiteral(" (Retry-After asks for 1 s)");
    QTest::addRow("beyond the deadline fails fast") << QByteArray("30") << 60'000.0 << 2000.0 << 0.0 << finish << -1.0
                                                    << what
            + QStringLiteral("; Retry-After asks for 30 s, beyond the 2000 ms left before the deadline: giving up now");
    // The bound applies to a wait that fits; it does not rescue one beyond the deadline.
    QTest::addRow("beyond the deadline, bound or not")
        << QByteArray("86400") << 200.0 << 5000.0 << 0.0 << finish << -1.0
        << what
            + QStringLiteral(
                "; Retry-After asks for 86400 s, beyond the 5000 ms left before the deadline: giving up now");
    QTest::addRow("exactly the time left") << QByteArray("1") << 60'000.0 << 1500.0 << 500.0 << finish << -1.0
                                           << what
            + QStringLiteral(
                "; the next retry in 1000 ms would start after the deadline (1000 ms left): giving up now");
    QTest::addRow("invalid: the backoff instead") << QByteArray("soon") << 60'000.0 << 0.0 << 0.0 << retry << 100.0
                                                  << what + QStringLiteral(" (Exponential, no jitter backoff)");
}

void TestRetryPlanner::retryAfter_honouredBoundedOrFailsFast()
{
    QFETCH(QByteArray, retryAfter);
    QFETCH(double, maxRetryAfterMs);
    QFETCH(double, deadlineMs);
    QFETCH(double, elapsedMs);
    QFETCH(int, action);
    QFETCH(double, delayMs);
    QFETCH(QString, reason);

    BackoffPolicy policy = exponential(5, deadlineMs);
    policy.classification.maxRetryAfterMs = maxRetryAfterMs;
    Classification c = retryable();
    c.retryAfter = parseRetryAfter(retryAfter, QDateTime(QDate(2025, 1, 1), QTime(0, 0), Qt::UTC));
    RetryPlanner::Attempt attempt;
    attempt.elapsedMs = elapsedMs;
    RandomSource random(seed);
    const auto d = RetryPlanner::decide({}, RequestSpec{}, attempt, c, policy, RetryBudget{}, random);
    QCOMPARE(int(d.action), action);
    QCOMPARE(d.nextDelayMs, delayMs);
    QCOMPARE(d.reason, reason);
    if (d.action == Action::Finish)
        QCOMPARE(d.outcome, RequestOutcome::DeadlineExceeded);
    // The backoff is drawn and counted whatever Retry-After says.
    QCOMPARE(d.state.retryIndex, 1);
    QCOMPARE(d.state.previousDelayMs, 100.0);
}

void TestRetryPlanner::rateLimitReset_waitedWithoutAUsableRetryAfter_data()
{
    QTest::addColumn<QByteArray>("retryAfter"); // empty: none
    QTest::addColumn<double>("maxRetryAfterMs");
    QTest::addColumn<double>("deadlineMs");
    QTest::addColumn<int>("action");
    QTest::addColumn<double>("delayMs");
    QTest::addColumn<QString>("reason");

    const int retry = int(Action::Retry);
    const QString reset = QStringLiteral("X-RateLimit-Reset: the quota resets in 3 s");
    QTest::addRow("no Retry-After") << QByteArray() << 60'000.0 << 0.0 << retry << 3000.0
                                    << what + QStringLiteral(" (waiting for the rate limit reset: %1)").arg(reset);
    QTest::addRow("Retry-After wins") << QByteArray("1") << 60'000.0 << 0.0 << retry << 1000.0
                                      << what + QStringLiteral(" (Retry-After asks for 1 s)");
    QTest::addRow("unusable Retry-After")
        << QByteArray("soon") << 60'000.0 << 0.0 << retry << 3000.0
        << what + QStringLiteral(" (waiting for the rate limit reset: %1)").arg(reset);
    QTest::addRow("bounded") << QByteArray() << 500.0 << 0.0 << retry << 500.0
                             << what
            + QStringLiteral(" (waiting for the rate limit reset: %1, bounded to 500 ms)").arg(reset);
    QTest::addRow("beyond the deadline fails fast")
        << QByteArray() << 60'000.0 << 2000.0 << int(Action::Finish) << -1.0
        << what + QStringLiteral("; %1, beyond the 2000 ms left before the deadline: giving up now").arg(reset);
}

void TestRetryPlanner::rateLimitReset_waitedWithoutAUsableRetryAfter()
{
    QFETCH(QByteArray, retryAfter);
    QFETCH(double, maxRetryAfterMs);
    QFETCH(double, deadlineMs);
    QFETCH(int, action);
    QFETCH(double, delayMs);
    QFETCH(QString, reason);

    BackoffPolicy policy = exponential(5, deadlineMs);
    policy.classification.maxRetryAfterMs = maxRetryAfterMs;
    policy.classification.honourRateLimitReset = true;
    Classification c = retryable();
    if (!retryAfter.isEmpty())
        c.retryAfter = parseRetryAfter(retryAfter, QDateTime(QDate(2025, 1, 1), QTime(0, 0), Qt::UTC));
    RetryAfter reset;
    reset.kind = RetryAfter::Kind::DelaySeconds;
    reset.delayMs = 3000.0;
    reset.reason = QStringLiteral("X-RateLimit-Reset: the quota resets in 3 s");
    c.rateLimitReset = reset;
    c.rateLimitExhausted = true;
    RandomSource random(seed);
    const auto d = RetryPlanner::decide({}, RequestSpec{}, RetryPlanner::Attempt{}, c, policy, RetryBudget{}, random);
    QCOMPARE(int(d.action), action);
    QCOMPARE(d.nextDelayMs, delayMs);
    QCOMPARE(d.reason, reason);
    if (d.action == Action::Finish)
        QCOMPARE(d.outcome, RequestOutcome::DeadlineExceeded);
}

void TestRetryPlanner::budget_askedLast_neverSpent_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<double>("capacity");
    QTest::addColumn<int>("failuresRecorded"); // gRPC charges failures
    QTest::addColumn<int>("end");
    QTest::addColumn<int>("maxAttempts");
    QTest::addColumn<int>("outcome"); // -1: a retry
    QTest::addColumn<double>("retryCost");
    QTest::addColumn<QString>("reason");

    const int none = int(RetryBudgetKind::None);
    const int aws = int(RetryBudgetKind::AwsStandard);
    const int grpc = int(RetryBudgetKind::GrpcThrottling);
    const int response = int(AttemptEnd::Response);
    const int timeout = int(AttemptEnd::AttemptTimeout);
    const int retry = -1;
    const int exhausted = int(RequestOutcome::BudgetExhausted);
    QTest::addRow("no budget") << none << 0.0 << 0 << response << 5 << retry << 0.0 << QString();
    QTest::addRow("aws") << aws << 20.0 << 0 << response << 5 << retry << 5.0 << QString();
    QTest::addRow("aws, after a timeout") << aws << 20.0 << 0 << timeout << 5 << retry << 10.0 << QString();
    QTest::addRow("aws, exhausted") << aws << 3.0 << 0 << response << 5 << exhausted << -1.0
                                    << what + QStringLiteral("; the retry budget is exhausted (3 of 3 tokens left)");
    QTest::addRow("aws, a timeout costs more than is left")
        << aws << 8.0 << 0 << timeout << 5 << exhausted << -1.0
        << what + QStringLiteral("; the retry budget is exhausted (8 of 8 tokens left)");
    QTest::addRow("grpc, above half") << grpc << 4.0 << 1 << response << 5 << retry << 0.0 << QString();
    QTest::addRow("grpc, at half") << grpc << 4.0 << 2 << response << 5 << exhausted << -1.0
                                   << what + QStringLiteral("; the retry budget is exhausted (2 of 4 tokens left)");
    // The attempt limit is checked first: an empty budget does not change why it ended.
    QTest::addRow("attempts exhausted first")
        << aws << 3.0 << 0 << response << 1 << int(RequestOutcome::AttemptsExhausted) << -1.0
        << QStringLiteral("gave up after 1 attempt(s): ") + what;
}

void TestRetryPlanner::budget_askedLast_neverSpent()
{
    QFETCH(int, kind);
    QFETCH(double, capacity);
    QFETCH(int, failuresRecorded);
    QFETCH(int, end);
    QFETCH(int, maxAttempts);
    QFETCH(int, outcome);
    QFETCH(double, retryCost);
    QFETCH(QString, reason);

    RetryBudgetSettings settings;
    settings.kind = RetryBudgetKind(kind);
    settings.awsCapacity = capacity;
    settings.grpcMaxTokens = capacity;
    RetryBudget budget(settings);
    for (int i = 0; i < failuresRecorded; ++i)
        budget.recordFailure();
    const double tokensBefore = budget.tokens();
    RetryPlanner::Attempt attempt;
    attempt.end = AttemptEnd(end);
    RandomSource random(seed);
    const auto d
        = RetryPlanner::decide({}, RequestSpec{}, attempt, retryable(), exponential(maxAttempts), budget, random);

    QCOMPARE(budget.tokens(), tokensBefore); // the executor pays, not the planner
    if (outcome < 0) {
        QCOMPARE(d.action, Action::Retry);
        QCOMPARE(d.retryCost, retryCost);
        QCOMPARE(d.retryAfterTimeout, AttemptEnd(end) == AttemptEnd::AttemptTimeout);
        // What the executor then pays is what the planner was told.
        QCOMPARE(budget.tryAcquireRetry(d.retryAfterTimeout), retryCost);
        return;
    }
    QCOMPARE(d.action, Action::Finish);
    QCOMPARE(int(d.outcome), outcome);
    QCOMPARE(d.reason, reason);
    const QString cause = RequestOutcome(outcome) == RequestOutcome::BudgetExhausted
        ? QStringLiteral("; gave up: retry budget empty (")
        : QStringLiteral("; gave up: attempt limit reached: ");
    QVERIFY2(d.recordReason.startsWith(what + cause), qPrintable(d.recordReason));
}

void TestRetryPlanner::readModifyWrite_steps_data()
{
    QTest::addColumn<QString>("step");
    QTest::addColumn<int>("decision");
    QTest::addColumn<bool>("restartSequence");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QByteArray>("etag"); // empty: no ETag header
    QTest::addColumn<int>("action");
    QTest::addColumn<QString>("stepAfter");
    QTest::addColumn<int>("roundAfter");
    QTest::addColumn<QString>("recordReason"); // empty: the classification's

    const QString read = QStringLiteral("read");
    const QString write = QStringLiteral("write");
    const int success = int(Classification::Decision::Success);
    const int retry = int(Classification::Decision::RetryAfterDelay);
    const QString nothingToModify
        = QStringLiteral("the read did not return an integer at /value and an ETag header; cannot modify and write");
    QTest::addRow("read with value and ETag")
        << read << success << false << QByteArray(R"({"value": 41})") << QByteArray("\"v7\"") << int(Action::NextStep)
        << write << 0 << QStringLiteral("read value 41 with ETag \"v7\"; writing 42 with If-Match");
    QTest::addRow("read without ETag") << read << success << false << QByteArray(R"({"value": 41})") << QByteArray()
                                       << int(Action::Finish) << read << 0 << nothingToModify;
    QTest::addRow("read, value not a number")
        << read << success << false << QByteArray(R"({"value": "41"})") << QByteArray("\"v7\"") << int(Action::Finish)
        << read << 0 << nothingToModify;
    QTest::addRow("read, not JSON") << read << success << false << QByteArray("41") << QByteArray("\"v7\"")
                                    << int(Action::Finish) << read << 0 << nothingToModify;
    QTest::addRow("read failed") << read << retry << false << QByteArray() << QByteArray() << int(Action::Retry) << read
                                 << 0 << QString();
    QTest::addRow("write succeeded") << write << success << false << QByteArray(R"({"value": 42})")
                                     << QByteArray("\"v8\"") << int(Action::Finish) << write << 0 << QString();
    // Retrying only the write keeps failing: the whole sequence starts again.
    QTest::addRow("write stale (409 ABORTED)")
        << write << retry << true << QByteArray() << QByteArray() << int(Action::Retry) << read << 1 << QString();
    QTest::addRow("write failed (503)") << write << retry << false << QByteArray() << QByteArray() << int(Action::Retry)
                                        << read << 0 << QString();
}

void TestRetryPlanner::readModifyWrite_steps()
{
    QFETCH(QString, step);
    QFETCH(int, decision);
    QFETCH(bool, restartSequence);
    QFETCH(QByteArray, body);
    QFETCH(QByteArray, etag);
    QFETCH(int, action);
    QFETCH(QString, stepAfter);
    QFETCH(int, roundAfter);
    QFETCH(QString, recordReason);

    RetryPlanner::State state = RetryPlanner::initialState(readModifyWrite());
    state.step = step;
    Classification c = retryable(Classification::Decision(decision));
    c.restartSequence = restartSequence;
    RetryPlanner::Attempt attempt;
    attempt.body = body;
    if (!etag.isEmpty())
        attempt.responseHeaders.append({QByteArray("ETag"), etag});
    RandomSource random(seed);
    const auto d = RetryPlanner::decide(state, readModifyWrite(), attempt, c, exponential(), RetryBudget{}, random);

    QCOMPARE(int(d.action), action);
    QCOMPARE(d.state.step, stepAfter);
    QCOMPARE(d.state.sequenceRound, roundAfter);
    QCOMPARE(d.recordReason, recordReason.isEmpty() ? c.reason : recordReason);
    switch (d.action) {
    case Action::NextStep:
        QCOMPARE(d.state.readValue, 41);
        QCOMPARE(d.state.etag, etag);
        QCOMPARE(d.nextDelayMs, 0.0);
        QCOMPARE(d.state.failures, 0);
        break;
    case Action::Finish:
        if (c.decision == Classification::Decision::Success && step == QLatin1String("write")) {
            QCOMPARE(d.outcome, RequestOutcome::Succeeded);
        } else {
            QCOMPARE(d.outcome, RequestOutcome::GaveUp);
            QCOMPARE(d.recordDecision, Classification::Decision::GiveUp);
            QCOMPARE(d.reason, recordReason);
        }
        break;
    case Action::Retry:
        QCOMPARE(d.nextDelayMs, 100.0);
        break;
    }
}

void TestRetryPlanner::attemptRequest_perStep_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("step");
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<HeaderList>("headers");

    const HeaderList custom{{"X-Custom", "kept"}, {"If-Match", "\"stale\""}};
    QTest::addRow("single") << int(RequestSpec::Kind::Single) << QString() << QByteArray("POST")
                            << QByteArray(R"({"order":1})") << custom;
    QTest::addRow("read") << int(RequestSpec::Kind::ReadModifyWrite) << QStringLiteral("read") << QByteArray("GET")
                          << QByteArray() << custom;
    // The spec's own If-Match gives way to the version just read.
    QTest::addRow("write") << int(RequestSpec::Kind::ReadModifyWrite) << QStringLiteral("write") << QByteArray("PUT")
                           << QByteArray(R"({"value":42})")
                           << HeaderList{
                                  {"X-Custom", "kept"}, {"If-Match", "\"v7\""}, {"Content-Type", "application/json"}};
}

void TestRetryPlanner::attemptRequest_perStep()
{
    QFETCH(int, kind);
    QFETCH(QString, step);
    QFETCH(QByteArray, method);
    QFETCH(QByteArray, body);
    QFETCH(HeaderList, headers);

    RequestSpec spec;
    spec.kind = RequestSpec::Kind(kind);
    spec.url = QUrl(QStringLiteral("http://127.0.0.1:1/occ/x"));
    spec.method = " post ";
    spec.body = R"({"order":1})";
    spec.headers = {{"X-Custom", "kept"}, {"If-Match", "\"stale\""}};
    RetryPlanner::State state;
    state.step = step;
    state.readValue = 41;
    state.etag = "\"v7\"";
    const HopRequest request = RetryPlanner::attemptRequest(spec, state);
    QCOMPARE(request.url, spec.url);
    QCOMPARE(request.method, method);
    QCOMPARE(request.body, body);
    QCOMPARE(request.headers, headers);
}

void TestRetryPlanner::readModifyWrite_iamShape_bodyEtagPointerAndEnvelope()
{
    // An IAM-like API: POST :getIamPolicy reads, POST :setIamPolicy writes {"policy": ...}; the
    // version is the policy's own "etag"; the integer changed sits deep in the document.
    RequestSpec spec = readModifyWrite();
    spec.url = QUrl(QStringLiteral("http://127.0.0.1:1/v1/projects/p:getIamPolicy"));
    spec.body = "{}";
    spec.increment = 2;
    spec.readModifyWrite.readMethod = "post";
    spec.readModifyWrite.writeMethod = "POST";
    spec.readModifyWrite.writeUrl = QUrl(QStringLiteral("http://127.0.0.1:1/v1/projects/p:setIamPolicy"));
    spec.readModifyWrite.valuePointer = QStringLiteral("/spec/replicas");
    spec.readModifyWrite.etagPointer = QStringLiteral("/etag");
    spec.readModifyWrite.writeEnvelope = QStringLiteral("policy");

    const RetryPlanner::State start = RetryPlanner::initialState(spec);
    const HopRequest read = RetryPlanner::attemptRequest(spec, start);
    QCOMPARE(read.method, QByteArray("POST"));
    QCOMPARE(read.url, spec.url);
    QCOMPARE(read.body, QByteArray("{}")); // a POST read sends the request's body

    RetryPlanner::Attempt attempt;
    attempt.body = R"({"bindings": [{"role": "r"}], "etag": "BwWKmjvelug=", "spec": {"replicas": 3}})";
    Classification ok;
    ok.decision = Classification::Decision::Success;
    RandomSource random(seed);
    const RetryPlanner::Decision afterRead
        = RetryPlanner::decide(start, spec, attempt, ok, exponential(), RetryBudget(), random);
    QCOMPARE(afterRead.action, RetryPlanner::Decision::Action::NextStep);
    QCOMPARE(afterRead.state.readValue, 3);
    QCOMPARE(afterRead.state.etag, QByteArray("BwWKmjvelug="));
    QVERIFY2(afterRead.recordReason.contains(QLatin1String("etag BwWKmjvelug= (/etag)")),
        qPrintable(afterRead.recordReason));

    const HopRequest write = RetryPlanner::attemptRequest(spec, afterRead.state);
    QCOMPARE(write.method, QByteArray("POST"));
    QCOMPARE(write.url, spec.readModifyWrite.writeUrl);
    QCOMPARE(QJsonDocument::fromJson(write.body).object(),
        QJsonDocument::fromJson(
            R"({"policy": {"bindings": [{"role": "r"}], "etag": "BwWKmjvelug=", "spec": {"replicas": 5}}})")
            .object());
    QVERIFY(!headerValue(write.headers, "If-Match")); // the etag travels in the document
    QCOMPARE(headerValue(write.headers, "Content-Type"), std::optional<QByteArray>("application/json"));

    // A read without the etag field, or without an integer at the pointer, leaves nothing to write.
    attempt.body = R"({"spec": {"replicas": 3}})";
    const RetryPlanner::Decision noEtag
        = RetryPlanner::decide(start, spec, attempt, ok, exponential(), RetryBudget(), random);
    QCOMPARE(noEtag.outcome, RequestOutcome::GaveUp);
    QVERIFY2(noEtag.reason.contains(QLatin1String("/spec/replicas and a string at /etag")), qPrintable(noEtag.reason));
    attempt.body = R"({"spec": {"replicas": 3.5}, "etag": "x"})";
    QCOMPARE(RetryPlanner::decide(start, spec, attempt, ok, exponential(), RetryBudget(), random).outcome,
        RequestOutcome::GaveUp);
}

void TestRetryPlanner::fallback_takenAfterGivingUpOnly_data()
{
    QTest::addColumn<RequestOutcome>("outcome");
    QTest::addColumn<bool>("taken");
    QTest::newRow("succeeded") << RequestOutcome::Succeeded << false;
    QTest::newRow("cancelled") << RequestOutcome::Cancelled << false;
    QTest::newRow("invalid") << RequestOutcome::InvalidRequest << false;
    QTest::newRow("gave up") << RequestOutcome::GaveUp << true;
    QTest::newRow("attempts exhausted") << RequestOutcome::AttemptsExhausted << true;
    QTest::newRow("deadline") << RequestOutcome::DeadlineExceeded << true;
    QTest::newRow("circuit open") << RequestOutcome::CircuitOpen << true;
    QTest::newRow("budget") << RequestOutcome::BudgetExhausted << true;
}

void TestRetryPlanner::fallback_takenAfterGivingUpOnly()
{
    QFETCH(RequestOutcome, outcome);
    QFETCH(bool, taken);
    RequestSpec spec;
    spec.url = QUrl(QStringLiteral("http://primary.test/x"));
    QVERIFY(!RetryPlanner::takesFallback(spec, 0, outcome, true)); // none named
    spec.fallbackUrls = {QUrl(QStringLiteral("http://a.test/1")), QUrl(QStringLiteral("http://b.test/2"))};
    QCOMPARE(RetryPlanner::takesFallback(spec, 0, outcome, true), taken);
    QCOMPARE(RetryPlanner::takesFallback(spec, 1, outcome, true), taken);
    QVERIFY(!RetryPlanner::takesFallback(spec, 2, outcome, true)); // the last one was tried
    // The last attempt's fault is permanent, or the request may not be repeated: never.
    QVERIFY(!RetryPlanner::takesFallback(spec, 0, outcome, false));
    QVERIFY(!RetryPlanner::takesFallback(spec, 1, outcome, false));
}

void TestRetryPlanner::fallback_oneAttemptEach()
{
    RequestSpec spec;
    spec.url = QUrl(QStringLiteral("http://primary.test/x"));
    spec.fallbackUrls
        = {QUrl(QStringLiteral("http://user:pw@a.test:8080/1?token=t")), QUrl(QStringLiteral("http://b.test/2"))};
    QCOMPARE(RetryPlanner::fallbackName(spec, 1), QStringLiteral("fallback 1 of 2 (http://a.test:8080/1)"));

    // A retryable failure at a fallback is not retried: the request moves on (GaveUp) with no delay.
    const RetryPlanner::Decision failed
        = RetryPlanner::decideFallback(RetryPlanner::State{}, spec, 1, AttemptEnd::Response, retryable());
    QCOMPARE(failed.action, RetryPlanner::Decision::Action::Finish);
    QCOMPARE(failed.outcome, RequestOutcome::GaveUp);
    QCOMPARE(failed.recordDecision, Classification::Decision::GiveUp);
    QCOMPARE(failed.nextDelayMs, -1.0);
    QVERIFY(failed.reason.startsWith(QLatin1String("fallback 1 of 2")));
    QVERIFY(failed.reason.contains(what));

    Classification ok;
    ok.decision = Classification::Decision::Success;
    ok.reason = QStringLiteral("HTTP 200");
    const RetryPlanner::Decision answered
        = RetryPlanner::decideFallback(RetryPlanner::State{}, spec, 2, AttemptEnd::Response, ok);
    QCOMPARE(answered.outcome, RequestOutcome::Succeeded);
    QCOMPARE(answered.recordDecision, Classification::Decision::Success);
    QCOMPARE(answered.reason, QStringLiteral("fallback 2 of 2 (http://b.test/2) answered: HTTP 200"));

    const RetryPlanner::Decision cancelled
        = RetryPlanner::decideFallback(RetryPlanner::State{}, spec, 1, AttemptEnd::Cancelled, retryable());
    QCOMPARE(cancelled.outcome, RequestOutcome::Cancelled);
}

QTEST_GUILESS_MAIN(TestRetryPlanner)
#include "tst_retryplanner.moc"
