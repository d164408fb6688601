#pragma once

#include "core/record/attemptrecord.h"

#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

#include <array>
#include <optional>
#include <vector>

namespace RetryLab::Core {

struct RunRecord;

/// How one attempt turned out, for colouring, filtering and counting.
enum class AttemptOutcome : quint8 {
    Success, ///< classified as a success
    Retried, ///< failed, and a retry was scheduled after it
    Failed, ///< failed, and no retry followed: the request's final failure
    Cancelled, ///< cut by the user
    InFlight, ///< not finished yet (never the outcome of a finished record)
};
inline constexpr int attemptOutcomeCount = 5;

AttemptOutcome attemptOutcomeOf(const AttemptRecord &record);
/// Stable identifier ("success", "retried", "failed", "cancelled", "in-flight").
QString attemptOutcomeName(AttemptOutcome outcome);
/// Human title, translated.
QString attemptOutcomeTitle(AttemptOutcome outcome);
/// How a logical request ended, in words for a table ("attempt limit reached").
QString requestOutcomeTitle(RequestOutcome outcome);

/// Statistics of a run, built incrementally from attempt records and request
/// results, so that a live view and a headless summary compute the same numbers.
///
/// Definitions:
/// - Success rate: succeeded requests / finished requests that the user did not
///   cancel. Cancelled requests are no verdict on the service.
/// - Attempts per request: histogram over finished requests of RequestResult::attempts
///   (0 for requests refused before any attempt).
/// - Retry amplification: the attempts made by finished requests / finished requests.
/// - Latency percentiles use the nearest-rank method: for p in (0, 100] over N
///   sorted values the result is the value at rank ceil(p/100 * N) (1-based), always an
///   observed value; p = 0 gives the minimum. Request latency is RequestResult::totalMs()
///   of finished requests that made at least one attempt; attempt latency is
///   AttemptRecord::durationMs() of finished attempts. Cancelled ones are left out of both
///   because their duration is the user's, not the service's.
/// - Errors over time: attempts whose outcome is Retried or Failed, counted per cause
///   in bins of the attempt's end time since originNs(). Bins start binWidthMs() wide;
///   when a record falls beyond maxBins() bins, neighbouring bins are merged pairwise
///   and the width doubles, so the table stays bounded for runs of any length. Records
///   that end before the origin count in bin 0.
///
/// Adding a record is O(1) amortised. Percentiles sort lazily: the first query after k
/// new values costs O(k log k + N) to merge them in, later queries O(1).
class RunStatistics
{
public:
    explicit RunStatistics(double binWidthMs = 250.0, int maxBins = 240);

    /// Monotonic time of bin 0's start (a run's epoch). Set it before adding records.
    void setOriginNs(qint64 originNs) { m_originNs = originNs; }
    qint64 originNs() const { return m_originNs; }

    void addAttempt(const AttemptRecord &record);
    void addResult(const RequestResult &result);
    /// Forgets every record; keeps the origin, the initial bin width and maxBins.
    void clear();

    /// The statistics of a whole recorded run.
    static RunStatistics fromRecord(const RunRecord &record, double binWidthMs = 250.0, int maxBins = 240);

    // Attempts.
    qint64 attemptCount() const { return m_attemptCount; }
    qint64 attemptCount(AttemptOutcome outcome) const;

    // Requests.
    qint64 requestCount() const { return m_requestCount; } ///< finished requests
    qint64 requestCount(RequestOutcome outcome) const;
    qint64 attemptsOfFinishedRequests() const { return m_attemptsOfFinished; }
    /// Succeeded among the finished requests, cancelled ones included: 0..1; none before any finished.
    std::optional<double> successRate() const;
    /// Number of attempts -> number of finished requests that made that many.
    const QMap<int, qint64> &attemptsHistogram() const { return m_attemptsHistogram; }
    std::optional<double> retryAmplification() const;

    // Latency (milliseconds).
    struct Percentiles
    {
        std::optional<double> p50;
        std::optional<double> p90;
        std::optional<double> p99;
    };
    std::optional<double> requestLatencyMs(double percentile) const { return m_requestLatency.percentile(percentile); }
    std::optional<double> attemptLatencyMs(double percentile) const { return m_attemptLatency.percentile(percentile); }
    Percentiles requestLatency() const;
    Percentiles attemptLatency() const;
    qsizetype requestLatencyCount() const { return m_requestLatency.count(); }
    qsizetype attemptLatencyCount() const { return m_attemptLatency.count(); }

    // Errors over time.
    double binWidthMs() const { return m_binWidthMs; }
    int maxBins() const { return m_maxBins; }
    qint64 errorCount() const { return m_errorCount; }
    /// Causes in the order they were first seen; an empty cause is reported as "unknown".
    const QStringList &errorCauses() const { return m_causes; }
    qint64 errorCount(const QString &cause) const;
    int binCount() const { return static_cast<int>(m_bins.size()); }
    double binStartMs(int bin) const { return bin * m_binWidthMs; }
    qint64 errorsInBin(int bin) const;
    qint64 errorsInBin(int bin, int causeIndex) const;

    /// A multiset of values with nearest-rank percentiles (see the class comment).
    class Sample
    {
    public:
        /// Ignores values that are not finite.
        void add(double value);
        void clear();
        qsizetype count() const { return static_cast<qsizetype>(m_values.size()); }
        /// `percentile` in [0, 100]; none when empty or out of range.
        std::optional<double> percentile(double percentile) const;

    private:
        void settle() const;

        mutable std::vector<double> m_values;
        mutable std::size_t m_sorted = 0; ///< m_values[0, m_sorted) is sorted
    };

private:
    int causeIndex(const QString &cause);
    void addError(qint64 atNs, int cause);

    double m_initialBinWidthMs = 250.0;
    double m_binWidthMs = 250.0;
    int m_maxBins = 240;
    qint64 m_originNs = 0;

    qint64 m_attemptCount = 0;
    std::array<qint64, attemptOutcomeCount> m_attemptOutcomes{};
    qint64 m_requestCount = 0;
    qint64 m_attemptsOfFinished = 0;
    QMap<RequestOutcome, qint64> m_requestOutcomes;
    QMap<int, qint64> m_attemptsHistogram;
    Sample m_requestLatency;
    Sample m_attemptLatency;

    qint64 m_errorCount = 0;
    QStringList m_causes;
    QList<qint64> m_causeTotals;
    QString m_lastCause; ///< most records repeat the previous cause: skip the lookup
    int m_lastCauseIndex = -1;
    /// m_bins[b][c]: errors of cause c in bin b; a bin's list grows to the causes it has seen.
    std::vector<QList<qint64>> m_bins;
    std::vector<qint64> m_binTotals;
};

} // namespace RetryLab::Core
