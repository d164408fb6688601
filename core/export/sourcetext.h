#pragma once

#include "core/policy/backoffpolicy.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace RetryLab::Core {

/// What every policy export shares: the exported text with its notes, comments
/// that no policy name can end early, numbers, HTTP status conditions for the
/// C-like targets (C#, Go, Java), YAML keys made from names, and the notes for
/// what most targets lack (immediate retries, per-fault delay factors, 409
/// ABORTED restarts, a circuit breaker, a retry budget, idempotency).
namespace SourceText {

/// Exported code or configuration and what the target cannot express, one sentence each.
struct Code
{
    QString text;
    QStringList notes;
};

/// `text` as one comment line after `prefix` ("// ", "# "): line breaks, control
/// characters and Unicode line separators become spaces, so that no value can
/// end the comment; backslashes are doubled, so that Java reads no \u escape in it.
QString comment(const QString &prefix, const QString &text);

/// A plain number in its shortest form: 2 -> "2", 1.5 -> "1.5"; 0 for a non-finite value.
QString number(double value);

/// Milliseconds rounded to a whole number, never negative: 1000.4 -> "1000".
QString wholeMilliseconds(double milliseconds);

/// The statuses as a boolean expression over `variable` in C#, Go or Java:
/// "status == 408 || status == 429 || (status >= 500 && status <= 599)", runs of
/// three or more as ranges; "false" when there is none.
QString statusCondition(QList<int> statuses, const QString &variable);

/// `name` as a key safe in YAML and as a Spring instance name: lower-case ASCII
/// letters, digits and single dashes; `fallback` when nothing is left.
QString slug(const QString &name, const QString &fallback);

/// The policy's statuses, sorted.
QList<int> sortedStatuses(const BackoffPolicy &policy);

/// True when the policy gives up on that network fault class.
bool givesUp(const BackoffPolicy &policy, NetworkFaultClass fault);

/// Whether the target named in notes has a circuit breaker of its own (then the
/// exporter writes its own notes about the breaker).
enum class Breaker { Absent, Exported };

/// Whether the target waits for a spent rate limit's reset (X-RateLimit-Reset) itself.
enum class RateLimitReset { Absent, Exported };
/// Whether the target has the policy's client rate limiter (botocore's adaptive mode).
enum class Limiter { Absent, Exported };

/// Whether the target sends hedged attempts itself (gRPC's hedgingPolicy, Polly's hedging).
enum class Hedging { Absent, Exported };
/// Notes for what most targets lack: immediate retries of some faults, per-fault
/// delay factors, 409 ABORTED restarts, and the circuit breaker when `breaker`
/// says the target has none. `library` names the target in the sentences.
QStringList commonNotes(const BackoffPolicy &policy, const QString &library, Breaker breaker,
    RateLimitReset reset = RateLimitReset::Absent, Limiter limiter = Limiter::Absent,
    Hedging hedging = Hedging::Absent);
/// The note for a hedging policy (BackoffPolicy::hedging) the target cannot
/// express; empty without hedging. commonNotes() includes it unless `hedging`
/// says the target hedges; the curl export asks for it alone.
QStringList hedgingNotes(const BackoffPolicy &policy, const QString &library);

/// The note for a policy whose client rate limiter (rateLimiter, the AWS SDKs'
/// adaptive mode) the target lacks; empty without one. commonNotes() includes it
/// unless `limiter` says the target has it; the gRPC and curl exports ask for it alone.
QStringList limiterNotes(const BackoffPolicy &policy, const QString &library);

/// Notes for what the policy reads in an answer beyond its status, which no
/// target here can: the conditions on a response's content (retryOnResponse),
/// and waiting for a spent rate limit's reset (honourRateLimitReset), unless
/// `reset` says the target waits for it. commonNotes() includes them; the
/// exports that do not call it (gRPC, curl) ask for them alone.
QStringList responseNotes(
    const BackoffPolicy &policy, const QString &library, RateLimitReset reset = RateLimitReset::Absent);

/// Notes on which calls to wrap: the policy retries POST and PATCH only when
/// marked idempotent, PUT and DELETE perhaps only with a precondition, and a
/// library that wraps calls cannot tell.
QStringList idempotencyNotes(const BackoffPolicy &policy, const QString &library);

/// A note when the policy has a retry budget and `library` has none.
QStringList budgetNotes(const BackoffPolicy &policy, const QString &library);

/// The attempts to write when a target needs an attempt limit and the policy is
/// bounded only by its deadline: the most that fit into it at the shortest
/// waits, as the policy preview counts them. The policy's own limit otherwise.
int attemptsFor(const BackoffPolicy &policy);

} // namespace SourceText

} // namespace RetryLab::Core
