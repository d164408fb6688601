// TLS, proxies and HTTPS in the window, against the embedded fault server's
// HTTPS port on loopback: its CA trusted from the Server tab (the run succeeds
// and the attempt records TLS and protocol), not trusted (a TLS error), or its
// certificate errors ignored (the red banner, a success marked as such); the
// exemption never saved; a file that cannot be used keeps the request from
// going out; the Server tab's HTTPS URLs; Preferences' default connection.

#include "core/executor/threadedexecutor.h"
#include "core/faultserver/faultserver.h"
#include "core/faultserver/tlsfault.h"
#include "core/policy/backoffpolicy.h"
#include "tests/core/executor/realservers.h"
#include "tests/ui/windowparts.h"
#include "ui/mainwindow.h"
#include "ui/policy/policypanel.h"
#include "ui/preferencesdialog.h"
#include "ui/request/requestcomposer.h"
#include "ui/request/transportform.h"
#include "ui/server/httpspanel.h"
#include "ui/server/serverview.h"
#include "ui/session/hosting/embeddedserver.h"
#include "ui/session/run/runsession.h"
#include "ui/session/settings/settings.h"
#include "ui/transportcontroller.h"
#include "ui/widgets/insecurebanner.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

#include <memory>

using namespace RetryLab;
using Ui::MainWindow;

namespace {

Core::BackoffPolicy fastPolicy()
{
    Core::BackoffPolicy policy;
    policy.name = QStringLiteral("TLS window test");
    policy.algorithm = Core::BackoffAlgorithm::Exponential;
    policy.baseDelayMs = 20.0;
    policy.maxBackoffMs = 100.0;
    policy.maxAttempts = 2;
    policy.attemptTimeoutMs = 5000.0;
    return policy;
}

struct Run
{
    QList<Core::AttemptRecord> attempts;
    Core::RequestResult result;
};

} // namespace

class TestMainWindowTls final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();

    void serverTab_showsHttpsUrls_savesTheCa_turnsHttpsOff();
    void trustedCa_runSucceeds_tlsAndProtocolRecorded();
    void withoutCa_runFailsWithATlsError();
    void ignoreCertificateErrors_redBanner_runSucceedsMarked();
    void ignoreCertificateErrors_isNeverSaved();
    void unusableCaFile_nothingSent_fileNamed();
    void unreachableProxy_attemptSaysWhichProxy();
    void preferences_defaultConnection_newRequestsStartFromIt();
    void serverTab_ownCertificate_presentedAndKept_badOneNamed();

private:
    std::unique_ptr<MainWindow> makeWindow();
    static void setUrl(MainWindow &window, const QString &url);
    static Run sendAndWait(MainWindow &window);
    static QString settingsPath() { return QSettings().fileName(); }

    QTemporaryDir m_dir;
    RealServers::Certificates m_certs;
};

void TestMainWindowTls::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("RetryLab"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_mainwindowtls"));
    QVERIFY(settingsPath().contains(QLatin1String("qttest")));
    QVERIFY(m_dir.isValid());
    QVERIFY2(!RealServers::findProgram(QStringLiteral("openssl")).isEmpty(),
        RealServers::missingProgram(QStringLiteral("openssl"), QStringLiteral("openssl")).constData());
    QString error;
    QVERIFY2(m_certs.make(m_dir.filePath(QStringLiteral("certs")), &error), qPrintable(error));
}

void TestMainWindowTls::init()
{
    QFile::remove(settingsPath());
}

std::unique_ptr<MainWindow> TestMainWindowTls::makeWindow()
{
    auto window = std::make_unique<MainWindow>();
    policyPanelOf(*window)->setPolicy(fastPolicy());
    window->show();
    if (!QTest::qWaitForWindowExposed(window.get()))
        return nullptr;
    return window;
}

void TestMainWindowTls::setUrl(MainWindow &window, const QString &url)
{
    composerOf(window)->findChild<QComboBox *>(QStringLiteral("url"))->setCurrentText(url);
}

