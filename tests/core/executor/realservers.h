#pragma once

// Real third-party servers for the executor's TLS, proxy and HTTP/2 suites,
// each started by the test on 127.0.0.1 with its own configuration, pid and
// log files in a temporary folder, on free ports, and stopped at the end:
//   Certificates  a CA and certificates made by the openssl command line
//   Nginx         HTTPS (HTTP/2 by ALPN), h2c with prior knowledge, HTTP/1.1
//   Tinyproxy     an HTTP proxy (Basic credentials optional)
//   Microsocks    a SOCKS5 proxy (user name and password optional)
//   Httpbin       Debian's python3-httpbin (Werkzeug), a second upstream of the fault proxy
// Every program comes from a Debian package that scripts/deps.sh installs; a
// missing one fails the suite with the package's name (missingProgram()).
//
// The helpers wait with QDeadlineTimer-bounded loops for a port to accept or
// a process to end; they never sleep a fixed time.

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QHostAddress>
#include <QProcess>
#include <QStandardPaths>
#include <QString>
#include <QStringList>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

#include <utility>

namespace RealServers {

/// A program on PATH, or in /usr/sbin and /sbin (nginx is there and a user's
/// PATH often lacks them); empty when it is not installed.
inline QString findProgram(const QString &name)
{
    QString path = QStandardPaths::findExecutable(name);
    if (path.isEmpty())
        path = QStandardPaths::findExecutable(name, {QStringLiteral("/usr/sbin"), QStringLiteral("/sbin")});
    return path;
}

/// The failure message for a missing program.
inline QByteArray missingProgram(const QString &program, const QString &package)
{
    return QStringLiteral("%1 is not installed: install the Debian package \"%2\" (scripts/deps.sh does)")
        .arg(program, package)
        .toUtf8();
}

/// A TCP port on 127.0.0.1 that nothing listens on now (bound, then released).
inline quint16 freePort()
{
    QTcpServer probe;
    if (!probe.listen(QHostAddress::LocalHost, 0))
        return 0;
    const quint16 port = probe.serverPort();
    probe.close();
    return port;
}

inline QString readText(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

inline bool writeText(const QString &path, const QString &text)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(text.toUtf8()) == text.toUtf8().size();
}

/// Runs a program to its end; false with `error` (its output) when it fails.
inline bool run(const QString &program, const QStringList &arguments, const QString &workDir, QString *error)
{
    QProcess process;
    process.setWorkingDirectory(workDir);
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(program, arguments);
    if (!process.waitForFinished(30'000) || process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) {
        *error = QStringLiteral("%1 %2 failed: %3 %4")
                     .arg(program, arguments.join(QLatin1Char(' ')), process.errorString(),
                         QString::fromUtf8(process.readAll()));
        return false;
    }
    return true;
}

/// A program that serves until it is stopped, in the foreground, with its output kept.
class ServerProcess
{
public:
    ServerProcess() = default;
    ServerProcess(const ServerProcess &) = delete;
    ServerProcess &operator=(const ServerProcess &) = delete;
    virtual ~ServerProcess() { stop(); }

    /// Stops it (SIGTERM, then SIGKILL after 5 s) and waits for it.
    void stop()
    {
        if (m_process.state() == QProcess::NotRunning)
            return;
        m_process.terminate();
        if (!m_process.waitForFinished(5000)) {
            m_process.kill();
            m_process.waitForFinished(5000);
        }
    }

    /// What it printed so far (stdout and stderr).
    QString output()
    {
        m_output += QString::fromUtf8(m_process.readAll());
        return m_output;
    }

protected:
    /// Starts `program` and waits until each of `ports` accepts a connection.
    bool startAndWait(const QString &program, const QStringList &arguments, const QList<quint16> &ports,
        const QString &logPath, QString *error)
    {
        m_process.setProcessChannelMode(QProcess::MergedChannels);
        m_process.start(program, arguments);
        if (!m_process.waitForStarted(10'000)) {
            *error = QStringLiteral("%1 did not start: %2").arg(program, m_process.errorString());
            return false;
        }
        const QDeadlineTimer deadline(15'000);
        for (const quint16 port : ports) {
            while (true) {
                QTcpSocket probe;
                probe.connectToHost(QHostAddress::LocalHost, port);
                if (probe.waitForConnected(200))
                    break;
                if (m_process.state() == QProcess::NotRunning || deadline.hasExpired()) {
                    *error = QStringLiteral("%1 does not listen on 127.0.0.1:%2 (%3): %4 %5")
                                 .arg(program)
                                 .arg(port)
                                 .arg(m_process.state() == QProcess::NotRunning ? QStringLiteral("it exited")
                                                                                : QStringLiteral("timed out"),
                                     output(), logPath.isEmpty() ? QString() : readText(logPath));
                    return false;
                }
                // Let the process get on with starting; the loop is bounded by the deadline.
                m_process.waitForReadyRead(50);
            }
        }
        return true;
    }

    QProcess m_process;
    QString m_output;
};

/// A CA and server and client certificates made with the openssl command line
/// (EC P-256 keys: quick to make). Valid for 30 days from the test's start,
/// except the expired one (January 2020).
class Certificates
{
public:
    static constexpr char passphrase[] = "test-passphrase-4711";

    QString dir;
    QString caPem, caKey; ///< "RetryLab Test CA", trusted by the tests through a CA bundle
    QString serverPem, serverKey; ///< CN=localhost, SAN localhost and 127.0.0.1, signed by the CA
    QString unknownCaPem; ///< another CA, trusted by nobody
    QString unknownServerPem, unknownServerKey; ///< like the server's, signed by the unknown CA
    QString expiredPem; ///< the server's key, signed by the CA, valid only in January 2020
    QString wrongHostPem; ///< the server's key, signed by the CA, for wrong-host.invalid only
    QString clientPem, clientKey; ///< CN=retrylab-client, signed by the CA, for client authentication
    QString clientEncryptedKey; ///< the client key, encrypted with `passphrase`
    QString clientP12; ///< the client certificate and key as PKCS#12, with `passphrase`
    QString garbage; ///< a file that is neither a certificate nor a key

    bool make(const QString &folder, QString *error)
    {
        dir = folder;
        const QString openssl = findProgram(QStringLiteral("openssl"));
        const auto path = [this](const char *name) { return QDir(dir).filePath(QString::fromLatin1(name)); };
        const auto ssl = [&](const QStringList &arguments) { return run(openssl, arguments, dir, error); };
        const QStringList ecKey{QStringLiteral("-newkey"), QStringLiteral("ec"), QStringLiteral("-pkeyopt"),
            QStringLiteral("ec_paramgen_curve:prime256v1"), QStringLiteral("-nodes")};
        const auto makeCa = [&](const QString &pem, const QString &key, const QString &name) {
            return ssl(QStringList{QStringLiteral("req"), QStringLiteral("-x509")} + ecKey
                + QStringList{QStringLiteral("-keyout"), key, QStringLiteral("-out"), pem, QStringLiteral("-days"),
                    QStringLiteral("30"), QStringLiteral("-subj"),
                    QStringLiteral("/CN=%1/O=RetryLab tests").arg(name)});
        };
        const auto makeRequest = [&](const QString &key, const QString &csr, const QString &subject) {
            return ssl(QStringList{QStringLiteral("req"), QStringLiteral("-new")} + ecKey
                + QStringList{
                    QStringLiteral("-keyout"), key, QStringLiteral("-out"), csr, QStringLiteral("-subj"), subject});
        };
        const auto sign = [&](const QString &csr, const QString &ca, const QString &caKeyFile, const QString &ext,
                              const QString &out) {
            return ssl(
                {QStringLiteral("x509"), QStringLiteral("-req"), QStringLiteral("-in"), csr, QStringLiteral("-CA"), ca,
                    QStringLiteral("-CAkey"), caKeyFile, QStringLiteral("-CAcreateserial"), QStringLiteral("-days"),
                    QStringLiteral("30"), QStringLiteral("-extfile"), ext, QStringLiteral("-out"), out});
        };

        caPem = path("ca.pem");
        caKey = path("ca.key");
        unknownCaPem = path("unknown-ca.pem");
        const QString unknownCaKey = path("unknown-ca.key");
        serverPem = path("server.pem");
        serverKey = path("server.key");
        unknownServerPem = path("unknown-server.pem");
        unknownServerKey = path("unknown-server.key");
        expiredPem = path("expired.pem");
        wrongHostPem = path("wrong-host.pem");
        clientPem = path("client.pem");
        clientKey = path("client.key");
        clientEncryptedKey = path("client-encrypted.key");
        clientP12 = path("client.p12");
        garbage = path("garbage.pem");

        const QString serverExt = path("server.ext");
        const QString wrongHostExt = path("wrong-host.ext");
        const QString clientExt = path("client.ext");
        const QString caConfig = path("ca.cnf");
        QDir(dir).mkpath(QStringLiteral("cadb"));
        if (!writeText(serverExt,
                QStringLiteral("subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n"
                               "extendedKeyUsage=serverAuth\n"))
            || !writeText(wrongHostExt,
                QStringLiteral("subjectAltName=DNS:wrong-host.invalid\nbasicConstraints=CA:FALSE\n"
                               "extendedKeyUsage=serverAuth\n"))
            || !writeText(clientExt, QStringLiteral("basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n"))
            || !writeText(path("cadb/index.txt"), QString())
            || !writeText(path("cadb/serial"), QStringLiteral("1000\n"))
            || !writeText(garbage, QStringLiteral("this is not a certificate\n"))
            // `openssl ca` is the one command of OpenSSL 3.0 that sets a start date in the past.
            || !writeText(caConfig,
                QStringLiteral("[ca]\ndefault_ca = test\n[test]\ndatabase = cadb/index.txt\nserial = cadb/serial\n"
                               "new_certs_dir = cadb\ndefault_md = sha256\npolicy = anything\nunique_subject = no\n"
                               "[anything]\ncommonName = supplied\norganizationName = optional\n"
                               "[server]\nsubjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n"))) {
            *error = QStringLiteral("cannot write into %1").arg(dir);
            return false;
        }
        const QString serverCsr = path("server.csr");
        const QString clientCsr = path("client.csr");
        const QString unknownCsr = path("unknown-server.csr");
        return makeCa(caPem, caKey, QStringLiteral("RetryLab Test CA"))
            && makeCa(unknownCaPem, unknownCaKey, QStringLiteral("Unknown Test CA"))
            && makeRequest(serverKey, serverCsr, QStringLiteral("/CN=localhost/O=RetryLab tests"))
            && sign(serverCsr, caPem, caKey, serverExt, serverPem)
            && sign(serverCsr, caPem, caKey, wrongHostExt, wrongHostPem)
            && makeRequest(unknownServerKey, unknownCsr, QStringLiteral("/CN=localhost/O=Unknown tests"))
            && sign(unknownCsr, unknownCaPem, unknownCaKey, serverExt, unknownServerPem)
            && ssl({QStringLiteral("ca"), QStringLiteral("-batch"), QStringLiteral("-notext"),
                QStringLiteral("-config"), caConfig, QStringLiteral("-cert"), caPem, QStringLiteral("-keyfile"), caKey,
                QStringLiteral("-in"), serverCsr, QStringLiteral("-out"), expiredPem, QStringLiteral("-extensions"),
                QStringLiteral("server"), QStringLiteral("-startdate"), QStringLiteral("20200101000000Z"),
                QStringLiteral("-enddate"), QStringLiteral("20200201000000Z")})
            && makeRequest(clientKey, clientCsr, QStringLiteral("/CN=retrylab-client/O=RetryLab tests"))
            && sign(clientCsr, caPem, caKey, clientExt, clientPem)
            && ssl({QStringLiteral("pkey"), QStringLiteral("-in"), clientKey, QStringLiteral("-aes256"),
                QStringLiteral("-passout"), QStringLiteral("pass:%1").arg(QLatin1String(passphrase)),
                QStringLiteral("-out"), clientEncryptedKey})
            && ssl({QStringLiteral("pkcs12"), QStringLiteral("-export"), QStringLiteral("-inkey"), clientKey,
                QStringLiteral("-in"), clientPem, QStringLiteral("-certfile"), caPem, QStringLiteral("-passout"),
                QStringLiteral("pass:%1").arg(QLatin1String(passphrase)), QStringLiteral("-out"), clientP12});
    }
};

/// nginx with a configuration of its own: one process (master_process off, so
/// it switches to no other user), in the foreground, its pid, logs and
/// temporary files in its folder. The access log says, per request, the port,
/// connection number, requests on that connection so far, protocol and TLS
/// version, which proves HTTP/2 and multiplexing.
class Nginx : public ServerProcess
{
public:
    /// Whether the nginx binary has what the suites need; the message names the package otherwise.
    static QByteArray checkInstalled()
    {
        const QString nginx = findProgram(QStringLiteral("nginx"));
        if (nginx.isEmpty())
            return missingProgram(QStringLiteral("nginx"), QStringLiteral("nginx"));
        QProcess probe;
        probe.setProcessChannelMode(QProcess::MergedChannels);
        probe.start(nginx, {QStringLiteral("-V")});
        probe.waitForFinished(10'000);
        const QByteArray modules = probe.readAll();
        if (!modules.contains("--with-http_ssl_module") || !modules.contains("--with-http_v2_module"))
            return QByteArrayLiteral("this nginx lacks http_ssl or http_v2: install the Debian package \"nginx\" "
                                     "(or \"nginx-full\")");
        return {};
    }

    explicit Nginx(const QString &folder) : m_dir(folder) { QDir().mkpath(folder); }

    /// A server block `listen 127.0.0.1:PORT <listenOptions>;` with `body`; its
    /// index for port() once started.
    int addServer(const QString &listenOptions, const QString &body)
    {
        m_servers.append({listenOptions, body});
        return int(m_servers.size()) - 1;
    }

    /// The free port the server `index` listens on.
    quint16 port(int index) const { return m_ports.value(index); }

    /// Starts on free ports; when another program takes one of them first,
    /// tries again on others (three times in all).
    bool start(QString *error)
    {
        for (int attempt = 0; attempt < 3; ++attempt) {
            m_ports.clear();
            QString servers;
            for (const auto &[listenOptions, body] : std::as_const(m_servers)) {
                m_ports.append(freePort());
                servers += QStringLiteral("    server {\n        listen 127.0.0.1:%1 %2;\n%3\n    }\n")
                               .arg(m_ports.last())
                               .arg(listenOptions, body);
            }
            if (startOnce(servers, error))
                return true;
            stop();
            if (!errorLog().contains(QLatin1String("Address already in use")))
                return false;
        }
        return false;
    }

    QString accessLog() const { return readText(QDir(m_dir).filePath(QStringLiteral("access.log"))); }
    QString errorLog() const { return readText(QDir(m_dir).filePath(QStringLiteral("error.log"))); }

private:
    bool startOnce(const QString &servers, QString *error)
    {
        const QString config = QStringLiteral(
            "daemon off;\nmaster_process off;\nworker_processes 1;\npid %1/nginx.pid;\nerror_log %1/error.log info;\n"
            "events { worker_connections 256; }\n"
            "http {\n"
            "    log_format retrylab '$server_port $connection $connection_requests $server_protocol "
            "$ssl_protocol \"$request\" $status';\n"
            "    access_log %1/access.log retrylab;\n"
            "    client_body_temp_path %1/body;\n    proxy_temp_path %1/proxy;\n    fastcgi_temp_path %1/fastcgi;\n"
            "    uwsgi_temp_path %1/uwsgi;\n    scgi_temp_path %1/scgi;\n"
            "    default_type text/plain;\n"
            "%2}\n")
                                   .arg(m_dir, servers);
        const QString configPath = QDir(m_dir).filePath(QStringLiteral("nginx.conf"));
        if (!writeText(configPath, config)) {
            *error = QStringLiteral("cannot write %1").arg(configPath);
            return false;
        }
        const QString errorLogPath = QDir(m_dir).filePath(QStringLiteral("error.log"));
        QFile::remove(errorLogPath);
        return startAndWait(findProgram(QStringLiteral("nginx")),
            {QStringLiteral("-p"), m_dir, QStringLiteral("-e"), errorLogPath, QStringLiteral("-c"), configPath},
            m_ports, errorLogPath, error);
    }

    QString m_dir;
    QList<std::pair<QString, QString>> m_servers; ///< listen options and body of each server
    QList<quint16> m_ports;
};

/// tinyproxy in the foreground with its own configuration and log file; with
/// a user name, it asks for Basic credentials (407 otherwise).
class Tinyproxy : public ServerProcess
{
public:
    explicit Tinyproxy(const QString &folder) : m_dir(folder) { QDir().mkpath(folder); }

    /// Starts on a free port; tries others when that one is taken first (three times in all).
    bool start(const QString &user, const QString &password, QString *error)
    {
        for (int attempt = 0; attempt < 3; ++attempt) {
            if (startOnce(user, password, error))
                return true;
            stop();
        }
        return false;
    }

    quint16 port() const { return m_port; }
    QString log() const { return readText(QDir(m_dir).filePath(QStringLiteral("tinyproxy.log"))); }

private:
    bool startOnce(const QString &user, const QString &password, QString *error)
    {
        m_port = freePort();
        QString config = QStringLiteral("Port %1\nListen 127.0.0.1\nTimeout 30\nLogFile \"%2/tinyproxy.log\"\n"
                                        "LogLevel Info\nPidFile \"%2/tinyproxy.pid\"\nMaxClients 50\n"
                                        "DisableViaHeader Yes\n")
                             .arg(m_port)
                             .arg(m_dir);
        if (!user.isEmpty())
            config += QStringLiteral("BasicAuth %1 %2\n").arg(user, password);
        const QString configPath = QDir(m_dir).filePath(QStringLiteral("tinyproxy.conf"));
        if (!writeText(configPath, config)) {
            *error = QStringLiteral("cannot write %1").arg(configPath);
            return false;
        }
        return startAndWait(findProgram(QStringLiteral("tinyproxy")),
            {QStringLiteral("-d"), QStringLiteral("-c"), configPath}, {m_port},
            QDir(m_dir).filePath(QStringLiteral("tinyproxy.log")), error);
    }

    QString m_dir;
    quint16 m_port = 0;
};

/// microsocks, a SOCKS5 proxy; it logs "client[N] ADDRESS: connected to HOST:PORT"
/// for every connection it makes on a client's behalf.
class Microsocks : public ServerProcess
{
public:
    /// Starts on a free port; tries others when that one is taken first (three times in all).
    bool start(const QString &user, const QString &password, QString *error)
    {
        for (int attempt = 0; attempt < 3; ++attempt) {
            if (startOnce(user, password, error))
                return true;
            stop();
            m_output.clear();
        }
        return false;
    }

    quint16 port() const { return m_port; }
    QString log() { return output(); }

private:
    bool startOnce(const QString &user, const QString &password, QString *error)
    {
        m_port = freePort();
        QStringList arguments{
            QStringLiteral("-i"), QStringLiteral("127.0.0.1"), QStringLiteral("-p"), QString::number(m_port)};
        if (!user.isEmpty())
            arguments += {QStringLiteral("-u"), user, QStringLiteral("-P"), password};
        return startAndWait(findProgram(QStringLiteral("microsocks")), arguments, {m_port}, QString(), error);
    }

    quint16 m_port = 0;
};

/// httpbin (Debian's python3-httpbin, served by Werkzeug): /status/N, /bytes/N?seed=S,
/// /stream-bytes/N (chunked), /anything... It logs one line per request it answers
/// ("GET /status/418 HTTP/1.1" 418), so a test can see which requests reached it.
class Httpbin : public ServerProcess
{
public:
    /// Debian's interpreter: the package's module is there, whatever python3 comes first on the PATH.
    static QString interpreter() { return QStringLiteral("/usr/bin/python3"); }
    static QByteArray checkInstalled()
    {
        if (!QFile::exists(QStringLiteral("/usr/lib/python3/dist-packages/httpbin/core.py")))
            return missingProgram(QStringLiteral("httpbin"), QStringLiteral("python3-httpbin"));
        return {};
    }

    /// Starts on a free port; tries others when that one is taken first (three times in all).
    bool start(QString *error)
    {
        for (int attempt = 0; attempt < 3; ++attempt) {
            m_port = freePort();
            if (startAndWait(interpreter(),
                    {QStringLiteral("-m"), QStringLiteral("httpbin.core"), QStringLiteral("--port"),
                        QString::number(m_port)},
                    {m_port}, QString(), error))
                return true;
            stop();
            m_output.clear();
        }
        return false;
    }

    quint16 port() const { return m_port; }
    /// The request lines it logged so far ("GET /status/418 HTTP/1.1").
    QStringList requests()
    {
        QStringList lines;
        const QStringList all = output().split(QLatin1Char('\n'));
        for (const QString &line : all) {
            const qsizetype open = line.indexOf(QLatin1String("] \""));
            if (open >= 0)
                lines.append(line.mid(open + 3, line.indexOf(QLatin1Char('"'), open + 3) - open - 3));
        }
        return lines;
    }

private:
    quint16 m_port = 0;
};

} // namespace RealServers
