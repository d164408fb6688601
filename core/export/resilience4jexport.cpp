#include "core/export/resilience4jexport.h"

#include "core/http/httpstatuslist.h"
#include "core/util/coretr.h"
#include "core/util/durationtext.h"

#include <QCoreApplication>
#include <QLoggingCategory>

#include <algorithm>
#include <cmath>

namespace {
Q_LOGGING_CATEGORY(lcResilience4jExport, "retrylab.core.resilience4jexport")
} // namespace

namespace RetryLab::Core::Resilience4jExport {

namespace {

using SourceText::number;

// randomizedWaitFactor must stay below 1.
constexpr double largestFactor = 0.999;
// What the export draws around the wait where the policy's jitter has no Resilience4j form.
constexpr double approximateFactor = 0.5;

QString duration(double ms)
{
    return SourceText::wholeMilliseconds(ms) + QStringLiteral("ms");
}

struct Wait
{
    double waitMs = 0.0;
    bool exponential = false;
    double multiplier = 1.0;
    double maxWaitMs = 0.0;
    std::optional<double> randomFactor;
};

Wait waitOf(const BackoffPolicy &p, QStringList &notes)
{
    Wait w;
    w.waitMs = p.baseDelayMs;
    const auto exponential = [&] {
        w.exponential = true;
        w.multiplier = p.multiplier;
        w.maxWaitMs = p.maxBackoffMs;
    };
    const auto approximate = [&](const QString &what) {
        w.randomFactor = approximateFactor;
        notes.append(Tr::tr("Resilience4j draws a wait from wait * [1 - f, 1 + f]; it has no %1, so each wait is "
                            "drawn with randomizedWaitFactor %2.")
                         .arg(what, number(approximateFactor)));
    };
    const auto proportional = [&] {
        const double f = std::clamp(p.jitterFraction, 0.0, largestFactor);
        if (f != p.jitterFraction) {
            notes.append(
                Tr::tr("randomizedWaitFactor must be below 1: %1 became %2.").arg(number(p.jitterFraction), number(f)));
        }
        w.randomFactor = f;
    };
    switch (p.algorithm) {
    case BackoffAlgorithm::Exponential:
        exponential();
        break;
    case BackoffAlgorithm::ProportionalJitter:
        exponential();
        proportional();
        notes.append(Tr::tr("Resilience4j caps the wait before it draws the jitter, so a wait near the cap may pass it "
                            "by up to %1 %.")
                         .arg(number(*w.randomFactor * 100.0)));
        break;
    case BackoffAlgorithm::FullJitter:
    case BackoffAlgorithm::EqualJitter:
    case BackoffAlgorithm::DecorrelatedJitter:
        exponential();
        approximate(algorithmTitle(p.algorithm).toLower());
        break;
    case BackoffAlgorithm::GoogleTruncatedExponential:
    case BackoffAlgorithm::IamTruncatedExponential:
        exponential();
        notes.append(Tr::tr("Resilience4j cannot add the policy's random 0-%1 ms to the wait; it waits the exponential "
                            "term alone.")
                         .arg(number(p.jitterMs)));
        break;
    case BackoffAlgorithm::Linear:
        notes.append(Tr::tr("Resilience4j cannot grow the wait linearly from its properties; every wait is %1 ms.")
                         .arg(number(p.baseDelayMs)));
        [[fallthrough]];
    case BackoffAlgorithm::Constant:
        w.waitMs = std::min(p.baseDelayMs, p.maxBackoffMs);
        switch (p.intervalJitter) {
        case IntervalJitter::None:
            break;
        case IntervalJitter::Proportional:
            proportional();
            break;
        case IntervalJitter::Full:
        case IntervalJitter::Equal:
            approximate(Tr::tr("%1 jitter").arg(intervalJitterName(p.intervalJitter)));
            break;
        }
        break;
    case BackoffAlgorithm::Immediate:
        w.waitMs = 0.0;
        break;
    }
    return w;
}

QStringList retryExceptions(const BackoffPolicy &p, QStringList &notes)
{
    QStringList out;
    // java.io.IOException covers refused, reset, unresolved, TLS and protocol failures, bodies
    // cut short and socket timeouts; the TimeLimiter throws java.util.concurrent.TimeoutException.
    QStringList retried;
    QStringList notRetried;
    for (NetworkFaultClass fault : allNetworkFaultClasses()) {
        if (fault == NetworkFaultClass::Other)
            continue;
        (SourceText::givesUp(p, fault) ? notRetried : retried) << networkFaultClassName(fault);
    }
    if (!retried.isEmpty()) {
        out << QStringLiteral("java.io.IOException");
        if (!notRetried.isEmpty()) {
            notes.append(Tr::tr("java.io.IOException stands for %2 as for %1, so Resilience4j retries %2 too, which "
                                "the policy gives up on; list narrower exception classes to tell them apart.")
                             .arg(retried.join(QStringLiteral(", ")), notRetried.join(QStringLiteral(", "))));
        }
    }
    if (!SourceText::givesUp(p, NetworkFaultClass::Timeout))
        out << QStringLiteral("java.util.concurrent.TimeoutException");
    if (!SourceText::givesUp(p, NetworkFaultClass::Other))
        notes.append(Tr::tr("The policy retries other network faults; Resilience4j retries only the classes in "
                            "retryExceptions."));
    return out;
}

} // namespace

QString instanceName(const BackoffPolicy &policy)
{
    return SourceText::slug(policy.name, QStringLiteral("retrylab"));
}

Code yaml(const BackoffPolicy &p)
{
    Code out;
    QStringList &notes = out.notes;
    const QString name = instanceName(p);
    const auto &c = p.classification;

    const int attempts = SourceText::attemptsFor(p);
    if (p.maxAttempts == 0) {
        notes.append(Tr::tr("Resilience4j has no deadline across retries and needs maxAttempts, so %1 was written "
                            "(the most attempts that fit into %2 at the shortest waits).")
                         .arg(attempts)
                         .arg(DurationText::format(p.deadlineMs)));
    } else if (p.deadlineMs > 0.0) {
        notes.append(Tr::tr("Resilience4j has no deadline across retries; the policy's %1 was not exported.")
                         .arg(DurationText::format(p.deadlineMs)));
    }
    const Wait w = waitOf(p, notes);
    const QStringList exceptions = retryExceptions(p, notes);

    QString s;
    s += SourceText::comment(QStringLiteral("# "),
             QStringLiteral("Retry policy \"%1\" for Resilience4j 2 (Spring Boot), written by RetryLab.").arg(p.name))
        + QLatin1Char('\n');
    s += QStringLiteral("# Annotate the call with @Retry(name = \"%1\")").arg(name);
    if (p.attemptTimeoutMs > 0.0)
        s += QStringLiteral(" and @TimeLimiter(name = \"%1\")").arg(name);
    if (p.circuitBreaker.enabled)
        s += QStringLiteral(" and @CircuitBreaker(name = \"%1\")").arg(name);
    s += QStringLiteral(".\nresilience4j:\n  retry:\n    instances:\n      %1:\n").arg(name);
    s += QStringLiteral("        maxAttempts: %1\n").arg(attempts);
    s += QStringLiteral("        waitDuration: %1\n").arg(duration(w.waitMs));
    s += QStringLiteral("        enableExponentialBackoff: %1\n")
             .arg(w.exponential ? QStringLiteral("true") : QStringLiteral("false"));
    if (w.exponential) {
        s += QStringLiteral("        exponentialBackoffMultiplier: %1\n").arg(number(w.multiplier));
        s += QStringLiteral("        exponentialMaxWaitDuration: %1\n").arg(duration(w.maxWaitMs));
    }
    s += QStringLiteral("        enableRandomizedWait: %1\n")
             .arg(w.randomFactor ? QStringLiteral("true") : QStringLiteral("false"));
    if (w.randomFactor)
        s += QStringLiteral("        randomizedWaitFactor: %1\n").arg(number(*w.randomFactor));
    if (exceptions.isEmpty()) {
        s += QStringLiteral("        retryExceptions: []\n");
    } else {
        s += QStringLiteral("        retryExceptions:\n");
        for (const QString &e : exceptions)
            s += QStringLiteral("          - %1\n").arg(e);
    }
    const QList<int> statuses = SourceText::sortedStatuses(p);
    if (!statuses.isEmpty()) {
        s += QStringLiteral("        # resultPredicate: %1  # true for HTTP %2\n")
                 .arg(QLatin1String(resultPredicateClass), HttpStatusList::format(statuses));
        notes.append(Tr::tr("Resilience4j cannot list HTTP statuses in YAML: a retryOnResultPredicate is needed, a "
                            "Predicate class such as %1 that is true for HTTP %2, named in resultPredicate.")
                         .arg(QLatin1String(resultPredicateClass), HttpStatusList::format(statuses)));
    }

    if (p.attemptTimeoutMs > 0.0) {
        s += QStringLiteral("  timelimiter:\n    instances:\n      %1:\n").arg(name);
        s += QStringLiteral("        timeoutDuration: %1\n").arg(duration(p.attemptTimeoutMs));
        s += QStringLiteral("        cancelRunningFuture: true\n");
        notes.append(Tr::tr("The attempt timeout is a TimeLimiter, which bounds only calls that return a "
                            "CompletableFuture (or a reactive type)."));
    }

    if (p.circuitBreaker.enabled) {
        const auto &b = p.circuitBreaker;
        s += QStringLiteral("  circuitbreaker:\n    instances:\n      %1:\n").arg(name);
        s += QStringLiteral("        slidingWindowType: COUNT_BASED\n");
        if (b.failureRatio > 0.0) {
            s += QStringLiteral("        slidingWindowSize: %1\n").arg(b.window);
            s += QStringLiteral("        minimumNumberOfCalls: %1\n").arg(b.window);
            s += QStringLiteral("        failureRateThreshold: %1\n")
                     .arg(number(std::clamp(b.failureRatio, 0.0, 1.0) * 100.0));
        } else {
            s += QStringLiteral("        slidingWindowSize: %1\n").arg(b.consecutiveFailures);
            s += QStringLiteral("        minimumNumberOfCalls: %1\n").arg(b.consecutiveFailures);
            s += QStringLiteral("        failureRateThreshold: 100\n");
            notes.append(Tr::tr("Resilience4j cannot count failures in a row; its breaker opens when all of the last "
                                "%1 calls failed.")
                             .arg(b.consecutiveFailures));
        }
        s += QStringLiteral("        waitDurationInOpenState: %1\n").arg(duration(b.openMs));
        s += QStringLiteral("        permittedNumberOfCallsInHalfOpenState: %1\n").arg(std::max(1, b.halfOpenTrials));
        s += QStringLiteral("        automaticTransitionFromOpenToHalfOpenEnabled: true\n");
    }

    if (c.honourRetryAfter) {
        notes.append(Tr::tr("Resilience4j ignores Retry-After; the policy waits as long as it asks (up to %1). An "
                            "intervalBiFunction written in code could read it.")
                         .arg(DurationText::format(c.maxRetryAfterMs)));
    }
    notes.append(SourceText::idempotencyNotes(p, QStringLiteral("Resilience4j")));
    notes.append(SourceText::budgetNotes(p, QStringLiteral("Resilience4j")));
    notes.append(SourceText::commonNotes(p, QStringLiteral("Resilience4j"), SourceText::Breaker::Exported));
    out.text = s;
    qCDebug(lcResilience4jExport) << p.name << notes.size() << "notes";
    return out;
}

} // namespace RetryLab::Core::Resilience4jExport
