#pragma once

#include "core/record/attemptrecord.h"

#include <optional>

namespace RetryLab::Core {

/// Where the time of an attempt's last exchange went, in milliseconds, as
/// curl's -w reports it: name lookup, TCP connect, TLS handshake, sending the
/// request, waiting for the first byte, and the download. Each phase is unset
/// where it is unknown, never guessed:
///   - a reused connection has no lookup, connect or TLS phase;
///   - Qt reports no point between the TCP connect and the end of the TLS
///     handshake, so over TLS connectMs and tlsMs are unknown and
///     connectTlsMs (both together, what HAR's `connect` holds) is known;
///   - the lookup is RetryLab's own, made just before Qt gets the request (Qt
///     then answers from its cache); 0 when the URL holds an address or a pin
///     gives one.
/// Derived from the record alone: reports, HAR and the history read the same.
struct AttemptPhases
{
    bool reusedConnection = false; ///< the request went out without a new connection
    std::optional<double> dnsMs;
    std::optional<double> connectMs;
    std::optional<double> tlsMs;
    std::optional<double> connectTlsMs;
    std::optional<double> sendMs; ///< connection ready to request sent
    std::optional<double> firstByteMs; ///< request sent to the response's first byte (curl's wait)
    std::optional<double> downloadMs; ///< first byte to the end
    std::optional<double> totalMs; ///< the exchange's start to its end

    /// curl's cumulative times (time_namelookup, time_connect, time_appconnect,
    /// time_pretransfer, time_starttransfer, time_total), from the exchange's
    /// start; unset where a phase before them is unknown.
    std::optional<double> untilLookupMs;
    std::optional<double> untilConnectMs;
    std::optional<double> untilTlsMs;
    std::optional<double> untilReadyMs;
    std::optional<double> untilFirstByteMs;

    static AttemptPhases of(const AttemptRecord &record);
};

} // namespace RetryLab::Core
