#include "core/policy/policyfields.h"
#include "core/policy/policyjson.h"

#include <QJsonObject>
#include <QSet>
#include <QTest>

#include <cmath>

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

using Type = PolicyField::Type;
using Check = PolicyField::Check;

// A policy in which `field` is checked and used: the breaker on for its numbers,
// the budget of the field's kind.
BackoffPolicy policyUsing(const PolicyField &field)
{
    BackoffPolicy policy;
    if (field.section == PolicyField::Section::CircuitBreaker)
        policy.circuitBreaker.enabled = true;
    if (QByteArrayView(field.key).startsWith("aws"))
        policy.retryBudget.kind = RetryBudgetKind::AwsStandard;
    if (QByteArrayView(field.key).startsWith("grpc"))
        policy.retryBudget.kind = RetryBudgetKind::GrpcThrottling;
    // The limiter's numbers need a limiter; its kind is changed from none.
    if (field.section == PolicyField::Section::RateLimiter && field.type == Type::Number)
        policy.rateLimiter.kind = RateLimiterKind::AwsAdaptive;
    // Hedging's numbers need hedging on; its switch is turned on from off.
    if (field.section == PolicyField::Section::Hedging && field.type != Type::Switch)
        policy.hedging.enabled = true;
    return policy;
}

// Sets `field` to a valid value other than the default: in the middle of its
// range for a number, the other way for a switch, a new name for a choice.
void changeField(const PolicyField &field, BackoffPolicy &policy)
{
    switch (field.type) {
    case Type::Text:
        field.setText(policy, field.text(policy) + QStringLiteral(" (changed)"));
        return;
    case Type::Switch:
        field.setFlag(policy, !field.flag(policy));
        return;
    case Type::WholeNumber:
        field.setNumber(policy, std::floor((field.min + field.max) / 2.0));
        return;
    case Type::Number:
        field.setNumber(policy, field.check == Check::Duration ? 1234.5 : (field.min + field.max) / 2.0);
        return;
    case Type::Choice:
    case Type::Collection:
        break;
    }
    switch (field.id) {
    case PolicyFieldId::Algorithm:
        policy.algorithm = BackoffAlgorithm::ProportionalJitter;
        break;
    case PolicyFieldId::IntervalJitter:
        policy.intervalJitter = IntervalJitter::Equal;
        break;
    case PolicyFieldId::BudgetKind:
        policy.retryBudget.kind = RetryBudgetKind::GrpcThrottling;
        break;
    case PolicyFieldId::LimiterKind:
        policy.rateLimiter.kind = RateLimiterKind::AwsAdaptive;
        break;
    case PolicyFieldId::RetryableStatuses:
        policy.classification.retryableStatuses = {408, 503};
        break;
    case PolicyFieldId::NetworkActions:
        policy.classification.networkActions[NetworkFaultClass::TlsFailure] = FaultAction::RetryImmediately;
        break;
    case PolicyFieldId::NetworkDelayFactors:
        policy.classification.networkDelayFactors[NetworkFaultClass::ConnectionReset] = 0.25;
        break;
    case PolicyFieldId::StatusDelayFactors:
        policy.classification.statusDelayFactors[429] = 2.0;
        break;
    case PolicyFieldId::RetryOnResponse:
        policy.classification.retryOnResponse
            = {ResponseRetryCondition::jsonEquals(QStringLiteral("/status"), QStringLiteral("PENDING")),
                ResponseRetryCondition::headerPresent(QStringLiteral("X-Pending"))};
        break;
    default:
        QFAIL(qPrintable(QStringLiteral("no way to change %1").arg(field.name())));
    }
}

// Sets `field` to `value`, for a collection by one of its elements.
void setValue(const PolicyField &field, BackoffPolicy &policy, double value)
{
    switch (field.id) {
    case PolicyFieldId::RetryableStatuses:
        policy.classification.retryableStatuses = {static_cast<int>(value)};
        break;
    case PolicyFieldId::NetworkDelayFactors:
        policy.classification.networkDelayFactors = {{NetworkFaultClass::Timeout, value}};
        break;
    case PolicyFieldId::StatusDelayFactors:
        policy.classification.statusDelayFactors = {{429, value}};
        break;
    case PolicyFieldId::RetryOnResponse: // as many conditions as the value says
        policy.classification.retryOnResponse.fill(
            ResponseRetryCondition::bodyContains(QStringLiteral("later")), static_cast<qsizetype>(value));
        break;
    default:
        field.setNumber(policy, value);
        break;
    }
}