Run TestMainWindowTls::sendAndWait(MainWindow &window)
{
    Run run;
    QObject context;
    connect(executorOf(window), &Core::ThreadedExecutor::attemptFinished, &context,
        [&run](const Core::AttemptRecord &record) { run.attempts.append(record); });
    QSignalSpy finished(executorOf(window), &Core::ThreadedExecutor::requestFinished);
    composerOf(window)->sendAction()->trigger();
    if (!finished.wait(15'000))
        qWarning("the request did not finish");
    if (!finished.isEmpty())
        run.result = finished.first().first().value<Core::RequestResult>();
    return run;
}

void TestMainWindowTls::serverTab_showsHttpsUrls_savesTheCa_turnsHttpsOff()
{
    auto window = makeWindow();
    QVERIFY(window);
    Ui::HttpsPanel *https = serverViewOf(*window)->httpsPanel();
    Core::FaultServer *server = window->server()->server();
    QVERIFY(server);
    // On by default, on a free port.
    QVERIFY(!server->httpsBaseUrl().isEmpty());
    const auto urls = https->shownUrls();
    QCOMPARE(urls.size(), 1 + Core::TlsFaults::all().size());
    QCOMPARE(urls.first().second, server->httpsBaseUrl());
    QVERIFY(https->findChild<QLabel *>(QStringLiteral("httpsUrl"))->text().contains(server->httpsBaseUrl().toString()));
    for (const Core::TlsFault fault : Core::TlsFaults::all()) {
        const QString name = Core::TlsFaults::name(fault);
        auto *label = https->findChild<QLabel *>(QStringLiteral("httpsUrl_") + name);
        QVERIFY2(label, qPrintable(name));
        QVERIFY2(label->text().contains(QString::number(server->tlsFaultUrl(fault).port())), qPrintable(label->text()));
        QVERIFY2(label->toolTip().contains(server->tlsFaultUrl(fault).toString()), qPrintable(label->toolTip()));
        QVERIFY(https->findChild<QToolButton *>(QStringLiteral("copyHttpsUrl_") + name));
    }
    QVERIFY(!window->server()->caFilePath().isEmpty());

    const QString saved = m_dir.filePath(QStringLiteral("ca.pem"));
    https->setSaveChooser([&](const QString &, const QString &, const QString &) { return saved; });
    https->findChild<QToolButton *>(QStringLiteral("saveCaCertificate"))->click();
    QFile file(saved);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), server->trustAnchorsPem());
    QVERIFY2(https->message().contains(QLatin1String("ca.pem")), qPrintable(https->message()));

    // Off: the HTTP port stays where {server} points.
    const QUrl httpBefore = window->server()->baseUrl();
    https->findChild<QCheckBox *>(QStringLiteral("httpsEnabled"))->click();
    QVERIFY(window->server()->isRunning());
    QCOMPARE(window->server()->baseUrl(), httpBefore);
    QVERIFY(window->server()->httpsBaseUrl().isEmpty());
    QVERIFY(https->shownUrls().isEmpty());
    QCOMPARE(settingsOf(*window)->serverHttpsPort(), std::nullopt);
    QVERIFY(composerOf(*window)->canSend());
    // And on again.
    https->findChild<QCheckBox *>(QStringLiteral("httpsEnabled"))->click();
    QVERIFY(!window->server()->httpsBaseUrl().isEmpty());
    QCOMPARE(window->server()->baseUrl(), httpBefore);
    QCOMPARE(settingsOf(*window)->serverHttpsPort(), std::optional<quint16>(0));
}

void TestMainWindowTls::trustedCa_runSucceeds_tlsAndProtocolRecorded()
{
    auto window = makeWindow();
    QVERIFY(window);
    serverViewOf(*window)->httpsPanel()->findChild<QToolButton *>(QStringLiteral("trustServerCa"))->click();
    QCOMPARE(composerOf(*window)->draft().transport.caBundlePath, window->server()->caFilePath());
    setUrl(*window, window->server()->httpsBaseUrl().toString() + QStringLiteral("/status/200"));
    QVERIFY2(composerOf(*window)->canSend(), qPrintable(composerOf(*window)->problem()));

    const Run run = sendAndWait(*window);
    QCOMPARE(run.result.outcome, Core::RequestOutcome::Succeeded);
    QCOMPARE(run.attempts.size(), 1);
    const Core::AttemptRecord &a = run.attempts.first();
    QCOMPARE(a.httpStatus, 200);
    QCOMPARE(a.protocol, QStringLiteral("HTTP/1.1"));
    QVERIFY2(a.tls.protocol.startsWith(QLatin1String("TLSv1.")), qPrintable(a.tls.protocol));
    QVERIFY(!a.tls.cipher.isEmpty());
    QVERIFY(a.tls.errors.isEmpty());
    QVERIFY(!a.tls.errorsIgnored);
    QVERIFY(insecureBannerOf(*window)->isHidden());
}

