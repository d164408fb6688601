#include "core/faultserver/faultserver.h"
#include "core/policy/presets.h"
#include "core/scenario/conformancerunner.h"

#include <QSignalSpy>
#include <QTest>

using namespace RetryLab::Core;

Q_DECLARE_METATYPE(RetryLab::Core::BackoffPolicy)

namespace {

BackoffPolicy preset(const char *id)
{
    return Conformance::compressed(*Presets::find(QString::fromLatin1(id)));
}

FaultSequence sequence(const char *id)
{
    for (const FaultSequence &s : Conformance::sequences()) {
        if (s.id == QLatin1String(id))
            return s;
    }
    qFatal("no sequence %s", id);
    return {};
}

bool runToEnd(ConformanceRunner &runner)
{
    QSignalSpy finished(&runner, &ConformanceRunner::finished);
    QSignalSpy failed(&runner, &ConformanceRunner::failed);
    runner.start();
    return QTest::qWaitFor([&] { return !finished.isEmpty() || !failed.isEmpty(); }, 30'000) && failed.isEmpty();
}

} // namespace

class TestConformanceSuite : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void matrix_sequencesByFourClasses();
    void compressed_shrinksWaitsKeepsRules_data();
    void compressed_shrinksWaitsKeepsRules();
    void expect_followsThePolicyRules_data();
    void expect_followsThePolicyRules();
    void expect_retryAfter_isHonouredAndBounded();
    void expect_retryAfterBeyondTheDeadline_failsFast();
    void expect_deadlineOnly_endsAfterAnUnknownNumberOfAttempts();
    void caseRequest_carriesMethodPreconditionAndScript();
    void expect_readModifyWrite_restartsTheWholeSequence_data();
    void expect_readModifyWrite_restartsTheWholeSequence();
    void caseRequest_readModifyWrite_inItsShape();
    void judge_namesEveryDifference();
    void judge_fewerAttemptsPassOnlyWhenTheDeadlineRanOut();
    void runner_presetPassesOnTheEmbeddedServer();
    void runner_expectationsOfAnotherPolicy_failWhereTheyDiffer();
    void runner_readModifyWriteRows_playTheRestart();
    void runner_recordAndVerdicts_forTheExports();
    void runner_everyPresetPasses_data();
    void runner_everyPresetPasses();
    void runner_azureRetriesARareFaultOnceAtOnce();
    void runner_neverSentPostIsRetried();
    void runner_timeLimitFollowsThePolicy();
    void runner_cellsCutByTheTimeLimit_sayWhy();
};

void TestConformanceSuite::initTestCase()
{
    qRegisterMetaType<RetryLab::Core::RequestResult>();
}

void TestConformanceSuite::matrix_sequencesByFourClasses()
{
    const QList<ConformanceCase> cases = Conformance::cases(preset("google-cloud-storage"));
    QCOMPARE(cases.size(), 52);
    // The read-modify-write rows play only in the conditional column.
    const auto played
        = std::count_if(cases.cbegin(), cases.cend(), [](const ConformanceCase &c) { return c.applies(); });
    QCOMPARE(played, 46);
    for (const ConformanceCase &c : cases) {
        if (c.sequence.readModifyWrite != FaultSequence::ReadModifyWrite::None)
            QCOMPARE(c.applies(), c.idempotency == IdempotencyClass::Conditional);
    }
    QCOMPARE(cases[0].sequence.id, QStringLiteral("503-then-ok"));
    QCOMPARE(cases[0].idempotency, IdempotencyClass::Always);
    QCOMPARE(cases[2].idempotency, IdempotencyClass::GenerationMatch);
    QCOMPARE(cases[3].idempotency, IdempotencyClass::Never);
    QVERIFY(cases.constLast().sequence.unreachable);
    QSet<QString> ids;
    for (const FaultSequence &s : Conformance::sequences()) {
        ids.insert(s.id);
        QVERIFY2(FaultInstruction::parseList(s.steps).ok(), qPrintable(s.id));
    }
    QCOMPARE(ids.size(), 13);
    QCOMPARE(Conformance::idempotencyName(IdempotencyClass::Conditional), QStringLiteral("conditional"));
    QCOMPARE(Conformance::idempotencyName(IdempotencyClass::GenerationMatch), QStringLiteral("generation-match"));
    QCOMPARE(cases[5].name(), QStringLiteral("500, 502, 503, 504, then OK / conditional (POST + If-Match)"));
}

