#pragma once

#include "core/policy/backoffpolicy.h"
#include "core/util/result.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace RetryLab::Core {

/// The three situations the herd simulator can play out.
enum class HerdModel {
    /// N clients read a row's version and write it conditionally; a stale write fails
    /// and the client backs off and reads again (AWS "Exponential Backoff And Jitter").
    OptimisticConcurrency,
    /// A server that serves mu requests per second from a bounded queue and answers
    /// 503 or 429 (optionally with Retry-After) when the queue is full.
    CapacityLimited,
    /// The capacity-limited server, down from outageStartMs to outageEndMs.
    Outage,
    /// A server of unlimited capacity whose answers take a lognormal time (median
    /// latencyMedianMs, sigma latencySigma), as the fault server's
    /// /delay/{ms}?dist=lognormal does, and fail with failureRate: where hedging
    /// pays, and what load it costs.
    Latency,
};

QString herdModelName(HerdModel model); ///< stable identifier: "occ", "capacity", "outage", "latency"
QString herdModelTitle(HerdModel model); ///< human title
std::optional<HerdModel> herdModelFromName(const QString &name);
QList<HerdModel> allHerdModels();

/// When the clients send their first request.
enum class ArrivalMode {
    Herd, ///< all at time 0, as after an outage or a deployment
    Poisson, ///< a Poisson stream at arrivalRatePerSec
};

QString arrivalModeName(ArrivalMode mode); ///< "herd" or "poisson"
std::optional<ArrivalMode> arrivalModeFromName(const QString &name);

/// A strategy the simulator compares: one of the core backoff algorithms, no
/// backoff at all (a failed client tries again as soon as its answer arrives),
/// or hedging (the latency model only: a further attempt every hedgingDelayMs
/// while none has answered, at once after a failure, up to hedgedAttempts; the
/// first success wins).
struct HerdStrategy
{
    std::optional<BackoffAlgorithm> algorithm; ///< empty: no backoff, or hedging
    bool hedging = false;

    QString name() const; ///< "none", "hedging" or the algorithm's stable name
    QString title() const;
    /// Position in all(): stable, used to colour and to order strategies.
    int index() const;

    static std::optional<HerdStrategy> fromName(const QString &name);
    /// No backoff followed by every algorithm of the core library: every strategy
    /// each model plays.
    static QList<HerdStrategy> all();
    /// The hedging strategy, which the latency model plays besides all().
    static HerdStrategy hedge() { return HerdStrategy{std::nullopt, true}; }
    /// What `model` can play: all(), and hedging for the latency model.
    static QList<HerdStrategy> allFor(HerdModel model);
    /// The five strategies of the AWS study plus the seed documents' Google algorithm.
    static QList<HerdStrategy> defaults();

    friend bool operator==(const HerdStrategy &, const HerdStrategy &) = default;
};

/// Limits beyond which a value is refused as absurd rather than simulated.
namespace HerdLimits {
inline constexpr int maxClients = 1'000'000;
inline constexpr int maxClientCounts = 1'000;
inline constexpr int maxRuns = 100'000;
/// Sum of client counts x strategies x runs: the work of a whole grid.
inline constexpr double maxSimulatedClients = 2e8;
inline constexpr double maxNetworkDelayMs = 60'000.0;
inline constexpr double maxServiceRatePerSec = 1e6;
inline constexpr int maxQueueCapacity = 1'000'000;
inline constexpr int maxRetryAfterS = 86'400;
inline constexpr double maxHorizonMs = 7.0 * 24.0 * 3600.0 * 1000.0;
inline constexpr double maxBins = 1e6;
inline constexpr int maxThreads = 256;
} // namespace HerdLimits

/// Everything a simulation grid needs. Times are in milliseconds of virtual time.
/// The backoff fields are shared by every strategy (each strategy only swaps the
/// algorithm), so that strategies are compared under the same base and cap.
struct HerdParameters
{
    HerdModel model = HerdModel::OptimisticConcurrency;
    QList<int> clientCounts;
    int runs = 100;
    quint64 seed = 1;
    QList<HerdStrategy> strategies = HerdStrategy::defaults();

    // Backoff, as in BackoffPolicy.
    double baseDelayMs = 5.0;
    double maxBackoffMs = 2000.0;
    double multiplier = 2.0;
    /// Additive random part of the Google and IAM algorithms, U[0, jitterMs]. The seed
    /// documents pair a 1 s base with up to 1 s of jitter; the default keeps that ratio.
    double jitterMs = 5.0;
    double jitterFraction = 0.2;
    /// Attempts per client, the first included (0: no limit, the horizon ends the run).
    int maxAttempts = 0;
    /// Per-client deadline from its first attempt (0: none).
    double deadlineMs = 0.0;

