// The connection settings as the settings file keeps them: what is kept, and
// what never is (passphrase, proxy password, hosts whose certificate errors are
// ignored), in a request draft and as the Preferences default.

#include "ui/session/requestdraft.h"
#include "ui/session/savedtransport.h"
#include "ui/session/settings.h"

#include <QCoreApplication>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSettings>
#include <QStandardPaths>
#include <QTest>

using namespace RetryLab;
using Core::TransportOptions;
using Ui::RequestDraft;
using Ui::Settings;
namespace SavedTransport = Ui::SavedTransport;

Q_DECLARE_METATYPE(RetryLab::Core::TransportOptions)

namespace {

TransportOptions everything()
{
    TransportOptions t;
    t.caBundlePath = QStringLiteral("/etc/ssl/extra-ca.pem");
    t.clientCertificatePath = QStringLiteral("/home/me/client.pem");
    t.clientKeyPath = QStringLiteral("/home/me/client.key");
    t.clientKeyPassphrase = QStringLiteral("open sesame");
    t.tlsFloor = TransportOptions::TlsFloor::Tls13;
    t.insecureHosts = {QStringLiteral("127.0.0.1")};
    t.proxyMode = TransportOptions::ProxyMode::Http;
    t.proxyHost = QStringLiteral("proxy.test");
    t.proxyPort = 3128;
    t.proxyUser = QStringLiteral("alice");
    t.proxyPassword = QStringLiteral("hunter2");
    t.httpVersion = TransportOptions::HttpVersion::Http2;
    return t;
}

} // namespace

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
    void settings_insecureHost_isNeverWrittenToTheFile();
    void settings_newRequest_startsFromTheDefaultTransport();
    void settings_damagedDefault_isReported_defaultsUsed();
    void settings_serverHttps_onByDefault_offWhenTurnedOff();

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

void TestSavedTransport::settings_insecureHost_isNeverWrittenToTheFile()
{
    {
        Settings settings;
        RequestDraft draft;
        draft.urlTemplate = QStringLiteral("https://secret-host.test/x");
        draft.transport.insecureHosts = {QStringLiteral("secret-host.test")};
        draft.transport.caBundlePath = QStringLiteral("/tmp/ca.pem");
        settings.setRequestDraft(draft);
        settings.setDefaultTransport(everything());
        QVERIFY(settings.sync().ok());
    }
    QFile file(settingsPath());
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray text = file.readAll();
    QVERIFY2(!text.contains("insecure"), text.constData());
    QVERIFY2(!text.contains("hunter2") && !text.contains("open sesame"), text.constData());
    Settings again;
    QVERIFY(again.requestDraft().transport.insecureHosts.isEmpty());
    QCOMPARE(again.requestDraft().transport.caBundlePath, QStringLiteral("/tmp/ca.pem"));
    QCOMPARE(again.defaultTransport(), SavedTransport::withoutSessionOnly(everything()));
    QVERIFY(again.problems().isEmpty());
}

void TestSavedTransport::settings_newRequest_startsFromTheDefaultTransport()
{
    Settings settings;
    TransportOptions defaults;
    defaults.caBundlePath = QStringLiteral("/tmp/company-ca.pem");
    defaults.httpVersion = TransportOptions::HttpVersion::Http2;
    settings.setDefaultTransport(defaults);
    QCOMPARE(settings.requestDraft().transport, defaults);
    QCOMPARE(settings.requestDraft().urlTemplate, RequestDraft::defaultUrlTemplate());
    // A saved request keeps its own connection.
    RequestDraft own;
    settings.setRequestDraft(own);
    QCOMPARE(settings.requestDraft().transport, TransportOptions{});
}

void TestSavedTransport::settings_damagedDefault_isReported_defaultsUsed()
{
    {
        QSettings raw;
        raw.setValue(QStringLiteral("request/defaultTransport"), QStringLiteral(R"({"proxyMode": "carrier-pigeon"})"));
    }
    Settings settings;
    QCOMPARE(settings.defaultTransport(), TransportOptions{});
    const QStringList problems = settings.problems();
    QCOMPARE(problems.size(), 1);
    QVERIFY2(problems.first().contains(QLatin1String("proxyMode")), qPrintable(problems.first()));
}

void TestSavedTransport::settings_serverHttps_onByDefault_offWhenTurnedOff()
{
    Settings settings;
    QCOMPARE(settings.serverHttpsPort(), std::optional<quint16>(0));
    settings.setServerHttpsPort(std::nullopt);
    QCOMPARE(settings.serverHttpsPort(), std::nullopt);
    settings.setServerHttpsPort(8443);
    QCOMPARE(settings.serverHttpsPort(), std::optional<quint16>(8443));
}

QTEST_GUILESS_MAIN(TestSavedTransport)
#include "tst_savedtransport.moc"
