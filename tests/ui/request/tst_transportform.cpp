// The Connection part of the request composer: it round-trips TransportOptions,
// reads the files as they are picked and names the one that cannot be used
// (without clearing anything), ties the certificate exemption to one host, and
// keeps the composer from sending while the connection cannot be used.
// Certificates are made by the openssl command line (tests/core/executor/realservers.h).

#include "tests/core/executor/realservers.h"
#include "ui/request/requestcomposer.h"
#include "ui/request/transportform.h"
#include "ui/widgets/fieldmessage.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

using namespace RetryLab;
using Core::TransportOptions;
using Ui::TransportForm;

Q_DECLARE_METATYPE(RetryLab::Core::TransportOptions)

namespace {

template<typename T>
T *child(const QWidget &parent, const char *name)
{
    T *found = parent.findChild<T *>(QString::fromLatin1(name));
    if (!found)
        qWarning("no child %s", name);
    return found;
}

QString problemShown(const TransportForm &form)
{
    const auto *message = child<Ui::FieldMessage>(form, "transportProblem");
    return message->kind() == Ui::FieldMessage::Kind::Error ? message->text() : QString();
}

} // namespace

class TestTransportForm final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();

    void roundTrip_data();
    void roundTrip();
    void usableFiles_noProblem_data();
    void usableFiles_noProblem();
    void badFile_inlineErrorNamesTheFile_nothingCleared_data();
    void badFile_inlineErrorNamesTheFile_nothingCleared();
    void ignoreCertificateErrors_offByDefault_forTheUrlsHostOnly();
    void browse_usesTheChooser_andChecksTheFile();
    void pkcs12_disablesTheKeyField();
    void resolve_badEntry_isAProblem();
    void preferencesMode_hasNoExemption();
    void composer_badFile_blocksSendingWithTheFileNamed();
    void composer_draftCarriesTheTransport_exemptionDroppedWithAnotherHost();

private:
    QTemporaryDir m_dir;
    RealServers::Certificates m_certs;
};

void TestTransportForm::initTestCase()
{
    QVERIFY2(!RealServers::findProgram(QStringLiteral("openssl")).isEmpty(),
        RealServers::missingProgram(QStringLiteral("openssl"), QStringLiteral("openssl")).constData());
    QVERIFY(m_dir.isValid());
    QString error;
    QVERIFY2(m_certs.make(m_dir.filePath(QStringLiteral("certs")), &error), qPrintable(error));
}

void TestTransportForm::roundTrip_data()
{
    QTest::addColumn<TransportOptions>("options");
    QTest::addRow("default") << TransportOptions{};
    TransportOptions tls;
    tls.caBundlePath = QStringLiteral("/nowhere/ca.pem");
    tls.clientCertificatePath = QStringLiteral("/nowhere/client.pem");
    tls.clientKeyPath = QStringLiteral("/nowhere/client.key");
    tls.clientKeyPassphrase = QStringLiteral("secret");
    tls.tlsFloor = TransportOptions::TlsFloor::Tls13;
    QTest::addRow("TLS files and floor") << tls;
    TransportOptions p12;
    p12.clientCertificatePath = QStringLiteral("/nowhere/client.p12");
    p12.clientKeyPassphrase = QStringLiteral("secret");
    p12.tlsFloor = TransportOptions::TlsFloor::Tls12;
    QTest::addRow("PKCS#12") << p12;
    TransportOptions http;
    http.proxyMode = TransportOptions::ProxyMode::Http;
    http.proxyHost = QStringLiteral("127.0.0.1");
    http.proxyPort = 3128;
    http.proxyUser = QStringLiteral("alice");
    http.proxyPassword = QStringLiteral("hunter2");
    QTest::addRow("HTTP proxy with login") << http;
    TransportOptions socks;
    socks.proxyMode = TransportOptions::ProxyMode::Socks5;
    socks.proxyHost = QStringLiteral("localhost");
    socks.proxyPort = 1080;
    socks.httpVersion = TransportOptions::HttpVersion::Http2;
    QTest::addRow("SOCKS5, HTTP/2") << socks;
    TransportOptions system;
    system.proxyMode = TransportOptions::ProxyMode::System;
    system.httpVersion = TransportOptions::HttpVersion::Http2PriorKnowledge;
    QTest::addRow("system proxy, h2c") << system;
    TransportOptions insecure;
    insecure.insecureHosts = {QStringLiteral("127.0.0.1")};
    QTest::addRow("exempt host") << insecure;
    TransportOptions connection;
    connection.connectTimeoutMs = 2500;
    connection.resolve = {Core::HostPin::parse(QStringLiteral("api.test:443:127.0.0.1")).value(),
        Core::HostPin::parse(QStringLiteral("[::1]:80:[::1]")).value()};
    connection.ipFamily = TransportOptions::IpFamily::V6;
    connection.keepAlive = false;
    QTest::addRow("connect timeout, pins, IPv6, no keep-alive") << connection;
}

