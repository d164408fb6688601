#include "core/herd/herdparameters.h"

#include "core/policy/backoff.h"
#include "core/util/coretr.h"

#include <QCoreApplication>
#include <QLoggingCategory>
#include <QSet>

#include <algorithm>
#include <cmath>

namespace RetryLab::Core {

Q_LOGGING_CATEGORY(lcHerdParameters, "retrylab.core.herdparameters", QtInfoMsg)

namespace {

QString number(double value)
{
    return QString::number(value, 'g', 12);
}

// Collects messages that each start with the field they are about.
class Problems
{
public:
    void add(const char *field, const QString &message)
    {
        const QString line = QLatin1String(field) + QLatin1String(": ") + message;
        if (!m_lines.contains(line))
            m_lines.append(line);
    }

    // A finite number in [min, max]; `minExclusive` refuses the minimum itself.
    bool checkNumber(const char *field, double value, double min, double max, bool minExclusive = false)
    {
        if (std::isnan(value)) {
            add(field, Tr::tr("not a number."));
            return false;
        }
        if (std::isinf(value)) {
            add(field, Tr::tr("must be finite."));
            return false;
        }
        if (value < min || (minExclusive && value == min)) {
            add(field,
                (minExclusive ? Tr::tr("%1 must be greater than %2.") : Tr::tr("%1 is below the minimum of %2."))
                    .arg(number(value), number(min)));
            return false;
        }
        if (value > max) {
            add(field, Tr::tr("%1 is beyond the sensible limit of %2.").arg(number(value), number(max)));
            return false;
        }
        return true;
    }

    bool checkInt(const char *field, qint64 value, qint64 min, qint64 max)
    {
        if (value < min) {
            add(field, Tr::tr("%1 is below the minimum of %2.").arg(value).arg(min));
            return false;
        }
        if (value > max) {
            add(field, Tr::tr("%1 is beyond the sensible limit of %2.").arg(value).arg(max));
            return false;
        }
        return true;
    }