bool hasErrorAt(const BackoffPolicy &policy, const QString &name)
{
    const QList<PolicyIssue> issues = validatePolicy(policy);
    return std::any_of(
        issues.cbegin(), issues.cend(), [&name](const PolicyIssue &i) { return i.isError() && i.field == name; });
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
    void table_followsTheIdsAndSpellsEachNameOnce();
    void table_everyFieldIsDescribed();
    void table_everyFieldRoundTripsThroughJson_data();
    void table_everyFieldRoundTripsThroughJson();
    void table_everyRangeIsEnforcedByValidatePolicy_data();
    void table_everyRangeIsEnforcedByValidatePolicy();
    void table_optionsFindTheirFields();
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
    // The bound applies to the wait for a rate limit's reset as well.
    QTest::addRow("retry-after ignored, rate-limit reset honoured")
        << QStringLiteral("rate-limit reset only") << QStringLiteral("maxRetryAfterMs") << QString();
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
    else if (change == QLatin1String("rate-limit reset only")) {
        policy.classification.honourRetryAfter = false;
        policy.classification.honourRateLimitReset = true;
    }
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

void TestPolicyFields::table_followsTheIdsAndSpellsEachNameOnce()
{
    QSet<QString> names;
    QSet<QString> paths;
    QSet<QString> options;
    for (qsizetype i = 0; i < policyFields().size(); ++i) {
        const PolicyField &field = policyFields().at(i);
        QCOMPARE(static_cast<qsizetype>(field.id), i);
        QCOMPARE(&policyField(field.id), &field);
        QVERIFY2(!names.contains(field.name()), qPrintable(field.name()));
        QVERIFY2(!paths.contains(field.path()), qPrintable(field.path()));
        names.insert(field.name());
        paths.insert(field.path());
        QCOMPARE(policyFieldNamed(field.name()), &field);
        QCOMPARE(policyFieldAt(field.path()), &field);
        if (field.option) {
            const QString option = QLatin1String(field.option);
            QVERIFY2(!options.contains(option), field.option);
            options.insert(option);
        }
    }
    // The last id has its row.
    QCOMPARE(policyFields().size(), static_cast<qsizetype>(PolicyFieldId::HedgingDelay) + 1);
    QVERIFY(!policyFieldNamed(QStringLiteral("telepathy")));
    // The classification's fields go by their key, the breaker's and budget's by their path.
    QCOMPARE(policyFieldName(PolicyFieldId::MaxRetryAfter), QStringLiteral("maxRetryAfterMs"));
    QCOMPARE(policyField(PolicyFieldId::MaxRetryAfter).path(), QStringLiteral("classification.maxRetryAfterMs"));
    QCOMPARE(policyFieldName(PolicyFieldId::BreakerOpen), QStringLiteral("circuitBreaker.openMs"));
    QCOMPARE(policyFieldName(PolicyFieldId::GrpcMaxTokens), QStringLiteral("retryBudget.grpcMaxTokens"));
    QCOMPARE(policyFieldName(PolicyFieldId::LimiterBeta), QStringLiteral("rateLimiter.beta"));
    QCOMPARE(policyFieldName(PolicyFieldId::HedgingDelay), QStringLiteral("hedging.delayMs"));
}

void TestPolicyFields::table_everyFieldIsDescribed()
{
    for (const PolicyField &field : policyFields()) {
        const QByteArray where = field.name().toLatin1();
        QVERIFY2(!field.title().isEmpty(), where.constData());
        QVERIFY2(!field.toolTip().isEmpty(), where.constData());
        // Exactly the accessors of its type.
        const auto &a = field.access;
        const bool number = field.type == Type::Number || field.type == Type::WholeNumber;
        QCOMPARE(a.number != nullptr && a.setNumber != nullptr, number);
        QCOMPARE(a.flag != nullptr && a.setFlag != nullptr, field.type == Type::Switch);
        QCOMPARE(a.text != nullptr && a.setText != nullptr, field.type == Type::Text);
        QCOMPARE(field.isScalar(), number || field.type == Type::Switch || field.type == Type::Text);
        // Every number is checked, within a range that holds its default.
        if (number) {
            QVERIFY2(field.check != Check::None, where.constData());
            QVERIFY2(field.max > field.min, where.constData());
            const double value = field.number(BackoffPolicy{});
            QVERIFY2(value >= field.min && value <= field.max, where.constData());
        }
        // A time is shown in ms or s, a fraction in percent.
        if (field.unit == PolicyField::Unit::Milliseconds)
            QVERIFY2(field.displayScale == 1.0 || field.displayScale == 1000.0, where.constData());
        if (field.unit == PolicyField::Unit::Fraction)
            QCOMPARE(field.displayScale, 0.01);
        // Only the delay formula's fields depend on the algorithm.
        if (field.delayField) {
            QCOMPARE(delayFieldName(*field.delayField), field.name());
            QCOMPARE(field.section, PolicyField::Section::Delay);
        }
        for (BackoffAlgorithm algorithm : allAlgorithms())
            QCOMPARE(field.usedBy(algorithm), !field.delayField || usesField(algorithm, *field.delayField));
    }
}

void TestPolicyFields::table_everyFieldRoundTripsThroughJson_data()
{
    QTest::addColumn<PolicyFieldId>("id");
    for (const PolicyField &field : policyFields())
        QTest::addRow("%s", qPrintable(field.name())) << field.id;
}

void TestPolicyFields::table_everyFieldRoundTripsThroughJson()
{
    QFETCH(PolicyFieldId, id);
    const PolicyField &field = policyField(id);
    BackoffPolicy policy = policyUsing(field);
    const BackoffPolicy before = policy;
    changeField(field, policy);
    QVERIFY2(policy != before, "the change changes nothing");
    QVERIFY2(isUsable(policy), qPrintable(firstPolicyError(policy)));

    // Written at its path...
    const QJsonObject object = PolicyJson::toJsonObject(policy);
    const QJsonObject holder = field.object().isEmpty() ? object : object.value(field.object()).toObject();
    QVERIFY2(holder.contains(QLatin1String(field.key)), qPrintable(field.path()));
    if (field.type == Type::Number || field.type == Type::WholeNumber)
        QCOMPARE(holder.value(QLatin1String(field.key)).toDouble(), field.number(policy));
    // ...and read back as it was.
    const auto back = PolicyJson::fromJson(PolicyJson::toJson(policy));
    QVERIFY2(back, qPrintable(back.error()));
    QCOMPARE(PolicyJson::toJson(*back), PolicyJson::toJson(policy));
    QVERIFY(*back == policy);
}

void TestPolicyFields::table_everyRangeIsEnforcedByValidatePolicy_data()
{
    QTest::addColumn<PolicyFieldId>("id");
    QTest::addColumn<double>("value");
    QTest::addColumn<bool>("refused");
    for (const PolicyField &field : policyFields()) {
        if (field.check == Check::None)
            continue;
        const QByteArray name = field.name().toLatin1();
        // Just outside: below the minimum (or at it when it is excluded), above the maximum.
        const double step = field.type == Type::Number && field.check != Check::Duration ? 0.001 : 1.0;
        QTest::addRow("%s below", name.constData())
            << field.id << (field.minExclusive ? field.min : field.min - step) << true;
        QTest::addRow("%s above", name.constData()) << field.id << field.max + step << true;
        QTest::addRow("%s not a number", name.constData()) << field.id << std::nan("") << true;
        // The bounds themselves are values of the field, but for the limiter's beta,
        // which must lie strictly between 0 and 1.
        if (!field.minExclusive)
            QTest::addRow("%s at the minimum", name.constData()) << field.id << field.min << false;
        QTest::addRow("%s at the maximum", name.constData())
            << field.id << field.max << (field.id == PolicyFieldId::LimiterBeta);
    }
}

void TestPolicyFields::table_everyRangeIsEnforcedByValidatePolicy()
{
    QFETCH(PolicyFieldId, id);
    QFETCH(double, value);
    QFETCH(bool, refused);
    const PolicyField &field = policyField(id);
    if (field.type == Type::WholeNumber && std::isnan(value))
        QSKIP("a whole number cannot hold NaN");
    if (field.id == PolicyFieldId::RetryableStatuses && std::isnan(value))
        QSKIP("a status cannot be NaN");
    if (field.id == PolicyFieldId::RetryOnResponse && !(value >= 0.0))
        QSKIP("a list holds no fewer than no conditions");
    BackoffPolicy policy = policyUsing(field);
    // 0 attempts is within the range, and then needs a deadline.
    if (field.id == PolicyFieldId::MaxAttempts)
        policy.deadlineMs = 60'000.0;
    // A cap of 0 is within the range, and then may not be below the base.
    if (field.id == PolicyFieldId::MaxBackoff)
        policy.baseDelayMs = 0.0;
    setValue(field, policy, value);
    QCOMPARE(hasErrorAt(policy, field.name()), refused);
    // Outside its range, a field is not checked while the policy does not use it.
    if (refused && field.checkedWhen) {
        BackoffPolicy off;
        setValue(field, off, value);
        QVERIFY(!field.checkedWhen(off));
        QVERIFY(!hasErrorAt(off, field.name()));
    }
}

void TestPolicyFields::table_optionsFindTheirFields()
{
    // `retrylab request --retry-NAME` and `retrylab simulate --NAME`.
    QCOMPARE(policyFieldForOption(QStringLiteral("max-attempts"))->id, PolicyFieldId::MaxAttempts);
    QCOMPARE(policyFieldForOption(QStringLiteral("base-ms"))->id, PolicyFieldId::BaseDelay);
    QCOMPARE(policyFieldForOption(QStringLiteral("cap-ms"))->id, PolicyFieldId::MaxBackoff);
    QCOMPARE(policyFieldForOption(QStringLiteral("deadline-ms"))->id, PolicyFieldId::Deadline);
    QVERIFY(!policyFieldForOption(QStringLiteral("retry-base-ms")));
    for (const PolicyField &field : policyFields()) {
        if (field.option)
            QVERIFY2(field.access.setNumber, field.option); // an option takes a number
    }
}

QTEST_GUILESS_MAIN(TestPolicyFields)
#include "tst_policyfields.moc"