void TestMainWindowTls::withoutCa_runFailsWithATlsError()
{
    auto window = makeWindow();
    QVERIFY(window);
    setUrl(*window, window->server()->httpsBaseUrl().toString() + QStringLiteral("/status/200"));
    const Run run = sendAndWait(*window);
    QVERIFY(run.result.outcome != Core::RequestOutcome::Succeeded);
    QVERIFY(!run.attempts.isEmpty());
    QCOMPARE(run.attempts.first().networkError, QNetworkReply::SslHandshakeFailedError);
    QCOMPARE(run.attempts.first().cause, QStringLiteral("tls-failure"));
    QVERIFY(!run.attempts.first().tls.errors.isEmpty());
    QVERIFY(!run.attempts.first().tls.errorsIgnored);
}

void TestMainWindowTls::ignoreCertificateErrors_redBanner_runSucceedsMarked()
{
    auto window = makeWindow();
    QVERIFY(window);
    Ui::InsecureBanner *banner = insecureBannerOf(*window);
    QVERIFY(banner->isHidden());
    setUrl(*window, window->server()->httpsBaseUrl().toString() + QStringLiteral("/status/200"));
    auto *box = composerOf(*window)->transportForm()->findChild<QCheckBox *>(QStringLiteral("ignoreCertificateErrors"));
    QVERIFY(!box->isChecked());
    box->click();
    QVERIFY(!banner->isHidden());
    QVERIFY2(banner->text().contains(QLatin1String("127.0.0.1")), qPrintable(banner->text()));
    QVERIFY2(banner->text().contains(QLatin1String("IGNORED")), qPrintable(banner->text()));
    QCOMPARE(banner->palette().color(QPalette::Window), QColor(0xb0, 0x00, 0x20));

    const Run run = sendAndWait(*window);
    QCOMPARE(run.result.outcome, Core::RequestOutcome::Succeeded);
    QCOMPARE(run.attempts.size(), 1);
    QVERIFY(run.attempts.first().tls.errorsIgnored);
    QVERIFY(!run.attempts.first().tls.errors.isEmpty());
    QCOMPARE(banner->ignoredAttempts(), 1);
    QVERIFY2(banner->text().contains(QLatin1String("1 attempt")), qPrintable(banner->text()));

    // Off again: the run still says what it accepted, until it is cleared.
    box->click();
    QVERIFY(composerOf(*window)->draft().transport.insecureHosts.isEmpty());
    QVERIFY(!banner->isHidden());
    QVERIFY(!banner->text().contains(QLatin1String("IGNORED for")));
    runActionsOf(*window)->clearAction()->trigger();
    QVERIFY(banner->isHidden());
}

void TestMainWindowTls::ignoreCertificateErrors_isNeverSaved()
{
    {
        auto window = makeWindow();
        QVERIFY(window);
        serverViewOf(*window)->httpsPanel()->findChild<QToolButton *>(QStringLiteral("trustServerCa"))->click();
        setUrl(*window, QStringLiteral("https://127.0.0.1:1/x"));
        composerOf(*window)
            ->transportForm()
            ->findChild<QCheckBox *>(QStringLiteral("ignoreCertificateErrors"))
            ->click();
        QCOMPARE(composerOf(*window)->draft().transport.insecureHosts, QStringList{QStringLiteral("127.0.0.1")});
        window->close();
    }
    QFile file(settingsPath());
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray text = file.readAll();
    QVERIFY2(text.contains("embedded-server-ca.pem"), "the CA file was not saved with the request");
    QVERIFY2(!text.contains("insecure"), text.constData());

    auto window = makeWindow();
    QVERIFY(window);
    QCOMPARE(composerOf(*window)->draft().urlTemplate, QStringLiteral("https://127.0.0.1:1/x"));
    QVERIFY(composerOf(*window)->draft().transport.insecureHosts.isEmpty());
    QVERIFY(!composerOf(*window)->transportForm()->ignoresCertificateErrors());
    QVERIFY(insecureBannerOf(*window)->isHidden());
}

