#include "core/auth/rsakey.h"

#include "core/util/coretr.h"

#include <openssl/bio.h>
#include <openssl/decoder.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

namespace RetryLab::Core {

struct RsaKey::Key
{
    EVP_PKEY *pkey = nullptr;
    bool isPrivate = false;

    Key(EVP_PKEY *key, bool privateKey) : pkey(key), isPrivate(privateKey) { }
    ~Key() { EVP_PKEY_free(pkey); }
    Key(const Key &) = delete;
    Key &operator=(const Key &) = delete;
};

namespace {

struct RsaBioFree
{
    void operator()(BIO *bio) const { BIO_free(bio); }
};
using RsaBio = std::unique_ptr<BIO, RsaBioFree>;

struct RsaMdCtxFree
{
    void operator()(EVP_MD_CTX *ctx) const { EVP_MD_CTX_free(ctx); }
};

RsaBio rsaReadBio(QByteArrayView pem)
{
    return RsaBio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
}

QByteArray rsaDrain(BIO *bio)
{
    char *data = nullptr;
    const long length = BIO_get_mem_data(bio, &data);
    return length > 0 ? QByteArray(data, length) : QByteArray();
}

/// Called by OpenSSL when a PEM block is encrypted: refuses, and remembers that it was asked.
int rsaRefusePassphrase(char *, int, int, void *asked)
{
    *static_cast<bool *>(asked) = true;
    return -1;
}

/// What kind of key a PEM block holds that is not RSA, from its algorithm's name.
QString rsaNotRsa(EVP_PKEY *pkey)
{
    const char *name = EVP_PKEY_get0_type_name(pkey);
    return Tr::tr("the key is %1, not RSA: RS256 signs with RSA keys only")
        .arg(name ? QString::fromLatin1(name) : Tr::tr("of an unknown algorithm"));
}

/// The checks both kinds of key share; null when the key will do.
QString rsaProblem(EVP_PKEY *pkey)
{
    if (!EVP_PKEY_is_a(pkey, "RSA"))
        return rsaNotRsa(pkey);
    const int bits = EVP_PKEY_get_bits(pkey);
    if (bits < RsaKey::minimumBits) {
        return Tr::tr("the RSA key has %1 bits; RS256 needs at least %2 (RFC 7518, section 3.3)")
            .arg(bits)
            .arg(RsaKey::minimumBits);
    }
    return {};
}

} // namespace

RsaKey::RsaKey() = default;
RsaKey::~RsaKey() = default;
RsaKey::RsaKey(const RsaKey &) = default;
RsaKey &RsaKey::operator=(const RsaKey &) = default;
RsaKey::RsaKey(std::shared_ptr<const Key> key) : m_key(std::move(key))
{ }

Result<RsaKey> RsaKey::fromPrivateKeyPem(QByteArrayView pem)
{
    if (pem.trimmed().isEmpty())
        return Result<RsaKey>::failure(Tr::tr("the private key is empty"));
    if (!pem.contains(QByteArrayView("-----BEGIN ")))
        return Result<RsaKey>::failure(Tr::tr("the private key is not PEM (there is no \"-----BEGIN\" line)"));
    if (pem.contains(QByteArrayView("-----BEGIN ENCRYPTED PRIVATE KEY-----"))
        || pem.contains(QByteArrayView("Proc-Type: 4,ENCRYPTED"))) {
        return Result<RsaKey>::failure(
            Tr::tr("the private key is encrypted with a passphrase; an unencrypted key is needed (as in Google's "
                   "key files)"));
    }
    const RsaBio bio = rsaReadBio(pem);
    bool askedForPassphrase = false;
    EVP_PKEY *pkey = PEM_read_bio_PrivateKey(bio.get(), nullptr, rsaRefusePassphrase, &askedForPassphrase);
    ERR_clear_error();
    if (!pkey) {
        if (askedForPassphrase)
            return Result<RsaKey>::failure(Tr::tr("the private key is encrypted with a passphrase; an unencrypted "
                                                  "key is needed (as in Google's key files)"));
        return Result<RsaKey>::failure(
            Tr::tr("the PEM text holds no private key that can be read (a PKCS#8 \"PRIVATE KEY\" or PKCS#1 \"RSA "
                   "PRIVATE KEY\" block is needed)"));
    }
    auto key = std::make_shared<const Key>(pkey, true);
    const QString problem = rsaProblem(pkey);
    if (!problem.isEmpty())
        return Result<RsaKey>::failure(problem);
    return RsaKey(std::move(key));
}

Result<RsaKey> RsaKey::fromPublicKeyPem(QByteArrayView pem)
{
    if (!pem.contains(QByteArrayView("-----BEGIN ")))
        return Result<RsaKey>::failure(Tr::tr("the public key is not PEM (there is no \"-----BEGIN\" line)"));
    EVP_PKEY *pkey = nullptr;
    if (pem.contains(QByteArrayView("-----BEGIN CERTIFICATE-----"))) {
        const RsaBio bio = rsaReadBio(pem);
        X509 *certificate = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr);
        if (certificate) {
            pkey = X509_get_pubkey(certificate);
            X509_free(certificate);
        }
    } else if (pem.contains(QByteArrayView("-----BEGIN RSA PUBLIC KEY-----"))) {
        // PKCS#1's form, which PEM_read_bio_PUBKEY does not read; the decoder does without deprecated calls.
        OSSL_DECODER_CTX *decoder
            = OSSL_DECODER_CTX_new_for_pkey(&pkey, "PEM", nullptr, "RSA", EVP_PKEY_PUBLIC_KEY, nullptr, nullptr);
        if (decoder) {
            const auto *data = reinterpret_cast<const unsigned char *>(pem.data());
            size_t length = static_cast<size_t>(pem.size());
            OSSL_DECODER_from_data(decoder, &data, &length);
            OSSL_DECODER_CTX_free(decoder);
        }
    } else {
        const RsaBio bio = rsaReadBio(pem);
        pkey = PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr);
    }
    ERR_clear_error();
    if (!pkey) {
        return Result<RsaKey>::failure(
            Tr::tr("the PEM text holds no public key that can be read (a \"PUBLIC KEY\", \"RSA PUBLIC KEY\" or "
                   "\"CERTIFICATE\" block is needed)"));
    }
    auto key = std::make_shared<const Key>(pkey, false);
    const QString problem = rsaProblem(pkey);
    if (!problem.isEmpty())
        return Result<RsaKey>::failure(problem);
    return RsaKey(std::move(key));
}

