#pragma once

#include "core/util/result.h"

#include <QByteArray>
#include <QDateTime>
#include <QHostAddress>
#include <QList>
#include <QSslCertificate>
#include <QSslKey>
#include <QString>
#include <QStringList>

namespace RetryLab::Core {

/// What a certificate made by CertificateFactory says: whom it names, for which
/// host names and addresses it is valid, and when.
struct CertificateRequest
{
    QString commonName;
    QString organization = QStringLiteral("RetryLab fault server");
    QStringList dnsNames; ///< subjectAltName DNS entries
    QList<QHostAddress> ipAddresses; ///< subjectAltName IP entries
    QDateTime notBefore;
    QDateTime notAfter;
    /// A CA (basicConstraints CA:TRUE, keyCertSign) instead of a TLS server
    /// certificate (CA:FALSE, digitalSignature, extendedKeyUsage serverAuth).
    bool certificateAuthority = false;
};

/// A certificate and the private key that goes with it.
struct IssuedCertificate
{
    QSslCertificate certificate;
    QSslKey privateKey;
};

/// Makes X.509 certificates with fresh keys, in memory, for the fault server's
/// HTTPS port and its TLS faults, and for the forward proxy's TLS interception. Qt 6.4 can read certificates but not
/// make them, so this class uses OpenSSL's libcrypto; it is the one file of the project that does, and its interface
/// speaks Qt types only, so that nothing else sees OpenSSL. Keys are ECDSA P-256: as accepted by every TLS client as
/// RSA, and made in well under a millisecond, so that every start of the server
/// can afford new ones and no private key ever needs to be kept in a file.
class CertificateFactory final
{
public:
    /// The curve's size; QSslKey::length() of every key made here.
    static constexpr int keyBits = 256;

    /// A certificate signed with its own new key (a CA, or a self-signed server certificate).
    static Result<IssuedCertificate> selfSigned(const CertificateRequest &request);
    /// A certificate with a new key, signed by `issuer` (which must hold its private key).
    static Result<IssuedCertificate> issue(const CertificateRequest &request, const IssuedCertificate &issuer);

    /// Reads a PEM private key: RSA, EC or DSA (what QSslKey can hold), in PKCS#1,
    /// SEC1 or PKCS#8 form, encrypted with `passphrase` or not. The error says
    /// what is wrong without naming a file: the caller knows it.
    static Result<QSslKey> readPrivateKey(const QByteArray &pem, const QByteArray &passphrase = {});
    /// Whether `key` is the private key of `certificate`'s public key.
    static bool keyMatches(const QSslCertificate &certificate, const QSslKey &key);
};

} // namespace RetryLab::Core