void TestMainWindowTls::unusableCaFile_nothingSent_fileNamed()
{
    auto window = makeWindow();
    QVERIFY(window);
    setUrl(*window, window->server()->httpsBaseUrl().toString() + QStringLiteral("/status/200"));
    const QString missing = m_dir.filePath(QStringLiteral("missing-ca.pem"));
    composerOf(*window)->transportForm()->findChild<QLineEdit *>(QStringLiteral("caBundle"))->setText(missing);
    QVERIFY(!composerOf(*window)->canSend());
    QSignalSpy submitted(executorOf(*window), &Core::ThreadedExecutor::attemptStarted);
    runActionsOf(*window)->send();
    QCOMPARE(submitted.count(), 0);
    QCOMPARE(sessionOf(*window)->laneCount(), 0);
    QVERIFY(!messagesOf(*window).isEmpty());
    QVERIFY2(
        messagesOf(*window).last().contains(QLatin1String("missing-ca.pem")), qPrintable(messagesOf(*window).last()));
    // What was typed is still there.
    QCOMPARE(composerOf(*window)->draft().transport.caBundlePath, missing);
}

void TestMainWindowTls::unreachableProxy_attemptSaysWhichProxy()
{
    // A port that was free a moment ago: nothing answers there.
    QTcpServer probe;
    QVERIFY(probe.listen(QHostAddress::LocalHost));
    const quint16 port = probe.serverPort();
    probe.close();

    auto window = makeWindow();
    QVERIFY(window);
    setUrl(*window, QStringLiteral("{server}/status/200"));
    Ui::TransportForm *form = composerOf(*window)->transportForm();
    auto *mode = form->findChild<QComboBox *>(QStringLiteral("proxyMode"));
    mode->setCurrentIndex(mode->findData(static_cast<int>(Core::TransportOptions::ProxyMode::Http)));
    form->findChild<QLineEdit *>(QStringLiteral("proxyHost"))->setText(QStringLiteral("127.0.0.1"));
    form->findChild<QSpinBox *>(QStringLiteral("proxyPort"))->setValue(port);
    form->findChild<QLineEdit *>(QStringLiteral("proxyPassword"))->setText(QStringLiteral("hunter2"));
    QVERIFY2(composerOf(*window)->canSend(), qPrintable(composerOf(*window)->problem()));

    const Run run = sendAndWait(*window);
    QVERIFY(run.result.outcome != Core::RequestOutcome::Succeeded);
    QVERIFY(!run.attempts.isEmpty());
    const Core::AttemptRecord &a = run.attempts.first();
    const QString said = a.errorString + u' ' + a.reason + u' ' + run.result.reason;
    QVERIFY2(said.contains(QLatin1String("proxy"), Qt::CaseInsensitive), qPrintable(said));
    QVERIFY2(!said.contains(QLatin1String("hunter2")), qPrintable(said));
    // Nothing the user had is lost.
    QCOMPARE(composerOf(*window)->draft().transport.proxyPort, port);
    QCOMPARE(composerOf(*window)->draft().transport.proxyPassword, QStringLiteral("hunter2"));
}