void TestTransportForm::resolve_badEntry_isAProblem()
{
    TransportForm form;
    auto *resolve = form.findChild<QLineEdit *>(QStringLiteral("resolve"));
    QVERIFY(resolve);
    resolve->setText(QStringLiteral("api.test:443"));
    QVERIFY2(form.problem().contains(QLatin1String("HOST:PORT:ADDRESS")), qPrintable(form.problem()));
    resolve->setText(QStringLiteral("api.test:443:127.0.0.1"));
    QCOMPARE(form.problem(), QString());
    QCOMPARE(form.transport().resolve.size(), 1);
}

void TestTransportForm::roundTrip()
{
    QFETCH(TransportOptions, options);
    TransportForm form;
    form.setHost(QStringLiteral("127.0.0.1"));
    QSignalSpy changed(&form, &TransportForm::transportChanged);
    form.setTransport(options);
    QCOMPARE(form.transport(), options);
    QCOMPARE(changed.count(), 0);
    QCOMPARE(form.ignoresCertificateErrors(), !options.insecureHosts.isEmpty());
}

void TestTransportForm::usableFiles_noProblem_data()
{
    QTest::addColumn<QString>("certificate");
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("passphrase");
    QTest::addRow("CA only") << QString() << QString() << QString();
    QTest::addRow("PEM and key") << m_certs.clientPem << m_certs.clientKey << QString();
    QTest::addRow("encrypted key") << m_certs.clientPem << m_certs.clientEncryptedKey
                                   << QString::fromLatin1(RealServers::Certificates::passphrase);
    QTest::addRow("PKCS#12") << m_certs.clientP12 << QString()
                             << QString::fromLatin1(RealServers::Certificates::passphrase);
}

void TestTransportForm::usableFiles_noProblem()
{
    QFETCH(QString, certificate);
    QFETCH(QString, key);
    QFETCH(QString, passphrase);
    TransportForm form;
    child<QLineEdit>(form, "caBundle")->setText(m_certs.caPem);
    child<QLineEdit>(form, "clientCertificate")->setText(certificate);
    child<QLineEdit>(form, "clientKey")->setText(key);
    child<QLineEdit>(form, "passphrase")->setText(passphrase);
    QVERIFY2(form.problem().isEmpty(), qPrintable(form.problem()));
    QVERIFY(problemShown(form).isEmpty());
    QCOMPARE(form.transport().caBundlePath, m_certs.caPem);
    QCOMPARE(form.transport().clientCertificatePath, certificate);
}

void TestTransportForm::badFile_inlineErrorNamesTheFile_nothingCleared_data()
{
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("passphrase");
    QTest::addColumn<QString>("named"); // what the message must name
    QTest::addColumn<QString>("why"); // and a word of why
    const QString missing = m_dir.filePath(QStringLiteral("no-such-ca.pem"));
    QTest::addRow("CA missing") << QStringLiteral("caBundle") << missing << QString()
                                << QStringLiteral("no-such-ca.pem") << QStringLiteral("does not exist");
    QTest::addRow("CA is garbage") << QStringLiteral("caBundle") << m_certs.garbage << QString()
                                   << QStringLiteral("garbage.pem") << QStringLiteral("certificate");
    QTest::addRow("certificate missing") << QStringLiteral("clientCertificate")
                                         << m_dir.filePath(QStringLiteral("gone.pem")) << QString()
                                         << QStringLiteral("gone.pem") << QStringLiteral("does not exist");
    QTest::addRow("PKCS#12 wrong passphrase")
        << QStringLiteral("clientCertificate") << m_certs.clientP12 << QStringLiteral("xyzzy-4711")
        << QStringLiteral(".p12") << QStringLiteral("passphrase");
    QTest::addRow("PKCS#12 without passphrase") << QStringLiteral("clientCertificate") << m_certs.clientP12 << QString()
                                                << QStringLiteral(".p12") << QStringLiteral("passphrase");
}

