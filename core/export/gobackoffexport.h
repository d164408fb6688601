#pragma once

#include "core/export/sourcetext.h"
#include "core/policy/backoffpolicy.h"

#include <QString>

namespace RetryLab::Core {

/// A policy as Go code with github.com/cenkalti/backoff/v4 and net/http.
///
/// What backoff v4 does (pkg.go.dev, github.com/cenkalti/backoff/v4):
/// NewExponentialBackOff() returns an ExponentialBackOff with the defaults
/// (InitialInterval 500 ms, RandomizationFactor 0.5, Multiplier 1.5,
/// MaxInterval 60 s, MaxElapsedTime 15 min); each wait is drawn from
/// interval * [1 - RandomizationFactor, 1 + RandomizationFactor], the
/// interval growing by Multiplier up to MaxInterval (the cap applies before
/// the draw); it stops when the elapsed time would pass MaxElapsedTime, and
/// never when that is 0. WithMaxRetries(b, n) stops after n retries,
/// WithContext(b, ctx) when the context ends. Retry(operation, b) calls the
/// operation until it returns nil, a Permanent(err) or the backoff stops,
/// resetting the backoff first. It knows nothing of HTTP: statuses, network
/// faults and Retry-After are the operation's business, and v4 has no way
/// for an operation to ask for a wait, so Retry-After is a note.
namespace GoBackoffExport {

using Code = SourceText::Code;

/// The imports, the status and error checks, the backoff and `get(url)`.
Code snippet(const BackoffPolicy &policy);

/// A complete `package main`: one GET to `url` (or its first argument) under
/// the policy; exit status 0 on a final status below 400, 1 otherwise.
Code program(const BackoffPolicy &policy, const QString &url);

/// `text` as a double-quoted Go string literal: quotes, backslashes and control
/// characters escaped, lone surrogates replaced, so no value can end it.
QString stringLiteral(const QString &text);

/// The User-Agent the code sends, so that an observer can tell it apart.
inline constexpr char userAgent[] = "retrylab-go-backoff/1.0";

} // namespace GoBackoffExport

} // namespace RetryLab::Core
