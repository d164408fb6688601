#include "core/policy/policyfields.h"

#include <QTest>

using namespace RetryLab::Core;

namespace {

// What each algorithm reads, written out by hand from the formulas of SPEC section 1.
struct Expected
{
    bool base;
    bool multiplier;
    bool cap;
    bool jitter;
    bool fraction;
    bool exponential;
    bool random;
};

std::optional<Expected> expectedFor(BackoffAlgorithm algorithm)
{
    switch (algorithm) {
    // clang-format off
    //                                                                 base   mult   cap    jitter fract  exp    random
    case BackoffAlgorithm::GoogleTruncatedExponential: return Expected{true,  true,  true,  true,  false, true,  false};
    case BackoffAlgorithm::IamTruncatedExponential:    return Expected{true,  true,  true,  true,  false, true,  false};
    case BackoffAlgorithm::Exponential:                return Expected{true,  true,  true,  false, false, true,  false};
    case BackoffAlgorithm::FullJitter:                 return Expected{true,  true,  true,  false, false, true,  true};
    case BackoffAlgorithm::EqualJitter:                return Expected{true,  true,  true,  false, false, true,  true};
    case BackoffAlgorithm::DecorrelatedJitter:         return Expected{true,  false, true,  false, false, true,  true};
    case BackoffAlgorithm::ProportionalJitter:         return Expected{true,  true,  true,  false, true,  true,  false};
    case BackoffAlgorithm::Constant:                   return Expected{true,  false, true,  false, false, false, false};
    case BackoffAlgorithm::Linear:                     return Expected{true,  false, true,  false, false, false, false};
    case BackoffAlgorithm::Immediate:                  return Expected{false, false, false, false, false, false, false};
        // clang-format on
    }
    return std::nullopt;
}

} // namespace

class TestPolicyFields final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void questions_answerPerAlgorithm_data();
    void questions_answerPerAlgorithm();
    void usesField_agreesWithTheNamedQuestionsAndTheReason();
    void unusedFieldReason_saysWhy_data();
    void unusedFieldReason_saysWhy();
    void unusedFieldReason_ofAPolicy_byJsonName_data();
    void unusedFieldReason_ofAPolicy_byJsonName();
    void delayFieldNames_roundTrip();
    void hasJitter_data();
    void hasJitter();
};

void TestPolicyFields::questions_answerPerAlgorithm_data()
{
    QTest::addColumn<BackoffAlgorithm>("algorithm");
    for (BackoffAlgorithm algorithm : allAlgorithms())
        QTest::addRow("%s", qPrintable(algorithmName(algorithm))) << algorithm;
}

void TestPolicyFields::questions_answerPerAlgorithm()
{
    QFETCH(BackoffAlgorithm, algorithm);
    const auto expected = expectedFor(algorithm);
    QVERIFY2(expected, "a new algorithm needs its row in expectedFor()");
    QCOMPARE(usesBaseDelay(algorithm), expected->base);
    QCOMPARE(usesMultiplier(algorithm), expected->multiplier);
    QCOMPARE(usesMaxBackoff(algorithm), expected->cap);
    QCOMPARE(usesAdditiveJitter(algorithm), expected->jitter);
    QCOMPARE(usesJitterFraction(algorithm), expected->fraction);
    QCOMPARE(growsExponentially(algorithm), expected->exponential);
    QCOMPARE(alwaysRandom(algorithm), expected->random);
}

