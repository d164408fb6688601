#include "core/policy/policyadvice.h"
#include "core/policy/policyfields.h"
#include "core/policy/presets.h"

#include <QTest>

#include <cmath>

using namespace RetryLab::Core;

Q_DECLARE_METATYPE(RetryLab::Core::BackoffPolicy)

namespace {

// The field each warning names, in order.
QStringList fieldsOf(const QList<PolicyIssue> &issues)
{
    QStringList fields;
    for (const PolicyIssue &issue : issues) {
        if (issue.isError())
            fields.append(QStringLiteral("ERROR ") + issue.field);
        else
            fields.append(issue.field);
    }
    return fields;
}

BackoffPolicy gentle()
{
    BackoffPolicy p; // Google truncated exponential with jitter, 5 attempts
    p.baseDelayMs = 100;
    p.maxBackoffMs = 2000;
    p.jitterMs = 100;
    return p;
}

} // namespace

class TestPolicyAdvice : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void gentlePolicy_noAdvice();
    void eachRule_warnsWithItsReason_data();
    void eachRule_warnsWithItsReason();
    void worstCaseWait_sumsTheLargestDelaysUpToTheDeadline();
    void presets_interactiveAdviceFollowsTheirWaits();
    void presets_interactiveAndBatchVariants_fitTheirUse();
};

void TestPolicyAdvice::gentlePolicy_noAdvice()
{
    QVERIFY(advisePolicy(gentle(), {}).isEmpty());
    QVERIFY(advisePolicy(gentle(), {5, true}).isEmpty()); // at most 4 x 2.1 s of waiting
}

void TestPolicyAdvice::eachRule_warnsWithItsReason_data()
{
    QTest::addColumn<BackoffPolicy>("policy");
    QTest::addColumn<int>("clients");
    QTest::addColumn<bool>("interactive");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("reason");

    BackoffPolicy plain = gentle();
    plain.algorithm = BackoffAlgorithm::Exponential;
    QTest::addRow("no jitter, many clients") << plain << 4 << false << "algorithm"
                                             << "retry in step";
    QTest::addRow("no jitter, few clients: fine") << plain << 3 << false << ""
                                                  << "";
    BackoffPolicy constant = gentle();
    constant.algorithm = BackoffAlgorithm::Constant;
    constant.retryBudget.kind = RetryBudgetKind::AwsStandard;
    QTest::addRow("constant without interval jitter") << constant << 50 << false << "intervalJitter"
                                                      << "or an interval jitter";
    constant.intervalJitter = IntervalJitter::Full;
    QTest::addRow("constant with interval jitter: fine") << constant << 50 << false << ""
                                                         << "";

    BackoffPolicy zero = gentle();
    zero.algorithm = BackoffAlgorithm::FullJitter;
    zero.baseDelayMs = 0;
    QTest::addRow("every retry at once") << zero << 1 << false << "baseDelayMs"
                                         << "more than once";

    BackoffPolicy patient = gentle();
    patient.baseDelayMs = 1000; // 1, 2, 4, 8, 16 s and jitter: over 31 s
    patient.maxBackoffMs = 32'000;
    patient.maxAttempts = 6;
    QTest::addRow("interactive, long delays") << patient << 1 << true << "maxBackoffMs"
                                              << "a person may wait";
    QTest::addRow("batch, long delays: fine") << patient << 1 << false << ""
                                              << "";
    BackoffPolicy deadline = patient;
    deadline.maxAttempts = 0;
    deadline.deadlineMs = 300'000;
    QTest::addRow("interactive, 5 min deadline") << deadline << 1 << true << "deadlineMs"
                                                 << "may wait 5 min before";

    QTest::addRow("no budget, high concurrency") << gentle() << 10 << false << "retryBudget.kind"
                                                 << "multiplies";
    BackoffPolicy budgeted = gentle();
    budgeted.retryBudget.kind = RetryBudgetKind::GrpcThrottling;
    QTest::addRow("budget, high concurrency: fine") << budgeted << 1000 << false << ""
                                                    << "";

    BackoffPolicy many = gentle();
    many.maxAttempts = 11;
    QTest::addRow("11 attempts") << many << 1 << false << "maxAttempts"
                                 << "11 attempts";
    many.maxAttempts = 10;
    QTest::addRow("10 attempts: fine") << many << 1 << false << ""
                                       << "";
}

