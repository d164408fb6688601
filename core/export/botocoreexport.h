#pragma once

#include "core/export/pythonsource.h"
#include "core/policy/backoffpolicy.h"

#include <QString>

namespace RetryLab::Core {

/// A policy as botocore's `Config(retries={'total_max_attempts': N, 'mode':
/// ...})` (botocore 1.29, Debian 12's python3-botocore).
///
/// botocore's delays are fixed by its mode, not configurable: `standard`
/// waits rand(0, 1) * 2^n s capped at 20 s and keeps a retry quota (500, a
/// retry costs 5, a timeout 10, a success refunds 1); `legacy` waits the same
/// without the cap and without a quota; `adaptive` is standard plus a
/// client-side rate limiter. The export writes adaptive for a policy with the
/// AWS adaptive rate limiter, standard for one with the AWS retry quota, legacy
/// otherwise, the attempt limit, and the per-attempt
/// timeout as connect and read timeouts; every other difference is a note.
namespace BotocoreExport {

/// The imports and the Config.
PythonSource::Code snippet(const BackoffPolicy &policy);

/// A complete program: one unsigned S3 GetObject, path-style, to `url` (or its
/// first argument), http://HOST:PORT/BUCKET/KEY; exit status 0 on success, 1
/// on failure.
PythonSource::Code program(const BackoffPolicy &policy, const QString &url);

/// The retry mode the export writes for the policy: "adaptive" (a policy with the
/// AWS adaptive rate limiter), "standard" (the AWS retry quota) or "legacy".
QString mode(const BackoffPolicy &policy);

/// What botocore's standard mode waits: full jitter from 1 s, doubled, capped at 20 s.
BackoffPolicy standardModeBackoff();

/// The User-Agent suffix the program adds (user_agent_extra).
inline constexpr char userAgentExtra[] = "retrylab-botocore/1.0";

} // namespace BotocoreExport

} // namespace RetryLab::Core