void TestConformanceSuite::compressed_shrinksWaitsKeepsRules_data()
{
    QTest::addColumn<QString>("id");
    // Presets bounded by attempts. A deadline-only preset (IAM) makes the number of attempts depend on how
    // fast each one is, which a loaded or sanitized machine moves outside the model's 50 ms per attempt;
    // expect_deadlineOnly_endsAfterAnUnknownNumberOfAttempts covers it.
    for (const Presets::Preset &preset : Presets::all()) {
        if (preset.policy.maxAttempts > 0)
            QTest::addRow("%s", qPrintable(preset.id)) << preset.id;
    }
}

void TestConformanceSuite::compressed_shrinksWaitsKeepsRules()
{
    QFETCH(QString, id);
    const BackoffPolicy original = *Presets::find(id);
    const BackoffPolicy fast = Conformance::compressed(original);
    QVERIFY2(isUsable(fast), qPrintable(describeIssues(validatePolicy(fast))));
    QVERIFY(fast.baseDelayMs <= 10.0 + 1e-9);
    QVERIFY(fast.maxBackoffMs <= 100.0 + 1e-9);
    const double factor = Conformance::compressionFactor(original);
    QVERIFY(factor > 0.0 && factor <= 1.0);
    QCOMPARE(fast.baseDelayMs, original.baseDelayMs * factor);
    QCOMPARE(fast.jitterMs, original.jitterMs * factor);
    QVERIFY(fast.attemptTimeoutMs > 0.0 && fast.attemptTimeoutMs <= 5000.0);
    if (original.deadlineMs > 0.0)
        QVERIFY(fast.deadlineMs >= 2000.0);
    else
        QCOMPARE(fast.deadlineMs, 0.0);
    QCOMPARE(fast.classification, original.classification);
    QCOMPARE(fast.maxAttempts, original.maxAttempts);
    QCOMPARE(fast.algorithm, original.algorithm);
    QCOMPARE(fast.multiplier, original.multiplier);
    QCOMPARE(fast.retryBudget, original.retryBudget);
}