void TestPolicyAdvice::eachRule_warnsWithItsReason()
{
    QFETCH(BackoffPolicy, policy);
    QFETCH(int, clients);
    QFETCH(bool, interactive);
    QFETCH(QString, field);
    QFETCH(QString, reason);

    const QList<PolicyIssue> advice = advisePolicy(policy, {clients, interactive});
    if (field.isEmpty()) {
        QVERIFY2(advice.isEmpty(), qPrintable(fieldsOf(advice).join(QStringLiteral(", "))));
        return;
    }
    QCOMPARE(fieldsOf(advice), QStringList{field});
    QVERIFY2(advice.first().message.contains(reason), qPrintable(advice.first().message));
    QCOMPARE(advice.first().severity, PolicyIssue::Severity::Warning);
}

void TestPolicyAdvice::worstCaseWait_sumsTheLargestDelaysUpToTheDeadline()
{
    BackoffPolicy p = gentle();
    p.algorithm = BackoffAlgorithm::Exponential; // 100, 200, 400, 800
    QCOMPARE(worstCaseWaitMs(p), 1500.0);
    p.deadlineMs = 1000;
    QCOMPARE(worstCaseWaitMs(p), 1000.0);
    p.maxAttempts = 0;
    QCOMPARE(worstCaseWaitMs(p), 1000.0);
    p.deadlineMs = 0;
    QVERIFY(std::isinf(worstCaseWaitMs(p)));
    p.maxAttempts = 1;
    QCOMPARE(worstCaseWaitMs(p), 0.0);
    p.algorithm = BackoffAlgorithm::Immediate;
    p.maxAttempts = 50;
    QCOMPARE(worstCaseWaitMs(p), 0.0);
}

void TestPolicyAdvice::presets_interactiveAdviceFollowsTheirWaits()
{
    // IAM waits up to its 300 s deadline: too long for a person; the batch use is fine.
    const BackoffPolicy iam = *Presets::find(QStringLiteral("iam"));
    QVERIFY(advisePolicy(iam, {1, false}).isEmpty());
    const auto interactive = advisePolicy(iam, {1, true});
    QCOMPARE(fieldsOf(interactive), QStringList{QStringLiteral("deadlineMs")});
    // Azure's fixed 5 s waits: in step with many clients.
    const auto azure = advisePolicy(*Presets::find(QStringLiteral("azure-retry-pattern")), {100, false});
    QVERIFY(fieldsOf(azure).contains(QStringLiteral("intervalJitter")));
}

void TestPolicyAdvice::presets_interactiveAndBatchVariants_fitTheirUse()
{
    // Azure: an interactive application fails after fewer retries with a short delay; a batch
    // application retries more, with an exponentially growing delay.
    const BackoffPolicy interactive = *Presets::find(QStringLiteral("azure-interactive"));
    const BackoffPolicy batch = *Presets::find(QStringLiteral("azure-batch"));
    QVERIFY(interactive.maxAttempts > 0 && interactive.maxAttempts < batch.maxAttempts);
    QVERIFY(interactive.deadlineMs > 0 && interactive.deadlineMs <= PolicyUsage::interactiveWaitMs);
    QVERIFY(worstCaseWaitMs(interactive) <= PolicyUsage::interactiveWaitMs);
    QVERIFY(worstCaseWaitMs(batch) > 10 * worstCaseWaitMs(interactive));
    QVERIFY(growsExponentially(batch.algorithm));
    QVERIFY(hasJitter(interactive) && hasJitter(batch));
    // Each draws no advice for its own use, even from a fleet of clients.
    QVERIFY(advisePolicy(interactive, {3, true}).isEmpty());
    QVERIFY(advisePolicy(batch, {500, false}).isEmpty());
    // The batch variant keeps a person waiting: interactive use is warned about.
    QVERIFY(!advisePolicy(batch, {1, true}).isEmpty());
    QVERIFY(interactive.source.contains(QLatin1String("Retry pattern")));
    QVERIFY(batch.source.contains(QLatin1String("Retry pattern")));
}

QTEST_GUILESS_MAIN(TestPolicyAdvice)
#include "tst_policyadvice.moc"