void TestMainWindowTls::preferences_defaultConnection_newRequestsStartFromIt()
{
    {
        auto window = makeWindow();
        QVERIFY(window);
        auto *preferences = window->findChild<QAction *>(QStringLiteral("preferences"));
        QVERIFY(preferences);
        preferences->trigger();
        Ui::PreferencesDialog *dialog = transportControllerOf(*window)->preferencesDialog();
        QVERIFY(dialog);
        QVERIFY(dialog->isVisible());
        Ui::TransportForm *form = dialog->transportForm();
        QVERIFY(form->findChild<QCheckBox *>(QStringLiteral("ignoreCertificateErrors"))->isHidden());
        auto *version = form->findChild<QComboBox *>(QStringLiteral("httpVersion"));
        version->setCurrentIndex(version->findData(static_cast<int>(Core::TransportOptions::HttpVersion::Http2)));
        form->findChild<QLineEdit *>(QStringLiteral("caBundle"))->setText(m_dir.filePath(QStringLiteral("none.pem")));
        QVERIFY2(form->problem().contains(QLatin1String("none.pem")), qPrintable(form->problem()));
        form->findChild<QLineEdit *>(QStringLiteral("caBundle"))->setText(window->server()->caFilePath());
        dialog->accept();
        QTRY_VERIFY(!transportControllerOf(*window)->preferencesDialog());
        QCOMPARE(settingsOf(*window)->defaultTransport().httpVersion, Core::TransportOptions::HttpVersion::Http2);

        // "Use defaults" in the request's Connection part.
        QCOMPARE(composerOf(*window)->draft().transport.httpVersion, Core::TransportOptions::HttpVersion::Http1);
        composerOf(*window)->transportForm()->findChild<QToolButton *>(QStringLiteral("useDefaultTransport"))->click();
        QCOMPARE(composerOf(*window)->draft().transport.httpVersion, Core::TransportOptions::HttpVersion::Http2);
        QCOMPARE(composerOf(*window)->draft().transport.caBundlePath, window->server()->caFilePath());
    }
    // A fresh start without a saved request starts from the default.
    QSettings().remove(QStringLiteral("request/draft"));
    auto window = makeWindow();
    QVERIFY(window);
    QCOMPARE(composerOf(*window)->draft().transport.httpVersion, Core::TransportOptions::HttpVersion::Http2);
    QCOMPARE(composerOf(*window)->draft().urlTemplate, Core::RequestDraft::defaultUrlTemplate());
}

void TestMainWindowTls::serverTab_ownCertificate_presentedAndKept_badOneNamed()
{
    {
        auto window = makeWindow();
        QVERIFY(window);
        Ui::HttpsPanel *https = serverViewOf(*window)->httpsPanel();
        const QUrl http = window->server()->baseUrl();

        // A key that does not exist: named, and the server runs as before.
        const QString missingKey = m_dir.filePath(QStringLiteral("missing.key"));
        QVERIFY(!https->applyCertificate(m_certs.serverPem, missingKey, QString()));
        QVERIFY2(https->message().contains(QLatin1String("missing.key")), qPrintable(https->message()));
        QVERIFY(!window->server()->httpsBaseUrl().isEmpty());
        QCOMPARE(window->server()->baseUrl(), http);
        QCOMPARE(https->findChild<QLineEdit *>(QStringLiteral("httpsKey"))->text(), missingKey);

        https->findChild<QLineEdit *>(QStringLiteral("httpsCertificate"))->setText(m_certs.serverPem);
        https->findChild<QLineEdit *>(QStringLiteral("httpsKey"))->setText(m_certs.serverKey);
        https->findChild<QToolButton *>(QStringLiteral("applyHttpsCertificate"))->click();
        QVERIFY2(window->server()->options().tlsCertificateFile == m_certs.serverPem, qPrintable(https->message()));
        QCOMPARE(window->server()->baseUrl(), http);
        QCOMPARE(settingsOf(*window)->serverTlsCertificateFile(), m_certs.serverPem);

        // The request trusts the certificate's own CA.
        setUrl(*window, window->server()->httpsBaseUrl().toString() + QStringLiteral("/status/200"));
        composerOf(*window)
            ->transportForm()
            ->findChild<QLineEdit *>(QStringLiteral("caBundle"))
            ->setText(m_certs.caPem);
        const Run run = sendAndWait(*window);
        QCOMPARE(run.result.outcome, Core::RequestOutcome::Succeeded);
        QVERIFY2(run.attempts.first().tls.peerIssuer.contains(QLatin1String("RetryLab Test CA")),
            qPrintable(run.attempts.first().tls.peerIssuer));
    }
    // Kept for the next start; a file that went missing since gives way to a made certificate, said on the tab.
    {
        auto window = makeWindow();
        QVERIFY(window);
        QCOMPARE(window->server()->options().tlsCertificateFile, m_certs.serverPem);
    }
    QSettings().setValue(QStringLiteral("server/tlsKey"), m_dir.filePath(QStringLiteral("gone.key")));
    auto window = makeWindow();
    QVERIFY(window);
    QVERIFY(window->server()->isRunning());
    QVERIFY(!window->server()->httpsBaseUrl().isEmpty());
    QVERIFY(window->server()->options().tlsCertificateFile.isEmpty());
    const QString said = serverViewOf(*window)->httpsPanel()->message();
    QVERIFY2(said.contains(QLatin1String("gone.key")), qPrintable(said));
}

QTEST_MAIN(TestMainWindowTls)
#include "tst_mainwindowtls.moc"
