// The connection settings as a file keeps them: what is kept, and what never
// is (passphrase, proxy password, hosts whose certificate errors are ignored),
// alone and in a request draft. The settings file's use of them is
// tests/ui/session/tst_settings.cpp's.

#include "core/collections/requestdraft.h"
#include "core/collections/savedtransport.h"
#include "tests/core/collections/transportfixtures.h"

#include <QCoreApplication>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSettings>
#include <QStandardPaths>
#include <QTest>

using namespace RetryLab;
using Core::RequestDraft;
using Core::TransportOptions;
namespace SavedTransport = Core::SavedTransport;
using TransportFixtures::everything;

Q_DECLARE_METATYPE(RetryLab::Core::TransportOptions)

class TestSavedTransport final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();

    void roundTrip_keepsWhatMayBeKept_data();
    void roundTrip_keepsWhatMayBeKept();
    void toJson_neverWritesSecretsOrExemptions();
    void fromJson_badField_isNamed_data();
    void fromJson_badField_isNamed();
    void requestDraft_transport_savedWithoutSecretsOrExemptions();
    void requestDraft_defaultTransport_addsNoField();

private:
    static QString settingsPath() { return QSettings().fileName(); }
};

void TestSavedTransport::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("RetryLab"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_savedtransport"));
    QVERIFY(settingsPath().contains(QLatin1String("qttest")));
}

void TestSavedTransport::init()
{
    QFile::remove(settingsPath());
}

void TestSavedTransport::roundTrip_keepsWhatMayBeKept_data()
{
    QTest::addColumn<TransportOptions>("options");
    QTest::addRow("default") << TransportOptions{};
    TransportOptions ca;
    ca.caBundlePath = QStringLiteral("/tmp/ca.pem");
    QTest::addRow("CA bundle") << ca;
    TransportOptions p12;
    p12.clientCertificatePath = QStringLiteral("/tmp/client.p12");
    p12.tlsFloor = TransportOptions::TlsFloor::Tls12;
    QTest::addRow("PKCS#12, TLS 1.2") << p12;
    TransportOptions socks;
    socks.proxyMode = TransportOptions::ProxyMode::Socks5;
    socks.proxyHost = QStringLiteral("127.0.0.1");
    socks.proxyPort = 1080;
    QTest::addRow("SOCKS5") << socks;
    TransportOptions system;
    system.proxyMode = TransportOptions::ProxyMode::System;
    system.httpVersion = TransportOptions::HttpVersion::Http2PriorKnowledge;
    QTest::addRow("system proxy, h2c") << system;
    QTest::addRow("everything") << SavedTransport::withoutSessionOnly(everything());
    TransportOptions connection;
    connection.connectTimeoutMs = 1500;
    connection.resolve = {Core::HostPin::parse(QStringLiteral("api.test:443:10.0.0.9")).value()};
    connection.ipFamily = TransportOptions::IpFamily::V6;
    connection.keepAlive = false;
    QTest::addRow("connect timeout, pin, IPv6, no keep-alive") << connection;
}

void TestSavedTransport::roundTrip_keepsWhatMayBeKept()
{
    QFETCH(TransportOptions, options);
    const auto back = SavedTransport::fromJson(SavedTransport::toJson(options));
    QVERIFY2(back.ok(), qPrintable(back.error()));
    QCOMPARE(*back, options);
}

void TestSavedTransport::toJson_neverWritesSecretsOrExemptions()
{
    const QByteArray text = QJsonDocument(SavedTransport::toJson(everything())).toJson();
    QVERIFY2(!text.contains("open sesame"), text.constData());
    QVERIFY2(!text.contains("hunter2"), text.constData());
    QVERIFY2(!text.contains("127.0.0.1"), text.constData());
    QVERIFY2(!text.contains("insecure"), text.constData());
    QVERIFY(text.contains("alice"));
    QVERIFY(text.contains("proxy.test"));
    const auto back = SavedTransport::fromJson(SavedTransport::toJson(everything()));
    QVERIFY(back.ok());
    QCOMPARE(*back, SavedTransport::withoutSessionOnly(everything()));
}

void TestSavedTransport::fromJson_badField_isNamed_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("path");
    QTest::addRow("port too big") << QByteArray(R"({"proxyPort": 70000})") << QStringLiteral("transport.proxyPort");
    QTest::addRow("unknown floor") << QByteArray(R"({"tlsFloor": "ssl3"})") << QStringLiteral("transport.tlsFloor");
    QTest::addRow("misspelt field") << QByteArray(R"({"caBundel": "/x"})") << QStringLiteral("transport.caBundel");
    QTest::addRow("path not text") << QByteArray(R"({"caBundlePath": 3})") << QStringLiteral("transport.caBundlePath");
    QTest::addRow("connect timeout 0") << QByteArray(R"({"connectTimeoutMs": 0})")
                                       << QStringLiteral("transport.connectTimeoutMs");
    QTest::addRow("connect timeout negative")
        << QByteArray(R"({"connectTimeoutMs": -5})") << QStringLiteral("transport.connectTimeoutMs");
    QTest::addRow("pin without an address")
        << QByteArray(R"({"resolve": ["api.test:443"]})") << QStringLiteral("transport.resolve");
    QTest::addRow("unknown IP family") << QByteArray(R"({"ipFamily": "ipv5"})") << QStringLiteral("transport.ipFamily");
}

void TestSavedTransport::fromJson_badField_isNamed()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, path);
    const auto read = SavedTransport::fromJson(QJsonDocument::fromJson(json).object(), QStringLiteral("transport"));
    QVERIFY(!read.ok());
    QCOMPARE(read.errorDetail().path, path);
}

void TestSavedTransport::requestDraft_transport_savedWithoutSecretsOrExemptions()
{
    RequestDraft draft;
    draft.transport = everything();
    for (const bool keepCredentials : {false, true}) {
        const QJsonObject json = draft.toJson(keepCredentials);
        const QByteArray text = QJsonDocument(json).toJson();
        QVERIFY2(!text.contains("hunter2") && !text.contains("open sesame"), text.constData());
        QVERIFY2(!text.contains("insecure"), text.constData());
        const auto back = RequestDraft::fromJson(json);
        QVERIFY2(back.ok(), qPrintable(back.error()));
        QCOMPARE(back->transport, SavedTransport::withoutSessionOnly(everything()));
    }
}

void TestSavedTransport::requestDraft_defaultTransport_addsNoField()
{
    RequestDraft draft;
    // An exemption alone is not saved, so it adds nothing either.
    draft.transport.insecureHosts = {QStringLiteral("example.org")};
    QVERIFY(!draft.toJson().contains(QStringLiteral("transport")));
}

QTEST_GUILESS_MAIN(TestSavedTransport)
#include "tst_savedtransport.moc"
