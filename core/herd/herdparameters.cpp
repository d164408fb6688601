#include "core/herd/herdparameters.h"

#include "core/policy/backoff.h"
#include "core/util/coretr.h"

#include <QCoreApplication>
#include <QLoggingCategory>
#include <QSet>

#include <algorithm>
#include <cmath>

namespace RetryLab::Core {

namespace {
Q_LOGGING_CATEGORY(lcHerdParameters, "retrylab.core.herdparameters", QtInfoMsg)
} // namespace

namespace {

QString number(double value)
{
    return QString::number(value, 'g', 12);
}

// Collects problems, each with the field it is about.
class Problems
{
public:
    void add(const char *field, const QString &message)
    {
        const Error error{QLatin1String(field), message};
        if (!m_errors.contains(error))
            m_errors.append(error);
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

    // Checks a numeric field by its bounds in the table; false when it is refused.
    bool check(const HerdParameterField &field, const HerdParameters &p)
    {
        const auto value = field.value(p);
        if (!value || (field.applies && !field.applies(p)))
            return true;
        const bool exclusive = field.check == HerdParameterField::Check::AboveMinimum;
        switch (field.check) {
        case HerdParameterField::Check::Range:
        case HerdParameterField::Check::AboveMinimum:
            if (field.type == HerdParameterField::Type::Number)
                return checkNumber(field.name, *value, field.min, field.max, exclusive);
            return checkInt(field.name, static_cast<qint64>(*value), static_cast<qint64>(field.min),
                static_cast<qint64>(field.max));
        case HerdParameterField::Check::Policy:
        case HerdParameterField::Check::Special:
            break;
        }
        return true;
    }

    QList<Error> take() { return std::move(m_errors); }

private:
    QList<Error> m_errors;
};

bool capacityOrOutage(const HerdParameters &p)
{
    return p.model != HerdModel::OptimisticConcurrency;
}

bool outageOnly(const HerdParameters &p)
{
    return p.model == HerdModel::Outage;
}

bool poissonArrivals(const HerdParameters &p)
{
    return p.arrivals == ArrivalMode::Poisson;
}

bool latencyOnly(const HerdParameters &p)
{
    return p.model == HerdModel::Latency;
}

bool hedgingPlayed(const HerdParameters &p)
{
    return std::any_of(p.strategies.cbegin(), p.strategies.cend(), [](const HerdStrategy &s) { return s.hedging; });
}

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
    case HerdModel::Latency:
        return QStringLiteral("latency");
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
    case HerdModel::Latency:
        return Tr::tr("Slow answers (hedging)");
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
    return {HerdModel::OptimisticConcurrency, HerdModel::CapacityLimited, HerdModel::Outage, HerdModel::Latency};
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
    if (hedging)
        return QStringLiteral("hedging");
    return algorithm ? algorithmName(*algorithm) : QStringLiteral("none");
}

QString HerdStrategy::title() const
{
    if (hedging)
        return Tr::tr("Hedging");
    return algorithm ? algorithmTitle(*algorithm) : Tr::tr("No backoff");
}

int HerdStrategy::index() const
{
    if (hedging)
        return 1 + static_cast<int>(allAlgorithms().size());
    if (!algorithm)
        return 0;
    return 1 + static_cast<int>(allAlgorithms().indexOf(*algorithm));
}

std::optional<HerdStrategy> HerdStrategy::fromName(const QString &name)
{
    if (name == QLatin1String("none"))
        return HerdStrategy{};
    if (name == QLatin1String("hedging"))
        return hedge();
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

QList<HerdStrategy> HerdStrategy::allFor(HerdModel model)
{
    QList<HerdStrategy> strategies = all();
    if (model == HerdModel::Latency)
        strategies.append(hedge());
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
    case HerdModel::Latency:
        // Answers with a median of 100 ms and a long tail (sigma 0.8: 95th percentile 373 ms), one in
        // a hundred failing; hedging after 250 ms against retrying at once, and full jitter.
        p.clientCounts = {100, 1000};
        p.strategies = {HerdStrategy{}, HerdStrategy{BackoffAlgorithm::FullJitter}, HerdStrategy::hedge()};
        p.baseDelayMs = 50.0;
        p.maxBackoffMs = 1000.0;
        p.jitterMs = 50.0;
        p.maxAttempts = 3;
        p.failureRate = 0.01;
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
    policy.rateLimiter.kind = rateLimiter;
    return policy;
}

QList<Error> HerdParameters::errors() const
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

    if (strategies.isEmpty())
        problems.add("strategies", Tr::tr("no strategy chosen."));
    QSet<int> seen;
    for (const HerdStrategy &s : strategies) {
        if (seen.contains(s.index()))
            problems.add("strategies", Tr::tr("%1 is listed twice.").arg(s.name()));
        seen.insert(s.index());
    }

    // The bounds of each numeric field come from the table.
    QSet<QString> refused;
    for (const HerdParameterField &field : herdParameterFields()) {
        if (!problems.check(field, *this))
            refused.insert(field.key());
    }
    const auto ok = [&refused](const char *field) { return !refused.contains(QLatin1String(field)); };

    if (ok("runs") && !strategies.isEmpty()) {
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

    // With no network delay and no wait, a failed client tries again at the
    // very instant it failed, and fails again: the virtual clock never moves.
    // An attempt limit ends that; Immediate stops after its one retry anyway.
    if (ok("networkMeanMs") && ok("networkSdMs") && networkMeanMs == 0.0 && networkSdMs == 0.0 && maxAttempts == 0) {
        const bool zeroRetryAfter
            = model != HerdModel::OptimisticConcurrency && retryAfterS && *retryAfterS == 0 && honourRetryAfter;
        QStringList spinning;
        for (const HerdStrategy &s : strategies) {
            if (s.algorithm == BackoffAlgorithm::Immediate || s.hedging)
                continue; // one retry, or hedgedAttempts in all
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

    if (hedgingPlayed(*this) && !latencyOnly(*this)) {
        problems.add("strategies",
            Tr::tr("hedging is played by the latency model only, where answers are slow rather than refused; "
                   "choose --model latency or another strategy."));
    }

    if (capacityOrOutage(*this) && overloadStatus != 503 && overloadStatus != 429)
        problems.add("overloadStatus", Tr::tr("must be 503 or 429 (got %1).").arg(overloadStatus));

    if (ok("binMs") && ok("horizonMs") && horizonMs / binMs > maxBins) {
        problems.add("binMs",
            Tr::tr("%1 ms bins over a %2 ms horizon make more than %3 bins; use wider bins.")
                .arg(number(binMs), number(horizonMs), number(maxBins)));
    }

    if (outageOnly(*this)) {
        if (ok("outageStartMs") && ok("outageEndMs") && outageEndMs <= outageStartMs) {
            problems.add("outageEndMs",
                Tr::tr("the outage ends at %1 ms, not after it starts at %2 ms.")
                    .arg(number(outageEndMs), number(outageStartMs)));
        }
        if (ok("outageEndMs") && ok("horizonMs") && outageEndMs >= horizonMs) {
            problems.add("outageEndMs",
                Tr::tr("the outage ends at %1 ms, at or after the %2 ms horizon: nothing could recover.")
                    .arg(number(outageEndMs), number(horizonMs)));
        }
    }

    QList<Error> found = problems.take();
    for (const Error &error : std::as_const(found))
        qCDebug(lcHerdParameters).noquote() << "refused parameters:" << error.text();
    return found;
}

QStringList HerdParameters::validate() const
{
    QStringList lines;
    for (const Error &error : errors())
        lines.append(error.text());
    return lines;
}

QString HerdParameterField::help() const
{
    return Tr::tr(description);
}

std::optional<double> HerdParameterField::value(const HerdParameters &parameters) const
{
    switch (type) {
    case Type::Number:
        return parameters.*number;
    case Type::WholeNumber:
        return parameters.*whole;
    case Type::OptionalWholeNumber:
        if (const auto v = parameters.*optionalWhole)
            return *v;
        return std::nullopt;
    }
    return std::nullopt;
}

void HerdParameterField::setValue(HerdParameters &parameters, std::optional<double> v) const
{
    switch (type) {
    case Type::Number:
        parameters.*number = v.value_or(0.0);
        break;
    case Type::WholeNumber:
        parameters.*whole = static_cast<int>(v.value_or(0.0));
        break;
    case Type::OptionalWholeNumber:
        parameters.*optionalWhole = v ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
        break;
    }
}

const QList<HerdParameterField> &herdParameterFields()
{
    using F = HerdParameterField;
    using P = HerdParameters;
    using T = F::Type;
    using C = F::Check;
    using namespace HerdLimits;
    const auto numberField
        = [](const char *name, const char *option, const char *valueName, const char *description, C check, double min,
              double max, bool (*applies)(const P &), bool stored, double P::*member) {
              return F{name, option, valueName, description, T::Number, check, min, max, applies, stored, member,
                  nullptr, nullptr};
          };
    const auto wholeField = [](const char *name, const char *option, const char *description, C check, double min,
                                double max, bool (*applies)(const P &), bool stored, int P::*member) {
        return F{
            name, option, "n", description, T::WholeNumber, check, min, max, applies, stored, nullptr, member, nullptr};
    };
    // Values up to a million are exact in a double, so the bounds of whole numbers are too.
    static const QList<HerdParameterField> fields{
        wholeField("runs", "runs",
            QT_TRANSLATE_NOOP("RetryLab::Core", "Runs per (clients, strategy) cell. Default 100."), C::Range, 1,
            maxRuns, nullptr, true, &P::runs),
        wholeField("maxAttempts", "max-attempts",
            QT_TRANSLATE_NOOP("RetryLab::Core", "Attempts per client (0: no limit)."), C::Range, 0,
            PolicyLimits::maxAttempts, nullptr, true, &P::maxAttempts),
        wholeField("queueCapacity", "queue",
            QT_TRANSLATE_NOOP("RetryLab::Core", "Server queue capacity (capacity, outage)."), C::Range, 0,
            maxQueueCapacity, &capacityOrOutage, true, &P::queueCapacity),
        wholeField("overloadStatus", "status", QT_TRANSLATE_NOOP("RetryLab::Core", "Overload answer: 503 or 429."),
            C::Special, 429, 503, &capacityOrOutage, true, &P::overloadStatus),
        F{"retryAfterS", "retry-after", "n",
            QT_TRANSLATE_NOOP("RetryLab::Core", "Retry-After seconds sent with overload answers."),
            T::OptionalWholeNumber, C::Range, 0, maxRetryAfterS, &capacityOrOutage, true, nullptr, nullptr,
            &P::retryAfterS},
        wholeField("threads", "threads", QT_TRANSLATE_NOOP("RetryLab::Core", "Worker threads (0: one per core)."),
            C::Range, 0, maxThreads, nullptr, false, &P::threads),
        numberField("baseDelayMs", "base-ms", "ms", QT_TRANSLATE_NOOP("RetryLab::Core", "Backoff base delay."),
            C::Policy, 0, 0, nullptr, true, &P::baseDelayMs),
        numberField("maxBackoffMs", "cap-ms", "ms",
            QT_TRANSLATE_NOOP("RetryLab::Core", "Backoff cap (maximum backoff)."), C::Policy, 0, 0, nullptr, true,
            &P::maxBackoffMs),
        numberField("multiplier", "multiplier", "x", QT_TRANSLATE_NOOP("RetryLab::Core", "Growth factor per retry."),
            C::Policy, 0, 0, nullptr, true, &P::multiplier),
        numberField("jitterMs", "jitter-ms", "ms",
            QT_TRANSLATE_NOOP("RetryLab::Core", "Additive random part of the Google and IAM algorithms, U[0, jitter]."),
            C::Policy, 0, 0, nullptr, true, &P::jitterMs),
        numberField("jitterFraction", "jitter-fraction", "f",
            QT_TRANSLATE_NOOP("RetryLab::Core", "Proportional jitter fraction."), C::Policy, 0, 0, nullptr, false,
            &P::jitterFraction),
        numberField("deadlineMs", "deadline-ms", "ms",
            QT_TRANSLATE_NOOP("RetryLab::Core", "Per-client deadline (0: none)."), C::Policy, 0, 0, nullptr, true,
            &P::deadlineMs),
        numberField("networkMeanMs", "net-mean-ms", "ms",
            QT_TRANSLATE_NOOP("RetryLab::Core", "Mean network delay per message."), C::Range, 0.0, maxNetworkDelayMs,
            nullptr, true, &P::networkMeanMs),
        numberField("networkSdMs", "net-sd-ms", "ms",
            QT_TRANSLATE_NOOP("RetryLab::Core", "Standard deviation of the network delay."), C::Range, 0.0,
            maxNetworkDelayMs, nullptr, true, &P::networkSdMs),
        numberField("arrivalRatePerSec", "arrival-rate", "per-s",
            QT_TRANSLATE_NOOP("RetryLab::Core", "Poisson arrivals per second."), C::AboveMinimum, 0.0,
            maxServiceRatePerSec, &poissonArrivals, true, &P::arrivalRatePerSec),
        numberField("serviceRatePerSec", "service-rate", "per-s",
            QT_TRANSLATE_NOOP("RetryLab::Core", "Requests the server serves per second (capacity, outage)."),
            C::AboveMinimum, 0.0, maxServiceRatePerSec, &capacityOrOutage, true, &P::serviceRatePerSec),
        numberField("outageStartMs", "outage-start-ms", "ms",
            QT_TRANSLATE_NOOP("RetryLab::Core", "Outage start (outage model)."), C::Range, 0.0, maxHorizonMs,
            &outageOnly, true, &P::outageStartMs),
        numberField("outageEndMs", "outage-end-ms", "ms",
            QT_TRANSLATE_NOOP("RetryLab::Core", "Outage end (outage model)."), C::Range, 0.0, maxHorizonMs, &outageOnly,
            true, &P::outageEndMs),
        numberField("latencyMedianMs", "latency-median-ms", "ms",
            QT_TRANSLATE_NOOP("RetryLab::Core", "Median time the server takes to answer (latency model)."),
            C::AboveMinimum, 0.0, maxNetworkDelayMs, &latencyOnly, true, &P::latencyMedianMs),
        numberField("latencySigma", "latency-sigma", "s",
            QT_TRANSLATE_NOOP(
                "RetryLab::Core", "Sigma of the lognormal answer time: 0 for none, 1 for a long tail (latency model)."),
            C::Range, 0.0, 4.0, &latencyOnly, true, &P::latencySigma),
        numberField("failureRate", "failure-rate", "p",
            QT_TRANSLATE_NOOP("RetryLab::Core", "Share of answers that fail with 503 (latency model)."), C::Range, 0.0,
            1.0, &latencyOnly, true, &P::failureRate),
        wholeField("hedgedAttempts", "hedged-attempts",
            QT_TRANSLATE_NOOP("RetryLab::Core", "Attempts in all of the hedging strategy, the first included."),
            C::Range, 2, PolicyLimits::maxHedgedAttempts, &hedgingPlayed, true, &P::hedgedAttempts),
        numberField("hedgingDelayMs", "hedging-delay-ms", "ms",
            QT_TRANSLATE_NOOP(
                "RetryLab::Core", "Time from one attempt of the hedging strategy to the next, unless one answered."),
            C::AboveMinimum, 0.0, maxHorizonMs, &hedgingPlayed, true, &P::hedgingDelayMs),
        numberField("binMs", "bin-ms", "ms", QT_TRANSLATE_NOOP("RetryLab::Core", "Width of a server-load bin."),
            C::AboveMinimum, 0.0, maxHorizonMs, nullptr, true, &P::binMs),
        numberField("horizonMs", "horizon-ms", "ms",
            QT_TRANSLATE_NOOP(
                "RetryLab::Core", "Virtual time after which a run stops; busy clients count as unfinished."),
            C::AboveMinimum, 0.0, maxHorizonMs, nullptr, false, &P::horizonMs),
    };
    return fields;
}

const HerdParameterField *herdParameterField(const QString &name)
{
    for (const HerdParameterField &field : herdParameterFields()) {
        if (name == QLatin1String(field.name))
            return &field;
    }
    return nullptr;
}

Result<QList<int>> parseClientCounts(const QString &text)
{
    using Counts = Result<QList<int>>;
    const QString field = QStringLiteral("clients");
    const QString trimmed = text.trimmed();
    if (trimmed.isEmpty())
        return Counts::failure(field, Tr::tr("empty; expected first:last:step, a number or a comma-separated list."));

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
            return Counts::failure(field, Tr::tr("\"%1\" is not first:last:step.").arg(trimmed));
        int first = 0;
        int last = 0;
        int step = 0;
        int *targets[] = {&first, &last, &step};
        for (int i = 0; i < 3; ++i) {
            const QString error = parseOne(parts[i], targets[i]);
            if (!error.isEmpty())
                return Counts::failure(field, Tr::tr("%1 in \"%2\".").arg(error, trimmed));
        }
        if (last < first)
            return Counts::failure(field, Tr::tr("the last count %1 is below the first %2.").arg(last).arg(first));
        if ((last - first) / step + 1 > HerdLimits::maxClientCounts) {
            return Counts::failure(field,
                Tr::tr("\"%1\" makes more than %2 client counts.").arg(trimmed).arg(HerdLimits::maxClientCounts));
        }
        for (int n = first; n <= last; n += step)
            counts.append(n);
    } else {
        const QStringList parts = trimmed.split(QLatin1Char(','));
        if (parts.size() > HerdLimits::maxClientCounts) {
            return Counts::failure(field, Tr::tr("more than %1 client counts.").arg(HerdLimits::maxClientCounts));
        }
        for (const QString &part : parts) {
            int n = 0;
            const QString error = parseOne(part, &n);
            if (!error.isEmpty())
                return Counts::failure(field, Tr::tr("%1.").arg(error));
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
    const QString field = QStringLiteral("strategies");
    QList<HerdStrategy> strategies;
    const QStringList parts = text.split(QLatin1Char(','), Qt::SkipEmptyParts);
    if (parts.isEmpty())
        return Strategies::failure(field, Tr::tr("none given."));
    for (const QString &raw : parts) {
        const QString name = raw.trimmed();
        const auto strategy = HerdStrategy::fromName(name);
        if (!strategy) {
            QStringList known;
            for (const HerdStrategy &s : HerdStrategy::allFor(HerdModel::Latency))
                known.append(s.name());
            return Strategies::failure(
                field, Tr::tr("unknown strategy \"%1\"; known: %2.").arg(name, known.join(QLatin1String(", "))));
        }
        if (strategies.contains(*strategy))
            return Strategies::failure(field, Tr::tr("\"%1\" is listed twice.").arg(name));
        strategies.append(*strategy);
    }
    return strategies;
}

} // namespace RetryLab::Core
