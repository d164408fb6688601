#include "core/record/runstatistics.h"

#include "core/record/runrecord.h"
#include "core/util/coretr.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>

namespace RetryLab::Core {

AttemptOutcome attemptOutcomeOf(const AttemptRecord &record)
{
    if (record.end == AttemptEnd::Cancelled)
        return AttemptOutcome::Cancelled;
    if (record.decision == Classification::Decision::Success)
        return AttemptOutcome::Success;
    return record.nextDelayMs >= 0.0 ? AttemptOutcome::Retried : AttemptOutcome::Failed;
}

QString attemptOutcomeName(AttemptOutcome outcome)
{
    switch (outcome) {
    case AttemptOutcome::Success:
        return QStringLiteral("success");
    case AttemptOutcome::Retried:
        return QStringLiteral("retried");
    case AttemptOutcome::Failed:
        return QStringLiteral("failed");
    case AttemptOutcome::Cancelled:
        return QStringLiteral("cancelled");
    case AttemptOutcome::InFlight:
        return QStringLiteral("in-flight");
    }
    return {};
}

QString attemptOutcomeTitle(AttemptOutcome outcome)
{
    switch (outcome) {
    case AttemptOutcome::Success:
        return Tr::tr("Success");
    case AttemptOutcome::Retried:
        return Tr::tr("Failed, retried");
    case AttemptOutcome::Failed:
        return Tr::tr("Final failure");
    case AttemptOutcome::Cancelled:
        return Tr::tr("Cancelled");
    case AttemptOutcome::InFlight:
        return Tr::tr("In flight");
    }
    return {};
}

QString requestOutcomeTitle(RequestOutcome outcome)
{
    switch (outcome) {
    case RequestOutcome::Succeeded:
        return Tr::tr("Succeeded");
    case RequestOutcome::GaveUp:
        return Tr::tr("Gave up: not retryable");
    case RequestOutcome::AttemptsExhausted:
        return Tr::tr("Gave up: attempt limit");
    case RequestOutcome::DeadlineExceeded:
        return Tr::tr("Gave up: deadline");
    case RequestOutcome::Cancelled:
        return Tr::tr("Cancelled");
    case RequestOutcome::CircuitOpen:
        return Tr::tr("Gave up: breaker open");
    case RequestOutcome::BudgetExhausted:
        return Tr::tr("Gave up: budget empty");
    case RequestOutcome::InvalidRequest:
        return Tr::tr("Not sent: invalid");
    }
    return {};
}

// ---------------------------------------------------------------------------

void RunStatistics::Sample::add(double value)
{
    if (std::isfinite(value))
        m_values.push_back(value);
}

void RunStatistics::Sample::clear()
{
    m_values.clear();
    m_sorted = 0;
}

void RunStatistics::Sample::settle() const
{
    if (m_sorted == m_values.size())
        return;
    const auto middle = m_values.begin() + static_cast<std::ptrdiff_t>(m_sorted);
    std::sort(middle, m_values.end());
    // Live runs mostly add values in no particular order, but a merge of a short
    // sorted tail is linear, where sorting everything again would not be.
    if (m_sorted > 0 && *(middle - 1) > *middle)
        std::inplace_merge(m_values.begin(), middle, m_values.end());
    m_sorted = m_values.size();
}

std::optional<double> RunStatistics::Sample::percentile(double percentile) const
{
    if (m_values.empty() || !(percentile >= 0.0 && percentile <= 100.0))
        return std::nullopt;
    settle();
    const auto n = static_cast<double>(m_values.size());
    // The epsilon keeps products such as 90 * 10 / 100 from landing a hair above 9.
    auto rank = static_cast<std::size_t>(std::ceil(percentile * n / 100.0 - 1e-9));
    rank = std::clamp<std::size_t>(rank, 1, m_values.size());
    return m_values[rank - 1];
}

// ---------------------------------------------------------------------------

RunStatistics::RunStatistics(double binWidthMs, int maxBins)
    : m_initialBinWidthMs(std::isfinite(binWidthMs) && binWidthMs > 0.0 ? binWidthMs : 250.0),
      m_binWidthMs(m_initialBinWidthMs), m_maxBins(std::max(1, maxBins))
{ }

RunStatistics RunStatistics::fromRecord(const RunRecord &record, double binWidthMs, int maxBins)
{
    RunStatistics statistics(binWidthMs, maxBins);
    statistics.setOriginNs(record.epochNs);
    for (const AttemptRecord &attempt : record.attempts)
        statistics.addAttempt(attempt);
    for (const RequestResult &result : record.results)
        statistics.addResult(result);
    return statistics;
}

void RunStatistics::clear()
{
    const qint64 origin = m_originNs;
    *this = RunStatistics(m_initialBinWidthMs, m_maxBins);
    m_originNs = origin;
}

void RunStatistics::addAttempt(const AttemptRecord &record)
{
    ++m_attemptCount;
    const AttemptOutcome outcome = attemptOutcomeOf(record);
    ++m_attemptOutcomes[static_cast<std::size_t>(outcome)];
    if (outcome != AttemptOutcome::Cancelled && record.startNs >= 0 && record.endNs >= record.startNs)
        m_attemptLatency.add(record.durationMs());
    if (outcome == AttemptOutcome::Retried || outcome == AttemptOutcome::Failed)
        addError(record.endNs >= 0 ? record.endNs : record.startNs, causeIndex(record.cause));
}

void RunStatistics::addResult(const RequestResult &result)
{
    ++m_requestCount;
    const int attempts = std::max(0, result.attempts);
    m_attemptsOfFinished += attempts;
    ++m_requestOutcomes[result.outcome];
    ++m_attemptsHistogram[attempts];
    if (result.outcome != RequestOutcome::Cancelled && attempts > 0 && result.startNs >= 0
        && result.endNs >= result.startNs)
        m_requestLatency.add(result.totalMs());
}

qint64 RunStatistics::attemptCount(AttemptOutcome outcome) const
{
    return m_attemptOutcomes[static_cast<std::size_t>(outcome)];
}

qint64 RunStatistics::requestCount(RequestOutcome outcome) const
{
    return m_requestOutcomes.value(outcome);
}

std::optional<double> RunStatistics::successRate() const
{
    // A cancelled request did not succeed: it counts against the rate (a run
    // interrupted after 20 of 100 must not read "100 %").
    if (m_requestCount <= 0)
        return std::nullopt;
    return static_cast<double>(requestCount(RequestOutcome::Succeeded)) / static_cast<double>(m_requestCount);
}

std::optional<double> RunStatistics::retryAmplification() const
{
    if (m_requestCount == 0)
        return std::nullopt;
    return static_cast<double>(m_attemptsOfFinished) / static_cast<double>(m_requestCount);
}

RunStatistics::Percentiles RunStatistics::requestLatency() const
{
    return {m_requestLatency.percentile(50), m_requestLatency.percentile(90), m_requestLatency.percentile(99)};
}

RunStatistics::Percentiles RunStatistics::attemptLatency() const
{
    return {m_attemptLatency.percentile(50), m_attemptLatency.percentile(90), m_attemptLatency.percentile(99)};
}

qint64 RunStatistics::errorCount(const QString &cause) const
{
    const qsizetype index = m_causes.indexOf(cause.isEmpty() ? QStringLiteral("unknown") : cause);
    return index < 0 ? 0 : m_causeTotals.at(index);
}

qint64 RunStatistics::errorsInBin(int bin) const
{
    if (bin < 0 || bin >= binCount())
        return 0;
    return m_binTotals[static_cast<std::size_t>(bin)];
}

qint64 RunStatistics::errorsInBin(int bin, int causeIndex) const
{
    if (bin < 0 || bin >= binCount() || causeIndex < 0)
        return 0;
    const QList<qint64> &counts = m_bins[static_cast<std::size_t>(bin)];
    return causeIndex < counts.size() ? counts.at(causeIndex) : 0;
}

int RunStatistics::causeIndex(const QString &rawCause)
{
    const QString cause = rawCause.isEmpty() ? QStringLiteral("unknown") : rawCause;
    if (m_lastCauseIndex >= 0 && cause == m_lastCause)
        return m_lastCauseIndex;
    qsizetype index = m_causes.indexOf(cause);
    if (index < 0) {
        index = m_causes.size();
        m_causes.append(cause);
        m_causeTotals.append(0);
    }
    m_lastCause = cause;
    m_lastCauseIndex = static_cast<int>(index);
    return m_lastCauseIndex;
}

void RunStatistics::addError(qint64 atNs, int cause)
{
    ++m_errorCount;
    ++m_causeTotals[cause];

    const double sinceMs = atNs > m_originNs ? static_cast<double>(atNs - m_originNs) / 1e6 : 0.0;
    double index = std::floor(sinceMs / m_binWidthMs);
    while (index >= m_maxBins) {
        // Merge neighbours: the table keeps its bound and every count stays exact.
        std::vector<QList<qint64>> merged((m_bins.size() + 1) / 2);
        std::vector<qint64> mergedTotals(merged.size(), 0);
        for (std::size_t b = 0; b < m_bins.size(); ++b) {
            QList<qint64> &target = merged[b / 2];
            const QList<qint64> &source = m_bins[b];
            if (target.size() < source.size())
                target.resize(source.size(), 0);
            for (qsizetype c = 0; c < source.size(); ++c)
                target[c] += source.at(c);
            mergedTotals[b / 2] += m_binTotals[b];
        }
        m_bins = std::move(merged);
        m_binTotals = std::move(mergedTotals);
        m_binWidthMs *= 2.0;
        index = std::floor(sinceMs / m_binWidthMs);
    }
    const auto bin = static_cast<std::size_t>(index);
    if (bin >= m_bins.size()) {
        m_bins.resize(bin + 1);
        m_binTotals.resize(bin + 1, 0);
    }
    QList<qint64> &counts = m_bins[bin];
    if (counts.size() <= cause)
        counts.resize(cause + 1, 0);
    ++counts[cause];
    ++m_binTotals[bin];
}

} // namespace RetryLab::Core
