#pragma once

#include "core/faultserver/tlsfault.h"
#include "core/tls/certificatefactory.h"
#include "core/util/result.h"

#include <QByteArray>
#include <QDateTime>
#include <QHostAddress>
#include <QList>
#include <QMap>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslKey>
#include <QString>

namespace RetryLab::Core {

/// The certificates of the fault server's HTTPS side, made fresh at each
/// listen() (CertificateFactory; nothing is kept on disk): a CA of the
/// server's own, which clients may trust on purpose (GET /_control/ca.pem),
/// and a certificate and key for each TlsFault that presents one:
///
///   pass         signed by the CA; 127.0.0.1, ::1, localhost (and a non-loopback
///                listening address); valid from an hour ago for 30 days
///   unknown-ca   the same names, signed by a second CA that is then forgotten
///   self-signed  the same names, signed by itself
///   expired      signed by the CA, the same names, valid from 30 days ago to a day ago
///   wrong-host   signed by the CA, valid, for wrong-host.invalid only
///
/// The user may give the certificate (chain) and key of `pass` as PEM files
/// instead; the faults keep theirs, signed by the generated CA.
class ServerCertificates final
{
public:
    /// The host name the wrong-host certificate is for (".invalid" never resolves).
    static constexpr char wrongHostName[] = "wrong-host.invalid";

    /// A new CA and a certificate for each fault that presents one. `now` sets
    /// the validity windows; `address`, when not loopback or a wildcard, is named too.
    static Result<ServerCertificates> generate(const QDateTime &now, const QHostAddress &address = {});

    /// Presents the user's certificate on the HTTPS port (`pass`): `certificateFile`
    /// holds PEM certificates, the server's first and then its chain; `keyFile` its
    /// PEM private key (decrypted with `passphrase` if it is encrypted). The error
    /// names the file at fault and what is wrong; nothing changes then.
    Result<void> usePassCertificate(
        const QString &certificateFile, const QString &keyFile, const QByteArray &passphrase = {});

    /// The generated CA: it signs `pass` (unless the user gave it), `expired` and `wrong-host`.
    QSslCertificate ca() const { return m_ca.certificate; }
    /// What a client should trust to reach the HTTPS port: the CA, and with the
    /// user's certificate the last certificate of their file too (their root, if
    /// they put it there). GET /_control/ca.pem serves these.
    QList<QSslCertificate> trustAnchors() const;
    /// trustAnchors() as one PEM bundle (curl --cacert, QSslConfiguration::addCaCertificates).
    QByteArray trustAnchorsPem() const;
    /// The chain the fault presents, the server's certificate first; empty for
    /// the faults that present none.
    QList<QSslCertificate> chain(TlsFault fault) const;
    QSslKey key(TlsFault fault) const;
    /// A server-side TLS configuration presenting chain(fault) with key(fault):
    /// TLS 1.2 or later, ALPN "http/1.1", no client certificate asked for.
    QSslConfiguration configuration(TlsFault fault) const;

private:
    struct Identity
    {
        QList<QSslCertificate> chain;
        QSslKey key;
    };
    IssuedCertificate m_ca;
    QMap<TlsFault, Identity> m_identities;
    QSslCertificate m_userAnchor; ///< the last certificate of the user's file, if given
};

} // namespace RetryLab::Core
