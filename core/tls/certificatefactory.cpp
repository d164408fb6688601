#include "core/tls/certificatefactory.h"

#include "core/util/coretr.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <cstring>
#include <memory>

namespace RetryLab::Core {

namespace {

// OpenSSL's objects freed by their own functions when they leave scope.
template<typename T, auto Free>
struct Freer
{
    void operator()(T *p) const { Free(p); }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, Freer<EVP_PKEY, EVP_PKEY_free>>;
using KeyContextPtr = std::unique_ptr<EVP_PKEY_CTX, Freer<EVP_PKEY_CTX, EVP_PKEY_CTX_free>>;
using X509Ptr = std::unique_ptr<X509, Freer<X509, X509_free>>;
using BioPtr = std::unique_ptr<BIO, Freer<BIO, BIO_free_all>>;
using BignumPtr = std::unique_ptr<BIGNUM, Freer<BIGNUM, BN_free>>;
using ExtensionPtr = std::unique_ptr<X509_EXTENSION, Freer<X509_EXTENSION, X509_EXTENSION_free>>;
using NamesPtr = std::unique_ptr<GENERAL_NAMES, Freer<GENERAL_NAMES, GENERAL_NAMES_free>>;

/// OpenSSL's reasons for the last failure, oldest first; empties its error queue,
/// which Qt's own TLS code on this thread would otherwise find later.
QString takeOpenSslErrors()
{
    QStringList reasons;
    while (const unsigned long code = ERR_get_error()) {
        char text[256] = {};
        ERR_error_string_n(code, text, sizeof text);
        reasons.append(QString::fromLatin1(text));
    }
    return reasons.isEmpty() ? Tr::tr("no reason given by OpenSSL") : reasons.join(QStringLiteral("; "));
}

template<typename T>
Result<T> failure(const QString &what)
{
    return Result<T>::failure(QStringLiteral("%1 (%2)").arg(what, takeOpenSslErrors()));
}

KeyPtr newKey()
{
    KeyContextPtr context(EVP_PKEY_CTX_new_from_name(nullptr, "EC", nullptr));
    EVP_PKEY *key = nullptr;
    if (!context || EVP_PKEY_keygen_init(context.get()) <= 0 || EVP_PKEY_CTX_set_group_name(context.get(), "P-256") <= 0
        || EVP_PKEY_generate(context.get(), &key) <= 0)
        return nullptr;
    return KeyPtr(key);
}

KeyPtr keyFromPem(const QByteArray &pem, const QByteArray *passphrase)
{
    BioPtr bio(BIO_new_mem_buf(pem.constData(), static_cast<int>(pem.size())));
    if (!bio)
        return nullptr;
    // Never OpenSSL's default callback: it would ask on the terminal.
    const auto callback = [](char *buffer, int size, int, void *user) -> int {
        const auto *phrase = static_cast<const QByteArray *>(user);
        if (!phrase || phrase->isEmpty() || phrase->size() > size)
            return 0;
        std::memcpy(buffer, phrase->constData(), static_cast<size_t>(phrase->size()));
        return static_cast<int>(phrase->size());
    };
    return KeyPtr(PEM_read_bio_PrivateKey(bio.get(), nullptr, callback, const_cast<QByteArray *>(passphrase)));
}

X509Ptr x509FromDer(const QByteArray &der)
{
    const auto *data = reinterpret_cast<const unsigned char *>(der.constData());
    return X509Ptr(d2i_X509(nullptr, &data, static_cast<long>(der.size())));
}

QByteArray pemOf(EVP_PKEY *key)
{
    BioPtr bio(BIO_new(BIO_s_mem()));
    if (!bio || PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1)
        return {};
    char *data = nullptr;
    const long size = BIO_get_mem_data(bio.get(), &data);
    return QByteArray(data, size);
}

QByteArray derOf(X509 *certificate)
{
    const int size = i2d_X509(certificate, nullptr);
    if (size <= 0)
        return {};
    QByteArray der(size, Qt::Uninitialized);
    auto *out = reinterpret_cast<unsigned char *>(der.data());
    i2d_X509(certificate, &out);
    return der;
}

bool addExtension(X509 *certificate, X509V3_CTX *context, int nid, const char *value)
{
    ExtensionPtr extension(X509V3_EXT_conf_nid(nullptr, context, nid, value));
    return extension && X509_add_ext(certificate, extension.get(), -1) == 1;
}

bool addSubjectAltNames(X509 *certificate, const CertificateRequest &request)
{
    if (request.dnsNames.isEmpty() && request.ipAddresses.isEmpty())
        return true;
    NamesPtr names(sk_GENERAL_NAME_new_null());
    if (!names)
        return false;
    const auto push = [&names](int type, ASN1_STRING *value) {
        GENERAL_NAME *name = GENERAL_NAME_new();
        if (!name || !value) {
            GENERAL_NAME_free(name);
            ASN1_STRING_free(value);
            return false;
        }
        GENERAL_NAME_set0_value(name, type, value);
        return sk_GENERAL_NAME_push(names.get(), name) > 0;
    };
    for (const QString &dns : request.dnsNames) {
        const QByteArray ascii = dns.toLatin1();
        ASN1_IA5STRING *value = ASN1_IA5STRING_new();
        if (value && ASN1_STRING_set(value, ascii.constData(), static_cast<int>(ascii.size())) != 1) {
            ASN1_STRING_free(value);
            value = nullptr;
        }
        if (!push(GEN_DNS, value))
            return false;
    }
    for (const QHostAddress &ip : request.ipAddresses) {
        if (!push(GEN_IPADD, a2i_IPADDRESS(ip.toString().toLatin1().constData())))
            return false;
    }
    return X509_add1_ext_i2d(certificate, NID_subject_alt_name, names.get(), 0, X509V3_ADD_DEFAULT) == 1;
}

bool setName(X509_NAME *name, const CertificateRequest &request)
{
    const auto add = [name](const char *field, const QString &value) {
        const QByteArray utf8 = value.toUtf8();
        return utf8.isEmpty()
            || X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8,
                   reinterpret_cast<const unsigned char *>(utf8.constData()), static_cast<int>(utf8.size()), -1, 0)
            == 1;
    };
    return add("O", request.organization) && add("CN", request.commonName);
}

/// Makes the certificate; `issuerCertificate` and `issuerKey` are null for a self-signed one.
Result<IssuedCertificate> make(const CertificateRequest &request, X509 *issuerCertificate, EVP_PKEY *issuerKey)
{
    ERR_clear_error();
    if (request.commonName.isEmpty())
        return Result<IssuedCertificate>::failure(Tr::tr("a certificate needs a common name"));
    if (!request.notBefore.isValid() || !request.notAfter.isValid() || request.notAfter <= request.notBefore)
        return Result<IssuedCertificate>::failure(
            Tr::tr("a certificate needs a validity window that ends after it begins"));
    for (const QHostAddress &ip : request.ipAddresses) {
        if (ip.isNull())
            return Result<IssuedCertificate>::failure(Tr::tr("a certificate cannot name a null address"));
    }

    const KeyPtr key = newKey();
    if (!key)
        return failure<IssuedCertificate>(Tr::tr("could not make a P-256 key"));
    X509Ptr certificate(X509_new());
    BignumPtr serial(BN_new());
    if (!certificate || !serial
        || X509_set_version(certificate.get(), X509_VERSION_3) != 1
        // A random 127-bit serial: positive, and never the same twice from one CA.
        || BN_rand(serial.get(), 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) != 1
        || !BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(certificate.get()))
        || !ASN1_TIME_set(X509_getm_notBefore(certificate.get()), request.notBefore.toSecsSinceEpoch())
        || !ASN1_TIME_set(X509_getm_notAfter(certificate.get()), request.notAfter.toSecsSinceEpoch())
        || !setName(X509_get_subject_name(certificate.get()), request)
        || X509_set_issuer_name(
               certificate.get(), X509_get_subject_name(issuerCertificate ? issuerCertificate : certificate.get()))
            != 1
        || X509_set_pubkey(certificate.get(), key.get()) != 1)
        return failure<IssuedCertificate>(Tr::tr("could not fill in the certificate for %1").arg(request.commonName));

