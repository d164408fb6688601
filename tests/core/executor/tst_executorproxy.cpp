// The executor's proxy option against real proxies started on 127.0.0.1:
// tinyproxy (HTTP, plain requests and CONNECT for https) and microsocks
// (SOCKS5), each with a user name and password; each request is proven to
// have gone through its proxy by the proxy's own log. An unreachable proxy is
// a retried network fault whose reason names the proxy, the system proxy
// follows the environment, and the proxy's credentials never reach a record,
// a log line or an export.

#include "core/executor/retryexecutor.h"
#include "core/executor/runrecorder.h"
#include "core/export/csvexport.h"
#include "core/export/harexport.h"
#include "core/export/reportjson.h"
#include "core/faultserver/faultserver.h"
#include "tests/core/executor/realservers.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QMutex>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace RetryLab::Core;

namespace {

const QString proxyUser = QStringLiteral("proxy-user-ab12");
const QString proxyPassword = QStringLiteral("proxy-pass-cd34");

BackoffPolicy fastPolicy(int attempts = 3)
{
    BackoffPolicy p;
    p.algorithm = BackoffAlgorithm::Exponential;
    p.baseDelayMs = 10;
    p.multiplier = 2;
    p.maxBackoffMs = 100;
    p.maxAttempts = attempts;
    p.attemptTimeoutMs = 10'000;
    return p;
}

// Every message of every category while it lives, debug included.
class MessageCapture
{
public:
    MessageCapture() : m_previous(qInstallMessageHandler(&MessageCapture::handle))
    {
        s_current = this;
        QLoggingCategory::setFilterRules(QStringLiteral("retrylab.*=true"));
    }
    ~MessageCapture()
    {
        QLoggingCategory::setFilterRules(QString());
        qInstallMessageHandler(m_previous);
        s_current = nullptr;
    }
    QString text() const
    {
        QMutexLocker lock(&m_mutex);
        return m_text;
    }

private:
    static void handle(QtMsgType, const QMessageLogContext &context, const QString &message)
    {
        if (!s_current)
            return;
        QMutexLocker lock(&s_current->m_mutex);
        s_current->m_text += QString::fromLatin1(context.category) + QLatin1Char(' ') + message + QLatin1Char('\n');
    }

    static inline MessageCapture *s_current = nullptr;
    QtMessageHandler m_previous;
    mutable QMutex m_mutex;
    QString m_text;
};

} // namespace

class TestExecutorProxy : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void throughProxy_provenByItsLog_data();
    void throughProxy_provenByItsLog();
    void wrongProxyPassword_givesUpWithoutShowingIt_data();
    void wrongProxyPassword_givesUpWithoutShowingIt();
    void unreachableProxy_retriedFaultNamingTheProxy_data();
    void unreachableProxy_retriedFaultNamingTheProxy();
    void systemProxy_followsTheEnvironment_noneIgnoresIt();
    void proxyCredentials_neverInRecordsLogsOrExports();

private:
    QUrl plainUrl(const QString &tag) const
    {
        return QUrl(QStringLiteral("http://127.0.0.1:%1/status/200?via=%2").arg(m_faultServer.serverPort()).arg(tag));
    }
    QUrl tlsUrl(const QString &tag) const
    {
        return QUrl(QStringLiteral("https://127.0.0.1:%1/hello?via=%2").arg(m_tls).arg(tag));
    }
    TransportOptions proxied(TransportOptions::ProxyMode mode, quint16 port, const QString &password = proxyPassword)
    {
        TransportOptions transport;
        transport.proxyMode = mode;
        transport.proxyHost = QStringLiteral("127.0.0.1");
        transport.proxyPort = port;
        transport.proxyUser = proxyUser;
        transport.proxyPassword = password;
        transport.caBundlePath = m_certificates.caPem;
        return transport;
    }
    RequestResult send(const QUrl &url, const TransportOptions &transport, QList<AttemptRecord> *attempts = nullptr,
        int maxAttempts = 3);

    QTemporaryDir m_dir;
    RealServers::Certificates m_certificates;
    FaultServer m_faultServer;
    std::unique_ptr<RealServers::Nginx> m_nginx;
    std::unique_ptr<RealServers::Tinyproxy> m_httpProxy; ///< asks for proxyUser and proxyPassword
    std::unique_ptr<RealServers::Tinyproxy> m_openProxy; ///< asks for nothing: the system proxy's
    std::unique_ptr<RealServers::Microsocks> m_socksProxy; ///< asks for proxyUser and proxyPassword
    quint16 m_tls = 0;
    int m_tlsServer = -1;
};