void TestConformanceSuite::expect_followsThePolicyRules_data()
{
    QTest::addColumn<BackoffPolicy>("policy");
    QTest::addColumn<QString>("sequence");
    QTest::addColumn<int>("idempotency");
    QTest::addColumn<QString>("outcome");
    QTest::addColumn<int>("attempts");
    QTest::addColumn<int>("status"); // -1: no HTTP status
    QTest::addColumn<QString>("explains");

    const int always = int(IdempotencyClass::Always);
    const int conditional = int(IdempotencyClass::Conditional);
    const int never = int(IdempotencyClass::Never);
    const int generation = int(IdempotencyClass::GenerationMatch);
    const BackoffPolicy gcs = preset("google-cloud-storage");
    QTest::addRow("gcs 503 POST?ifGenerationMatch")
        << gcs << "503-then-ok" << generation << "succeeded" << 2 << 200 << "ifGenerationMatch is conditional";
    // Never sent: the server cannot have acted, so even a plain POST is retried.
    QTest::addRow("gcs refused POST") << gcs << "refused-forever" << never << "attempts-exhausted" << 10 << -1
                                      << "POST was never sent, so it is safe to repeat";
    QTest::addRow("gcs refused GET") << gcs << "refused-forever" << always << "attempts-exhausted" << 10 << -1
                                     << "retry-after-delay for connection-refused";
    // Azure: a rare fault is retried at once, once; the next wait is the backoff.
    const BackoffPolicy azure = preset("azure-retry-pattern");
    QTest::addRow("azure reset") << azure << "reset-then-ok" << always << "succeeded" << 3 << 200
                                 << "retry-immediately for connection-reset";
    QTest::addRow("gcs 503 GET") << gcs << "503-then-ok" << always << "succeeded" << 2 << 200 << "a retryable status";
    QTest::addRow("gcs 503 POST+If-Match")
        << gcs << "503-then-ok" << conditional << "succeeded" << 2 << 200 << "conditional";
    QTest::addRow("gcs 503 POST") << gcs << "503-then-ok" << never << "gave-up" << 1 << 503 << "not idempotent";
    QTest::addRow("gcs 5xx") << gcs << "5xx-then-ok" << always << "succeeded" << 5 << 200 << "attempt 5: HTTP 200";
    QTest::addRow("gcs reset") << gcs << "reset-then-ok" << always << "succeeded" << 3 << 200
                               << "retry-after-delay for connection-reset";
    QTest::addRow("gcs broken stream POST")
        << gcs << "broken-stream-then-ok" << never << "gave-up" << 1 << 200 << "broken-stream";
    QTest::addRow("gcs 400") << gcs << "400" << always << "gave-up" << 1 << 400 << "not a retryable status";
    QTest::addRow("gcs 503 then 401") << gcs << "503-then-401" << conditional << "gave-up" << 2 << 401
                                      << "attempt 2: HTTP 401";
    QTest::addRow("gcs forever") << gcs << "503-forever" << always << "attempts-exhausted" << 10 << 503
                                 << "last of 10 attempt";
    const BackoffPolicy aws = preset("aws-standard");
    QTest::addRow("aws 5xx") << aws << "5xx-then-ok" << always << "attempts-exhausted" << 3 << 503 << "last of 3";
    const BackoffPolicy grpc = preset("grpc-retry-policy");
    QTest::addRow("grpc 500") << grpc << "5xx-then-ok" << always << "gave-up" << 1 << 500 << "not a retryable";
    QTest::addRow("grpc 429") << grpc << "429-retry-after-then-ok" << always << "gave-up" << 1 << 429 << "HTTP 429";
    const BackoffPolicy curl = preset("curl-retry");
    QTest::addRow("curl reset") << curl << "reset-then-ok" << always << "gave-up" << 1 << -1
                                << "give-up for connection-reset";
    QTest::addRow("curl 429") << curl << "429-retry-after-then-ok" << always << "succeeded" << 2 << 200
                              << "as Retry-After asks";

    BackoffPolicy anyPost = gcs;
    anyPost.classification.retryNonIdempotent = true;
    QTest::addRow("POST retried when the policy says so")
        << anyPost << "503-then-ok" << never << "succeeded" << 2 << 200 << "retries it anyway";

    BackoffPolicy throttled = gcs;
    throttled.retryBudget.kind = RetryBudgetKind::GrpcThrottling;
    throttled.retryBudget.grpcMaxTokens = 4; // retries stop once tokens <= 2: after the second failure
    QTest::addRow("gRPC throttling") << throttled << "503-forever" << always << "budget-exhausted" << 2 << 503
                                     << "throttled";
    BackoffPolicy quota = gcs;
    quota.retryBudget.kind = RetryBudgetKind::AwsStandard;
    quota.retryBudget.awsCapacity = 12; // two retries at 5 tokens each
    QTest::addRow("AWS retry quota") << quota << "503-forever" << always << "budget-exhausted" << 3 << 503
                                     << "budget is exhausted";
    BackoffPolicy breaker = gcs;
    breaker.circuitBreaker.enabled = true;
    breaker.circuitBreaker.consecutiveFailures = 3;
    breaker.circuitBreaker.openMs = 60'000;
    QTest::addRow("circuit breaker") << breaker << "503-forever" << always << "circuit-open" << 3 << 503
                                     << "circuit is open";
    QTest::addRow("breaker ignores a 400") << breaker << "400" << always << "gave-up" << 1 << 400 << "HTTP 400";
}

void TestConformanceSuite::expect_followsThePolicyRules()
{
    QFETCH(BackoffPolicy, policy);
    QFETCH(QString, sequence);
    QFETCH(int, idempotency);
    QFETCH(QString, outcome);
    QFETCH(int, attempts);
    QFETCH(int, status);
    QFETCH(QString, explains);

    const ConformanceExpectation e
        = Conformance::expect(policy, ::sequence(qPrintable(sequence)), IdempotencyClass(idempotency));
    QCOMPARE(e.outcomes, QList<RequestOutcome>{*requestOutcomeFromName(outcome)});
    QCOMPARE(e.minAttempts, attempts);
    QCOMPARE(e.maxAttempts, attempts);
    QVERIFY(e.checkFinalStatus);
    QCOMPARE(e.finalStatus, status < 0 ? std::nullopt : std::optional<int>(status));
    const QString why = e.explanation.join(QLatin1Char('\n'));
    QVERIFY2(why.contains(explains), qPrintable(why));
    QCOMPARE(e.explanation.size(), attempts + (e.outcomes.first() == RequestOutcome::CircuitOpen ? 1 : 0));
}