void TestPolicyFields::usesField_agreesWithTheNamedQuestionsAndTheReason()
{
    for (BackoffAlgorithm algorithm : allAlgorithms()) {
        const QByteArray where = algorithmName(algorithm).toLatin1();
        QCOMPARE(usesField(algorithm, DelayField::BaseDelay), usesBaseDelay(algorithm));
        QCOMPARE(usesField(algorithm, DelayField::Multiplier), usesMultiplier(algorithm));
        QCOMPARE(usesField(algorithm, DelayField::MaxBackoff), usesMaxBackoff(algorithm));
        QCOMPARE(usesField(algorithm, DelayField::Jitter), usesAdditiveJitter(algorithm));
        QCOMPARE(usesField(algorithm, DelayField::JitterFraction), usesJitterFraction(algorithm));
        // A multiplier means exponential growth; decorrelated jitter grows without one.
        if (usesMultiplier(algorithm))
            QVERIFY2(growsExponentially(algorithm), where.constData());
        for (DelayField field : allDelayFields()) {
            const QString reason = unusedFieldReason(algorithm, field);
            QVERIFY2(reason.isEmpty() == usesField(algorithm, field), where.constData());
            if (!reason.isEmpty())
                QVERIFY2(
                    reason.startsWith(QStringLiteral("Not used by ") + algorithmTitle(algorithm) + QLatin1Char(':')),
                    qPrintable(reason));
        }
    }
}

void TestPolicyFields::unusedFieldReason_saysWhy_data()
{
    QTest::addColumn<BackoffAlgorithm>("algorithm");
    QTest::addColumn<DelayField>("field");
    QTest::addColumn<QString>("reason");
    QTest::addRow("constant multiplier") << BackoffAlgorithm::Constant << DelayField::Multiplier
                                         << QStringLiteral("does not grow exponentially");
    QTest::addRow("linear multiplier") << BackoffAlgorithm::Linear << DelayField::Multiplier
                                       << QStringLiteral("does not grow exponentially");
    QTest::addRow("decorrelated multiplier")
        << BackoffAlgorithm::DecorrelatedJitter << DelayField::Multiplier << QStringLiteral("fixed factor of 3");
    QTest::addRow("immediate base") << BackoffAlgorithm::Immediate << DelayField::BaseDelay
                                    << QStringLiteral("every retry goes out at once");
    QTest::addRow("immediate cap") << BackoffAlgorithm::Immediate << DelayField::MaxBackoff
                                   << QStringLiteral("every retry goes out at once");
    QTest::addRow("immediate multiplier")
        << BackoffAlgorithm::Immediate << DelayField::Multiplier << QStringLiteral("every retry goes out at once");
    QTest::addRow("exponential jitter") << BackoffAlgorithm::Exponential << DelayField::Jitter
                                        << QStringLiteral("only the Google and IAM formulas");
    QTest::addRow("google fraction") << BackoffAlgorithm::GoogleTruncatedExponential << DelayField::JitterFraction
                                     << QStringLiteral("only proportional jitter");
    QTest::addRow("google jitter is used")
        << BackoffAlgorithm::GoogleTruncatedExponential << DelayField::Jitter << QString();
    QTest::addRow("proportional fraction is used")
        << BackoffAlgorithm::ProportionalJitter << DelayField::JitterFraction << QString();
}

void TestPolicyFields::unusedFieldReason_saysWhy()
{
    QFETCH(BackoffAlgorithm, algorithm);
    QFETCH(DelayField, field);
    QFETCH(QString, reason);
    const QString actual = unusedFieldReason(algorithm, field);
    if (reason.isEmpty())
        QCOMPARE(actual, QString());
    else
        QVERIFY2(actual.contains(reason), qPrintable(actual));
}

void TestPolicyFields::unusedFieldReason_ofAPolicy_byJsonName_data()
{
    QTest::addColumn<QString>("change");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("reason");
    // The default policy: Google's algorithm, Retry-After honoured, no circuit breaker.
    QTest::addRow("delay field used") << QString() << QStringLiteral("multiplier") << QString();
    QTest::addRow("delay field unused") << QStringLiteral("constant") << QStringLiteral("multiplier")
                                        << QStringLiteral("Not used by Constant");
    QTest::addRow("retry-after bound used") << QString() << QStringLiteral("maxRetryAfterMs") << QString();
    QTest::addRow("retry-after not honoured")
        << QStringLiteral("ignore retry-after") << QStringLiteral("maxRetryAfterMs") << QStringLiteral("not honoured");
    QTest::addRow("breaker off") << QString() << QStringLiteral("circuitBreaker.openMs") << QStringLiteral("is off");
    QTest::addRow("breaker switch itself") << QString() << QStringLiteral("circuitBreaker") << QString();
    QTest::addRow("breaker on") << QStringLiteral("breaker") << QStringLiteral("circuitBreaker.window") << QString();
    QTest::addRow("other field") << QStringLiteral("constant") << QStringLiteral("retryableStatuses") << QString();
    QTest::addRow("unknown name") << QStringLiteral("constant") << QStringLiteral("telepathy") << QString();
}

