#pragma once

#include "core/record/attemptrecord.h"

#include <QString>
#include <QStringList>

#include <optional>

namespace RetryLab::Core {

/// A request read from another tool's format (a curl command line, a HAR entry,
/// a Postman collection item): what RetryLab can send, what the source said
/// about retrying, and what it said that RetryLab does not use, so that nothing
/// is dropped without saying so.
struct ImportedRequest
{
    QString name; ///< the source's name for it (Postman, HAR page title), empty if none
    QStringList folders; ///< where it sat in the source (Postman folders), outermost first
    RequestSpec spec;
    /// The URL as text, as the source gave it once what could be resolved was
    /// (spec.url is this parsed). It differs from spec.url when a placeholder
    /// stayed unresolved (`{{base}}/users`, which QUrl cannot hold): a form
    /// shows this text, so that the user sees the placeholder to fill in.
    QString urlText;

    /// What the source says about retrying, to fill a policy from: curl's
    /// --retry N, --retry-delay S, --retry-max-time S, --max-time S, --retry-all-errors.
    struct RetryHints
    {
        std::optional<int> retries;
        std::optional<double> delayMs;
        std::optional<double> maxTimeMs;
        std::optional<double> attemptTimeoutMs;
        bool retryAllErrors = false;
        bool retryConnectionRefused = false;
    };
    RetryHints retry;
    bool followRedirects = false; ///< curl -L

    /// Options understood but not used, and options not understood, each as the
    /// source wrote it ("--compressed", "-v"), for the user to see.
    QStringList ignored;
    QStringList unknown;
    /// Sentences on what the source asked for that RetryLab does differently or
    /// could not see ("--connect-timeout is not used: ..."), for the user to read.
    QStringList notes;
};

} // namespace RetryLab::Core
