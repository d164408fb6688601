#include "core/policy/backoffpolicy.h"
#include "core/policy/policyfields.h"

#include <QTest>

#include <algorithm>
#include <limits>

using namespace RetryLab::Core;

class TestBackoffPolicy : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void defaults_areUsable();
    void invalidValues_areRejectedWithField_data();
    void invalidValues_areRejectedWithField();
    void warnings_explainButAllow_data();
    void warnings_explainButAllow();
    void names_roundTrip();
    void checks_onlyTheFieldsTheAlgorithmUses_data();
    void checks_onlyTheFieldsTheAlgorithmUses();
};

void TestBackoffPolicy::defaults_areUsable()
{
    const BackoffPolicy p;
    QVERIFY2(isUsable(p), qPrintable(describeIssues(validatePolicy(p))));
    QVERIFY(validatePolicy(p).isEmpty());
}

void TestBackoffPolicy::invalidValues_areRejectedWithField_data()
{
    QTest::addColumn<QString>("field");
    QTest::addColumn<double>("value");
    QTest::addColumn<QString>("expectedField");
    QTest::addColumn<QString>("messageContains");

    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    QTest::addRow("negative base") << "base" << -1.0 << "baseDelayMs"
                                   << "negative";
    QTest::addRow("nan base") << "base" << nan << "baseDelayMs"
                              << "not a number";
    QTest::addRow("infinite base") << "base" << inf << "baseDelayMs"
                                   << "finite";
    QTest::addRow("huge base") << "base" << 1e15 << "baseDelayMs"
                               << "limit";
    // In the units people read, not in the field's internal name and unit.
    QTest::addRow("twelve nines of base") << "base" << 999999999999.0 << "baseDelayMs"
                                          << "999999999999 ms (31.7 years) is beyond the sensible limit of 24 h.";
    QTest::addRow("1e308 of base") << "base" << 1e308 << "baseDelayMs"
                                   << "1e+308 ms (3.17e+297 years) is beyond the sensible limit of 24 h.";
    QTest::addRow("a week and a day of deadline") << "deadline" << 8.0 * 86'400'000.0 << "deadlineMs"
                                                  << "691200000 ms (8 days) is beyond the sensible limit of 7 days.";
    QTest::addRow("negative cap") << "cap" << -5.0 << "maxBackoffMs"
                                  << "negative";
    QTest::addRow("cap below base") << "cap" << 500.0 << "maxBackoffMs"
                                    << "below the base";
    QTest::addRow("multiplier below 1") << "multiplier" << 0.5 << "multiplier"
                                        << "below 1";
    QTest::addRow("nan multiplier") << "multiplier" << nan << "multiplier"
                                    << "finite";
    QTest::addRow("huge multiplier") << "multiplier" << 1e6 << "multiplier"
                                     << "limit";
    QTest::addRow("deadline 10^12 s") << "deadline" << 1e15 << "deadlineMs"
                                      << "limit";
    QTest::addRow("negative deadline") << "deadline" << -1.0 << "deadlineMs"
                                       << "negative";
    QTest::addRow("negative timeout") << "timeout" << -1.0 << "attemptTimeoutMs"
                                      << "negative";
    QTest::addRow("nan jitter") << "jitter" << nan << "jitterMs"
                                << "not a number";
    QTest::addRow("fraction above 1") << "fraction" << 1.5 << "jitterFraction"
                                      << "between 0 and 100 % (got 150 %)";
    QTest::addRow("negative attempts") << "attempts" << -3.0 << "maxAttempts"
                                       << "negative";
    QTest::addRow("absurd attempts") << "attempts" << 1e7 << "maxAttempts"
                                     << "limit";
    QTest::addRow("no limit at all") << "attempts" << 0.0 << "maxAttempts"
                                     << "forever";
    QTest::addRow("status 200 retryable") << "status" << 200.0 << "retryableStatuses"
                                          << "not an error";
    QTest::addRow("status 999 retryable") << "status" << 999.0 << "retryableStatuses"
                                          << "not an HTTP status";
    QTest::addRow("negative retry-after bound") << "maxRetryAfter" << -1.0 << "maxRetryAfterMs"
                                                << "cannot be negative (got -1 ms)";
    QTest::addRow("breaker ratio above 1") << "ratio" << 2.0 << "circuitBreaker.failureRatio"
                                           << "between 0 and 1";
    QTest::addRow("grpc tokens zero") << "grpc" << 0.0 << "retryBudget.grpcMaxTokens"
                                      << "must be above 0 and at most 1000 (got 0)";
}

void TestBackoffPolicy::invalidValues_areRejectedWithField()
{
    QFETCH(QString, field);
    QFETCH(double, value);
    QFETCH(QString, expectedField);
    QFETCH(QString, messageContains);

    BackoffPolicy p;
    if (field == QLatin1String("base"))
        p.baseDelayMs = value;
    else if (field == QLatin1String("cap"))
        p.maxBackoffMs = value;
    else if (field == QLatin1String("multiplier"))
        p.multiplier = value;
    else if (field == QLatin1String("deadline"))
        p.deadlineMs = value;
    else if (field == QLatin1String("timeout"))
        p.attemptTimeoutMs = value;
    else if (field == QLatin1String("jitter"))
        p.jitterMs = value;
    else if (field == QLatin1String("fraction"))
        p.jitterFraction = value;
    else if (field == QLatin1String("attempts"))
        p.maxAttempts = value > 2e9 ? std::numeric_limits<int>::max() : int(value);
    else if (field == QLatin1String("status"))
        p.classification.retryableStatuses.insert(int(value));
    else if (field == QLatin1String("maxRetryAfter"))
        p.classification.maxRetryAfterMs = value;
    else if (field == QLatin1String("ratio")) {
        p.circuitBreaker.enabled = true;
        p.circuitBreaker.failureRatio = value;
    } else if (field == QLatin1String("grpc")) {
        p.retryBudget.kind = RetryBudgetKind::GrpcThrottling;
        p.retryBudget.grpcMaxTokens = value;
    }

    QVERIFY(!isUsable(p));
    const auto issues = validatePolicy(p);
    const auto it = std::find_if(
        issues.cbegin(), issues.cend(), [&](const PolicyIssue &i) { return i.isError() && i.field == expectedField; });
    QVERIFY2(it != issues.cend(), qPrintable(describeIssues(issues)));
    QVERIFY2(it->message.contains(messageContains), qPrintable(it->message));
    // The window puts the field's label before the message: the internal name stays out.
    if (expectedField != expectedField.toLower())
        QVERIFY2(!it->message.contains(expectedField.section(QLatin1Char('.'), -1)), qPrintable(it->message));
}

