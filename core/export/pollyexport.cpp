#include "core/export/pollyexport.h"

#include "core/http/httpstatuslist.h"
#include "core/util/coretr.h"
#include "core/util/durationtext.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>

#include <algorithm>
#include <climits>
#include <cmath>

namespace {
Q_LOGGING_CATEGORY(lcPollyExport, "retrylab.core.pollyexport")
} // namespace

namespace RetryLab::Core::PollyExport {

namespace {

using SourceText::number;

// Polly's circuit breaker keeps a broken circuit open at least this long.
constexpr double pollyMinBreakMs = 500.0;
// What Polly's constant and linear jitter moves a delay by, either way.
constexpr double pollyIntervalJitter = 0.25;
// The standard resilience handler's sampling duration, when the policy gives none.
constexpr double standardSamplingMs = 30'000.0;

struct PollyRetry
{
    bool retries = true;
    QString maxRetryAttempts; ///< "3", or "int.MaxValue" when only a deadline bounds the policy
    QString backoffType; ///< "Constant", "Linear" or "Exponential"
    bool useJitter = false;
    double delayMs = 0.0;
    std::optional<double> maxDelayMs;
    QStringList notes;
};

struct PollyBreaker
{
    double failureRatio = 1.0;
    int minimumThroughput = 2;
    double samplingMs = standardSamplingMs;
    double breakMs = pollyMinBreakMs;
    QStringList notes;
};

QString intervalJitterNote(const BackoffPolicy &p)
{
    if (p.intervalJitter == IntervalJitter::Proportional && p.jitterFraction == pollyIntervalJitter)
        return {};
    return Tr::tr("Polly moves a constant or linear delay by up to ±25 % (UseJitter); the policy's %1 jitter was "
                  "not exported as such.")
        .arg(intervalJitterName(p.intervalJitter));
}

PollyRetry retryOf(const BackoffPolicy &p)
{
    PollyRetry r;
    if (p.maxAttempts == 1) {
        r.retries = false;
        r.notes.append(Tr::tr("The policy makes a single attempt; Polly's retry needs at least one retry, so no retry "
                              "strategy was written."));
    }
    r.maxRetryAttempts = p.maxAttempts > 0 ? QString::number(p.maxAttempts - 1) : QStringLiteral("int.MaxValue");
    r.delayMs = p.baseDelayMs;
    const auto multiplierNote = [&] {
        if (p.multiplier != 2.0) {
            r.notes.append(Tr::tr("Polly's exponential backoff always doubles; the policy's multiplier %1 was not "
                                  "exported.")
                               .arg(number(p.multiplier)));
        }
    };
    switch (p.algorithm) {
    case BackoffAlgorithm::Exponential:
        r.backoffType = QStringLiteral("Exponential");
        r.maxDelayMs = p.maxBackoffMs;
        multiplierNote();
        break;
    case BackoffAlgorithm::FullJitter:
    case BackoffAlgorithm::EqualJitter:
    case BackoffAlgorithm::DecorrelatedJitter:
    case BackoffAlgorithm::ProportionalJitter:
    case BackoffAlgorithm::GoogleTruncatedExponential:
    case BackoffAlgorithm::IamTruncatedExponential:
        r.backoffType = QStringLiteral("Exponential");
        r.useJitter = true;
        r.maxDelayMs = p.maxBackoffMs;
        r.notes.append(Tr::tr("Polly's exponential jitter is its decorrelated jitter v2 around Delay * 2^n; the "
                              "policy's %1 was exported as that.")
                           .arg(algorithmTitle(p.algorithm)));
        multiplierNote();
        break;
    case BackoffAlgorithm::Constant:
        r.backoffType = QStringLiteral("Constant");
        r.delayMs = std::min(p.baseDelayMs, p.maxBackoffMs);
        r.useJitter = p.intervalJitter != IntervalJitter::None;
        if (r.useJitter) {
            if (const QString note = intervalJitterNote(p); !note.isEmpty())
                r.notes.append(note);
        }
        break;
    case BackoffAlgorithm::Linear:
        r.backoffType = QStringLiteral("Linear");
        r.maxDelayMs = p.maxBackoffMs;
        r.useJitter = p.intervalJitter != IntervalJitter::None;
        if (r.useJitter) {
            if (const QString note = intervalJitterNote(p); !note.isEmpty())
                r.notes.append(note);
        }
        break;
    case BackoffAlgorithm::Immediate:
        r.backoffType = QStringLiteral("Constant");
        r.delayMs = 0.0;
        break;
    }
    return r;
}

PollyBreaker breakerOf(const BackoffPolicy &p)
{
    PollyBreaker b;
    const auto &c = p.circuitBreaker;
    if (c.failureRatio > 0.0) {
        b.failureRatio = std::clamp(c.failureRatio, 0.0, 1.0);
        b.minimumThroughput = std::max(2, c.window);
        b.notes.append(Tr::tr("Polly's circuit breaker counts the failures within a sampling duration (%1 was "
                              "written), not within the last %2 outcomes.")
                           .arg(DurationText::format(b.samplingMs))
                           .arg(c.window));
    } else {
        b.failureRatio = 1.0;
        b.minimumThroughput = std::max(2, c.consecutiveFailures);
        b.notes.append(Tr::tr("Polly's circuit breaker cannot count failures in a row; it opens when all of at least "
                              "%1 calls within %2 failed.")
                           .arg(b.minimumThroughput)
                           .arg(DurationText::format(b.samplingMs)));
    }
    b.breakMs = std::max(pollyMinBreakMs, c.openMs);
    if (b.breakMs != c.openMs) {
        b.notes.append(Tr::tr("Polly keeps a circuit open at least 0.5 s; the policy's %1 became 0.5 s.")
                           .arg(DurationText::format(c.openMs)));
    }
    if (c.halfOpenTrials != 1) {
        b.notes.append(
            Tr::tr("Polly lets one trial call through a half-open circuit; the policy lets %1.").arg(c.halfOpenTrials));
    }
    return b;
}

// HttpRequestException stands for refused, reset, unresolved, TLS and protocol failures
// and bodies cut short alike; the attempt timeout throws TimeoutRejectedException.
struct Exceptions
{
    bool httpRequest = false;
    bool timeout = false;
};

Exceptions exceptionsOf(const BackoffPolicy &p, QStringList &notes)
{
    Exceptions e;
    const QList<NetworkFaultClass> connection{NetworkFaultClass::ConnectionRefused, NetworkFaultClass::ConnectionReset,
        NetworkFaultClass::HostNotFound, NetworkFaultClass::TlsFailure, NetworkFaultClass::ProtocolFailure,
        NetworkFaultClass::BrokenStream};
    QStringList retried;
    QStringList notRetried;
    for (NetworkFaultClass fault : connection)
        (SourceText::givesUp(p, fault) ? notRetried : retried) << networkFaultClassName(fault);
    if (!retried.isEmpty()) {
        e.httpRequest = true;
        if (!notRetried.isEmpty()) {
            notes.append(Tr::tr("HttpClient throws HttpRequestException for %2 as for %1, so Polly retries %2 too, "
                                "which the policy gives up on.")
                             .arg(retried.join(QStringLiteral(", ")), notRetried.join(QStringLiteral(", "))));
        }
    }
    e.timeout = !SourceText::givesUp(p, NetworkFaultClass::Timeout);
    if (!SourceText::givesUp(p, NetworkFaultClass::Other))
        notes.append(Tr::tr("The policy retries other network faults; Polly retries only the exceptions named in "
                            "ShouldHandle."));
    return e;
}

QString csTimeSpan(double ms)
{
    return QStringLiteral("TimeSpan.FromMilliseconds(%1)").arg(SourceText::wholeMilliseconds(ms));
}

QStringList sharedNotes(const BackoffPolicy &p)
{
    QStringList notes;
    notes.append(SourceText::idempotencyNotes(p, QStringLiteral("Polly")));
    notes.append(SourceText::budgetNotes(p, QStringLiteral("Polly")));
    notes.append(SourceText::commonNotes(p, QStringLiteral("Polly"), SourceText::Breaker::Exported,
        SourceText::RateLimitReset::Absent, SourceText::Limiter::Absent, SourceText::Hedging::Exported));
    return notes;
}

QString deadlineNote(const BackoffPolicy &p)
{
    return Tr::tr("The total timeout cancels the call at the deadline of %1, but Polly does not give up early when "
                  "the next wait would cross it.")
        .arg(DurationText::format(p.deadlineMs));
}

} // namespace

QString timeSpan(double milliseconds)
{
    const qint64 ticks = std::llround(std::max(0.0, milliseconds) * 10'000.0); // 100 ns each
    const qint64 fraction = ticks % 10'000'000;
    const qint64 totalSeconds = ticks / 10'000'000;
    const qint64 days = totalSeconds / 86'400;
    const QString clock = QStringLiteral("%1:%2:%3.%4")
                              .arg(totalSeconds / 3600 % 24, 2, 10, QLatin1Char('0'))
                              .arg(totalSeconds / 60 % 60, 2, 10, QLatin1Char('0'))
                              .arg(totalSeconds % 60, 2, 10, QLatin1Char('0'))
                              .arg(fraction, 7, 10, QLatin1Char('0'));
    return days > 0 ? QStringLiteral("%1.%2").arg(days).arg(clock) : clock;
}

Code snippet(const BackoffPolicy &p)
{
    Code out;
    const bool hedging = p.hedging.enabled;
    const PollyRetry retry = hedging ? PollyRetry{} : retryOf(p);
    out.notes.append(retry.notes);
    const Exceptions exceptions = exceptionsOf(p, out.notes);
    const auto &c = p.classification;

    QString predicate = QStringLiteral("new PredicateBuilder<HttpResponseMessage>()");
    if (exceptions.httpRequest)
        predicate += QStringLiteral("\n            .Handle<HttpRequestException>()");
    if (exceptions.timeout)
        predicate += QStringLiteral("\n            .Handle<TimeoutRejectedException>()");
    predicate += QStringLiteral(
        "\n            .HandleResult(static response => IsRetryableStatus((int)response.StatusCode))");

    QString s;
    s += SourceText::comment(QStringLiteral("// "),
             QStringLiteral("Retry policy \"%1\" for Polly 8 (NuGet: Polly.Core), written by RetryLab.").arg(p.name))
        + QLatin1Char('\n');
    s += QStringLiteral(
        "using System;\nusing System.Net.Http;\nusing System.Threading.Tasks;\nusing Polly;\n"
        "using Polly.CircuitBreaker;\nusing Polly.Hedging;\nusing Polly.Retry;\nusing Polly.Timeout;\n\n");
    s += QStringLiteral("var pipeline = new ResiliencePipelineBuilder<HttpResponseMessage>()\n");
    if (p.deadlineMs > 0.0) {
        s += QStringLiteral("    // The deadline: the whole call, retries and waits included.\n");
        s += QStringLiteral("    .AddTimeout(%1)\n").arg(csTimeSpan(p.deadlineMs));
        out.notes.append(deadlineNote(p));
    }
    if (hedging) {
        // Polly's hedging: a further call after Delay while the others run, at once after a handled outcome.
        s += QStringLiteral("    .AddHedging(new HedgingStrategyOptions<HttpResponseMessage>\n    {\n");
        s += QStringLiteral("        MaxHedgedAttempts = %1,\n").arg(p.hedging.maxAttempts - 1);
        s += QStringLiteral("        Delay = %1,\n").arg(csTimeSpan(p.hedging.delayMs));
        s += QStringLiteral("        ShouldHandle = %1,\n").arg(predicate);
        s += QStringLiteral("    })\n");
        if (c.honourRetryAfter)
            out.notes.append(Tr::tr("Polly's hedging does not wait for Retry-After, and neither does the policy while "
                                    "it hedges."));
    } else if (retry.retries) {
        s += QStringLiteral("    .AddRetry(new RetryStrategyOptions<HttpResponseMessage>\n    {\n");
        s += QStringLiteral("        MaxRetryAttempts = %1,\n").arg(retry.maxRetryAttempts);
        s += QStringLiteral("        BackoffType = DelayBackoffType.%1,\n").arg(retry.backoffType);
        s += QStringLiteral("        UseJitter = %1,\n")
                 .arg(retry.useJitter ? QStringLiteral("true") : QStringLiteral("false"));
        s += QStringLiteral("        Delay = %1,\n").arg(csTimeSpan(retry.delayMs));
        if (retry.maxDelayMs)
            s += QStringLiteral("        MaxDelay = %1,\n").arg(csTimeSpan(*retry.maxDelayMs));
        s += QStringLiteral("        ShouldHandle = %1,\n").arg(predicate);
        if (c.honourRetryAfter) {
            // A DelayGenerator's delay replaces the backoff; null keeps it.
            s += QStringLiteral("        // Retry-After, up to %1; without it, the backoff above.\n")
                     .arg(SourceText::comment(QString(), DurationText::format(c.maxRetryAfterMs)));
            s += QStringLiteral(
                "        DelayGenerator = static args =>\n        {\n"
                "            var retryAfter = args.Outcome.Result?.Headers.RetryAfter;\n"
                "            TimeSpan? wait = retryAfter?.Delta\n"
                "                ?? (retryAfter?.Date is DateTimeOffset date ? date - DateTimeOffset.UtcNow : null);\n"
                "            if (wait is not TimeSpan w || w < TimeSpan.Zero)\n"
                "                return new ValueTask<TimeSpan?>((TimeSpan?)null);\n"
                "            var most = %1;\n"
                "            return new ValueTask<TimeSpan?>(w < most ? w : most);\n"
                "        },\n")
                     .arg(csTimeSpan(c.maxRetryAfterMs));
        } else {
            out.notes.append(Tr::tr("Polly ignores Retry-After unless a DelayGenerator reads it; none was written, as "
                                    "the policy ignores it too."));
        }
        s += QStringLiteral("    })\n");
    }
    if (p.circuitBreaker.enabled) {
        const PollyBreaker b = breakerOf(p);
        out.notes.append(b.notes);
        s += QStringLiteral("    .AddCircuitBreaker(new CircuitBreakerStrategyOptions<HttpResponseMessage>\n    {\n");
        s += QStringLiteral("        FailureRatio = %1,\n").arg(number(b.failureRatio));
        s += QStringLiteral("        MinimumThroughput = %1,\n").arg(b.minimumThroughput);
        s += QStringLiteral("        SamplingDuration = %1,\n").arg(csTimeSpan(b.samplingMs));
        s += QStringLiteral("        BreakDuration = %1,\n").arg(csTimeSpan(b.breakMs));
        s += QStringLiteral("        ShouldHandle = %1,\n").arg(predicate);
        s += QStringLiteral("    })\n");
    }
    if (p.attemptTimeoutMs > 0.0) {
        s += QStringLiteral("    // Each attempt.\n");
        s += QStringLiteral("    .AddTimeout(%1)\n").arg(csTimeSpan(p.attemptTimeoutMs));
    }
    s += QStringLiteral("    .Build();\n\n");
    s += QStringLiteral("// Run a request through it:\n"
                        "// var response = await pipeline.ExecuteAsync(\n"
                        "//     async token => await httpClient.GetAsync(url, token), cancellationToken);\n\n");
    s += QStringLiteral("static bool IsRetryableStatus(int status) => %1;\n")
             .arg(SourceText::statusCondition(SourceText::sortedStatuses(p), QStringLiteral("status")));
    out.text = s;
    out.notes.append(sharedNotes(p));
    qCDebug(lcPollyExport) << p.name << "snippet," << out.notes.size() << "notes";
    return out;
}

Code options(const BackoffPolicy &p)
{
    Code out;
    QStringList &notes = out.notes;
    const auto &c = p.classification;
    QJsonObject root;

    const bool hedging = p.hedging.enabled;
    const PollyRetry retry = hedging ? PollyRetry{} : retryOf(p);
    if (hedging) {
        // HttpStandardHedgingResilienceOptions: the hedging, and per endpoint its timeout and breaker.
        notes.append(Tr::tr("These are the options of the standard hedging handler (AddStandardHedgingHandler); its "
                            "attempt timeout and circuit breaker sit under \"Endpoint\"."));
        root.insert(QStringLiteral("Hedging"),
            QJsonObject{
                {QStringLiteral("MaxHedgedAttempts"), p.hedging.maxAttempts - 1},
                {QStringLiteral("Delay"), timeSpan(p.hedging.delayMs)},
            });
    } else if (retry.retries) {
        notes.append(retry.notes);
        QJsonObject r{
            {QStringLiteral("MaxRetryAttempts"), p.maxAttempts > 0 ? p.maxAttempts - 1 : INT_MAX},
            {QStringLiteral("BackoffType"), retry.backoffType},
            {QStringLiteral("UseJitter"), retry.useJitter},
            {QStringLiteral("Delay"), timeSpan(retry.delayMs)},
            {QStringLiteral("ShouldRetryAfterHeader"), c.honourRetryAfter},
        };
        if (retry.maxDelayMs)
            r.insert(QStringLiteral("MaxDelay"), timeSpan(*retry.maxDelayMs));
        root.insert(QStringLiteral("Retry"), r);
        if (c.honourRetryAfter) {
            notes.append(Tr::tr("ShouldRetryAfterHeader waits as long as Retry-After asks, without the policy's cap "
                                "of %1.")
                             .arg(DurationText::format(c.maxRetryAfterMs)));
        }
    } else {
        notes.append(Tr::tr("The policy makes a single attempt, but the standard resilience handler always retries "
                            "(3 times unless told otherwise); use a pipeline without a retry instead."));
    }

    // The standard handler retries HttpRequestException, timeouts, 408, 429 and 5xx: nothing else,
    // and an options file cannot change that.
    QList<int> standard{408, 429};
    for (int s = 500; s < 600; ++s)
        standard << s;
    const QList<int> statuses = SourceText::sortedStatuses(p);
    if ((hedging || retry.retries) && statuses != standard) {
        notes.append(Tr::tr("The standard resilience handler retries HTTP 408, 429 and 5xx and options cannot list "
                            "statuses; the policy retries %1, so set %2.ShouldHandle in code.")
                         .arg(statuses.isEmpty() ? Tr::tr("none") : HttpStatusList::format(statuses),
                             hedging ? QStringLiteral("Hedging") : QStringLiteral("Retry")));
    }
    QStringList givenUp;
    for (NetworkFaultClass fault : allNetworkFaultClasses()) {
        if (fault != NetworkFaultClass::Other && SourceText::givesUp(p, fault))
            givenUp << networkFaultClassName(fault);
    }
    if ((hedging || retry.retries) && !givenUp.isEmpty()) {
        notes.append(Tr::tr("The standard resilience handler retries every HttpRequestException and timeout; the "
                            "policy gives up on %1.")
                         .arg(givenUp.join(QStringLiteral(", "))));
    }

    double attemptMs = p.attemptTimeoutMs;
    if (p.deadlineMs > 0.0) {
        root.insert(
            QStringLiteral("TotalRequestTimeout"), QJsonObject{{QStringLiteral("Timeout"), timeSpan(p.deadlineMs)}});
        notes.append(deadlineNote(p));
        if (attemptMs > p.deadlineMs) {
            notes.append(Tr::tr("The standard resilience handler needs the attempt timeout within the total timeout: "
                                "%1 became %2.")
                             .arg(DurationText::format(attemptMs), DurationText::format(p.deadlineMs)));
            attemptMs = p.deadlineMs;
        }
    } else {
        notes.append(Tr::tr("The policy has no deadline, but the standard resilience handler always has a total "
                            "timeout (30 s unless TotalRequestTimeout says otherwise)."));
    }
    QJsonObject endpoint; // the hedging handler's per-endpoint options
    QJsonObject &perAttempt = hedging ? endpoint : root;
    if (attemptMs > 0.0) {
        perAttempt.insert(hedging ? QStringLiteral("Timeout") : QStringLiteral("AttemptTimeout"),
            QJsonObject{{QStringLiteral("Timeout"), timeSpan(attemptMs)}});
    } else {
        notes.append(Tr::tr("The policy has no attempt timeout, but the standard resilience handler always has one "
                            "(10 s unless AttemptTimeout says otherwise)."));
    }

    if (p.circuitBreaker.enabled) {
        PollyBreaker b = breakerOf(p);
        notes.append(b.notes);
        // The handler's validation wants the sampling duration at least twice the attempt timeout.
        if (b.samplingMs < 2.0 * attemptMs)
            b.samplingMs = 2.0 * attemptMs;
        perAttempt.insert(QStringLiteral("CircuitBreaker"),
            QJsonObject{
                {QStringLiteral("FailureRatio"), b.failureRatio},
                {QStringLiteral("MinimumThroughput"), b.minimumThroughput},
                {QStringLiteral("SamplingDuration"), timeSpan(b.samplingMs)},
                {QStringLiteral("BreakDuration"), timeSpan(b.breakMs)},
            });
    } else {
        notes.append(Tr::tr("The policy has no circuit breaker, but the standard resilience handler always has one; "
                            "its defaults were left as they are."));
    }
    if (!endpoint.isEmpty())
        root.insert(QStringLiteral("Endpoint"), endpoint);
    notes.append(sharedNotes(p));

    out.text = QString::fromUtf8(QJsonDocument(root).toJson(QJsonDocument::Indented));
    qCDebug(lcPollyExport) << p.name << "options," << notes.size() << "notes";
    return out;
}

} // namespace RetryLab::Core::PollyExport