void TestConformanceSuite::expect_retryAfter_isHonouredAndBounded()
{
    const FaultSequence ra = sequence("429-retry-after-then-ok");
    BackoffPolicy policy = preset("google-cloud-storage");
    QCOMPARE(Conformance::expect(policy, ra, IdempotencyClass::Always).retryAfterDelayMs.value_or(-1), 1000.0);
    policy.classification.maxRetryAfterMs = 400;
    QCOMPARE(Conformance::expect(policy, ra, IdempotencyClass::Always).retryAfterDelayMs.value_or(-1), 400.0);
    policy.classification.honourRetryAfter = false;
    const ConformanceExpectation ignored = Conformance::expect(policy, ra, IdempotencyClass::Always);
    QVERIFY(!ignored.retryAfterDelayMs);
    QCOMPARE(ignored.outcomes.first(), RequestOutcome::Succeeded);
}

void TestConformanceSuite::expect_retryAfterBeyondTheDeadline_failsFast()
{
    BackoffPolicy policy = preset("google-cloud-storage");
    policy.deadlineMs = 2000;
    const FaultSequence longWait{
        QStringLiteral("x"), QStringLiteral("429 asking for 5 s"), {QStringLiteral("return-429-after-5s")}};
    const ConformanceExpectation e = Conformance::expect(policy, longWait, IdempotencyClass::Always);
    QCOMPARE(e.outcomes, QList<RequestOutcome>{RequestOutcome::DeadlineExceeded});
    QCOMPARE(e.minAttempts, 1);
    QCOMPARE(e.maxAttempts, 1);
    QVERIFY(e.explanation.last().contains(QLatin1String("beyond the deadline")));
}

void TestConformanceSuite::expect_deadlineOnly_endsAfterAnUnknownNumberOfAttempts()
{
    const ConformanceExpectation e
        = Conformance::expect(preset("iam"), sequence("503-forever"), IdempotencyClass::Always);
    QCOMPARE(e.outcomes, QList<RequestOutcome>{RequestOutcome::DeadlineExceeded});
    QVERIFY(e.minAttempts >= 2);
    QVERIFY(e.maxAttempts == -1 || e.maxAttempts >= e.minAttempts);
    QVERIFY(!e.checkFinalStatus);
    QVERIFY(e.summary().contains(QLatin1String("deadline-exceeded")));
}

void TestConformanceSuite::caseRequest_carriesMethodPreconditionAndScript()
{
    const QUrl base(QStringLiteral("http://127.0.0.1:5555/"));
    const FaultSequence s = sequence("503-then-ok");
    const RequestSpec get = ConformanceCase{s, IdempotencyClass::Always, {}}.request(base, QStringLiteral("t9"));
    QCOMPARE(get.method, QByteArray("GET"));
    QCOMPARE(get.url, QUrl(QStringLiteral("http://127.0.0.1:5555/status/200")));
    QCOMPARE(headerValue(get.headers, "X-Retry-Test-Id").value_or(QByteArray()), QByteArray("t9"));
    QVERIFY(get.body.isEmpty());
    const RequestSpec conditional = ConformanceCase{s, IdempotencyClass::Conditional, {}}.request(base, {});
    QCOMPARE(conditional.method, QByteArray("POST"));
    QVERIFY(headerValue(conditional.headers, "If-Match"));
    QVERIFY(!headerValue(conditional.headers, "X-Retry-Test-Id"));
    QVERIFY(!conditional.idempotent);
    const RequestSpec never = ConformanceCase{sequence("503-forever"), IdempotencyClass::Never, {}}.request(base, {});
    QCOMPARE(never.method, QByteArray("POST"));
    QVERIFY(!headerValue(never.headers, "If-Match"));
    QVERIFY(!never.idempotent);
    QCOMPARE(never.url.path(), QStringLiteral("/status/503"));
}

void TestConformanceSuite::expect_readModifyWrite_restartsTheWholeSequence_data()
{
    QTest::addColumn<QString>("row");
    QTest::addColumn<int>("maxAttempts");
    QTest::addColumn<bool>("retryConflicts");
    QTest::addColumn<RequestOutcome>("outcome");
    QTest::addColumn<int>("attempts");
    QTest::addColumn<int>("status");
    // read, write (stale), read again, write: the restart counts as one retry.
    QTest::addRow("IAM, 409 ABORTED") << "iam-rmw-409-restart" << 5 << true << RequestOutcome::Succeeded << 4 << 200;
    QTest::addRow("If-Match, 412") << "rmw-412-restart" << 5 << true << RequestOutcome::Succeeded << 4 << 200;
    QTest::addRow("one attempt allowed") << "iam-rmw-409-restart" << 1 << true << RequestOutcome::AttemptsExhausted << 2
                                         << 409;
    QTest::addRow("conflicts not retried") << "rmw-412-restart" << 5 << false << RequestOutcome::GaveUp << 2 << 412;
}