    X509V3_CTX context;
    X509V3_set_ctx_nodb(&context);
    X509V3_set_ctx(
        &context, issuerCertificate ? issuerCertificate : certificate.get(), certificate.get(), nullptr, nullptr, 0);
    const bool ca = request.certificateAuthority;
    bool extensions = addExtension(certificate.get(), &context, NID_basic_constraints,
                          ca ? "critical,CA:TRUE,pathlen:0" : "critical,CA:FALSE")
        && addExtension(certificate.get(), &context, NID_subject_key_identifier, "hash")
        && addSubjectAltNames(certificate.get(), request);
    // A self-signed server certificate gets no key usage: one without
    // keyCertSign would deny its own signature, and keyCertSign is for CAs only.
    if (ca || issuerCertificate) {
        extensions = extensions
            && addExtension(certificate.get(), &context, NID_key_usage,
                ca ? "critical,keyCertSign,cRLSign,digitalSignature" : "critical,digitalSignature");
    }
    if (!ca)
        extensions = extensions && addExtension(certificate.get(), &context, NID_ext_key_usage, "serverAuth");
    if (issuerCertificate)
        extensions
            = extensions && addExtension(certificate.get(), &context, NID_authority_key_identifier, "keyid:always");
    if (!extensions)
        return failure<IssuedCertificate>(Tr::tr("could not add the extensions of %1").arg(request.commonName));
    if (X509_sign(certificate.get(), issuerKey ? issuerKey : key.get(), EVP_sha256()) <= 0)
        return failure<IssuedCertificate>(Tr::tr("could not sign the certificate for %1").arg(request.commonName));

