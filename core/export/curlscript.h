#pragma once

#include "core/export/sourcetext.h"
#include "core/policy/backoffpolicy.h"

#include <QString>

namespace RetryLab::Core {

/// A policy as a POSIX sh script that runs curl with its retry flags
/// (CurlRetryFlags, whose notes it carries) against one URL: `sh script [URL]`
/// sends one GET, prints the final status and exits 0 when it is below 400, 1
/// otherwise (and when curl got no answer at all). `--write-out
/// '%{http_code}'` gives the final status; without `--fail` curl still
/// retries 408, 429 and 5xx answers with `--retry`.
namespace CurlScript {

SourceText::Code program(const BackoffPolicy &policy, const QString &url);

/// The User-Agent the script sends, so that an observer can tell it apart.
inline constexpr char userAgent[] = "retrylab-curl/1.0";

} // namespace CurlScript

} // namespace RetryLab::Core
