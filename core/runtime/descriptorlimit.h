#pragma once

#include <QtGlobal>

namespace RetryLab::Core {

/// The process's file descriptors: every socket (a client's attempt, a
/// connection to the fault server, a proxied upstream) takes one, and the
/// default soft limit on Linux (1024) is far below what a herd of clients or
/// a slowloris test needs. RetryLab raises the soft limit to the hard one at
/// start, and sizes what it opens at once from what is left.
namespace DescriptorLimit {

struct Limits
{
    qint64 soft = -1; ///< -1: unknown (no limit could be read)
    qint64 hard = -1; ///< -1: unknown; RLIM_INFINITY shows as a very large number
};

/// Raises the soft RLIMIT_NOFILE to the hard limit (at most the kernel's
/// nr_open); returns the limits in force afterwards.
Limits raiseSoftToHard();
/// The limits in force.
Limits current();
/// Descriptors open in this process now (-1 when they cannot be counted).
int openCount();
/// Descriptors kept free for everything that is not a connection: files, the
/// event loop's own, TLS, Qt's network managers.
inline constexpr int reserve = 64;
/// How many more descriptors can be opened at once, `reserve` kept aside:
/// soft limit - open - reserve (at least 0; a large number when unknown).
qint64 available();

} // namespace DescriptorLimit

} // namespace RetryLab::Core