void TestConformanceSuite::expect_readModifyWrite_restartsTheWholeSequence()
{
    QFETCH(QString, row);
    QFETCH(int, maxAttempts);
    QFETCH(bool, retryConflicts);
    QFETCH(RequestOutcome, outcome);
    QFETCH(int, attempts);
    QFETCH(int, status);
    BackoffPolicy policy = Conformance::compressed(preset("google-cloud-storage"));
    policy.maxAttempts = maxAttempts;
    policy.classification.retryConflictAborted = retryConflicts;
    const ConformanceExpectation e
        = Conformance::expect(policy, sequence(qPrintable(row)), IdempotencyClass::Conditional);
    QCOMPARE(e.outcomes, QList<RequestOutcome>{outcome});
    QCOMPARE(e.minAttempts, attempts);
    QCOMPARE(e.maxAttempts, attempts);
    QVERIFY(e.checkFinalStatus);
    QCOMPARE(e.finalStatus, std::optional<int>(status));
    QCOMPARE(e.scriptSteps, 2);
    QVERIFY2(
        e.explanation.value(0).contains(QLatin1String("(read)")), qPrintable(e.explanation.join(QLatin1Char('\n'))));
    QVERIFY2(
        e.explanation.value(1).contains(QLatin1String("(write)")), qPrintable(e.explanation.join(QLatin1Char('\n'))));
}

void TestConformanceSuite::caseRequest_readModifyWrite_inItsShape()
{
    const QUrl base(QStringLiteral("http://127.0.0.1:5555"));
    const RequestSpec iam = ConformanceCase{sequence("iam-rmw-409-restart"), IdempotencyClass::Conditional, {}}.request(
        base, QStringLiteral("t3"));
    QCOMPARE(iam.kind, RequestSpec::Kind::ReadModifyWrite);
    QCOMPARE(iam.url.path(), QStringLiteral("/occ/conformance-iam-rmw-409-restart-t3:getIamPolicy"));
    QCOMPARE(iam.url.query(), QStringLiteral("etag=body&envelope=policy"));
    QCOMPARE(iam.readModifyWrite.readMethod, QByteArray("POST"));
    QCOMPARE(iam.readModifyWrite.writeMethod, QByteArray("POST"));
    QCOMPARE(
        iam.readModifyWrite.writeUrl.path(), QStringLiteral("/occ/conformance-iam-rmw-409-restart-t3:setIamPolicy"));
    QCOMPARE(iam.readModifyWrite.etagPointer, QStringLiteral("/etag"));
    QCOMPARE(iam.readModifyWrite.writeEnvelope, QStringLiteral("policy"));
    QCOMPARE(headerValue(iam.headers, "X-Retry-Test-Id").value_or(QByteArray()), QByteArray("t3"));
    const RequestSpec ifMatch = ConformanceCase{sequence("rmw-412-restart"), IdempotencyClass::Conditional, {}}.request(
        base, QStringLiteral("t4"));
    QCOMPARE(ifMatch.kind, RequestSpec::Kind::ReadModifyWrite);
    QVERIFY(ifMatch.readModifyWrite.isDefault()); // GET with an ETag, PUT with If-Match
    QCOMPARE(ifMatch.url.path(), QStringLiteral("/occ/conformance-rmw-412-restart-t4"));
    QVERIFY(!ConformanceCase({sequence("rmw-412-restart"), IdempotencyClass::Never, {}}).applies());
}

void TestConformanceSuite::judge_namesEveryDifference()
{
    ConformanceCase cell{sequence("429-retry-after-then-ok"), IdempotencyClass::Always, {}};
    cell.expected = Conformance::expect(preset("google-cloud-storage"), cell.sequence, cell.idempotency);

    RequestResult good;
    good.outcome = RequestOutcome::Succeeded;
    good.attempts = 2;
    good.finalStatus = 200;
    AttemptRecord first;
    AttemptRecord second;
    second.attemptIndex = 1;
    second.plannedDelayMs = 1000.0;
    const ConformanceVerdict pass = Conformance::judge(cell, good, {first, second}, 1);
    QVERIFY2(pass.passed, qPrintable(pass.message));
    QVERIFY(pass.message.startsWith(QLatin1String("as expected")));

    RequestResult bad = good;
    bad.outcome = RequestOutcome::AttemptsExhausted;
    bad.attempts = 3;
    bad.finalStatus = 429;
    second.plannedDelayMs = 12.0;
    const ConformanceVerdict fail = Conformance::judge(cell, bad, {first, second}, 0);
    QVERIFY(!fail.passed);
    for (const char *part : {"it ended attempts-exhausted", "it made 3 attempt(s)", "it ended with status 429",
             "waited 12 ms before the second attempt instead of the 1 s Retry-After asks",
             "the server played 0 of its scripted steps", "observed: attempts-exhausted"}) {
        QVERIFY2(fail.message.contains(QLatin1String(part)), qPrintable(fail.message));
    }
}