Result<RsaKey> RsaKey::generate(int bits)
{
    if (bits < minimumBits || bits > 8192)
        return Result<RsaKey>::failure(Tr::tr("an RSA key has %1 to 8192 bits, not %2").arg(minimumBits).arg(bits));
    EVP_PKEY *pkey = EVP_RSA_gen(static_cast<unsigned int>(bits));
    ERR_clear_error();
    if (!pkey)
        return Result<RsaKey>::failure(Tr::tr("OpenSSL could not make an RSA key"));
    return RsaKey(std::make_shared<const Key>(pkey, true));
}

bool RsaKey::hasPrivateKey() const
{
    return m_key && m_key->isPrivate;
}

int RsaKey::bits() const
{
    return m_key ? EVP_PKEY_get_bits(m_key->pkey) : 0;
}

QByteArray RsaKey::privateKeyPem() const
{
    if (!hasPrivateKey())
        return {};
    const RsaBio bio(BIO_new(BIO_s_mem()));
    // PEM_write_bio_PrivateKey writes PKCS#8 ("BEGIN PRIVATE KEY"), as Google's key files hold.
    if (!bio || PEM_write_bio_PrivateKey(bio.get(), m_key->pkey, nullptr, nullptr, 0, nullptr, nullptr) != 1) {
        ERR_clear_error();
        return {};
    }
    return rsaDrain(bio.get());
}

QByteArray RsaKey::publicKeyPem() const
{
    if (!m_key)
        return {};
    const RsaBio bio(BIO_new(BIO_s_mem()));
    if (!bio || PEM_write_bio_PUBKEY(bio.get(), m_key->pkey) != 1) {
        ERR_clear_error();
        return {};
    }
    return rsaDrain(bio.get());
}

RsaKey RsaKey::publicKey() const
{
    if (!hasPrivateKey())
        return *this;
    const auto key = fromPublicKeyPem(publicKeyPem());
    return key ? *key : RsaKey();
}

Result<QByteArray> RsaKey::signSha256(QByteArrayView data) const
{
    if (!hasPrivateKey())
        return Result<QByteArray>::failure(Tr::tr("signing needs a private key"));
    const std::unique_ptr<EVP_MD_CTX, RsaMdCtxFree> ctx(EVP_MD_CTX_new());
    size_t length = 0;
    const auto *bytes = reinterpret_cast<const unsigned char *>(data.data());
    // An RSA key's default padding is PKCS#1 v1.5: RS256's.
    if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, m_key->pkey) != 1
        || EVP_DigestSign(ctx.get(), nullptr, &length, bytes, static_cast<size_t>(data.size())) != 1) {
        ERR_clear_error();
        return Result<QByteArray>::failure(Tr::tr("OpenSSL could not sign with the RSA key"));
    }
    QByteArray signature(static_cast<qsizetype>(length), Qt::Uninitialized);
    if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char *>(signature.data()), &length, bytes,
            static_cast<size_t>(data.size()))
        != 1) {
        ERR_clear_error();
        return Result<QByteArray>::failure(Tr::tr("OpenSSL could not sign with the RSA key"));
    }
    signature.resize(static_cast<qsizetype>(length));
    return signature;
}

bool RsaKey::verifySha256(QByteArrayView data, QByteArrayView signature) const
{
    if (!m_key)
        return false;
    const std::unique_ptr<EVP_MD_CTX, RsaMdCtxFree> ctx(EVP_MD_CTX_new());
    const bool good = ctx && EVP_DigestVerifyInit(ctx.get(), nullptr, EVP_sha256(), nullptr, m_key->pkey) == 1
        && EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char *>(signature.data()),
               static_cast<size_t>(signature.size()), reinterpret_cast<const unsigned char *>(data.data()),
               static_cast<size_t>(data.size()))
            == 1;
    ERR_clear_error();
    return good;
}

} // namespace RetryLab::Core
