#include "core/herd/layersimulation.h"

#include "core/policy/backoff.h"
#include "core/util/randomsource.h"

#include <algorithm>
#include <cmath>

namespace RetryLab::Core {

namespace {

struct Call
{
    bool succeeded = false;
    double ms = 0.0;
};

class Player
{
public:
    Player(const QList<BackoffPolicy> &layers, const RetryLayers::Assumptions &a, quint64 seed)
        : m_layers(layers), m_assumptions(a), m_random(seed)
    { }

    qint64 serverAttempts = 0;

    // A call into layer `level`; level == size(): one attempt at the server.
    Call call(qsizetype level)
    {
        if (level == m_layers.size()) {
            ++serverAttempts;
            return {!m_random.chance(m_assumptions.failureProbability), std::max(0.0, m_assumptions.failureMs)};
        }
        const BackoffPolicy &p = m_layers.at(level);
        const qint64 limit = p.maxAttempts > 0 ? p.maxAttempts : RetryLayers::maxCountedAttempts;
        const qint64 retries = p.algorithm == BackoffAlgorithm::Immediate ? 1 : limit - 1;
        double elapsed = 0.0;
        double previous = -1.0;
        for (qint64 n = 0;; ++n) {
            Call inner = call(level + 1);
            if (p.attemptTimeoutMs > 0.0 && inner.ms > p.attemptTimeoutMs)
                inner = {false, p.attemptTimeoutMs}; // this layer's timeout cut the sequence below
            elapsed += inner.ms;
            if (inner.succeeded)
                return {true, elapsed};
            if (p.deadlineMs > 0.0 && elapsed >= p.deadlineMs)
                return {false, p.deadlineMs};
            if (n >= retries || n + 1 >= RetryLayers::maxCountedAttempts)
                return {false, elapsed};
            const double wait = Backoff::delayMs(p, n, previous, m_random);
            previous = wait;
            if (p.deadlineMs > 0.0 && elapsed + wait >= p.deadlineMs)
                return {false, elapsed};
            elapsed += wait;
        }
    }

private:
    const QList<BackoffPolicy> &m_layers;
    const RetryLayers::Assumptions &m_assumptions;
    RandomSource m_random;
};

} // namespace

LayerSimulationResult simulateLayers(
    const QList<BackoffPolicy> &layers, const RetryLayers::Assumptions &assumptions, int runs, quint64 seed)
{
    LayerSimulationResult result;
    result.runs = std::max(0, runs);
    if (layers.isEmpty() || result.runs == 0)
        return result;
    Player player(layers, assumptions, seed);
    double sum = 0.0;
    double sumSquares = 0.0;
    int failed = 0;
    for (int run = 0; run < result.runs; ++run) {
        player.serverAttempts = 0;
        const Call action = player.call(0);
        const double attempts = double(player.serverAttempts);
        sum += attempts;
        sumSquares += attempts * attempts;
        result.maxServerAttempts = std::max(result.maxServerAttempts, player.serverAttempts);
        if (!action.succeeded) {
            ++failed;
            result.maxGiveUpMs = std::max(result.maxGiveUpMs, action.ms);
        }
    }
    const double n = double(result.runs);
    result.meanServerAttempts = sum / n;
    const double variance = std::max(0.0, sumSquares / n - result.meanServerAttempts * result.meanServerAttempts);
    result.standardError = std::sqrt(variance / n);
    result.failureRate = double(failed) / n;
    return result;
}

} // namespace RetryLab::Core