void TestConformanceSuite::runner_presetPassesOnTheEmbeddedServer()
{
    FaultServer server;
    QVERIFY(server.listen());
    ConformanceRunner runner;
    runner.setFaultServer(&server);
    runner.setPolicy(*Presets::find(QStringLiteral("aws-standard")));
    QCOMPARE(runner.cells().size(), 52);
    QCOMPARE(runner.playedCount(), 46);
    QCOMPARE(runner.finishedCount(), 0);
    QSignalSpy cells(&runner, &ConformanceRunner::cellFinished);
    QVERIFY(runToEnd(runner));
    QCOMPARE(cells.size(), 46);
    QCOMPARE(runner.passedCount(), 46);
    for (const ConformanceCellResult &cell : runner.cells())
        QVERIFY2(
            cell.done && cell.verdict.passed, qPrintable(cell.cell.name() + QLatin1Char('\n') + cell.verdict.message));
    QVERIFY(runner.allPassed());
    QVERIFY(server.handledCount() >= 32);
    QVERIFY(server.isListening());
    // Scripted cells used exactly one step per attempt that reached the server.
    const ConformanceCellResult &resets = runner.cells().at(8); // connection reset twice, GET
    QCOMPARE(resets.cell.sequence.id, QStringLiteral("reset-then-ok"));
    QCOMPARE(resets.stepsUsed, 2);
}

void TestConformanceSuite::runner_expectationsOfAnotherPolicy_failWhereTheyDiffer()
{
    // curl does not retry resets or broken streams; the Cloud Storage rules say it should.
    ConformanceRunner runner;
    runner.setPolicy(*Presets::find(QStringLiteral("curl-retry")));
    runner.setExpectationPolicy(*Presets::find(QStringLiteral("google-cloud-storage")));
    QVERIFY(runToEnd(runner));
    QVERIFY(!runner.allPassed());
    QStringList failed;
    for (const ConformanceCellResult &cell : runner.cells()) {
        if (!cell.verdict.passed)
            failed.append(cell.cell.name());
    }
    QVERIFY2(failed.contains(QStringLiteral("connection reset twice, then OK / always idempotent (GET)")),
        qPrintable(failed.join(QLatin1Char('\n'))));
    QVERIFY(failed.contains(QStringLiteral("broken stream, then OK / always idempotent (GET)")));
    // Cells where both agree still pass: a plain POST is never retried by either.
    QVERIFY(!failed.contains(QStringLiteral("503, then OK / never idempotent (POST)")));
    const ConformanceCellResult &reset = runner.cells().at(8);
    QVERIFY2(reset.verdict.message.contains(QLatin1String("expected succeeded after 3 attempt(s)")),
        qPrintable(reset.verdict.message));
}

void TestConformanceSuite::runner_readModifyWriteRows_playTheRestart()
{
    // The whole sequence against the embedded server's /occ: read, a write the script
    // answers stale, then read and write again, which lands.
    ConformanceRunner runner;
    runner.setPolicy(*Presets::find(QStringLiteral("google-cloud-storage")));
    QVERIFY(runToEnd(runner));
    int played = 0;
    for (const ConformanceCellResult &cell : runner.cells()) {
        if (cell.cell.sequence.readModifyWrite == FaultSequence::ReadModifyWrite::None)
            continue;
        if (!cell.cell.applies()) {
            QVERIFY(cell.done && cell.attempts.isEmpty());
            QVERIFY(cell.verdict.message.startsWith(QLatin1String("not played")));
            continue;
        }
        ++played;
        QVERIFY2(cell.verdict.passed, qPrintable(cell.cell.name() + QLatin1Char('\n') + cell.verdict.message));
        QCOMPARE(cell.result.outcome, RequestOutcome::Succeeded);
        QCOMPARE(cell.stepsUsed, 2);
        QStringList steps;
        for (const AttemptRecord &a : cell.attempts)
            steps.append(
                QStringLiteral("%1 %2 %3").arg(a.step, QString::fromLatin1(a.method)).arg(a.httpStatus.value_or(0)));
        const bool iam = cell.cell.sequence.readModifyWrite == FaultSequence::ReadModifyWrite::Iam;
        const QStringList expected = iam
            ? QStringList{QStringLiteral("read POST 200"), QStringLiteral("write POST 409"),
                QStringLiteral("read POST 200"), QStringLiteral("write POST 200")}
            : QStringList{QStringLiteral("read GET 200"), QStringLiteral("write PUT 412"),
                QStringLiteral("read GET 200"), QStringLiteral("write PUT 200")};
        QCOMPARE(steps, expected);
        QCOMPARE(cell.attempts.at(2).sequenceRound, 1);
    }
    QCOMPARE(played, 2);
    QVERIFY(runner.allPassed());
    QCOMPARE(runner.expectationResults().size(), runner.playedCount());
}

