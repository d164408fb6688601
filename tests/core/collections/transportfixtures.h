#pragma once

// Shared by the suites of the transport options as files keep them: the
// saved transport itself and the settings file that keeps one.

#include "core/record/transportoptions.h"

namespace TransportFixtures {

/// A transport with every field set, the secrets and the exemptions included.
inline RetryLab::Core::TransportOptions everything()
{
    using RetryLab::Core::TransportOptions;
    TransportOptions t;
    t.caBundlePath = QStringLiteral("/etc/ssl/extra-ca.pem");
    t.clientCertificatePath = QStringLiteral("/home/me/client.pem");
    t.clientKeyPath = QStringLiteral("/home/me/client.key");
    t.clientKeyPassphrase = QStringLiteral("open sesame");
    t.tlsFloor = TransportOptions::TlsFloor::Tls13;
    t.insecureHosts = {QStringLiteral("127.0.0.1")};
    t.proxyMode = TransportOptions::ProxyMode::Http;
    t.proxyHost = QStringLiteral("proxy.test");
    t.proxyPort = 3128;
    t.proxyUser = QStringLiteral("alice");
    t.proxyPassword = QStringLiteral("hunter2");
    t.httpVersion = TransportOptions::HttpVersion::Http2;
    return t;
}

} // namespace TransportFixtures
