#pragma once

namespace RetryLab::Core {

/// Header names that RetryLab's executor sends and its fault server reads.
namespace RetryHeaders {

/// Selects a scripted fault-server test whose next step answers the request.
inline constexpr char testId[] = "X-Retry-Test-Id";
/// Identifies one logical request across its attempts ("<pid>.<executor>-<id>").
inline constexpr char requestId[] = "X-Retry-Request-Id";
/// The attempt number, 1 for the first. Together with requestId it tells a
/// retry (new number) from a resend of the same attempt by the HTTP library.
inline constexpr char attempt[] = "X-Retry-Attempt";

} // namespace RetryHeaders

} // namespace RetryLab::Core