void TestConformanceSuite::runner_recordAndVerdicts_forTheExports()
{
    ConformanceRunner runner;
    runner.setPolicy(*Presets::find(QStringLiteral("grpc-retry-policy")));
    QVERIFY(runToEnd(runner));
    const RunRecord run = runner.record();
    QCOMPARE(run.requests.size(), 46); // the cells played
    QCOMPARE(run.results.size(), 46);
    QCOMPARE(run.policy, runner.runPolicy());
    QSet<quint64> ids;
    for (const AttemptRecord &a : run.attempts) {
        QVERIFY(a.requestId >= 1 && a.requestId <= 52);
        QVERIFY(a.startNs >= run.epochNs - 2'000'000); // aligned on the earliest cell, to the millisecond
        ids.insert(a.requestId);
    }
    QCOMPARE(ids.size(), 46);
    const QList<ExpectationResult> verdicts = runner.expectationResults();
    QCOMPARE(verdicts.size(), 46);
    QCOMPARE(verdicts[0].name, runner.cells().at(0).cell.name());
    QCOMPARE(verdicts[0].requestIds, QList<quint64>{1});
    QVERIFY(std::all_of(verdicts.cbegin(), verdicts.cend(), [](const ExpectationResult &r) { return r.passed; }));
}

void TestConformanceSuite::judge_fewerAttemptsPassOnlyWhenTheDeadlineRanOut()
{
    // IAM is bounded by its deadline alone: the model counts attempts on a machine where each takes at most
    // 50 ms. Slower attempts fit fewer into the deadline, which is right when the time really ran out.
    const BackoffPolicy iam = preset("iam");
    QVERIFY(iam.maxAttempts <= 0 && iam.deadlineMs > 0.0);
    ConformanceCase cell{sequence("503-forever"), IdempotencyClass::Conditional, {}};
    cell.expected = Conformance::expect(iam, cell.sequence, cell.idempotency);
    QCOMPARE(cell.expected.deadlineMs, iam.deadlineMs);
    QVERIFY(cell.expected.longestWaitMs > 0.0 && cell.expected.longestWaitMs < iam.deadlineMs / 2.0);
    QVERIFY(cell.expected.minAttempts > 3);

    RequestResult slow;
    slow.outcome = RequestOutcome::DeadlineExceeded;
    slow.attempts = 3;
    slow.finalStatus = 503;
    slow.startNs = 0;
    slow.endNs = qint64((iam.deadlineMs - cell.expected.longestWaitMs) * 1e6);
    const ConformanceVerdict ranOut = Conformance::judge(cell, slow, {}, -1);
    QVERIFY2(ranOut.passed, qPrintable(ranOut.message));

    RequestResult early = slow;
    early.endNs = qint64(iam.deadlineMs / 4.0 * 1e6);
    const ConformanceVerdict gaveUpEarly = Conformance::judge(cell, early, {}, -1);
    QVERIFY(!gaveUpEarly.passed);
    QVERIFY2(gaveUpEarly.message.contains(QLatin1String("it made 3 attempt(s)")), qPrintable(gaveUpEarly.message));

    RequestResult exhausted = slow; // another ending is not excused by the time it took
    exhausted.outcome = RequestOutcome::AttemptsExhausted;
    QVERIFY(!Conformance::judge(cell, exhausted, {}, -1).passed);
}

void TestConformanceSuite::runner_everyPresetPasses_data()
{
    QTest::addColumn<QString>("id");
    for (const QString &id : Presets::ids())
        QTest::addRow("%s", qPrintable(id)) << id;
}

