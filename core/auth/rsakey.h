#pragma once

#include "core/util/result.h"

#include <QByteArray>
#include <QByteArrayView>

#include <memory>

namespace RetryLab::Core {

/// An RSA key, private or public only, for the RS256 signatures of JWTs
/// (RSASSA-PKCS1-v1_5 with SHA-256, RFC 7518 3.3). Qt 6.4 cannot sign, so this
/// is the one file of core/auth that sees OpenSSL's libcrypto; its interface
/// speaks Qt types only. A value: copies share the key, which never changes.
///
/// The errors say what is wrong with the key (not PEM, encrypted, not RSA, too
/// short) without naming a file and without quoting any of it: the caller
/// knows the file, and a key is a secret.
class RsaKey final
{
public:
    /// RFC 7518 3.3: a key of 2048 bits or more must be used with RS256.
    static constexpr int minimumBits = 2048;

    /// A null key: signs and verifies nothing.
    RsaKey();
    ~RsaKey();
    RsaKey(const RsaKey &);
    RsaKey &operator=(const RsaKey &);

    /// An unencrypted PEM private key: PKCS#8 ("BEGIN PRIVATE KEY", as in
    /// Google's key files) or PKCS#1 ("BEGIN RSA PRIVATE KEY").
    static Result<RsaKey> fromPrivateKeyPem(QByteArrayView pem);
    /// The public key of a PEM "PUBLIC KEY" (SubjectPublicKeyInfo), "RSA PUBLIC
    /// KEY" (PKCS#1) or "CERTIFICATE" (X.509, as Google publishes its keys).
    static Result<RsaKey> fromPublicKeyPem(QByteArrayView pem);
    /// A new key pair of `bits` bits (2048 to 8192).
    static Result<RsaKey> generate(int bits = minimumBits);

    bool isNull() const { return !m_key; }
    bool hasPrivateKey() const;
    int bits() const;

    /// The private key as unencrypted PKCS#8 PEM; empty for a public key.
    QByteArray privateKeyPem() const;
    /// The public key as PEM SubjectPublicKeyInfo ("BEGIN PUBLIC KEY").
    QByteArray publicKeyPem() const;
    /// Only the public half: what a verifier is given.
    RsaKey publicKey() const;

    /// RSASSA-PKCS1-v1_5 with SHA-256 over `data` (needs the private key).
    Result<QByteArray> signSha256(QByteArrayView data) const;
    /// Whether `signature` is this key's RSASSA-PKCS1-v1_5 SHA-256 signature of `data`.
    bool verifySha256(QByteArrayView data, QByteArrayView signature) const;

private:
    struct Key;
    explicit RsaKey(std::shared_ptr<const Key> key);
    std::shared_ptr<const Key> m_key;
};

} // namespace RetryLab::Core
