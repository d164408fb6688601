#pragma once

#include "core/util/result.h"

#include <QList>
#include <QString>
#include <QUrl>

#include <optional>

namespace RetryLab::Core {

/// One entry of curl's `--resolve HOST:PORT:ADDR`: connections to HOST on
/// PORT go to ADDR, while the URL, the Host header and the name the server's
/// certificate must carry stay HOST. `*` as HOST pins every host on that port.
struct HostPin
{
    QString host; ///< lower case, without brackets; "*" for any host
    quint16 port = 0;
    QString address; ///< an IPv4 or IPv6 address, without brackets

    /// "example.test:443:127.0.0.1", "[::1]:8080:[::1]" as curl writes them. A
    /// leading "+" (curl's "resolve later") is accepted; several addresses
    /// (curl's ADDR,ADDR) take the first. The error says which part is wrong.
    static Result<HostPin> parse(const QString &text);
    /// The spelling parse() reads.
    QString text() const;

    /// Whether this pin applies to `url` (its host and its port, or the scheme's).
    bool matches(const QUrl &url) const;

    /// The pin of `pins` for `url`, the first that matches; none when no entry does.
    static std::optional<HostPin> find(const QList<HostPin> &pins, const QUrl &url);

    friend bool operator==(const HostPin &, const HostPin &) = default;
};

} // namespace RetryLab::Core
