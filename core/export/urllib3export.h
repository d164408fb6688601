#pragma once

#include "core/export/pythonsource.h"
#include "core/policy/backoffpolicy.h"

#include <QString>

namespace RetryLab::Core {

/// A policy as urllib3's `Retry(...)` mounted on a requests Session, written
/// for urllib3 1.26 (Debian 12's python3-urllib3 1.26.12).
///
/// urllib3 1.26 waits `backoff_factor * 2^(n-1)` before retry n (n = 1 for
/// the first) and nothing before the first, capped at Retry.DEFAULT_BACKOFF_MAX
/// (120 s; the export sets it in a subclass). It has no jitter (urllib3 2
/// adds backoff_jitter), no other multiplier, no deadline and no budget; it
/// honours Retry-After on 413, 429 and 503 without a cap. backoff_factor is
/// the policy's base, so every wait but the first is the policy's
/// `base * 2^n`; each difference is a note.
namespace Urllib3Export {

/// The imports, the Retry and a Session with it mounted.
PythonSource::Code snippet(const BackoffPolicy &policy);

/// A complete program: one GET to `url` (or its first argument) under the
/// policy; exit status 0 on a final status below 400, 1 otherwise.
PythonSource::Code program(const BackoffPolicy &policy, const QString &url);

/// The User-Agent the program sends.
inline constexpr char userAgent[] = "retrylab-urllib3/1.0";

/// urllib3 1.26's Retry.DEFAULT_BACKOFF_MAX.
inline constexpr double defaultBackoffMaxMs = 120'000.0;

} // namespace Urllib3Export

} // namespace RetryLab::Core
