#pragma once

#include "core/record/transportoptions.h"
#include "core/util/result.h"

#include <QByteArray>
#include <QNetworkProxy>
#include <QSslConfiguration>
#include <QString>
#include <QUrl>

#include <optional>

class QNetworkAccessManager;
class QNetworkRequest;

namespace RetryLab::Core {

/// A request's TransportOptions made ready for Qt once, when the request is
/// submitted: its files read (CA bundle, client certificate and key, PKCS#12),
/// the QSslConfiguration every attempt carries, the proxy, the HTTP version
/// attributes, and the key of the QNetworkAccessManagers that may carry it.
///
/// Why managers of its own for every distinct transport (ManagerPool groups):
/// QNetworkRequest has no proxy of its own, the proxy belongs to the manager;
/// and Qt keeps open connections per manager, found again by scheme, host, port
/// and proxy only. The TLS configuration is applied when a connection opens, so
/// a later request with another one would ride on it: another client
/// certificate, another CA, or a connection whose certificate errors were
/// ignored for a host that the later request does not exempt. The key is a
/// digest of everything that shapes a connection (proxy with its credentials,
/// HTTP version, TLS floor, exempt hosts, and the certificates and key as read),
/// so requests with the same transport share managers and connections, and
/// requests with different ones never do. The default transport has an empty
/// key: the executor's shared manager, configured as its owner left it.
class PreparedTransport final
{
public:
    /// Reads the files the options name. A file that is missing, unreadable,
    /// holds no certificate or key, or cannot be opened with the passphrase
    /// given fails with a sentence naming the file and what is wrong; the
    /// passphrase itself never appears in it.
    static Result<PreparedTransport> prepare(const TransportOptions &options);

    const TransportOptions &options() const { return m_options; }
    /// Empty for the default transport (the shared manager as it is).
    const QByteArray &managerKey() const { return m_key; }
    bool isDefault() const { return m_key.isEmpty(); }

    /// Gives a manager of this transport's group its proxy (or, for System,
    /// a factory asking the system for each request).
    void configureManager(QNetworkAccessManager &manager) const;
    /// The TLS configuration and the HTTP version of one request on the wire
    /// (set its URL first: HTTP/2 with prior knowledge is cleartext only, over
    /// TLS it is offered by ALPN).
    void applyTo(QNetworkRequest &request) const;

    /// The user chose to ignore certificate errors for this URL's host.
    bool ignoresCertificateErrorsFor(const QUrl &url) const;

    /// An explicit proxy (HTTP or SOCKS5) or the system's carries the requests.
    bool usesProxy() const { return m_options.proxyMode != TransportOptions::ProxyMode::None; }
    /// "the HTTP proxy 127.0.0.1:3128", "the system proxy": for reasons and
    /// logs, so never with the proxy's user name or password.
    QString proxyDescription() const;

private:
    TransportOptions m_options;
    std::optional<QSslConfiguration> m_ssl; ///< unset: Qt's default configuration
    QNetworkProxy m_proxy;
    QByteArray m_key;
};

} // namespace RetryLab::Core
