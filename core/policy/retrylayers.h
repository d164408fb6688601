#pragma once

#include "core/policy/backoffpolicy.h"

#include <QList>
#include <QString>

namespace RetryLab::Core {

/// Nested retry layers (Azure, Retry pattern: a task with a retry policy that
/// calls another task with one "adds an additional layer of retries"): an app
/// retrying calls to an SDK that retries calls through a service mesh that
/// retries too. Every attempt of an outer layer runs the whole retry sequence
/// of the layer below, so the attempts that reach the server multiply.
namespace RetryLayers {

/// What is assumed of the server: every attempt fails (worst case), or fails
/// with `failureProbability` independently (expected case), always with a
/// retryable answer, after `failureMs`.
struct Assumptions
{
    double failureProbability = 0.5;
    double failureMs = 0.0;
    /// A stack reaching the server more often than this per user action is warned about.
    double threshold = 10.0;
};

/// One layer's figures, for a call into it from the layer above.
struct LayerFigures
{
    QString name;
    /// Calls into the layer below (attempts) it makes at most before giving up.
    qint64 maxAttempts = 0;
    /// Its limit on attempts came from the deadline rather than maxAttempts.
    bool boundByDeadline = false;
    /// The fastest and slowest it gives up when everything below fails.
    double minGiveUpMs = 0.0;
    double maxGiveUpMs = 0.0;
};

struct Result
{
    QList<LayerFigures> layers; ///< outermost first, as given
    /// Attempts that reach the server per user action: at most (every attempt
    /// fails), and expected under the failure probability.
    double worstCaseServerAttempts = 0.0;
    double expectedServerAttempts = 0.0;
    /// Probability that the user action fails after every layer gave up.
    double failureProbability = 0.0;
    /// The longest a user waits until the outermost layer gives up.
    double worstCaseGiveUpMs = 0.0;
    /// The most attempts any single layer alone would send: the product over this is the amplification.
    double amplification = 1.0;
    bool exceedsThreshold = false;
    /// A warning for people when it does; empty otherwise.
    QString warning;
};

inline constexpr int minLayers = 2;
inline constexpr int maxLayers = 4;
/// Attempts of one layer are counted up to this (a deadline with zero delays).
inline constexpr qint64 maxCountedAttempts = 1'000'000;

/// Computes the figures exactly from the policies (outermost first): the delay
/// bounds of Backoff::delayRange(), the attempt limits, deadlines (the planner
/// gives up when the next wait would cross one) and per-attempt timeouts (an
/// outer layer's timeout cuts the sequence below it).
Result compute(const QList<BackoffPolicy> &layers, const Assumptions &assumptions);

/// The result as text, one line per layer and the totals, for the CLI and the window.
QString describe(const Result &result, const Assumptions &assumptions);

} // namespace RetryLayers

} // namespace RetryLab::Core
