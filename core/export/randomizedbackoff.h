#pragma once

#include "core/policy/backoffpolicy.h"

#include <QString>
#include <QStringList>

namespace RetryLab::Core {

/// A policy's delays as the ExponentialBackOff of Google's HTTP client for Java
/// and of its Go port, github.com/cenkalti/backoff: each wait is drawn from
/// v * [1 - r, 1 + r] where v = min(initial * multiplier^n, maxInterval), the
/// cap applying before the draw.
///
/// Scaling the interval makes that draw several RetryLab algorithms exactly:
/// with r = 1 and half the base and cap it is full jitter U[0, base * m^n]; with
/// r = 1/3 and three quarters of them, equal jitter U[v/2, v]; with r = f,
/// proportional jitter (but for the cap). Constant waits use multiplier 1.
/// Additive, decorrelated and linear delays have no exact form: notes say so.
namespace RandomizedBackOff {

struct Parameters
{
    double initialMs = 0.0;
    double randomizationFactor = 0.0;
    double multiplier = 1.0;
    double maxIntervalMs = 0.0;
    QStringList notes;
};

/// What the target accepts: Java wants r below 1, an initial interval of a
/// millisecond at least and a multiplier of 1 at least; Go takes r up to 1 and 0.
struct Limits
{
    double largestFactor = 1.0;
    double smallestInitialMs = 0.0;
    double smallestMultiplier = 0.0;
};

/// `library` names the target in the notes.
Parameters fromPolicy(const BackoffPolicy &policy, const Limits &limits, const QString &library);

} // namespace RandomizedBackOff

} // namespace RetryLab::Core
