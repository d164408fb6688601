#include "core/policy/retrybudget.h"

#include <QTest>

using namespace RetryLab::Core;

class TestRetryBudget : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void none_neverRefuses();
    void aws_costsAndRefunds();
    void aws_exhaustsAfterHundredRetries();
    void grpc_throttlesAtHalf();
};

void TestRetryBudget::none_neverRefuses()
{
    RetryBudget budget;
    QVERIFY(!budget.enabled());
    for (int i = 0; i < 1000; ++i)
        QCOMPARE(budget.tryAcquireRetry(false), 0.0);
}

void TestRetryBudget::aws_costsAndRefunds()
{
    RetryBudgetSettings s;
    s.kind = RetryBudgetKind::AwsStandard;
    RetryBudget budget(s);
    QCOMPARE(budget.tokens(), 500.0);
    QCOMPARE(budget.tryAcquireRetry(false), 5.0);
    QCOMPARE(budget.tokens(), 495.0);
    QCOMPARE(budget.tryAcquireRetry(true), 10.0);
    QCOMPARE(budget.tokens(), 485.0);
    budget.recordSuccess(10.0); // the retry that succeeded gives back what it took
    QCOMPARE(budget.tokens(), 495.0);
    budget.recordSuccess(0.0); // a first-attempt success refunds 1
    QCOMPARE(budget.tokens(), 496.0);
    for (int i = 0; i < 10; ++i)
        budget.recordSuccess(0.0);
    QCOMPARE(budget.tokens(), 500.0); // never above capacity
}

void TestRetryBudget::aws_exhaustsAfterHundredRetries()
{
    RetryBudgetSettings s;
    s.kind = RetryBudgetKind::AwsStandard;
    RetryBudget budget(s);
    for (int i = 0; i < 100; ++i)
        QCOMPARE(budget.tryAcquireRetry(false), 5.0);
    QCOMPARE(budget.tokens(), 0.0);
    QCOMPARE(budget.tryAcquireRetry(false), -1.0);
    budget.recordSuccess(0.0);
    QCOMPARE(budget.tryAcquireRetry(false), -1.0); // 1 token does not cover a retry
}

void TestRetryBudget::grpc_throttlesAtHalf()
{
    RetryBudgetSettings s;
    s.kind = RetryBudgetKind::GrpcThrottling;
    s.grpcMaxTokens = 10;
    s.grpcTokenRatio = 0.1;
    RetryBudget budget(s);
    for (int i = 0; i < 4; ++i) {
        budget.recordFailure();
        QCOMPARE(budget.tryAcquireRetry(false), 0.0);
    }
    budget.recordFailure(); // 5 tokens: at half, retries stop
    QCOMPARE(budget.tokens(), 5.0);
    QCOMPARE(budget.tryAcquireRetry(false), -1.0);
    budget.recordSuccess(0.0);
    QVERIFY(qFuzzyCompare(budget.tokens(), 5.1));
    QCOMPARE(budget.tryAcquireRetry(false), 0.0);
}

QTEST_GUILESS_MAIN(TestRetryBudget)
#include "tst_retrybudget.moc"