void TestBackoffPolicy::warnings_explainButAllow_data()
{
    QTest::addColumn<QString>("which");
    QTest::addColumn<QString>("expectedField");
    QTest::addRow("multiplier 1") << "multiplier"
                                  << "multiplier";
    QTest::addRow("timeout beyond deadline") << "timeout"
                                             << "attemptTimeoutMs";
    QTest::addRow("retry POST") << "post"
                                << "retryNonIdempotent";
    QTest::addRow("zero base") << "base"
                               << "baseDelayMs";
    QTest::addRow("immediate with five attempts") << "immediate"
                                                  << "maxAttempts";
}

void TestBackoffPolicy::warnings_explainButAllow()
{
    QFETCH(QString, which);
    QFETCH(QString, expectedField);
    BackoffPolicy p;
    if (which == QLatin1String("multiplier")) {
        p.multiplier = 1.0;
    } else if (which == QLatin1String("timeout")) {
        p.deadlineMs = 5000;
        p.attemptTimeoutMs = 10'000;
    } else if (which == QLatin1String("post")) {
        p.classification.retryNonIdempotent = true;
    } else if (which == QLatin1String("immediate")) {
        p.algorithm = BackoffAlgorithm::Immediate;
        p.maxAttempts = 5;
    } else {
        p.baseDelayMs = 0;
    }
    QVERIFY(isUsable(p));
    const auto issues = validatePolicy(p);
    QCOMPARE(issues.size(), 1);
    QCOMPARE(issues.first().field, expectedField);
    QVERIFY(!issues.first().isError());
    if (which == QLatin1String("immediate")) {
        QVERIFY2(
            issues.first().message.contains(QLatin1String("at most 2 attempts")), qPrintable(issues.first().message));
        p.maxAttempts = 2;
        QVERIFY(validatePolicy(p).isEmpty());
    }
}

void TestBackoffPolicy::names_roundTrip()
{
    for (auto a : allAlgorithms()) {
        QCOMPARE(algorithmFromName(algorithmName(a)), a);
        QVERIFY(!algorithmTitle(a).isEmpty());
        QVERIFY(!algorithmFormula(a).isEmpty());
    }
    QCOMPARE(allAlgorithms().size(), 10);
    for (auto f : allNetworkFaultClasses())
        QCOMPARE(networkFaultClassFromName(networkFaultClassName(f)), f);
    QVERIFY(!algorithmFromName(QStringLiteral("bogus")));
    QVERIFY(!faultActionFromName(QStringLiteral("bogus")));
}

void TestBackoffPolicy::checks_onlyTheFieldsTheAlgorithmUses_data()
{
    QTest::addColumn<BackoffAlgorithm>("algorithm");
    for (BackoffAlgorithm algorithm : allAlgorithms())
        QTest::addRow("%s", qPrintable(algorithmName(algorithm))) << algorithm;
}

// validatePolicy() asks policyfields.h which fields matter: a value that only
// makes sense for a formula that reads it is judged only there.
void TestBackoffPolicy::checks_onlyTheFieldsTheAlgorithmUses()
{
    QFETCH(BackoffAlgorithm, algorithm);
    const auto hasIssue = [](const BackoffPolicy &p, const char *field, PolicyIssue::Severity severity) {
        const auto issues = validatePolicy(p);
        return std::any_of(issues.cbegin(), issues.cend(),
            [&](const PolicyIssue &i) { return i.field == QLatin1String(field) && i.severity == severity; });
    };
    BackoffPolicy p;
    p.algorithm = algorithm;
    p.maxAttempts = 2; // Immediate warns above 2

    BackoffPolicy shrinking = p;
    shrinking.multiplier = 0.5;
    QCOMPARE(hasIssue(shrinking, "multiplier", PolicyIssue::Severity::Error), usesMultiplier(algorithm));
    BackoffPolicy flat = p;
    flat.multiplier = 1.0;
    QCOMPARE(hasIssue(flat, "multiplier", PolicyIssue::Severity::Warning), usesMultiplier(algorithm));
    BackoffPolicy capBelowBase = p;
    capBelowBase.maxBackoffMs = capBelowBase.baseDelayMs / 2.0;
    QCOMPARE(hasIssue(capBelowBase, "maxBackoffMs", PolicyIssue::Severity::Error), usesMaxBackoff(algorithm));
    BackoffPolicy zeroBase = p;
    zeroBase.baseDelayMs = 0.0;
    QCOMPARE(hasIssue(zeroBase, "baseDelayMs", PolicyIssue::Severity::Warning), usesBaseDelay(algorithm));
}

QTEST_GUILESS_MAIN(TestBackoffPolicy)
#include "tst_backoffpolicy.moc"
