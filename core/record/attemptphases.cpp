#include "core/record/attemptphases.h"

namespace RetryLab::Core {

namespace {

std::optional<double> phaseBetween(qint64 from, qint64 to)
{
    if (from < 0 || to < from)
        return std::nullopt;
    return static_cast<double>(to - from) / 1e6;
}

} // namespace

AttemptPhases AttemptPhases::of(const AttemptRecord &a)
{
    AttemptPhases p;
    const qint64 start = a.lastExchangeStartNs();
    if (start < 0)
        return p;
    const qint64 end = a.finishedNs >= 0 ? a.finishedNs : a.endNs;
    const bool opened = a.connectionStartedNs >= 0;
    const bool sent = a.requestSentNs >= 0;
    const bool answered = a.firstByteNs >= 0;
    // Whether the last exchange went over TLS: the handshake finished, or the record says which TLS.
    const bool overTls = a.encryptedNs >= 0 || !a.tls.protocol.isEmpty()
        || a.url.scheme().compare(QLatin1String("https"), Qt::CaseInsensitive) == 0;
    p.reusedConnection = !opened && (sent || answered);
    p.totalMs = phaseBetween(start, end);

    qint64 ready = -1; // the connection could carry the request
    if (opened) {
        p.dnsMs = phaseBetween(a.lookupStartNs, a.lookupEndNs);
        if (overTls) {
            p.connectTlsMs = phaseBetween(a.connectionStartedNs, a.encryptedNs);
            ready = a.encryptedNs;
        } else {
            p.connectMs = phaseBetween(a.connectionStartedNs, a.connectedNs);
            ready = a.connectedNs;
        }
    } else if (p.reusedConnection) {
        ready = a.lookupEndNs >= start ? a.lookupEndNs : start;
    }
    if (sent)
        p.sendMs = phaseBetween(ready, a.requestSentNs);
    if (answered)
        p.firstByteMs = phaseBetween(sent ? a.requestSentNs : -1, a.firstByteNs);
    if (answered)
        p.downloadMs = phaseBetween(a.firstByteNs, end);

    // Cumulative, as curl counts them: each known only when what comes before it is.
    if (p.reusedConnection) {
        p.untilLookupMs = 0.0;
        p.untilConnectMs = 0.0;
        p.untilTlsMs = 0.0;
        p.untilReadyMs = phaseBetween(start, ready);
    } else if (opened) {
        if (p.dnsMs)
            p.untilLookupMs = phaseBetween(start, a.lookupEndNs);
        if (overTls) {
            p.untilTlsMs = phaseBetween(start, a.encryptedNs);
        } else {
            p.untilConnectMs = phaseBetween(start, a.connectedNs);
        }
        p.untilReadyMs = phaseBetween(start, ready);
    }
    if (answered)
        p.untilFirstByteMs = phaseBetween(start, a.firstByteNs);
    return p;
}

} // namespace RetryLab::Core