void TestTransportForm::badFile_inlineErrorNamesTheFile_nothingCleared()
{
    QFETCH(QString, field);
    QFETCH(QString, path);
    QFETCH(QString, passphrase);
    QFETCH(QString, named);
    QFETCH(QString, why);
    TransportForm form;
    QSignalSpy changed(&form, &TransportForm::transportChanged);
    child<QLineEdit>(form, "passphrase")->setText(passphrase);
    auto *edit = form.findChild<QLineEdit *>(field);
    QVERIFY(edit);
    edit->setText(path);
    QVERIFY(changed.count() > 0);
    const QString shown = problemShown(form);
    QVERIFY2(shown.contains(named), qPrintable(shown));
    QVERIFY2(shown.contains(why, Qt::CaseInsensitive), qPrintable(shown));
    QCOMPARE(form.problem(), shown);
    if (!passphrase.isEmpty())
        QVERIFY2(!shown.contains(passphrase), "the passphrase is shown");
    // Nothing the user typed is lost.
    QCOMPARE(edit->text(), path);
    QCOMPARE(child<QLineEdit>(form, "passphrase")->text(), passphrase);
}

void TestTransportForm::ignoreCertificateErrors_offByDefault_forTheUrlsHostOnly()
{
    TransportForm form;
    auto *box = child<QCheckBox>(form, "ignoreCertificateErrors");
    auto *warning = child<QLabel>(form, "insecureWarning");
    QVERIFY(!box->isChecked());
    QVERIFY(!box->isEnabled()); // no URL, no host
    QVERIFY(form.transport().insecureHosts.isEmpty());

    form.setHost(QStringLiteral("127.0.0.1"));
    QVERIFY(box->isEnabled());
    QVERIFY2(box->text().contains(QLatin1String("127.0.0.1")), qPrintable(box->text()));
    QSignalSpy changed(&form, &TransportForm::transportChanged);
    box->click();
    QCOMPARE(changed.count(), 1);
    QCOMPARE(form.transport().insecureHosts, QStringList{QStringLiteral("127.0.0.1")});
    QVERIFY(!warning->isHidden());
    QVERIFY2(warning->text().contains(QLatin1String("127.0.0.1")), qPrintable(warning->text()));
    QVERIFY2(warning->text().contains(QLatin1String("Warning")), qPrintable(warning->text()));

    // Another host: the exemption is not carried over.
    form.setHost(QStringLiteral("example.org"));
    QVERIFY(!box->isChecked());
    QVERIFY(form.transport().insecureHosts.isEmpty());
    QVERIFY(warning->isHidden());
    const auto *message = child<Ui::FieldMessage>(form, "transportProblem");
    QVERIFY2(message->text().contains(QLatin1String("no longer ignored")), qPrintable(message->text()));
}

void TestTransportForm::browse_usesTheChooser_andChecksTheFile()
{
    TransportForm form;
    QStringList asked;
    QString answer = m_certs.garbage;
    form.setFileChooser([&](const QString &title, const QString &, const QString &) {
        asked.append(title);
        return answer;
    });
    QSignalSpy changed(&form, &TransportForm::transportChanged);
    child<QToolButton>(form, "caBundleBrowse")->click();
    QCOMPARE(asked.size(), 1);
    QVERIFY(changed.count() > 0);
    QVERIFY2(form.problem().contains(QLatin1String("garbage.pem")), qPrintable(form.problem()));
    answer = m_certs.caPem;
    child<QToolButton>(form, "caBundleBrowse")->click();
    QVERIFY2(form.problem().isEmpty(), qPrintable(form.problem()));
    QCOMPARE(form.transport().caBundlePath, QDir::toNativeSeparators(m_certs.caPem));
    // Cancelled: the path stays.
    answer.clear();
    child<QToolButton>(form, "caBundleBrowse")->click();
    QCOMPARE(form.transport().caBundlePath, QDir::toNativeSeparators(m_certs.caPem));
}

void TestTransportForm::pkcs12_disablesTheKeyField()
{
    TransportForm form;
    auto *key = child<QLineEdit>(form, "clientKey");
    child<QLineEdit>(form, "clientCertificate")->setText(QStringLiteral("/x/client.p12"));
    QVERIFY(!key->isEnabled());
    child<QLineEdit>(form, "clientCertificate")->setText(QStringLiteral("/x/client.pem"));
    QVERIFY(key->isEnabled());
    // The proxy fields only for an explicit proxy.
    auto *mode = child<QComboBox>(form, "proxyMode");
    QVERIFY(!child<QLineEdit>(form, "proxyHost")->isEnabled());
    mode->setCurrentIndex(mode->findData(static_cast<int>(TransportOptions::ProxyMode::Socks5)));
    QVERIFY(child<QLineEdit>(form, "proxyHost")->isEnabled());
    // An explicit proxy without an address is a problem, said at once.
    QVERIFY2(!form.problem().isEmpty(), "no problem for a proxy without host");
}