void TestConformanceSuite::runner_everyPresetPasses()
{
    QFETCH(QString, id);
    ConformanceRunner runner;
    runner.setPolicy(*Presets::find(id));
    QVERIFY(runToEnd(runner));
    for (const ConformanceCellResult &cell : runner.cells())
        QVERIFY2(cell.verdict.passed, qPrintable(cell.cell.name() + QLatin1Char('\n') + cell.verdict.message));
}

void TestConformanceSuite::runner_azureRetriesARareFaultOnceAtOnce()
{
    ConformanceRunner runner;
    runner.setPolicy(*Presets::find(QStringLiteral("azure-retry-pattern")));
    QVERIFY(runToEnd(runner));
    const ConformanceCellResult &resets = runner.cells().at(8);
    QCOMPARE(resets.cell.sequence.id, QStringLiteral("reset-then-ok"));
    QVERIFY2(resets.verdict.passed, qPrintable(resets.verdict.message));
    QCOMPARE(resets.attempts.size(), 3);
    QCOMPARE(resets.attempts[1].plannedDelayMs, 0.0); // the rare fault: at once
    QVERIFY(resets.attempts[2].plannedDelayMs > 0.0); // the same fault again: the backoff
    QCOMPARE(resets.attempts[0].decision, Classification::Decision::RetryImmediately);
}

void TestConformanceSuite::runner_neverSentPostIsRetried()
{
    ConformanceRunner runner;
    runner.setPolicy(*Presets::find(QStringLiteral("google-cloud-storage")));
    QVERIFY(runToEnd(runner));
    const ConformanceCellResult &post = runner.cells().constLast();
    QCOMPARE(post.cell.sequence.id, QStringLiteral("refused-forever"));
    QCOMPARE(post.cell.idempotency, IdempotencyClass::Never);
    QVERIFY2(post.verdict.passed, qPrintable(post.verdict.message));
    QCOMPARE(post.result.outcome, RequestOutcome::AttemptsExhausted);
    QCOMPARE(post.attempts.size(), 10);
    QCOMPARE(post.attempts[0].cause, QStringLiteral("connection-refused"));
    QVERIFY2(post.attempts[0].reason.contains(QLatin1String("never reached the server")),
        qPrintable(post.attempts[0].reason));
}

QTEST_GUILESS_MAIN(TestConformanceSuite)
#include "tst_conformancesuite.moc"

void TestConformanceSuite::runner_timeLimitFollowsThePolicy()
{
    ConformanceRunner runner;
    runner.setPolicy(*Presets::find(QStringLiteral("aws-standard")));
    QCOMPARE(runner.timeLimitMs(), 60'000);

    // A thousand attempts with waits of 10 ms (compressed), each allowed 50 ms, need minutes.
    BackoffPolicy many = *Presets::find(QStringLiteral("polly-default"));
    many.maxAttempts = 1000;
    many.deadlineMs = 0.0;
    runner.setPolicy(many);
    double longest = 0.0;
    for (const ConformanceCellResult &cell : runner.cells())
        longest = std::max(longest, cell.cell.expected.longestMs);
    const BackoffPolicy run = runner.runPolicy();
    QVERIFY2(longest >= 999 * 0.5 * run.maxBackoffMs, qPrintable(QString::number(longest)));
    QVERIFY(runner.timeLimitMs() > 60'000);
    QVERIFY(runner.timeLimitMs() >= 2.0 * longest);

    // A deadline bounds every cell, so the limit stays at a minute.
    many.deadlineMs = 20'000.0;
    runner.setPolicy(many);
    QCOMPARE(runner.timeLimitMs(), 60'000);

    runner.setTimeLimitMs(5'000);
    QCOMPARE(runner.timeLimitMs(), 5'000);
}

void TestConformanceSuite::runner_cellsCutByTheTimeLimit_sayWhy()
{
    BackoffPolicy slow = *Presets::find(QStringLiteral("polly-default"));
    slow.maxAttempts = 1000;
    slow.deadlineMs = 0.0;
    ConformanceRunner runner;
    runner.setPolicy(slow);
    runner.setTimeLimitMs(300);
    QVERIFY(runToEnd(runner));
    QVERIFY(runner.timedOut());
    int cut = 0;
    for (const ConformanceCellResult &cell : runner.cells()) {
        if (cell.result.outcome != RequestOutcome::Cancelled)
            continue;
        ++cut;
        QVERIFY(!cell.verdict.passed);
        QVERIFY2(cell.verdict.message.startsWith(QLatin1String("the matrix's time limit of 300 ms ran out")),
            qPrintable(cell.verdict.message));
    }
    QVERIFY(cut > 0);
}