void TestPolicyFields::unusedFieldReason_ofAPolicy_byJsonName()
{
    QFETCH(QString, change);
    QFETCH(QString, field);
    QFETCH(QString, reason);
    BackoffPolicy policy;
    if (change == QLatin1String("constant"))
        policy.algorithm = BackoffAlgorithm::Constant;
    else if (change == QLatin1String("ignore retry-after"))
        policy.classification.honourRetryAfter = false;
    else if (change == QLatin1String("breaker"))
        policy.circuitBreaker.enabled = true;
    const QString actual = unusedFieldReason(policy, field);
    if (reason.isEmpty())
        QCOMPARE(actual, QString());
    else
        QVERIFY2(actual.contains(reason), qPrintable(actual));
}

void TestPolicyFields::delayFieldNames_roundTrip()
{
    QCOMPARE(allDelayFields().size(), 5);
    for (DelayField field : allDelayFields())
        QCOMPARE(delayFieldFromName(delayFieldName(field)), field);
    // The names are the JSON format's and PolicyIssue's.
    QCOMPARE(delayFieldName(DelayField::MaxBackoff), QStringLiteral("maxBackoffMs"));
    QCOMPARE(delayFieldName(DelayField::Jitter), QStringLiteral("jitterMs"));
    QVERIFY(!delayFieldFromName(QStringLiteral("maxAttempts")));
    QVERIFY(!delayFieldFromName(QStringLiteral("MULTIPLIER")));
}

void TestPolicyFields::hasJitter_data()
{
    QTest::addColumn<BackoffAlgorithm>("algorithm");
    QTest::addColumn<double>("jitterMs");
    QTest::addColumn<double>("jitterFraction");
    QTest::addColumn<bool>("expected");
    QTest::addRow("google with jitter") << BackoffAlgorithm::GoogleTruncatedExponential << 1000.0 << 0.0 << true;
    QTest::addRow("google without jitter") << BackoffAlgorithm::GoogleTruncatedExponential << 0.0 << 0.2 << false;
    QTest::addRow("iam without jitter") << BackoffAlgorithm::IamTruncatedExponential << 0.0 << 0.2 << false;
    QTest::addRow("proportional") << BackoffAlgorithm::ProportionalJitter << 0.0 << 0.2 << true;
    QTest::addRow("proportional with f 0") << BackoffAlgorithm::ProportionalJitter << 1000.0 << 0.0 << false;
    QTest::addRow("full") << BackoffAlgorithm::FullJitter << 0.0 << 0.0 << true;
    QTest::addRow("equal") << BackoffAlgorithm::EqualJitter << 0.0 << 0.0 << true;
    QTest::addRow("decorrelated") << BackoffAlgorithm::DecorrelatedJitter << 0.0 << 0.0 << true;
    QTest::addRow("exponential ignores jitterMs") << BackoffAlgorithm::Exponential << 1000.0 << 0.2 << false;
    QTest::addRow("constant") << BackoffAlgorithm::Constant << 1000.0 << 0.2 << false;
    QTest::addRow("linear") << BackoffAlgorithm::Linear << 1000.0 << 0.2 << false;
    QTest::addRow("immediate") << BackoffAlgorithm::Immediate << 1000.0 << 0.2 << false;
}

void TestPolicyFields::hasJitter()
{
    QFETCH(BackoffAlgorithm, algorithm);
    QFETCH(double, jitterMs);
    QFETCH(double, jitterFraction);
    QFETCH(bool, expected);
    BackoffPolicy policy;
    policy.algorithm = algorithm;
    policy.jitterMs = jitterMs;
    policy.jitterFraction = jitterFraction;
    QCOMPARE(RetryLab::Core::hasJitter(policy), expected);
}

QTEST_GUILESS_MAIN(TestPolicyFields)
#include "tst_policyfields.moc"
