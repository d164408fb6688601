#pragma once

#include <QDateTime>
#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace RetryLab::Core {

/// One connection through a TcpProxy (or a CONNECT tunnel), as it ended: who, how much each way,
/// which toxics applied to it and what closed it.
struct TcpLinkSummary
{
    quint64 id = 0;
    QString proxy;
    QString client; ///< "127.0.0.1:PORT"
    QDateTime started;
    double durationMs = 0.0;
    qint64 bytesUpstream = 0; ///< client to upstream, as passed on
    qint64 bytesDownstream = 0; ///< upstream to client, as passed on
    qint64 bytesDropped = 0; ///< taken in and never passed on (timeout, limit_data, a close)
    QStringList toxics; ///< names of the toxics that applied to it
    /// What ended it: "client-closed", "upstream-closed", "upstream-refused",
    /// "upstream-timeout", "timeout", "reset_peer", "limit_data", "proxy-closed",
    /// "disabled", "over-capacity".
    QString end;
    QString detail; ///< the socket's words, when there are any

    /// One line for the log: "#3 127.0.0.1:4711 1.2 s, 23 B up, 4.1 KB down, upstream-closed [latency_downstream]".
    QString summary() const;
    QJsonObject toJson() const;
};

} // namespace RetryLab::Core