    IssuedCertificate out;
    out.certificate = QSslCertificate(derOf(certificate.get()), QSsl::Der);
    out.privateKey = QSslKey(pemOf(key.get()), QSsl::Ec, QSsl::Pem, QSsl::PrivateKey);
    ERR_clear_error();
    if (out.certificate.isNull() || out.privateKey.isNull()) {
        return Result<IssuedCertificate>::failure(
            Tr::tr("Qt could not read the certificate made for %1").arg(request.commonName));
    }
    return out;
}

} // namespace

Result<IssuedCertificate> CertificateFactory::selfSigned(const CertificateRequest &request)
{
    return make(request, nullptr, nullptr);
}

Result<IssuedCertificate> CertificateFactory::issue(const CertificateRequest &request, const IssuedCertificate &issuer)
{
    ERR_clear_error();
    const X509Ptr issuerCertificate = x509FromDer(issuer.certificate.toDer());
    const KeyPtr issuerKey = keyFromPem(issuer.privateKey.toPem(), nullptr);
    if (!issuerCertificate || !issuerKey)
        return failure<IssuedCertificate>(
            Tr::tr("the issuer of %1 has no usable certificate and key").arg(request.commonName));
    return make(request, issuerCertificate.get(), issuerKey.get());
}

Result<QSslKey> CertificateFactory::readPrivateKey(const QByteArray &pem, const QByteArray &passphrase)
{
    ERR_clear_error();
    if (!pem.contains("-----BEGIN") || !pem.contains("PRIVATE KEY-----"))
        return Result<QSslKey>::failure(Tr::tr("it holds no PEM private key (\"-----BEGIN ... PRIVATE KEY-----\")"));
    const KeyPtr key = keyFromPem(pem, &passphrase);
    if (!key) {
        const bool encrypted = pem.contains("ENCRYPTED");
        ERR_clear_error();
        if (encrypted && passphrase.isEmpty())
            return Result<QSslKey>::failure(Tr::tr("the private key is encrypted and no passphrase was given"));
        if (encrypted)
            return Result<QSslKey>::failure(Tr::tr("the passphrase does not decrypt the private key"));
        return Result<QSslKey>::failure(Tr::tr("the PEM private key is damaged"));
    }
    QSsl::KeyAlgorithm algorithm = QSsl::Opaque;
    switch (EVP_PKEY_get_base_id(key.get())) {
    case EVP_PKEY_RSA:
        algorithm = QSsl::Rsa;
        break;
    case EVP_PKEY_EC:
        algorithm = QSsl::Ec;
        break;
    case EVP_PKEY_DSA:
        algorithm = QSsl::Dsa;
        break;
    default:
        return Result<QSslKey>::failure(Tr::tr("the private key is of a type Qt cannot use (%1); use an RSA or EC key")
                                            .arg(QString::fromLatin1(EVP_PKEY_get0_type_name(key.get()))));
    }
    const QSslKey out(pemOf(key.get()), algorithm, QSsl::Pem, QSsl::PrivateKey);
    ERR_clear_error();
    if (out.isNull())
        return Result<QSslKey>::failure(Tr::tr("Qt could not read the private key"));
    return out;
}

bool CertificateFactory::keyMatches(const QSslCertificate &certificate, const QSslKey &key)
{
    ERR_clear_error();
    const X509Ptr x509 = x509FromDer(certificate.toDer());
    const KeyPtr pkey = keyFromPem(key.toPem(), nullptr);
    // Comparing the public halves is not enough: a key file may carry an intact
    // public key beside a damaged private one. A signature made with the private
    // key that the certificate's public key verifies settles it.
    bool matches = x509 && pkey && X509_check_private_key(x509.get(), pkey.get()) == 1;
    if (matches) {
        static const unsigned char message[] = "RetryLab checks that a key belongs to its certificate";
        using DigestContextPtr = std::unique_ptr<EVP_MD_CTX, Freer<EVP_MD_CTX, EVP_MD_CTX_free>>;
        DigestContextPtr signing(EVP_MD_CTX_new());
        DigestContextPtr verifying(EVP_MD_CTX_new());
        EVP_PKEY *publicKey = X509_get0_pubkey(x509.get());
        size_t signatureSize = 0;
        matches = signing && verifying && publicKey
            && EVP_DigestSignInit(signing.get(), nullptr, EVP_sha256(), nullptr, pkey.get()) == 1
            && EVP_DigestSign(signing.get(), nullptr, &signatureSize, message, sizeof message) == 1;
        QByteArray signature(matches ? qsizetype(signatureSize) : 0, Qt::Uninitialized);
        auto *signatureData = reinterpret_cast<unsigned char *>(signature.data());
        matches = matches && EVP_DigestSign(signing.get(), signatureData, &signatureSize, message, sizeof message) == 1
            && EVP_DigestVerifyInit(verifying.get(), nullptr, EVP_sha256(), nullptr, publicKey) == 1
            && EVP_DigestVerify(verifying.get(), signatureData, signatureSize, message, sizeof message) == 1;
    }
    ERR_clear_error();
    return matches;
}

} // namespace RetryLab::Core
