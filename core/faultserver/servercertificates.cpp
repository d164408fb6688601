#include "core/faultserver/servercertificates.h"

#include "core/util/boundedfile.h"
#include "core/util/coretr.h"

#include <QFile>
#include <QFileInfo>
#include <QSslSocket>

namespace RetryLab::Core {

namespace {

// A client whose clock is a little behind still accepts a certificate made just now.
constexpr qint64 backdateSecs = 3600;
constexpr qint64 validDays = 30;

CertificateRequest serverRequest(const QString &commonName, const QDateTime &now, const QHostAddress &address)
{
    CertificateRequest r;
    r.commonName = commonName;
    r.dnsNames = {QStringLiteral("localhost")};
    r.ipAddresses = {QHostAddress(QHostAddress::LocalHost), QHostAddress(QHostAddress::LocalHostIPv6)};
    if (!address.isNull() && !address.isLoopback() && address != QHostAddress(QHostAddress::Any)
        && address != QHostAddress(QHostAddress::AnyIPv4) && address != QHostAddress(QHostAddress::AnyIPv6))
        r.ipAddresses.append(address);
    r.notBefore = now.addSecs(-backdateSecs);
    r.notAfter = now.addDays(validDays);
    return r;
}

Result<QByteArray> readFile(const QString &path, const QString &what)
{
    // A PEM file is a few KiB; anything far larger is not one.
    constexpr qint64 maxBytes = 1024 * 1024;
    const auto bytes = BoundedFile::read(path, {maxBytes, Tr::tr("a PEM file")});
    if (!bytes)
        return Result<QByteArray>::failure(path, Tr::tr("the %1 file: %2").arg(what, bytes.error()));
    return bytes;
}

} // namespace

Result<ServerCertificates> ServerCertificates::generate(const QDateTime &now, const QHostAddress &address)
{
    ServerCertificates out;
    CertificateRequest caRequest;
    caRequest.commonName = Tr::tr("RetryLab fault server CA");
    caRequest.certificateAuthority = true;
    caRequest.notBefore = now.addSecs(-backdateSecs);
    caRequest.notAfter = now.addDays(validDays);
    auto ca = CertificateFactory::selfSigned(caRequest);
    if (!ca)
        return ca.errorDetail();
    out.m_ca = *ca;

    CertificateRequest unknownCaRequest = caRequest;
    unknownCaRequest.commonName = Tr::tr("RetryLab unknown CA (trusted by nobody)");
    const auto unknownCa = CertificateFactory::selfSigned(unknownCaRequest);
    if (!unknownCa)
        return unknownCa.errorDetail();

    CertificateRequest expiredRequest = serverRequest(Tr::tr("RetryLab expired certificate"), now, address);
    expiredRequest.notBefore = now.addDays(-validDays);
    expiredRequest.notAfter = now.addDays(-1);
    CertificateRequest wrongHostRequest = serverRequest(QString::fromLatin1(wrongHostName), now, address);
    wrongHostRequest.dnsNames = {QString::fromLatin1(wrongHostName)};
    wrongHostRequest.ipAddresses.clear();

    struct Plan
    {
        TlsFault fault;
        CertificateRequest request;
        const IssuedCertificate *issuer; ///< nullptr: self-signed
    };
    const Plan plans[] = {
        {TlsFault::Pass, serverRequest(QStringLiteral("localhost"), now, address), &out.m_ca},
        {TlsFault::UnknownCa, serverRequest(QStringLiteral("localhost"), now, address), &*unknownCa},
        {TlsFault::SelfSigned, serverRequest(QStringLiteral("localhost"), now, address), nullptr},
        {TlsFault::Expired, expiredRequest, &out.m_ca},
        {TlsFault::WrongHost, wrongHostRequest, &out.m_ca},
    };
    for (const Plan &plan : plans) {
        const auto made = plan.issuer ? CertificateFactory::issue(plan.request, *plan.issuer)
                                      : CertificateFactory::selfSigned(plan.request);
        if (!made)
            return made.errorDetail();
        // Only the server's own certificate is sent: a client has to know the CA
        // already, as with an internal CA whose root is not in the system's store.
        out.m_identities.insert(plan.fault, Identity{{made->certificate}, made->privateKey});
    }
    return out;
}

Result<void> ServerCertificates::usePassCertificate(
    const QString &certificateFile, const QString &keyFile, const QByteArray &passphrase)
{
    const QString certificateWhat = Tr::tr("TLS certificate");
    const QString keyWhat = Tr::tr("TLS private key");
    if (certificateFile.isEmpty() != keyFile.isEmpty()) {
        return Result<void>::failure(certificateFile.isEmpty() ? keyFile : certificateFile,
            Tr::tr("a TLS certificate and its private key go together: give both files or neither"));
    }
    const auto certificateBytes = readFile(certificateFile, certificateWhat);
    if (!certificateBytes)
        return certificateBytes.errorDetail();
    const QList<QSslCertificate> chain = QSslCertificate::fromData(*certificateBytes, QSsl::Pem);
    if (chain.isEmpty() || chain.first().isNull()) {
        return Result<void>::failure(certificateFile,
            Tr::tr("the TLS certificate file holds no PEM certificate (\"-----BEGIN CERTIFICATE-----\")"));
    }
    const auto keyBytes = readFile(keyFile, keyWhat);
    if (!keyBytes)
        return keyBytes.errorDetail();
    const auto key = CertificateFactory::readPrivateKey(*keyBytes, passphrase);
    if (!key)
        return Result<void>::failure(keyFile, Tr::tr("cannot use the TLS private key file: %1").arg(key.error()));
    if (!CertificateFactory::keyMatches(chain.first(), *key)) {
        return Result<void>::failure(keyFile,
            Tr::tr("the private key does not belong to the certificate in %1, or it is damaged")
                .arg(QFileInfo(certificateFile).fileName()));
    }
    m_identities.insert(TlsFault::Pass, Identity{chain, *key});
    m_userAnchor = chain.last();
    return {};
}

QList<QSslCertificate> ServerCertificates::trustAnchors() const
{
    QList<QSslCertificate> out{m_ca.certificate};
    if (!m_userAnchor.isNull() && m_userAnchor != m_ca.certificate)
        out.append(m_userAnchor);
    return out;
}

QByteArray ServerCertificates::trustAnchorsPem() const
{
    QByteArray pem;
    for (const QSslCertificate &certificate : trustAnchors())
        pem += certificate.toPem();
    return pem;
}

QList<QSslCertificate> ServerCertificates::chain(TlsFault fault) const
{
    return m_identities.value(fault).chain;
}

QSslKey ServerCertificates::key(TlsFault fault) const
{
    return m_identities.value(fault).key;
}

QSslConfiguration ServerCertificates::configuration(TlsFault fault) const
{
    QSslConfiguration configuration = QSslConfiguration::defaultConfiguration();
    const Identity identity = m_identities.value(fault);
    configuration.setLocalCertificateChain(identity.chain);
    configuration.setPrivateKey(identity.key);
    configuration.setPeerVerifyMode(QSslSocket::VerifyNone);
    configuration.setProtocol(QSsl::TlsV1_2OrLater);
    configuration.setAllowedNextProtocols({QSslConfiguration::NextProtocolHttp1_1});
    return configuration;
}

} // namespace RetryLab::Core
