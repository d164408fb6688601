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
    QUrl upstream;
    quint16 port = 0; ///< 0: a free one
    bool keepHost = false;
    QString caBundlePath; ///< extra CAs for an https upstream, as in the request's Connection
    /// A folder the upstream's answers are recorded into (Core::RecordingWriter) while it
    /// runs, for a replay (Server tab); empty: nothing is recorded.
    QString recordDirectory;
    /// A forward proxy (HTTP_PROXY): no upstream, each request names its own, CONNECT opens tunnels.
    bool forward = false;
    Core::FaultRuleList rules;

    QJsonObject toJson() const;
    /// Errors name the field ("upstream: ..." or "rules[1] (\"x\").p: ...").
    static Core::Result<ProxySettings> fromJson(const QJsonObject &object);
    bool operator==(const ProxySettings &other) const;
};

} // namespace RetryLab::Ui