void TestExecutorProxy::initTestCase()
{
    QVERIFY2(!RealServers::findProgram(QStringLiteral("openssl")).isEmpty(),
        RealServers::missingProgram(QStringLiteral("openssl"), QStringLiteral("openssl")).constData());
    const QByteArray nginxProblem = RealServers::Nginx::checkInstalled();
    QVERIFY2(nginxProblem.isEmpty(), nginxProblem.constData());
    QVERIFY2(!RealServers::findProgram(QStringLiteral("tinyproxy")).isEmpty(),
        RealServers::missingProgram(QStringLiteral("tinyproxy"), QStringLiteral("tinyproxy")).constData());
    QVERIFY2(!RealServers::findProgram(QStringLiteral("microsocks")).isEmpty(),
        RealServers::missingProgram(QStringLiteral("microsocks"), QStringLiteral("microsocks")).constData());
    QVERIFY(m_dir.isValid());
    QString error;
    QVERIFY2(m_certificates.make(m_dir.filePath(QStringLiteral("certs")), &error), qPrintable(error));
    FaultServerOptions options;
    options.redactLog = false; // the log shows the ?via= of each request
    m_faultServer.setOptions(options);
    QVERIFY2(m_faultServer.listen(), qPrintable(m_faultServer.errorString()));

    m_nginx = std::make_unique<RealServers::Nginx>(m_dir.filePath(QStringLiteral("nginx")));
    m_tlsServer = m_nginx->addServer(QStringLiteral("ssl"),
        QStringLiteral("        ssl_certificate %1;\n        ssl_certificate_key %2;\n"
                       "        ssl_protocols TLSv1.2 TLSv1.3;\n"
                       "        location / { return 200 \"hello\\n\"; }")
            .arg(m_certificates.serverPem, m_certificates.serverKey));
    QVERIFY2(m_nginx->start(&error), qPrintable(error));
    m_tls = m_nginx->port(m_tlsServer);

    m_httpProxy = std::make_unique<RealServers::Tinyproxy>(m_dir.filePath(QStringLiteral("tinyproxy")));
    QVERIFY2(m_httpProxy->start(proxyUser, proxyPassword, &error), qPrintable(error));
    m_openProxy = std::make_unique<RealServers::Tinyproxy>(m_dir.filePath(QStringLiteral("tinyproxy-open")));
    QVERIFY2(m_openProxy->start(QString(), QString(), &error), qPrintable(error));
    m_socksProxy = std::make_unique<RealServers::Microsocks>();
    QVERIFY2(m_socksProxy->start(proxyUser, proxyPassword, &error), qPrintable(error));
}

void TestExecutorProxy::cleanupTestCase()
{
    for (RealServers::ServerProcess *server : std::initializer_list<RealServers::ServerProcess *>{
             m_nginx.get(), m_httpProxy.get(), m_openProxy.get(), m_socksProxy.get()}) {
        if (server)
            server->stop();
    }
}

