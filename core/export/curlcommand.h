#pragma once

#include "core/export/exportoptions.h"
#include "core/policy/backoffpolicy.h"
#include "core/record/attemptrecord.h"

#include <QString>
#include <QStringList>

#include <optional>

namespace RetryLab::Core {

/// "Copy as curl": a request as one POSIX shell command line that sends what
/// RetryLab sends. Every argument that is not plainly safe is single-quoted
/// (a quote inside becomes '\''); the method, the headers (and the
/// Content-Type the executor adds when none is given), the body with
/// `--data-raw`, and the policy's retry flags when a policy is given.
///
/// A body that is not UTF-8 text, holds control characters or is too large
/// for one argument is piped in instead: `printf '\001\002...' | curl
/// --data-binary @- ...`, where printf's octal escapes carry every byte,
/// NUL included. Credentials are redacted unless the options say otherwise,
/// in which case the command will not authenticate (a note says so).
namespace CurlCommand {

struct Command
{
    QString commandLine;
    /// What the command does differently from RetryLab, and the retry-flag notes.
    QStringList notes;
    /// Whether a credential was replaced by REDACTED (a header, the URL or the body held one).
    bool credentialsRedacted = false;
};

Command build(const RequestSpec &request, const ExportOptions &options = {},
    const std::optional<BackoffPolicy> &policy = std::nullopt);

/// Bodies above this many bytes are piped in with printf instead of passed as
/// an argument (Linux limits one argument to 128 KiB).
inline constexpr qsizetype maxInlineBodyBytes = 64 * 1024;

} // namespace CurlCommand

} // namespace RetryLab::Core
