#pragma once

// What the executor suites share: a collector of one executor's records and
// results, and a policy fast enough for tests.

#include "core/executor/retryexecutor.h"

#include <QList>
#include <QObject>

#include <optional>

namespace RetryLab::Core::Testing {

/// Collects one executor's records and results (a RetryExecutor's or a ThreadedExecutor's).
class Collector : public QObject
{
public:
    template<typename Executor>
    explicit Collector(Executor *executor)
    {
        connect(executor, &Executor::attemptFinished, this,
            [this](const AttemptRecord &record) { attempts.append(record); });
        connect(executor, &Executor::requestFinished, this,
            [this](const RequestResult &result) { results.append(result); });
    }

    QList<AttemptRecord> attemptsOf(quint64 id) const
    {
        QList<AttemptRecord> list;
        for (const auto &a : attempts) {
            if (a.requestId == id)
                list.append(a);
        }
        return list;
    }
    std::optional<RequestResult> resultOf(quint64 id) const
    {
        for (const auto &r : results) {
            if (r.requestId == id)
                return r;
        }
        return std::nullopt;
    }

    QList<AttemptRecord> attempts;
    QList<RequestResult> results;
};

/// A GET of `url`.
inline RequestSpec getSpec(const QUrl &url)
{
    RequestSpec spec;
    spec.url = url;
    return spec;
}

/// Exponential from `baseMs`, doubling, capped at 1 s, `attempts` in all, 5 s per attempt.
inline BackoffPolicy fastPolicy(int attempts = 5, double baseMs = 20)
{
    BackoffPolicy p;
    p.algorithm = BackoffAlgorithm::Exponential;
    p.baseDelayMs = baseMs;
    p.multiplier = 2;
    p.maxBackoffMs = 1000;
    p.maxAttempts = attempts;
    p.attemptTimeoutMs = 5000;
    return p;
}

} // namespace RetryLab::Core::Testing
