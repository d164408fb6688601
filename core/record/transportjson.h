#pragma once

#include "core/record/transportoptions.h"

#include <QJsonObject>
#include <QString>

namespace RetryLab::Core {

class JsonReader;

/// TransportOptions as JSON, in one spelling for every file that carries one:
/// the JSON report (written without secrets, read back), scenario files and
/// saved requests (written by people, secrets allowed where they keep them).
///
///   {"caBundlePath": "ca.pem", "clientCertificatePath": "client.p12",
///    "clientKeyPath": "", "clientKeyPassphrase": "...", "tlsFloor": "tls1.2",
///    "insecureHosts": ["staging.internal"], "proxyMode": "http",
///    "proxyHost": "127.0.0.1", "proxyPort": 3128, "proxyUser": "...",
///    "proxyPassword": "...", "httpVersion": "http2", "connectTimeoutMs": 2000,
///    "resolve": ["example.test:443:127.0.0.1"], "ipFamily": "ipv4", "keepAlive": false}
///
/// Every key is optional; absent ones keep TransportOptions' defaults.
namespace TransportJson {

/// Whether toJson() writes the key's passphrase and the proxy's user name and
/// password. Exports never do, redaction or not.
enum class Secrets { Leave, Write };

QJsonObject toJson(const TransportOptions &transport, Secrets secrets = Secrets::Leave);
/// Reads what toJson() writes; an unknown key, a wrong type or an unknown name
/// fails `reader` at its path (with the closest known name).
TransportOptions read(JsonReader &reader);

/// "any", "tls1.2", "tls1.3".
QString tlsFloorName(TransportOptions::TlsFloor floor);
/// "none", "system", "http", "socks5".
QString proxyModeName(TransportOptions::ProxyMode mode);
/// "http1.1", "http2", "http2-prior-knowledge".
QString httpVersionName(TransportOptions::HttpVersion version);
/// "any", "ipv4", "ipv6".
QString ipFamilyName(TransportOptions::IpFamily family);

} // namespace TransportJson

} // namespace RetryLab::Core
