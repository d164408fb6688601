#pragma once

#include "core/policy/retrylayers.h"

#include <QList>

namespace RetryLab::Core {

/// Plays nested retry layers many times on a virtual clock, drawing every
/// delay from Backoff::delayMs() and every server answer from the failure
/// probability, to check RetryLayers::compute() against what the policies do.
struct LayerSimulationResult
{
    int runs = 0;
    double meanServerAttempts = 0.0;
    double standardError = 0.0; ///< of the mean
    qint64 maxServerAttempts = 0;
    double failureRate = 0.0; ///< user actions that failed after every layer gave up
    double maxGiveUpMs = 0.0; ///< the longest a failed user action took
};

LayerSimulationResult simulateLayers(
    const QList<BackoffPolicy> &layers, const RetryLayers::Assumptions &assumptions, int runs, quint64 seed);

} // namespace RetryLab::Core
