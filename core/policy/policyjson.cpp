#include "core/policy/policyjson.h"

#include "core/util/coretr.h"
#include "core/util/exportfile.h"
#include "core/util/jsonreader.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>

#include <algorithm>
#include <limits>

namespace RetryLab::Core {

namespace {

// A field that is absent keeps the default the policy already holds.
void read(JsonReader &r, const QString &key, QString &out)
{
    if (const auto v = r.string(key))
        out = *v;
}

void read(JsonReader &r, const QString &key, double &out)
{
    if (const auto v = r.number(key))
        out = *v;
}

void read(JsonReader &r, const QString &key, int &out)
{
    if (const auto v = r.integer(key, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()))
        out = static_cast<int>(*v);
}

void read(JsonReader &r, const QString &key, bool &out)
{
    if (const auto v = r.boolean(key))
        out = *v;
}

// validatePolicy() names the classification fields as the policy editor shows
// them; in the file they live in "classification".
QString jsonPath(const QString &field)
{
    static const QStringList classificationFields{QStringLiteral("retryableStatuses"),
        QStringLiteral("retryConflictAborted"), QStringLiteral("retryNonIdempotent"),
        QStringLiteral("honourRetryAfter"), QStringLiteral("maxRetryAfterMs"), QStringLiteral("networkActions"),
        QStringLiteral("networkDelayFactors")};
    return classificationFields.contains(field) ? QStringLiteral("classification.") + field : field;
}

void readClassification(JsonReader &c, ClassificationRules &rules)
{
    c.rejectUnknown({QStringLiteral("retryableStatuses"), QStringLiteral("retryConflictAborted"),
        QStringLiteral("retryNonIdempotent"), QStringLiteral("honourRetryAfter"), QStringLiteral("maxRetryAfterMs"),
        QStringLiteral("networkActions"), QStringLiteral("networkDelayFactors")});
    if (const auto statuses = c.integers(QStringLiteral("retryableStatuses"), 100, 599)) {
        QSet<int> set;
        for (qint64 status : *statuses)
            set.insert(static_cast<int>(status));
        rules.retryableStatuses = set;
    }
    read(c, QStringLiteral("retryConflictAborted"), rules.retryConflictAborted);
    read(c, QStringLiteral("retryNonIdempotent"), rules.retryNonIdempotent);
    read(c, QStringLiteral("honourRetryAfter"), rules.honourRetryAfter);
    read(c, QStringLiteral("maxRetryAfterMs"), rules.maxRetryAfterMs);

    QStringList faultNames;
    for (NetworkFaultClass fault : allNetworkFaultClasses())
        faultNames.append(networkFaultClassName(fault));
    const auto unknownFault = [&faultNames](JsonReader &reader, const QString &key) {
        const auto suggestion = JsonReader::closestName(key, faultNames);
        reader.fail(key,
            suggestion ? Tr::tr("unknown network fault class; did you mean \"%1\"?").arg(*suggestion)
                       : Tr::tr("unknown network fault class (known: %1)").arg(faultNames.join(QStringLiteral(", "))));
    };
    if (auto factors = c.object(QStringLiteral("networkDelayFactors"))) {
        for (const QString &key : factors->object().keys()) {
            const auto fault = networkFaultClassFromName(key);
            if (!fault) {
                unknownFault(*factors, key);
                return;
            }
            const auto factor = factors->number(key, 0.0, PolicyLimits::maxDelayFactor, Presence::Required);
            if (!factor)
                return;
            rules.networkDelayFactors.insert(*fault, *factor);
        }
    }

    auto actions = c.object(QStringLiteral("networkActions"));
    if (!actions)
        return;
    const QList<FaultAction> allActions{
        FaultAction::RetryAfterDelay, FaultAction::RetryImmediately, FaultAction::GiveUp};
    for (const QString &key : actions->object().keys()) {
        const auto fault = networkFaultClassFromName(key);
        if (!fault) {
            unknownFault(*actions, key);
            return;
        }
        const auto action = actions->named(
            key, allActions, &faultActionName, Presence::Required, Tr::tr("unknown action \"%1\" (known: %2)"));
        if (!action)
            return;
        rules.networkActions.insert(*fault, *action);
    }
}

void readCircuitBreaker(JsonReader &c, CircuitBreakerSettings &cb)
{
    c.rejectUnknown({QStringLiteral("enabled"), QStringLiteral("consecutiveFailures"), QStringLiteral("failureRatio"),
        QStringLiteral("window"), QStringLiteral("openMs"), QStringLiteral("halfOpenTrials")});
    read(c, QStringLiteral("enabled"), cb.enabled);
    read(c, QStringLiteral("consecutiveFailures"), cb.consecutiveFailures);
    read(c, QStringLiteral("failureRatio"), cb.failureRatio);
    read(c, QStringLiteral("window"), cb.window);
    read(c, QStringLiteral("openMs"), cb.openMs);
    read(c, QStringLiteral("halfOpenTrials"), cb.halfOpenTrials);
}

void readRetryBudget(JsonReader &c, RetryBudgetSettings &rb)
{
    c.rejectUnknown({QStringLiteral("kind"), QStringLiteral("awsCapacity"), QStringLiteral("awsRetryCost"),
        QStringLiteral("awsTimeoutCost"), QStringLiteral("awsSuccessRefund"), QStringLiteral("grpcMaxTokens"),
        QStringLiteral("grpcTokenRatio")});
    const QList<RetryBudgetKind> kinds{
        RetryBudgetKind::None, RetryBudgetKind::AwsStandard, RetryBudgetKind::GrpcThrottling};
    if (const auto kind = c.named(QStringLiteral("kind"), kinds, &retryBudgetKindName, Presence::Optional,
            Tr::tr("unknown kind of retry budget \"%1\" (known: %2)")))
        rb.kind = *kind;
    read(c, QStringLiteral("awsCapacity"), rb.awsCapacity);
    read(c, QStringLiteral("awsRetryCost"), rb.awsRetryCost);
    read(c, QStringLiteral("awsTimeoutCost"), rb.awsTimeoutCost);
    read(c, QStringLiteral("awsSuccessRefund"), rb.awsSuccessRefund);
    read(c, QStringLiteral("grpcMaxTokens"), rb.grpcMaxTokens);
    read(c, QStringLiteral("grpcTokenRatio"), rb.grpcTokenRatio);
}

} // namespace

namespace PolicyJson {

QJsonObject toJsonObject(const BackoffPolicy &p)
{
    QJsonArray statuses;
    QList<int> sorted(p.classification.retryableStatuses.cbegin(), p.classification.retryableStatuses.cend());
    std::sort(sorted.begin(), sorted.end());
    for (int s : sorted)
        statuses.append(s);

    QJsonObject actions;
    for (auto it = p.classification.networkActions.cbegin(); it != p.classification.networkActions.cend(); ++it)
        actions.insert(networkFaultClassName(it.key()), faultActionName(it.value()));

    QJsonObject classification{
        {QStringLiteral("retryableStatuses"), statuses},
        {QStringLiteral("retryConflictAborted"), p.classification.retryConflictAborted},
        {QStringLiteral("retryNonIdempotent"), p.classification.retryNonIdempotent},
        {QStringLiteral("honourRetryAfter"), p.classification.honourRetryAfter},
        {QStringLiteral("maxRetryAfterMs"), p.classification.maxRetryAfterMs},
        {QStringLiteral("networkActions"), actions},
    };
    if (!p.classification.networkDelayFactors.isEmpty()) {
        QJsonObject factors;
        for (auto it = p.classification.networkDelayFactors.cbegin(); it != p.classification.networkDelayFactors.cend();
             ++it)
            factors.insert(networkFaultClassName(it.key()), it.value());
        classification.insert(QStringLiteral("networkDelayFactors"), factors);
    }
    const auto &cb = p.circuitBreaker;
    const QJsonObject breaker{
        {QStringLiteral("enabled"), cb.enabled},
        {QStringLiteral("consecutiveFailures"), cb.consecutiveFailures},
        {QStringLiteral("failureRatio"), cb.failureRatio},
        {QStringLiteral("window"), cb.window},
        {QStringLiteral("openMs"), cb.openMs},
        {QStringLiteral("halfOpenTrials"), cb.halfOpenTrials},
    };
    const auto &rb = p.retryBudget;
    const QJsonObject budget{
        {QStringLiteral("kind"), retryBudgetKindName(rb.kind)},
        {QStringLiteral("awsCapacity"), rb.awsCapacity},
        {QStringLiteral("awsRetryCost"), rb.awsRetryCost},
        {QStringLiteral("awsTimeoutCost"), rb.awsTimeoutCost},
        {QStringLiteral("awsSuccessRefund"), rb.awsSuccessRefund},
        {QStringLiteral("grpcMaxTokens"), rb.grpcMaxTokens},
        {QStringLiteral("grpcTokenRatio"), rb.grpcTokenRatio},
    };
    QJsonObject object{
        {QStringLiteral("format"), QStringLiteral("retrylab-policy")},
        {QStringLiteral("version"), formatVersion},
        {QStringLiteral("name"), p.name},
        {QStringLiteral("description"), p.description},
        {QStringLiteral("source"), p.source},
        {QStringLiteral("algorithm"), algorithmName(p.algorithm)},
        {QStringLiteral("baseDelayMs"), p.baseDelayMs},
        {QStringLiteral("multiplier"), p.multiplier},
        {QStringLiteral("maxBackoffMs"), p.maxBackoffMs},
        {QStringLiteral("jitterMs"), p.jitterMs},
        {QStringLiteral("jitterFraction"), p.jitterFraction},
        {QStringLiteral("maxAttempts"), p.maxAttempts},
        {QStringLiteral("deadlineMs"), p.deadlineMs},
        {QStringLiteral("attemptTimeoutMs"), p.attemptTimeoutMs},
        {QStringLiteral("classification"), classification},
        {QStringLiteral("circuitBreaker"), breaker},
        {QStringLiteral("retryBudget"), budget},
    };
    // Written only when set, so that files of the other algorithms stay as they were.
    if (p.intervalJitter != IntervalJitter::None)
        object.insert(QStringLiteral("intervalJitter"), intervalJitterName(p.intervalJitter));
    return object;
}

QByteArray toJson(const BackoffPolicy &policy)
{
    return QJsonDocument(toJsonObject(policy)).toJson(QJsonDocument::Indented);
}

Result<BackoffPolicy> fromJsonObject(const QJsonObject &object)
{
    BackoffPolicy p;
    JsonReader r(object);

    r.rejectUnknown({QStringLiteral("format"), QStringLiteral("version"), QStringLiteral("name"),
        QStringLiteral("description"), QStringLiteral("source"), QStringLiteral("algorithm"),
        QStringLiteral("baseDelayMs"), QStringLiteral("multiplier"), QStringLiteral("maxBackoffMs"),
        QStringLiteral("jitterMs"), QStringLiteral("jitterFraction"), QStringLiteral("intervalJitter"),
        QStringLiteral("maxAttempts"), QStringLiteral("deadlineMs"), QStringLiteral("attemptTimeoutMs"),
        QStringLiteral("classification"), QStringLiteral("circuitBreaker"), QStringLiteral("retryBudget")});

    if (const auto format = r.string(QStringLiteral("format")); format && *format != QLatin1String("retrylab-policy"))
        r.fail(QStringLiteral("format"), Tr::tr("expected \"retrylab-policy\", got \"%1\"").arg(*format));
    if (const auto version = r.integer(QStringLiteral("version"));
        version && (*version < 1 || *version > formatVersion)) {
        r.fail(QStringLiteral("version"),
            Tr::tr("version %1 is not supported (this build reads up to %2)").arg(*version).arg(formatVersion));
    }

    read(r, QStringLiteral("name"), p.name);
    read(r, QStringLiteral("description"), p.description);
    read(r, QStringLiteral("source"), p.source);
    if (const auto algorithm = r.named(QStringLiteral("algorithm"), allAlgorithms(), &algorithmName, Presence::Optional,
            Tr::tr("unknown algorithm \"%1\" (known: %2)")))
        p.algorithm = *algorithm;
    read(r, QStringLiteral("baseDelayMs"), p.baseDelayMs);
    read(r, QStringLiteral("multiplier"), p.multiplier);
    read(r, QStringLiteral("maxBackoffMs"), p.maxBackoffMs);
    read(r, QStringLiteral("jitterMs"), p.jitterMs);
    read(r, QStringLiteral("jitterFraction"), p.jitterFraction);
    if (const auto jitter = r.named(QStringLiteral("intervalJitter"), allIntervalJitters(), &intervalJitterName,
            Presence::Optional, Tr::tr("unknown interval jitter \"%1\" (known: %2)")))
        p.intervalJitter = *jitter;
    read(r, QStringLiteral("maxAttempts"), p.maxAttempts);
    read(r, QStringLiteral("deadlineMs"), p.deadlineMs);
    read(r, QStringLiteral("attemptTimeoutMs"), p.attemptTimeoutMs);

    if (auto classification = r.object(QStringLiteral("classification")))
        readClassification(*classification, p.classification);
    if (auto breaker = r.object(QStringLiteral("circuitBreaker")))
        readCircuitBreaker(*breaker, p.circuitBreaker);
    if (auto budget = r.object(QStringLiteral("retryBudget")))
        readRetryBudget(*budget, p.retryBudget);
    if (r.failed())
        return r.firstError();

    for (const PolicyIssue &issue : validatePolicy(p)) {
        if (issue.isError())
            return Result<BackoffPolicy>::failure(jsonPath(issue.field), issue.message);
    }
    return p;
}

Result<BackoffPolicy> fromJson(const QByteArray &json)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return jsonSyntaxError(json, parseError);
    if (!doc.isObject())
        return Result<BackoffPolicy>::failure(Tr::tr("a policy file must hold a JSON object"));
    return fromJsonObject(doc.object());
}

Result<BackoffPolicy> readFile(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return Result<BackoffPolicy>::failure(Tr::tr("cannot read %1: %2").arg(path, file.errorString()));
    // A policy is a few kilobytes; refuse anything absurd before parsing it.
    if (file.size() > 4 * 1024 * 1024)
        return Result<BackoffPolicy>::failure(Tr::tr("%1 is too large to be a policy file").arg(path));
    auto result = fromJson(file.readAll());
    if (!result)
        return Result<BackoffPolicy>::failure(Tr::tr("%1: %2").arg(QDir::toNativeSeparators(path), result.error()));
    return result;
}

Result<qint64> writeFile(const QString &path, const BackoffPolicy &policy)
{
    return ExportFile::write(path, toJson(policy));
}

} // namespace PolicyJson

} // namespace RetryLab::Core
