// HTTPS of the window's embedded server: turned on and off on the same HTTP
// port, a port that is taken refused with the server kept as it was, and the CA
// file requests trust, shared by every window running at the same time.

#include "core/faultserver/faultserver.h"
#include "ui/session/hosting/embeddedserver.h"

#include <QCoreApplication>
#include <QFile>
#include <QSslCertificate>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTest>

using namespace RetryLab;
using Ui::EmbeddedServer;

namespace {

QList<QSslCertificate> certificatesIn(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QSslCertificate::fromData(file.readAll(), QSsl::Pem);
}

Core::FaultServerOptions withHttps()
{
    Core::FaultServerOptions options;
    options.httpsPort = 0;
    return options;
}

} // namespace

class TestEmbeddedServerHttps final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();

    void https_caFileHoldsTheServersCa();
    void caFile_keepsTheCasOfOtherWindows_upToAFew();
    void setHttpsPort_onAndOff_keepsTheHttpPort();
    void setHttpsPort_portTaken_refused_serverAsBefore();
};

void TestEmbeddedServerHttps::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("RetryLab"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_embeddedserverhttps"));
    QVERIFY(EmbeddedServer::defaultCaFilePath().contains(QLatin1String("qttest")));
}

void TestEmbeddedServerHttps::init()
{
    QFile::remove(EmbeddedServer::defaultCaFilePath());
}

void TestEmbeddedServerHttps::https_caFileHoldsTheServersCa()
{
    EmbeddedServer plain;
    QVERIFY(plain.start());
    QVERIFY(plain.caFilePath().isEmpty());
    QVERIFY(plain.httpsBaseUrl().isEmpty());

    EmbeddedServer server;
    QVERIFY2(server.start(withHttps()), qPrintable(server.errorString()));
    QVERIFY(server.httpsBaseUrl().toString().startsWith(QLatin1String("https://127.0.0.1:")));
    QCOMPARE(server.caFilePath(), EmbeddedServer::defaultCaFilePath());
    const auto certificates = certificatesIn(server.caFilePath());
    QCOMPARE(certificates.size(), 1);
    QCOMPARE(certificates.first(), server.server()->caCertificate());
}

void TestEmbeddedServerHttps::caFile_keepsTheCasOfOtherWindows_upToAFew()
{
    EmbeddedServer first;
    EmbeddedServer second;
    QVERIFY(first.start(withHttps()));
    QVERIFY(second.start(withHttps()));
    auto certificates = certificatesIn(EmbeddedServer::defaultCaFilePath());
    QCOMPARE(certificates.size(), 2);
    QCOMPARE(certificates.at(0), second.server()->caCertificate());
    QCOMPARE(certificates.at(1), first.server()->caCertificate());

    for (int i = 0; i < EmbeddedServer::maxTrustedCas + 2; ++i)
        QVERIFY(first.start(withHttps()));
    certificates = certificatesIn(EmbeddedServer::defaultCaFilePath());
    QCOMPARE(certificates.size(), EmbeddedServer::maxTrustedCas);
    QCOMPARE(certificates.first(), first.server()->caCertificate());
}

void TestEmbeddedServerHttps::setHttpsPort_onAndOff_keepsTheHttpPort()
{
    EmbeddedServer server;
    QVERIFY(server.start());
    const QUrl http = server.baseUrl();
    QVERIFY(server.setHttpsPort(0));
    QCOMPARE(server.baseUrl(), http);
    QVERIFY(!server.httpsBaseUrl().isEmpty());
    QVERIFY(!server.caFilePath().isEmpty());
    QVERIFY(server.setHttpsPort(std::nullopt));
    QCOMPARE(server.baseUrl(), http);
    QVERIFY(server.httpsBaseUrl().isEmpty());
    QVERIFY(server.caFilePath().isEmpty());
}

void TestEmbeddedServerHttps::setHttpsPort_portTaken_refused_serverAsBefore()
{
    QTcpServer taken;
    QVERIFY(taken.listen(QHostAddress::LocalHost));
    EmbeddedServer server;
    QVERIFY(server.start());
    const QUrl http = server.baseUrl();
    QVERIFY(!server.setHttpsPort(taken.serverPort()));
    QVERIFY2(!server.errorString().isEmpty(), "no reason given");
    QVERIFY(server.isRunning());
    QCOMPARE(server.baseUrl(), http);
    QVERIFY(server.httpsBaseUrl().isEmpty());
}

QTEST_GUILESS_MAIN(TestEmbeddedServerHttps)
#include "tst_embeddedserverhttps.moc"