void TestTransportForm::preferencesMode_hasNoExemption()
{
    TransportForm form;
    form.setPreferencesMode(true);
    form.setHost(QStringLiteral("127.0.0.1"));
    TransportOptions options;
    options.insecureHosts = {QStringLiteral("127.0.0.1")};
    options.httpVersion = TransportOptions::HttpVersion::Http2;
    form.setTransport(options);
    QVERIFY(form.transport().insecureHosts.isEmpty());
    QCOMPARE(form.transport().httpVersion, TransportOptions::HttpVersion::Http2);
    QVERIFY(child<QCheckBox>(form, "ignoreCertificateErrors")->isHidden());
    QVERIFY(child<QToolButton>(form, "useDefaultTransport")->isHidden());
}

void TestTransportForm::composer_badFile_blocksSendingWithTheFileNamed()
{
    Ui::RequestComposer composer;
    Core::RequestDraft draft;
    draft.urlTemplate = QStringLiteral("https://127.0.0.1:9/x");
    composer.setDraft(draft);
    QVERIFY2(composer.canSend(), qPrintable(composer.problem()));
    QSignalSpy edited(&composer, &Ui::RequestComposer::draftChanged);
    child<QLineEdit>(*composer.transportForm(), "caBundle")->setText(m_dir.filePath(QStringLiteral("missing-ca.pem")));
    QVERIFY(edited.count() > 0);
    QVERIFY(!composer.canSend());
    QVERIFY(!composer.sendAction()->isEnabled());
    QVERIFY2(composer.problem().contains(QLatin1String("missing-ca.pem")), qPrintable(composer.problem()));
    QVERIFY2(composer.sendAction()->toolTip().contains(QLatin1String("missing-ca.pem")),
        qPrintable(composer.sendAction()->toolTip()));
    const auto *tabs = composer.findChild<QTabWidget *>(QStringLiteral("details"));
    const int connection = tabs->indexOf(composer.findChild<QWidget *>(QStringLiteral("connectionScroll")));
    QVERIFY2(tabs->tabText(connection).startsWith(QLatin1String("Connection")), qPrintable(tabs->tabText(connection)));
    QVERIFY(tabs->tabText(connection).contains(QChar(0x26a0)));

    child<QLineEdit>(*composer.transportForm(), "caBundle")->setText(m_certs.caPem);
    QVERIFY2(composer.canSend(), qPrintable(composer.problem()));
    QCOMPARE(composer.draft().transport.caBundlePath, m_certs.caPem);
}

void TestTransportForm::composer_draftCarriesTheTransport_exemptionDroppedWithAnotherHost()
{
    Ui::RequestComposer composer;
    Core::RequestDraft draft;
    draft.urlTemplate = QStringLiteral("https://localhost:8443/x");
    draft.transport.insecureHosts = {QStringLiteral("localhost")};
    draft.transport.httpVersion = TransportOptions::HttpVersion::Http2;
    composer.setDraft(draft);
    QCOMPARE(composer.draft(), draft);
    const auto *tabs = composer.findChild<QTabWidget *>(QStringLiteral("details"));
    const int connection = tabs->indexOf(composer.findChild<QWidget *>(QStringLiteral("connectionScroll")));
    QVERIFY2(tabs->tabText(connection).contains(QLatin1String("insecure")), qPrintable(tabs->tabText(connection)));

    auto *url = composer.findChild<QComboBox *>(QStringLiteral("url"));
    url->setCurrentText(QStringLiteral("https://example.org/x"));
    QVERIFY(composer.draft().transport.insecureHosts.isEmpty());
    QCOMPARE(composer.draft().transport.httpVersion, TransportOptions::HttpVersion::Http2);
    // A draft whose exemption is for another host than its URL's does not ignore anything.
    Core::RequestDraft other = draft;
    other.urlTemplate = QStringLiteral("https://example.org/x");
    composer.setDraft(other);
    QVERIFY(composer.draft().transport.insecureHosts.isEmpty());
}

QTEST_MAIN(TestTransportForm)
#include "tst_transportform.moc"
