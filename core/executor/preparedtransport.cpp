#include "core/executor/preparedtransport.h"

#include "core/util/boundedfile.h"
#include "core/util/coretr.h"

#include <QBuffer>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLoggingCategory>
#include <QNetworkAccessManager>
#include <QNetworkProxyFactory>
#include <QNetworkRequest>
#include <QSslCertificate>
#include <QSslKey>

#include <algorithm>

namespace {
Q_LOGGING_CATEGORY(lcTransport, "retrylab.core.transport", QtInfoMsg)
} // namespace

namespace RetryLab::Core {

namespace {

// Certificate and key files are small; anything this large is not one.
constexpr qint64 maxFileBytes = 16 * 1024 * 1024;

QString shown(const QString &path)
{
    return QDir::toNativeSeparators(path);
}

// `what` names the role of the file: "the CA bundle", "the client key", ...
Result<QByteArray> readFile(const QString &path, const QString &what)
{
    QFile file(path);
    if (!QFileInfo::exists(path))
        return Result<QByteArray>::failure(Tr::tr("%1 %2 does not exist").arg(what, shown(path)));
    if (QFileInfo(path).isDir())
        return Result<QByteArray>::failure(Tr::tr("%1 %2 is a folder, not a file").arg(what, shown(path)));
    const auto bytes = BoundedFile::read(path, {maxFileBytes, Tr::tr("a certificate or key file")});
    if (!bytes)
        return Result<QByteArray>::failure(Tr::tr("%1: %2").arg(what, bytes.error()));
    return bytes;
}

// The first PEM block whose label ends in `labelEnd` ("PRIVATE KEY"), with its
// BEGIN and END lines; empty when there is none.
QByteArray pemBlock(const QByteArray &data, QByteArrayView labelEnd)
{
    qsizetype from = 0;
    while (true) {
        const qsizetype begin = data.indexOf("-----BEGIN ", from);
        if (begin < 0)
            return {};
        const qsizetype labelStart = begin + 11;
        const qsizetype labelStop = data.indexOf("-----", labelStart);
        if (labelStop < 0)
            return {};
        const QByteArray label = data.mid(labelStart, labelStop - labelStart);
        if (label.endsWith(labelEnd)) {
            const QByteArray endLine = "-----END " + label + "-----";
            const qsizetype end = data.indexOf(endLine, labelStop);
            if (end < 0)
                return {};
            return data.mid(begin, end + endLine.size() - begin) + '\n';
        }
        from = labelStop + 5;
    }
}

bool isEncryptedPemKey(const QByteArray &block)
{
    return block.contains("ENCRYPTED PRIVATE KEY") || block.contains("Proc-Type: 4,ENCRYPTED");
}

// A PKCS#12 file is a DER SEQUENCE starting with the version INTEGER 3.
bool looksLikePkcs12(const QByteArray &data)
{
    if (data.size() < 8 || quint8(data.at(0)) != 0x30)
        return false;
    const quint8 first = quint8(data.at(1));
    const qsizetype header = first < 0x80 ? 2 : 2 + (first & 0x7f);
    return data.size() > header + 3 && data.mid(header, 3) == QByteArrayView("\x02\x01\x03", 3);
}

QList<QSslCertificate> readCertificates(const QByteArray &data)
{
    QList<QSslCertificate> certificates = QSslCertificate::fromData(data, QSsl::Pem);
    if (certificates.isEmpty() && !data.contains("-----BEGIN"))
        certificates = QSslCertificate::fromData(data, QSsl::Der);
    certificates.removeIf([](const QSslCertificate &c) { return c.isNull(); });
    return certificates;
}

// Qt needs the key's algorithm to read it; a file says it only in some labels.
QSslKey readPrivateKey(const QByteArray &block, const QByteArray &passphrase)
{
    for (const QSsl::KeyAlgorithm algorithm : {QSsl::Rsa, QSsl::Ec, QSsl::Dsa}) {
        QSslKey key(block, algorithm, QSsl::Pem, QSsl::PrivateKey, passphrase);
        if (!key.isNull())
            return key;
    }
    return {};
}

// The system's CA certificates, read once: the bundle is trusted in addition to
// them, and a configuration with CA certificates of its own no longer loads the
// system's on demand.
const QList<QSslCertificate> &systemCaCertificates()
{
    static const QList<QSslCertificate> certificates = QSslConfiguration::systemCaCertificates();
    return certificates;
}

struct ClientIdentity
{
    QList<QSslCertificate> chain; ///< the client certificate first
    QSslKey key;
};

Result<ClientIdentity> readPkcs12(const QString &path, const QByteArray &data, const TransportOptions &options)
{
    if (!options.clientKeyPath.isEmpty()) {
        return Result<ClientIdentity>::failure(
            Tr::tr("the client certificate %1 is a PKCS#12 file, which holds its own key: leave the client key (%2) "
                   "empty")
                .arg(shown(path), shown(options.clientKeyPath)));
    }
    if (!looksLikePkcs12(data)) {
        return Result<ClientIdentity>::failure(
            Tr::tr("the client certificate %1 is neither PEM (\"-----BEGIN CERTIFICATE-----\") nor PKCS#12")
                .arg(shown(path)));
    }
    QBuffer buffer;
    buffer.setData(data);
    buffer.open(QIODevice::ReadOnly);
    ClientIdentity identity;
    QSslCertificate certificate;
    QList<QSslCertificate> caCertificates;
    const QByteArray passphrase = options.clientKeyPassphrase.toUtf8();
    if (!QSslCertificate::importPkcs12(&buffer, &identity.key, &certificate, &caCertificates, passphrase)) {
        return Result<ClientIdentity>::failure(options.clientKeyPassphrase.isEmpty()
                ? Tr::tr("the PKCS#12 file %1 cannot be opened without a passphrase: give its passphrase")
                      .arg(shown(path))
                : Tr::tr("the PKCS#12 file %1 cannot be opened with the passphrase given: the passphrase is wrong, or "
                         "the file is damaged")
                      .arg(shown(path)));
    }
    if (certificate.isNull() || identity.key.isNull()) {
        return Result<ClientIdentity>::failure(
            Tr::tr("the PKCS#12 file %1 holds no certificate with its private key").arg(shown(path)));
    }
    identity.chain = QList<QSslCertificate>{certificate} + caCertificates;
    return identity;
}

Result<ClientIdentity> readPem(const QString &path, const QByteArray &data, const TransportOptions &options)
{
    ClientIdentity identity;
    identity.chain = readCertificates(data);
    if (identity.chain.isEmpty()) {
        return Result<ClientIdentity>::failure(
            Tr::tr("the client certificate %1 holds no certificate (expected a PEM block \"-----BEGIN "
                   "CERTIFICATE-----\")")
                .arg(shown(path)));
    }
    QString keyPath = path;
    QByteArray keyData = data;
    QString keyRole = Tr::tr("the client certificate");
    if (!options.clientKeyPath.isEmpty()) {
        keyPath = options.clientKeyPath;
        keyRole = Tr::tr("the client key");
        auto read = readFile(keyPath, keyRole);
        if (!read)
            return read.errorDetail();
        keyData = std::move(read).value();
    }
    const QByteArray block = pemBlock(keyData, "PRIVATE KEY");
    if (block.isEmpty()) {
        return Result<ClientIdentity>::failure(options.clientKeyPath.isEmpty()
                ? Tr::tr("the client certificate %1 holds no private key: name the key file, or use a file with both")
                      .arg(shown(path))
                : Tr::tr("the client key %1 holds no private key (expected a PEM block \"-----BEGIN PRIVATE "
                         "KEY-----\")")
                      .arg(shown(keyPath)));
    }
    const bool encrypted = isEncryptedPemKey(block);
    if (encrypted && options.clientKeyPassphrase.isEmpty()) {
        return Result<ClientIdentity>::failure(
            Tr::tr("%1 %2 holds an encrypted private key: give its passphrase").arg(keyRole, shown(keyPath)));
    }
    identity.key = readPrivateKey(block, options.clientKeyPassphrase.toUtf8());
    if (identity.key.isNull()) {
        return Result<ClientIdentity>::failure(encrypted
                ? Tr::tr("the private key in %1 cannot be decrypted with the passphrase given: the passphrase is "
                         "wrong")
                      .arg(shown(keyPath))
                : Tr::tr("the private key in %1 cannot be read (RSA, EC and DSA keys in PEM are supported)")
                      .arg(shown(keyPath)));
    }
    return identity;
}

Result<ClientIdentity> readClientIdentity(const TransportOptions &options)
{
    const QString &path = options.clientCertificatePath;
    auto read = readFile(path, Tr::tr("the client certificate"));
    if (!read)
        return read.errorDetail();
    const QByteArray &data = read.value();
    if (data.contains("-----BEGIN"))
        return readPem(path, data, options);
    return readPkcs12(path, data, options);
}

QSsl::SslProtocol protocolFloor(TransportOptions::TlsFloor floor)
{
    switch (floor) {
    case TransportOptions::TlsFloor::Tls12:
        return QSsl::TlsV1_2OrLater;
    case TransportOptions::TlsFloor::Tls13:
        return QSsl::TlsV1_3OrLater;
    case TransportOptions::TlsFloor::Any:
        break;
    }
    return QSsl::SecureProtocols;
}

void addField(QCryptographicHash &hash, QByteArrayView field)
{
    // Length-prefixed, so that no two different lists of fields hash alike.
    hash.addData(QByteArray(QByteArray::number(field.size()) + ':'));
    hash.addData(field);
}

/// The system's proxy settings for each request (environment variables on Linux).
class SystemProxyFactory final : public QNetworkProxyFactory
{
public:
    QList<QNetworkProxy> queryProxy(const QNetworkProxyQuery &query) override
    {
        return QNetworkProxyFactory::systemProxyForQuery(query);
    }
};

QString normalisedHost(QString host)
{
    host = host.trimmed();
    if (host.startsWith(QLatin1Char('[')) && host.endsWith(QLatin1Char(']')))
        host = host.mid(1, host.size() - 2);
    return host.toLower();
}

} // namespace

Result<PreparedTransport> PreparedTransport::prepare(const TransportOptions &options)
{
    PreparedTransport prepared;
    prepared.m_options = options;
    // The connect timeout shapes no connection: such a request shares the default managers.
    if (options.sharesDefaultConnections())
        return prepared;

    QCryptographicHash key(QCryptographicHash::Sha256);
    addField(key, QByteArray::number(int(options.proxyMode)));
    addField(key, options.proxyHost.toUtf8());
    addField(key, QByteArray::number(options.proxyPort));
    addField(key, options.proxyUser.toUtf8());
    addField(key, options.proxyPassword.toUtf8());
    addField(key, QByteArray::number(int(options.httpVersion)));
    addField(key, QByteArray::number(int(options.tlsFloor)));
    QStringList insecure;
    for (const QString &host : options.insecureHosts)
        insecure.append(normalisedHost(host));
    insecure.sort();
    insecure.removeDuplicates();
    addField(key, insecure.join(QLatin1Char('\n')).toUtf8());
    // Connections to a pinned address carry the pinned name's TLS check; a
    // manager without keep-alive must never lend its connections to one with it.
    QStringList pins;
    for (const HostPin &pin : options.resolve)
        pins.append(pin.text());
    addField(key, pins.join(QLatin1Char('\n')).toUtf8());
    addField(key, QByteArray::number(int(options.ipFamily)));
    addField(key, QByteArray(options.keepAlive ? "keep-alive" : "close"));

    const bool tlsOptions = !options.caBundlePath.isEmpty() || !options.clientCertificatePath.isEmpty()
        || options.tlsFloor != TransportOptions::TlsFloor::Any;
    if (tlsOptions) {
        QSslConfiguration ssl = QSslConfiguration::defaultConfiguration();
        ssl.setProtocol(protocolFloor(options.tlsFloor));
        if (!options.caBundlePath.isEmpty()) {
            auto read = readFile(options.caBundlePath, Tr::tr("the CA bundle"));
            if (!read)
                return read.errorDetail();
            const QList<QSslCertificate> bundle = readCertificates(read.value());
            if (bundle.isEmpty()) {
                return Result<PreparedTransport>::failure(
                    Tr::tr("the CA bundle %1 holds no certificate (expected PEM blocks \"-----BEGIN "
                           "CERTIFICATE-----\")")
                        .arg(shown(options.caBundlePath)));
            }
            ssl.setCaCertificates(systemCaCertificates() + bundle);
            for (const QSslCertificate &certificate : bundle)
                addField(key, certificate.toDer());
            qCDebug(lcTransport).noquote() << "trusting" << bundle.size() << "certificate(s) of"
                                           << shown(options.caBundlePath) << "besides the system's";
        }
        if (!options.clientCertificatePath.isEmpty()) {
            auto identity = readClientIdentity(options);
            if (!identity)
                return identity.errorDetail();
            ssl.setLocalCertificateChain(identity->chain);
            ssl.setPrivateKey(identity->key);
            for (const QSslCertificate &certificate : identity->chain)
                addField(key, certificate.toDer());
            addField(key, identity->key.toDer());
        }
        prepared.m_ssl = ssl;
    } else if (!options.clientKeyPath.isEmpty()) {
        return Result<PreparedTransport>::failure(
            Tr::tr("the client key %1 is given without a client certificate").arg(shown(options.clientKeyPath)));
    }

    switch (options.proxyMode) {
    case TransportOptions::ProxyMode::None:
        prepared.m_proxy = QNetworkProxy(QNetworkProxy::NoProxy);
        break;
    case TransportOptions::ProxyMode::System:
        prepared.m_proxy = QNetworkProxy(QNetworkProxy::DefaultProxy);
        break;
    case TransportOptions::ProxyMode::Http:
    case TransportOptions::ProxyMode::Socks5:
        prepared.m_proxy
            = QNetworkProxy(options.proxyMode == TransportOptions::ProxyMode::Http ? QNetworkProxy::HttpProxy
                                                                                   : QNetworkProxy::Socks5Proxy,
                options.proxyHost, options.proxyPort, options.proxyUser, options.proxyPassword);
        break;
    }
    prepared.m_key = key.result().toHex();
    return prepared;
}

void PreparedTransport::configureManager(QNetworkAccessManager &manager) const
{
    if (isDefault())
        return;
    if (m_options.proxyMode == TransportOptions::ProxyMode::System)
        manager.setProxyFactory(new SystemProxyFactory); // owned by the manager
    else
        manager.setProxy(m_proxy);
}

void PreparedTransport::applyTo(QNetworkRequest &request) const
{
    if (m_ssl)
        request.setSslConfiguration(*m_ssl);
    switch (m_options.httpVersion) {
    case TransportOptions::HttpVersion::Http1:
        request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
        break;
    case TransportOptions::HttpVersion::Http2:
        // Offered by ALPN over TLS; cleartext stays HTTP/1.1 (Qt does no h2c upgrade).
        request.setAttribute(QNetworkRequest::Http2AllowedAttribute, true);
        break;
    case TransportOptions::HttpVersion::Http2PriorKnowledge:
        request.setAttribute(QNetworkRequest::Http2AllowedAttribute, true);
        // Over TLS, HTTP/2 is agreed by ALPN: Qt 6.4's direct mode would skip
        // ALPN there, and servers that choose by ALPN (nginx) then hang up.
        if (request.url().scheme().compare(QLatin1String("https"), Qt::CaseInsensitive) != 0)
            request.setAttribute(QNetworkRequest::Http2DirectAttribute, true);
        break;
    }
}

bool PreparedTransport::ignoresCertificateErrorsFor(const QUrl &url) const
{
    const QString host = normalisedHost(url.host());
    return std::any_of(m_options.insecureHosts.cbegin(), m_options.insecureHosts.cend(),
        [&host](const QString &entry) { return !host.isEmpty() && normalisedHost(entry) == host; });
}

QString PreparedTransport::proxyDescription() const
{
    const QString host
        = m_options.proxyHost.contains(QLatin1Char(':')) && !m_options.proxyHost.startsWith(QLatin1Char('['))
        ? QStringLiteral("[%1]").arg(m_options.proxyHost)
        : m_options.proxyHost;
    const QString address = QStringLiteral("%1:%2").arg(host).arg(m_options.proxyPort);
    switch (m_options.proxyMode) {
    case TransportOptions::ProxyMode::None:
        return {};
    case TransportOptions::ProxyMode::System:
        return Tr::tr("the system proxy");
    case TransportOptions::ProxyMode::Http:
        return Tr::tr("the HTTP proxy %1").arg(address);
    case TransportOptions::ProxyMode::Socks5:
        return Tr::tr("the SOCKS5 proxy %1").arg(address);
    }
    return {};
}

} // namespace RetryLab::Core
