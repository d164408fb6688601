#pragma once

#include "core/util/result.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace RetryLab::Core {

/// What the fault server does with the TLS handshake of one connection. TLS
/// comes before HTTP, so a handshake fault cannot be chosen by the request (its
/// path and its X-Retry-Test-Id arrive encrypted, after the handshake): it is
/// chosen per connection, by the port the client connects to (one port per
/// fault), or by the handshake script of the HTTPS port (the next connections
/// take its steps in order, then the port answers normally again).
///
///   pass         the server's certificate, signed by its CA: a normal handshake
///   unknown-ca   a certificate for the right names, signed by a CA nobody trusts
///   self-signed  a certificate for the right names, signed by itself
///   expired      signed by the server's CA, for the right names, expired a day ago
///   wrong-host   signed by the server's CA, valid, but for another host name only
///   tls-cut      read the ClientHello, send part of a ServerHello, reset (RST)
///   tls-alert    read the ClientHello, answer a fatal handshake_failure alert, close
///   plain-http   read the ClientHello, answer it in plain HTTP (400), close
///
/// After the first five the connection carries HTTP as on the HTTPS port, for
/// clients that accept the certificate anyway (curl -k).
enum class TlsFault {
    Pass,
    UnknownCa,
    SelfSigned,
    Expired,
    WrongHost,
    HandshakeCut,
    Alert,
    PlainHttp,
};

/// Names, descriptions and the script syntax of TlsFault.
namespace TlsFaults {

/// Every fault, without Pass, in the order of the help text.
QList<TlsFault> all();
/// "unknown-ca"; also the key of the fault's port in GET /_control/tls.
QString name(TlsFault fault);
std::optional<TlsFault> fromName(const QString &name);
/// One line for people.
QString description(TlsFault fault);
/// True for the faults that complete a real handshake with a certificate of
/// theirs (pass, unknown-ca, self-signed, expired, wrong-host); the others
/// answer the ClientHello with raw bytes and never reach HTTP.
bool presentsCertificate(TlsFault fault);
/// Reads a handshake script: names, each optionally followed by "*K" (1-1000).
/// At most maxScriptSteps steps; the error names the step and what is wrong.
Result<QList<TlsFault>> parseScript(const QStringList &steps);

inline constexpr int maxScriptSteps = 10'000;

} // namespace TlsFaults

} // namespace RetryLab::Core