    // Network: every message is delayed by |Normal(mean, sd)|.
    double networkMeanMs = 10.0;
    double networkSdMs = 2.0;

    ArrivalMode arrivals = ArrivalMode::Herd;
    double arrivalRatePerSec = 50.0;

    // Server (capacity and outage models).
    double serviceRatePerSec = 200.0;
    int queueCapacity = 50;
    int overloadStatus = 503; ///< 503 or 429
    std::optional<int> retryAfterS; ///< Retry-After sent with an overload answer
    bool honourRetryAfter = true;
    /// Each client's own rate limiter (BackoffPolicy::rateLimiter, botocore's
    /// constants): aws-adaptive slows a client down after its throttling answers
    /// (the overload answer when it is 429), as every AWS SDK client does alone.
    RateLimiterKind rateLimiter = RateLimiterKind::None;

    // Outage model.
    double outageStartMs = 1000.0;
    double outageEndMs = 3000.0;

    // Latency model: how long the server takes to answer, and how often it fails (503).
    double latencyMedianMs = 100.0;
    double latencySigma = 0.8;
    double failureRate = 0.0;
    // The hedging strategy (BackoffPolicy::hedging): attempts in all, and the time between them.
    int hedgedAttempts = 3;
    double hedgingDelayMs = 250.0;

    /// Width of a server-load bin.
    double binMs = 100.0;
    /// Virtual time after which a run stops; clients still busy count as unfinished.
    double horizonMs = 3600.0 * 1000.0;
    /// Worker threads (0: one per core). Results do not depend on it.
    int threads = 0;

    /// Sensible defaults for a model, with the grid 10:190:10 x 100 runs.
    static HerdParameters defaultsFor(HerdModel model);

    /// The backoff policy a strategy runs with (meaningless for "none").
    BackoffPolicy policyFor(const HerdStrategy &strategy) const;

    /// Every problem as {field, message} ("runs", "0 is below the minimum of 1."),
    /// so that a form or the command line can point at the field; "grid" is the
    /// product of clients, runs and strategies. Empty when the parameters can be simulated.
    QList<Error> errors() const;
    /// errors() as sentences, "field: message".
    QStringList validate() const;
};

/// One numeric parameter as files and the command line know it: its name (the
/// JSON key and the path of its errors), its `retrylab simulate` option, its
/// bounds and what it means. The settings codec, the command line and
/// HerdParameters::errors() all read this one table.
struct HerdParameterField
{
    enum class Type {
        Number,
        WholeNumber,
        OptionalWholeNumber, ///< a whole number or nothing (retryAfterS)
    };
    /// How errors() checks the value.
    enum class Check {
        Range, ///< min <= value <= max
        AboveMinimum, ///< min < value <= max
        Policy, ///< as the BackoffPolicy field of the same name (validatePolicy(); min and max unused)
        Special, ///< by a rule of its own (overloadStatus: 503 or 429)
    };

    const char *name; ///< "baseDelayMs"
    const char *option; ///< "base-ms", without the dashes
    const char *valueName; ///< "ms", for the command line help
    const char *description; ///< untranslated; see help()
    Type type;
    Check check;
    double min;
    double max;
    /// When the value matters; nullptr: always. A value that does not matter is not checked.
    bool (*applies)(const HerdParameters &);
    /// Kept in the settings (the simulator form's fields); the others are command line only.
    bool stored;
    double HerdParameters::*number;
    int HerdParameters::*whole;
    std::optional<int> HerdParameters::*optionalWhole;

    QString key() const { return QLatin1String(name); }
    /// The description, translated.
    QString help() const;
    /// The value; nothing for an unset optional one.
    std::optional<double> value(const HerdParameters &parameters) const;
    /// Sets the value (whole types take it as a whole number; nothing unsets an optional one).
    void setValue(HerdParameters &parameters, std::optional<double> value) const;
};

/// Every numeric parameter, in the order of the command line help.
const QList<HerdParameterField> &herdParameterFields();
/// The numeric parameter of that name, or nullptr.
const HerdParameterField *herdParameterField(const QString &name);

/// Parses "10:190:10" (first:last:step), "50" or "10,20,50" into sorted, distinct counts;
/// an error has the path "clients".
Result<QList<int>> parseClientCounts(const QString &text);
/// Formats counts back to the shortest of those forms.
QString formatClientCounts(const QList<int> &counts);
/// Parses "none,full-jitter,..."; names an unknown strategy and lists the known ones
/// (the path of an error is "strategies").
Result<QList<HerdStrategy>> parseStrategies(const QString &text);

} // namespace RetryLab::Core
