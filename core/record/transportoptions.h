#pragma once

#include "core/record/hostpin.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace RetryLab::Core {

/// How a request reaches its server, beyond its method, URL, headers and body:
/// TLS, proxy and HTTP version. Part of a RequestSpec, so that every attempt of
/// a logical request travels the same way. The defaults are today's behaviour:
/// the system's CAs only, no client certificate, no proxy, HTTP/1.1.
struct TransportOptions
{
    // --- TLS ---
    /// PEM file of CA certificates trusted in addition to the system's.
    QString caBundlePath;
    /// Client certificate: a PEM file (with the key, or the key in clientKeyPath),
    /// or a PKCS#12 file (.p12, .pfx) holding both.
    QString clientCertificatePath;
    QString clientKeyPath;
    /// For an encrypted key or a PKCS#12 file. Never saved, never exported.
    QString clientKeyPassphrase;
    enum class TlsFloor { Any, Tls12, Tls13 };
    TlsFloor tlsFloor = TlsFloor::Any;
    /// Hosts whose certificate errors are ignored, each by an explicit choice: off
    /// by default, never saved silently, and said loudly in the window and in
    /// every export while on; the headless commands refuse it without --insecure.
    QStringList insecureHosts;

    // --- Proxy ---
    enum class ProxyMode {
        None, ///< straight to the server, whatever the environment says (the default)
        System, ///< the system's proxy settings (http_proxy and friends on Linux)
        Http, ///< an HTTP proxy (CONNECT for https)
        Socks5,
    };
    ProxyMode proxyMode = ProxyMode::None;
    QString proxyHost;
    quint16 proxyPort = 0;
    QString proxyUser;
    /// Never saved unless the user opts in, never exported, redacted in logs.
    QString proxyPassword;

    // --- HTTP version ---
    enum class HttpVersion {
        Http1, ///< HTTP/1.1 only
        Http2, ///< HTTP/2 where the server offers it by ALPN over TLS, else HTTP/1.1
        Http2PriorKnowledge, ///< HTTP/2 straight away, also in cleartext (h2c)
    };
    HttpVersion httpVersion = HttpVersion::Http1;

    // --- Connection ---
    /// Time an attempt may take to have its connection ready (name lookup, TCP
    /// connect, TLS handshake), apart from the per-attempt timeout, as curl's
    /// --connect-timeout. Unset: only the per-attempt timeout applies.
    std::optional<double> connectTimeoutMs;
    /// curl's --resolve: connections to a host and port go to another address,
    /// while the URL, the Host header and the certificate's name stay the host's.
    QList<HostPin> resolve;
    /// curl's -4 and -6: connect over one IP version only.
    enum class IpFamily { Any, V4, V6 };
    IpFamily ipFamily = IpFamily::Any;
    /// Off (curl's --no-keepalive): every attempt sends Connection: close and
    /// rides on a connection of its own, never one another request left open.
    bool keepAlive = true;

    bool isDefault() const { return *this == TransportOptions{}; }
    /// Whether only what does not shape a connection differs from the default
    /// (the connect timeout): such a request may share every connection.
    bool sharesDefaultConnections() const
    {
        TransportOptions shaping = *this;
        shaping.connectTimeoutMs.reset();
        return shaping.isDefault();
    }
    bool ignoresCertificateErrorsFor(const QString &host) const
    {
        return insecureHosts.contains(host, Qt::CaseInsensitive);
    }

    friend bool operator==(const TransportOptions &, const TransportOptions &) = default;
};

/// What TLS an attempt used, as far as Qt reports it; empty for plain HTTP.
struct TlsDetails
{
    QString protocol; ///< "TLSv1.3"
    QString cipher; ///< "TLS_AES_256_GCM_SHA384"
    QString peerSubject; ///< the server certificate's subject, "CN=example.test, O=..."
    QString peerIssuer;
    QString peerNotBefore; ///< ISO 8601, UTC
    QString peerNotAfter;
    QStringList errors; ///< certificate errors (ignored ones too, marked as such)
    bool errorsIgnored = false; ///< the host is in TransportOptions::insecureHosts

    bool isEmpty() const { return protocol.isEmpty() && errors.isEmpty(); }
    friend bool operator==(const TlsDetails &, const TlsDetails &) = default;
};

} // namespace RetryLab::Core
