#pragma once

#include "core/policy/backoffpolicy.h"

#include <QByteArray>
#include <QJsonObject>
#include <QStringList>

namespace RetryLab::Core {

/// A policy as a gRPC service config (gRFC A6, "gRPC Retry Design"):
/// `methodConfig[].retryPolicy` with maxAttempts, initialBackoff, maxBackoff,
/// backoffMultiplier and retryableStatusCodes, the deadline as the method's
/// `timeout`, and `retryThrottling` from a gRPC-style retry budget.
///
/// gRPC cannot say everything a RetryLab policy says. Each difference is a
/// warning: maxAttempts above 5 (clients treat it as 5 unless the channel
/// raises the limit), jitter other than gRPC's random(0, backoff), Retry-After
/// (gRPC servers push back with grpc-retry-pushback-ms instead), the
/// per-attempt timeout, idempotency, read-modify-write restarts, circuit
/// breakers and statuses without a gRPC code.
namespace GrpcServiceConfig {

/// gRPC clients cap maxAttempts at this by default (A6, "Limits on Retries and Hedges").
inline constexpr int clientMaxAttempts = 5;

struct Export
{
    QJsonObject serviceConfig;
    /// What gRPC will do differently, one sentence each.
    QStringList warnings;
};

/// `service` and `method` fill methodConfig[].name; both empty means "every
/// method" (`"name": [{}]`).
Export fromPolicy(const BackoffPolicy &policy, const QString &service = {}, const QString &method = {});

/// The service config as indented JSON (without the warnings).
QByteArray toJson(const Export &exported);

/// The gRPC status code names an HTTP status stands for: the HTTP mappings of
/// google.rpc.Code (500 -> INTERNAL and UNKNOWN, 503 -> UNAVAILABLE, 429 ->
/// RESOURCE_EXHAUSTED, ...) and 502 -> UNAVAILABLE from gRPC's HTTP-to-gRPC
/// table. Empty when there is no single meaning (400, 408, 412, 505, ...).
QStringList grpcCodesForHttpStatus(int status);

/// A duration in the proto3 JSON form gRPC reads: "0.100s", "32s".
QString durationString(double milliseconds);

} // namespace GrpcServiceConfig

} // namespace RetryLab::Core