RequestResult TestExecutorProxy::send(
    const QUrl &url, const TransportOptions &transport, QList<AttemptRecord> *attempts, int maxAttempts)
{
    RetryExecutor executor;
    executor.setPolicy(fastPolicy(maxAttempts));
    if (attempts) {
        connect(&executor, &RetryExecutor::attemptFinished, &executor,
            [attempts](const AttemptRecord &record) { attempts->append(record); });
    }
    QSignalSpy finished(&executor, &RetryExecutor::requestFinished);
    RequestSpec spec;
    spec.url = url;
    spec.transport = transport;
    executor.submit(spec);
    if (!finished.wait(20'000))
        return {};
    return finished.first().first().value<RequestResult>();
}

void TestExecutorProxy::throughProxy_provenByItsLog_data()
{
    QTest::addColumn<bool>("socks");
    QTest::addColumn<bool>("https");
    QTest::addRow("HTTP proxy, http") << false << false;
    QTest::addRow("HTTP proxy, https (CONNECT)") << false << true;
    QTest::addRow("SOCKS5 proxy, http") << true << false;
    QTest::addRow("SOCKS5 proxy, https") << true << true;
}

void TestExecutorProxy::throughProxy_provenByItsLog()
{
    QFETCH(bool, socks);
    QFETCH(bool, https);
    const QString tag = QStringLiteral("%1-%2").arg(socks ? QStringLiteral("socks") : QStringLiteral("http"),
        https ? QStringLiteral("tls") : QStringLiteral("plain"));
    const QUrl url = https ? tlsUrl(tag) : plainUrl(tag);
    const TransportOptions transport = socks ? proxied(TransportOptions::ProxyMode::Socks5, m_socksProxy->port())
                                             : proxied(TransportOptions::ProxyMode::Http, m_httpProxy->port());
    QList<AttemptRecord> attempts;
    const RequestResult result = send(url, transport, &attempts);
    QCOMPARE(result.outcome, RequestOutcome::Succeeded);
    QCOMPARE(attempts.size(), 1);
    QCOMPARE(attempts.first().httpStatus, 200);
    if (https)
        QCOMPARE(attempts.first().tls.protocol, QStringLiteral("TLSv1.3"));

    const QString target = QStringLiteral("127.0.0.1:%1").arg(url.port());
    if (socks) {
        // microsocks: "client[N] 127.0.0.1: connected to 127.0.0.1:PORT"
        QTRY_VERIFY2(
            m_socksProxy->log().contains(QStringLiteral("connected to ") + target), qPrintable(m_socksProxy->log()));
    } else if (https) {
        QTRY_VERIFY2(m_httpProxy->log().contains(QStringLiteral("CONNECT ") + target), qPrintable(m_httpProxy->log()));
    } else {
        QTRY_VERIFY2(m_httpProxy->log().contains(QStringLiteral("GET ") + url.toString(QUrl::FullyEncoded)),
            qPrintable(m_httpProxy->log()));
    }
}

void TestExecutorProxy::wrongProxyPassword_givesUpWithoutShowingIt_data()
{
    QTest::addColumn<bool>("socks");
    QTest::addRow("HTTP proxy") << false;
    QTest::addRow("SOCKS5 proxy") << true;
}

void TestExecutorProxy::wrongProxyPassword_givesUpWithoutShowingIt()
{
    QFETCH(bool, socks);
    const QString wrong = QStringLiteral("wrong-pass-ef56");
    QList<AttemptRecord> attempts;
    MessageCapture messages;
    const TransportOptions transport = socks ? proxied(TransportOptions::ProxyMode::Socks5, m_socksProxy->port(), wrong)
                                             : proxied(TransportOptions::ProxyMode::Http, m_httpProxy->port(), wrong);
    const RequestResult result = send(plainUrl(QStringLiteral("wrong-password")), transport, &attempts);
    QCOMPARE(result.outcome, RequestOutcome::GaveUp);
    QCOMPARE(attempts.size(), 1);
    const AttemptRecord &a = attempts.first();
    if (socks) {
        QCOMPARE(a.networkError, QNetworkReply::ProxyAuthenticationRequiredError);
        QVERIFY2(a.reason.contains(QLatin1String("the proxy refused the credentials")), qPrintable(a.reason));
    } else {
        // tinyproxy 1.11 refuses with "401 Unauthorized", not 407: to the client an answer like any other.
        QVERIFY2(a.httpStatus == 401 || a.httpStatus == 407, qPrintable(a.errorString));
    }
    for (const QString &text : {a.reason, a.errorString, result.reason, messages.text()}) {
        QVERIFY2(!text.contains(wrong), qPrintable(text));
        QVERIFY2(!text.contains(proxyUser), qPrintable(text));
    }
}

void TestExecutorProxy::unreachableProxy_retriedFaultNamingTheProxy_data()
{
    QTest::addColumn<bool>("socks");
    QTest::addColumn<bool>("https");
    QTest::addRow("HTTP proxy, http") << false << false;
    QTest::addRow("HTTP proxy, https") << false << true;
    QTest::addRow("SOCKS5 proxy, http") << true << false;
    QTest::addRow("SOCKS5 proxy, https") << true << true;
}

void TestExecutorProxy::unreachableProxy_retriedFaultNamingTheProxy()
{
    QFETCH(bool, socks);
    QFETCH(bool, https);
    const quint16 nobody = RealServers::freePort();
    const TransportOptions transport
        = proxied(socks ? TransportOptions::ProxyMode::Socks5 : TransportOptions::ProxyMode::Http, nobody);
    QList<AttemptRecord> attempts;
    const RequestResult result
        = send(https ? tlsUrl(QStringLiteral("nobody")) : plainUrl(QStringLiteral("nobody")), transport, &attempts);
    QVERIFY(!attempts.isEmpty());
    QVERIFY2(result.outcome == RequestOutcome::AttemptsExhausted,
        qPrintable(QStringLiteral("%1 %2").arg(int(attempts.first().networkError)).arg(attempts.first().errorString)));
    QCOMPARE(attempts.size(), 3);
    const QString proxy = QStringLiteral("%1 proxy 127.0.0.1:%2")
                              .arg(socks ? QStringLiteral("SOCKS5") : QStringLiteral("HTTP"))
                              .arg(nobody);
    for (const AttemptRecord &a : std::as_const(attempts)) {
        // Qt 6.4: a plain request through an HTTP proxy connects to the proxy as to a server
        // (ConnectionRefusedError); CONNECT and SOCKS5 report UnknownNetworkError with the
        // proxy engine's text, which the executor reads as the proxy's refusal.
        if (!socks && !https) {
            QCOMPARE(a.networkError, QNetworkReply::ConnectionRefusedError);
        } else {
            QCOMPARE(a.networkError, QNetworkReply::UnknownNetworkError);
            QVERIFY2(a.reason.contains(QLatin1String("the proxy refused the connection")), qPrintable(a.reason));
        }
        QCOMPARE(a.cause, QStringLiteral("connection-refused"));
        QVERIFY2(a.reason.contains(proxy), qPrintable(a.reason));
        QVERIFY2(!a.reason.contains(proxyPassword) && !a.reason.contains(proxyUser), qPrintable(a.reason));
    }
    QCOMPARE(attempts.at(0).decision, Classification::Decision::RetryAfterDelay);
    QVERIFY2(result.reason.contains(proxy), qPrintable(result.reason));
}

void TestExecutorProxy::systemProxy_followsTheEnvironment_noneIgnoresIt()
{
    const QByteArray proxyUrl = "http://127.0.0.1:" + QByteArray::number(m_openProxy->port());
    const QList<QByteArray> names{"http_proxy", "HTTP_PROXY", "no_proxy", "NO_PROXY"};
    QHash<QByteArray, QByteArray> saved;
    for (const QByteArray &name : names) {
        if (qEnvironmentVariableIsSet(name.constData()))
            saved.insert(name, qgetenv(name.constData()));
    }
    const auto restore = qScopeGuard([&] {
        for (const QByteArray &name : names) {
            if (saved.contains(name))
                qputenv(name.constData(), saved.value(name));
            else
                qunsetenv(name.constData());
        }
    });
    qputenv("http_proxy", proxyUrl);
    qputenv("HTTP_PROXY", proxyUrl);
    qunsetenv("no_proxy");
    qunsetenv("NO_PROXY");

    TransportOptions system;
    system.proxyMode = TransportOptions::ProxyMode::System;
    QCOMPARE(send(plainUrl(QStringLiteral("system")), system).outcome, RequestOutcome::Succeeded);
    QTRY_VERIFY2(m_openProxy->log().contains(QStringLiteral("GET ") + plainUrl(QStringLiteral("system")).toString()),
        qPrintable(m_openProxy->log()));

    // None: straight to the server, whatever the environment says; so is the default transport.
    TransportOptions none;
    none.tlsFloor = TransportOptions::TlsFloor::Tls12; // not the default transport: managers of its own
    QCOMPARE(send(plainUrl(QStringLiteral("none")), none).outcome, RequestOutcome::Succeeded);
    QCOMPARE(send(plainUrl(QStringLiteral("default")), TransportOptions{}).outcome, RequestOutcome::Succeeded);
    bool served = false;
    for (const ServerLogEntry &entry : m_faultServer.log())
        served = served || entry.target.contains(QLatin1String("via=default"));
    QVERIFY(served);
    const QString log = m_openProxy->log();
    QVERIFY2(!log.contains(QLatin1String("via=none")) && !log.contains(QLatin1String("via=default")), qPrintable(log));
}

void TestExecutorProxy::proxyCredentials_neverInRecordsLogsOrExports()
{
    MessageCapture messages;
    RetryExecutor executor;
    executor.setPolicy(fastPolicy());
    RunRecorder recorder(&executor);
    QSignalSpy idle(&executor, &RetryExecutor::idle);
    recorder.submit([this] {
        RequestSpec spec;
        spec.url = plainUrl(QStringLiteral("secret-check-http"));
        spec.transport = proxied(TransportOptions::ProxyMode::Http, m_httpProxy->port());
        return spec;
    }());
    recorder.submit([this] {
        RequestSpec spec;
        spec.url = tlsUrl(QStringLiteral("secret-check-socks"));
        spec.transport = proxied(TransportOptions::ProxyMode::Socks5, m_socksProxy->port());
        return spec;
    }());
    recorder.submit([] {
        RequestSpec spec;
        spec.url = QUrl(QStringLiteral("http://127.0.0.1:9/unreachable"));
        TransportOptions transport;
        transport.proxyMode = TransportOptions::ProxyMode::Socks5;
        transport.proxyHost = QStringLiteral("127.0.0.1");
        transport.proxyPort = RealServers::freePort();
        transport.proxyUser = proxyUser;
        transport.proxyPassword = proxyPassword;
        spec.transport = transport;
        return spec;
    }());
    QVERIFY(idle.wait(30'000));
    const RunRecord &run = recorder.record();
    QCOMPARE(run.attempts.size(), 5); // 1 + 1 + 3 against the proxy nobody listens for

    // Unredacted exports hold everything a record holds: the proxy's credentials are not in it.
    ExportOptions unredacted;
    unredacted.redactCredentials = false;
    const QList<QPair<QString, QString>> outputs{
        {QStringLiteral("JSON report"), QString::fromUtf8(ReportJson::toJson(run, unredacted))},
        {QStringLiteral("HAR"), QString::fromUtf8(HarExport::toJson(run, unredacted))},
        {QStringLiteral("CSV"), QString::fromUtf8(CsvExport::toCsv(run, unredacted))},
        {QStringLiteral("log"), messages.text()},
    };
    for (const auto &[name, text] : outputs) {
        QVERIFY2(!text.isEmpty(), qPrintable(name));
        QVERIFY2(!text.contains(proxyPassword), qPrintable(name + QLatin1String(": ") + text));
        QVERIFY2(!text.contains(proxyUser), qPrintable(name + QLatin1String(": ") + text));
    }
    // The log and the report do say which proxy failed.
    QVERIFY2(messages.text().contains(QLatin1String("SOCKS5 proxy 127.0.0.1:")), qPrintable(messages.text()));
}

QTEST_GUILESS_MAIN(TestExecutorProxy)
#include "tst_executorproxy.moc"
