#pragma once

// Logical requests as a client with a known policy would produce them, for the
// inference and verdict suites: no sockets, a seeded generator, exact times.

#include "core/grouping/observedattempt.h"
#include "core/policy/backoff.h"
#include "core/util/randomsource.h"

#include <QList>

namespace ObserveTesting {

using namespace RetryLab::Core;

struct Traffic
{
    int logicalRequests = 30;
    quint64 seed = 1;
    /// Status served to every attempt but the last of a logical request; the
    /// last gets `finalStatus` (a fault too: the client gives up).
    int status = 503;
    int finalStatus = 503;
    std::optional<double> retryAfterMs; ///< sent with each fault
    QByteArray method = "GET";
    double gapMs = 100'000.0; ///< between logical requests
    double answerMs = 1.0; ///< how long the server takes to answer
    /// Extra wait the client adds after a Retry-After (0: exactly the value).
    double honourRetryAfter = -1.0; ///< <0: ignores Retry-After, else waits value + this
};

inline Traffic traffic(int logicalRequests, quint64 seed)
{
    Traffic t;
    t.logicalRequests = logicalRequests;
    t.seed = seed;
    return t;
}

/// Attempts until the policy's attempt limit or deadline, each delay drawn by
/// Backoff::delayMs as the executor would. Every logical request is closed.
inline QList<LogicalRequest> simulate(const BackoffPolicy &policy, const Traffic &t = {})
{
    RandomSource random(t.seed);
    QList<LogicalRequest> requests;
    double clock = 0.0;
    for (int r = 0; r < t.logicalRequests; ++r) {
        LogicalRequest request;
        request.id = quint64(r + 1);
        request.clientId = QStringLiteral("client");
        request.method = t.method;
        request.target = QStringLiteral("/items/%1").arg(r);
        Backoff::Sequence sequence(policy);
        const double start = clock;
        std::optional<double> delay;
        for (int n = 1;; ++n) {
            ObservedAttempt a;
            a.clientId = request.clientId;
            a.logicalId = request.id;
            a.attemptIndex = n;
            a.method = t.method;
            a.target = request.target;
            a.arrivalMs = clock;
            a.endMs = clock + t.answerMs;
            a.complete = true;
            a.action = QStringLiteral("respond");
            a.delayMs = delay;
            a.rule = n == 1 ? GroupingRule::NewRequest : GroupingRule::SameRequest;
            const bool limit = policy.maxAttempts > 0 && n >= policy.maxAttempts;
            const double nextDelay = sequence.next(random);
            const bool deadline = policy.deadlineMs > 0 && a.endMs + nextDelay - start > policy.deadlineMs;
            const bool last = limit || deadline;
            a.status = last ? t.finalStatus : t.status;
            if (!last && t.retryAfterMs)
                a.retryAfterMs = t.retryAfterMs;
            request.attempts.append(a);
            clock = a.endMs;
            if (last || a.succeeded())
                break;
            double wait = nextDelay;
            if (a.retryAfterMs && t.honourRetryAfter >= 0.0)
                wait = std::max(wait, *a.retryAfterMs + t.honourRetryAfter);
            delay = wait;
            clock += wait;
        }
        request.closedBy = request.succeeded() ? QStringLiteral("success") : QStringLiteral("different request");
        requests.append(request);
        clock += t.gapMs;
    }
    return requests;
}

inline BackoffPolicy policy(BackoffAlgorithm algorithm, double baseMs, double multiplier, double capMs, int maxAttempts)
{
    BackoffPolicy p;
    p.algorithm = algorithm;
    p.baseDelayMs = baseMs;
    p.multiplier = multiplier;
    p.maxBackoffMs = capMs;
    p.maxAttempts = maxAttempts;
    p.jitterMs = 0.0;
    return p;
}

} // namespace ObserveTesting