    QStringList take() { return std::move(m_lines); }

private:
    QStringList m_lines;
};

} // namespace

QString herdModelName(HerdModel model)
{
    switch (model) {
    case HerdModel::OptimisticConcurrency:
        return QStringLiteral("occ");
    case HerdModel::CapacityLimited:
        return QStringLiteral("capacity");
    case HerdModel::Outage:
        return QStringLiteral("outage");
    }
    return {};
}

QString herdModelTitle(HerdModel model)
{
    switch (model) {
    case HerdModel::OptimisticConcurrency:
        return Tr::tr("Optimistic concurrency (conditional writes)");
    case HerdModel::CapacityLimited:
        return Tr::tr("Capacity-limited server");
    case HerdModel::Outage:
        return Tr::tr("Outage and recovery");
    }
    return {};
}

std::optional<HerdModel> herdModelFromName(const QString &name)
{
    for (HerdModel model : allHerdModels()) {
        if (herdModelName(model) == name)
            return model;
    }
    return std::nullopt;
}

QList<HerdModel> allHerdModels()
{
    return {HerdModel::OptimisticConcurrency, HerdModel::CapacityLimited, HerdModel::Outage};
}

QString arrivalModeName(ArrivalMode mode)
{
    return mode == ArrivalMode::Herd ? QStringLiteral("herd") : QStringLiteral("poisson");
}

std::optional<ArrivalMode> arrivalModeFromName(const QString &name)
{
    if (name == QLatin1String("herd"))
        return ArrivalMode::Herd;
    if (name == QLatin1String("poisson"))
        return ArrivalMode::Poisson;
    return std::nullopt;
}

QString HerdStrategy::name() const
{
    return algorithm ? algorithmName(*algorithm) : QStringLiteral("none");
}

QString HerdStrategy::title() const
{
    return algorithm ? algorithmTitle(*algorithm) : Tr::tr("No backoff");
}

int HerdStrategy::index() const
{
    if (!algorithm)
        return 0;
    return 1 + static_cast<int>(allAlgorithms().indexOf(*algorithm));
}

std::optional<HerdStrategy> HerdStrategy::fromName(const QString &name)
{
    if (name == QLatin1String("none"))
        return HerdStrategy{};
    if (const auto algorithm = algorithmFromName(name))
        return HerdStrategy{*algorithm};
    return std::nullopt;
}

QList<HerdStrategy> HerdStrategy::all()
{
    QList<HerdStrategy> strategies{HerdStrategy{}};
    for (BackoffAlgorithm algorithm : allAlgorithms())
        strategies.append(HerdStrategy{algorithm});
    return strategies;
}

QList<HerdStrategy> HerdStrategy::defaults()
{
    return {
        HerdStrategy{},
        HerdStrategy{BackoffAlgorithm::Exponential},
        HerdStrategy{BackoffAlgorithm::EqualJitter},
        HerdStrategy{BackoffAlgorithm::FullJitter},
        HerdStrategy{BackoffAlgorithm::DecorrelatedJitter},
        HerdStrategy{BackoffAlgorithm::GoogleTruncatedExponential},
    };
}

HerdParameters HerdParameters::defaultsFor(HerdModel model)
{
    HerdParameters p;
    p.model = model;
    for (int n = 10; n <= 190; n += 10)
        p.clientCounts.append(n);
    switch (model) {
    case HerdModel::OptimisticConcurrency:
        // The AWS study's numbers: base 5 ms, cap 2 s, network |N(10 ms, 2 ms)|.
        break;
    case HerdModel::CapacityLimited:
        p.baseDelayMs = 50.0;
        p.maxBackoffMs = 5000.0;
        p.jitterMs = 50.0;
        p.serviceRatePerSec = 200.0;
        p.queueCapacity = 20;
        p.arrivals = ArrivalMode::Herd;
        p.binMs = 50.0;
        break;
    case HerdModel::Outage:
        p.baseDelayMs = 50.0;
        p.maxBackoffMs = 5000.0;
        p.jitterMs = 50.0;
        p.serviceRatePerSec = 200.0;
        p.queueCapacity = 20;
        p.arrivals = ArrivalMode::Poisson;
        p.arrivalRatePerSec = 50.0;
        p.outageStartMs = 1000.0;
        p.outageEndMs = 3000.0;
        p.binMs = 50.0;
        break;
    }
    return p;
}

BackoffPolicy HerdParameters::policyFor(const HerdStrategy &strategy) const
{
    BackoffPolicy policy;
    policy.name = strategy.title();
    policy.algorithm = strategy.algorithm.value_or(BackoffAlgorithm::Immediate);
    policy.baseDelayMs = baseDelayMs;
    policy.maxBackoffMs = maxBackoffMs;
    policy.multiplier = multiplier;
    policy.jitterMs = jitterMs;
    policy.jitterFraction = jitterFraction;
    policy.maxAttempts = maxAttempts;
    policy.deadlineMs = deadlineMs;
    policy.attemptTimeoutMs = 0.0;
    return policy;
}

QStringList HerdParameters::validate() const
{
    using namespace HerdLimits;
    Problems problems;

    if (clientCounts.isEmpty())
        problems.add("clients", Tr::tr("no client count given."));
    if (clientCounts.size() > maxClientCounts) {
        problems.add("clients",
            Tr::tr("%1 client counts is beyond the sensible limit of %2.")
                .arg(clientCounts.size())
                .arg(maxClientCounts));
    }
    double clientSum = 0.0;
    for (int n : clientCounts) {
        if (!problems.checkInt("clients", n, 1, maxClients))
            break;
        clientSum += n;
    }
    const bool runsOk = problems.checkInt("runs", runs, 1, maxRuns);

    if (strategies.isEmpty())
        problems.add("strategies", Tr::tr("no strategy chosen."));
    QSet<int> seen;
    for (const HerdStrategy &s : strategies) {
        if (seen.contains(s.index()))
            problems.add("strategies", Tr::tr("%1 is listed twice.").arg(s.name()));
        seen.insert(s.index());
    }
    if (runsOk && !strategies.isEmpty()) {
        const double work = clientSum * runs * static_cast<double>(strategies.size());
        if (work > maxSimulatedClients) {
            problems.add("grid",
                Tr::tr("%1 simulated clients in total (client counts x runs x strategies) is beyond the "
                       "limit of %2; use fewer runs, client counts or strategies.")
                    .arg(number(work), number(maxSimulatedClients)));
        }
    }

    // The backoff fields go through the core policy validation, so the simulator
    // refuses exactly what the executor refuses.
    problems.checkInt("maxAttempts", maxAttempts, 0, PolicyLimits::maxAttempts);
    for (const HerdStrategy &s : strategies) {
        BackoffPolicy policy = policyFor(s);
        // The horizon bounds every run, so "no attempt limit and no deadline" is allowed here.
        if (policy.maxAttempts <= 0)
            policy.maxAttempts = 1;
        for (const PolicyIssue &issue : validatePolicy(policy)) {
            if (issue.isError())
                problems.add(issue.field.toLatin1().constData(), issue.message);
        }
    }

    const bool meanOk = problems.checkNumber("networkMeanMs", networkMeanMs, 0.0, maxNetworkDelayMs);
    const bool sdOk = problems.checkNumber("networkSdMs", networkSdMs, 0.0, maxNetworkDelayMs);

    // With no network delay and no wait, a failed client tries again at the
    // very instant it failed, and fails again: the virtual clock never moves.
    // An attempt limit ends that; Immediate stops after its one retry anyway.
    if (meanOk && sdOk && networkMeanMs == 0.0 && networkSdMs == 0.0 && maxAttempts == 0) {
        const bool zeroRetryAfter
            = model != HerdModel::OptimisticConcurrency && retryAfterS && *retryAfterS == 0 && honourRetryAfter;
        QStringList spinning;
        for (const HerdStrategy &s : strategies) {
            if (s.algorithm == BackoffAlgorithm::Immediate)
                continue;
            const bool noWait = !s.algorithm || zeroRetryAfter || !(Backoff::delayRange(policyFor(s), 0).maxMs > 0.0);
            if (noWait)
                spinning.append(s.name());
        }
        if (!spinning.isEmpty()) {
            problems.add("networkMeanMs",
                Tr::tr("zero network delay with a zero wait before the retry (%1) and no attempt limit would retry for "
                       "ever at one instant; give the network a delay, the strategies a base delay, or maxAttempts a "
                       "limit.")
                    .arg(spinning.join(QLatin1String(", "))));
        }
    }

    if (arrivals == ArrivalMode::Poisson)
        problems.checkNumber("arrivalRatePerSec", arrivalRatePerSec, 0.0, maxServiceRatePerSec, true);

    if (model != HerdModel::OptimisticConcurrency) {
        problems.checkNumber("serviceRatePerSec", serviceRatePerSec, 0.0, maxServiceRatePerSec, true);
        problems.checkInt("queueCapacity", queueCapacity, 0, maxQueueCapacity);
        if (overloadStatus != 503 && overloadStatus != 429)
            problems.add("overloadStatus", Tr::tr("must be 503 or 429 (got %1).").arg(overloadStatus));
        if (retryAfterS)
            problems.checkInt("retryAfterS", *retryAfterS, 0, maxRetryAfterS);
    }

    const bool horizonOk = problems.checkNumber("horizonMs", horizonMs, 0.0, maxHorizonMs, true);
    if (problems.checkNumber("binMs", binMs, 0.0, maxHorizonMs, true) && horizonOk && horizonMs / binMs > maxBins) {
        problems.add("binMs",
            Tr::tr("%1 ms bins over a %2 ms horizon make more than %3 bins; use wider bins.")
                .arg(number(binMs), number(horizonMs), number(maxBins)));
    }

    if (model == HerdModel::Outage) {
        const bool startOk = problems.checkNumber("outageStartMs", outageStartMs, 0.0, maxHorizonMs);
        const bool endOk = problems.checkNumber("outageEndMs", outageEndMs, 0.0, maxHorizonMs);
        if (startOk && endOk && outageEndMs <= outageStartMs) {
            problems.add("outageEndMs",
                Tr::tr("the outage ends at %1 ms, not after it starts at %2 ms.")
                    .arg(number(outageEndMs), number(outageStartMs)));
        }
        if (endOk && horizonOk && outageEndMs >= horizonMs) {
            problems.add("outageEndMs",
                Tr::tr("the outage ends at %1 ms, at or after the %2 ms horizon: nothing could recover.")
                    .arg(number(outageEndMs), number(horizonMs)));
        }
    }

    problems.checkInt("threads", threads, 0, maxThreads);

    QStringList lines = problems.take();
    if (!lines.isEmpty())
        qCDebug(lcHerdParameters) << "refused parameters:" << lines;
    return lines;
}

Result<QList<int>> parseClientCounts(const QString &text)
{
    using Counts = Result<QList<int>>;
    const QString trimmed = text.trimmed();
    if (trimmed.isEmpty())
        return Counts::failure(Tr::tr("clients: empty; expected first:last:step, a number or a comma-separated list."));

    auto parseOne = [](const QString &part, int *out) {
        bool ok = false;
        const qlonglong value = part.trimmed().toLongLong(&ok);
        if (!ok)
            return Tr::tr("\"%1\" is not a whole number").arg(part.trimmed());
        if (value < 1 || value > HerdLimits::maxClients)
            return Tr::tr("%1 is outside 1..%2").arg(value).arg(HerdLimits::maxClients);
        *out = static_cast<int>(value);
        return QString();
    };

    QList<int> counts;
    if (trimmed.contains(QLatin1Char(':'))) {
        const QStringList parts = trimmed.split(QLatin1Char(':'));
        if (parts.size() != 3)
            return Counts::failure(Tr::tr("clients: \"%1\" is not first:last:step.").arg(trimmed));
        int first = 0;
        int last = 0;
        int step = 0;
        int *targets[] = {&first, &last, &step};
        for (int i = 0; i < 3; ++i) {
            const QString error = parseOne(parts[i], targets[i]);
            if (!error.isEmpty())
                return Counts::failure(Tr::tr("clients: %1 in \"%2\".").arg(error, trimmed));
        }
        if (last < first)
            return Counts::failure(Tr::tr("clients: the last count %1 is below the first %2.").arg(last).arg(first));
        if ((last - first) / step + 1 > HerdLimits::maxClientCounts) {
            return Counts::failure(Tr::tr("clients: \"%1\" makes more than %2 client counts.")
                                       .arg(trimmed)
                                       .arg(HerdLimits::maxClientCounts));
        }
        for (int n = first; n <= last; n += step)
            counts.append(n);
    } else {
        const QStringList parts = trimmed.split(QLatin1Char(','));
        if (parts.size() > HerdLimits::maxClientCounts) {
            return Counts::failure(Tr::tr("clients: more than %1 client counts.").arg(HerdLimits::maxClientCounts));
        }
        for (const QString &part : parts) {
            int n = 0;
            const QString error = parseOne(part, &n);
            if (!error.isEmpty())
                return Counts::failure(Tr::tr("clients: %1.").arg(error));
            counts.append(n);
        }
    }
    std::sort(counts.begin(), counts.end());
    counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
    return counts;
}

QString formatClientCounts(const QList<int> &counts)
{
    if (counts.size() >= 3) {
        const int step = counts[1] - counts[0];
        bool even = step > 0;
        for (qsizetype i = 2; even && i < counts.size(); ++i)
            even = counts[i] - counts[i - 1] == step;
        if (even)
            return QStringLiteral("%1:%2:%3").arg(counts.first()).arg(counts.last()).arg(step);
    }
    QStringList parts;
    for (int n : counts)
        parts.append(QString::number(n));
    return parts.join(QLatin1Char(','));
}

Result<QList<HerdStrategy>> parseStrategies(const QString &text)
{
    using Strategies = Result<QList<HerdStrategy>>;
    QList<HerdStrategy> strategies;
    const QStringList parts = text.split(QLatin1Char(','), Qt::SkipEmptyParts);
    if (parts.isEmpty())
        return Strategies::failure(Tr::tr("strategies: none given."));
    for (const QString &raw : parts) {
        const QString name = raw.trimmed();
        const auto strategy = HerdStrategy::fromName(name);
        if (!strategy) {
            QStringList known;
            for (const HerdStrategy &s : HerdStrategy::all())
                known.append(s.name());
            return Strategies::failure(
                Tr::tr("strategies: unknown strategy \"%1\"; known: %2.").arg(name, known.join(QLatin1String(", "))));
        }
        if (strategies.contains(*strategy))
            return Strategies::failure(Tr::tr("strategies: \"%1\" is listed twice.").arg(name));
        strategies.append(*strategy);
    }
    return strategies;
}

} // namespace RetryLab::Core
