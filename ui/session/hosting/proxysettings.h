#pragma once

#include "core/proxy/faultrule.h"
#include "core/util/result.h"

#include <QJsonObject>
#include <QString>
#include <QUrl>

namespace RetryLab::Ui {

/// One fault proxy of the Proxy tab as it is saved: where it listens, where it
/// forwards, and its rules (with their seed, if one was fixed).
struct ProxySettings
{
    QString name;
    /// Where requests go; when upstreamIsServer, only the path (and query) after the server.
    QUrl upstream;
    /// The upstream is RetryLab's own fault server ("{server}" typed, the default of a new
    /// proxy): the server's address of the moment is put in front at each start
    /// (resolvedUpstream()), so that the proxy follows it to another port after a restart.
    bool upstreamIsServer = false;
    quint16 port = 0; ///< 0: a free one
    bool keepHost = false;
    QString caBundlePath; ///< extra CAs for an https upstream, as in the request's Connection
    /// A folder the upstream's answers are recorded into (Core::RecordingWriter) while it
    /// runs, for a replay (Server tab); empty: nothing is recorded.
    QString recordDirectory;
    /// A forward proxy (HTTP_PROXY): no upstream, each request names its own, CONNECT opens tunnels.
    bool forward = false;
    Core::FaultRuleList rules;

    static QString serverPlaceholder() { return QStringLiteral("{server}"); }
    /// What the Upstream field shows and the file keeps: "{server}/api" or the URL as typed.
    QString upstreamText() const;
    /// Reads upstreamText()'s form: "{server}..." follows the server, anything else is a URL.
    void setUpstreamText(const QString &text);
    /// The URL to forward to, given the embedded server's address (empty: not running).
    QUrl resolvedUpstream(const QUrl &server) const;
    /// Why the upstream cannot be used, in words for the Proxy tab; empty when it can.
    QString upstreamProblem(const QUrl &server) const;

    QJsonObject toJson() const;
    /// Errors name the field ("upstream: ..." or "rules[1] (\"x\").p: ...").
    static Core::Result<ProxySettings> fromJson(const QJsonObject &object);
    bool operator==(const ProxySettings &other) const;
};

} // namespace RetryLab::Ui
