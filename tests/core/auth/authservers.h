#pragma once

// Real servers of the auth suites: Debian's Apache with mod_auth_digest, and
// digest_verifier.py for the Digest algorithms Apache does not offer. Started
// on 127.0.0.1, on free ports, by tst_digestauth and tst_executorauth.

#include "../executor/realservers.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QUrl>

#include <unistd.h>

namespace AuthServers {

// A file of tests/core/auth (RETRYLAB_SOURCE_DIR is the suite's definition).
inline QString sourceFile(const char *name)
{
    return QStringLiteral(RETRYLAB_SOURCE_DIR "/tests/core/auth/") + QString::fromLatin1(name);
}

// Debian's Apache with mod_auth_digest on a free port, its configuration,
// password file, logs and pid file in `dir`; /private/ needs Digest (MD5) as
// user ada, password lovelace. The access log keeps each request's
// Authorization field.
class ApacheDigest : public RealServers::ServerProcess
{
public:
    quint16 port = 0;
    QString dir;

    bool start(const QString &folder, QString *error)
    {
        dir = folder;
        port = RealServers::freePort();
        const auto path = [this](const char *name) { return QDir(dir).filePath(QString::fromLatin1(name)); };
        QDir(dir).mkpath(QStringLiteral("htdocs/private"));
        RealServers::writeText(path("htdocs/private/index.html"), QStringLiteral("the private page\n"));
        // htdigest's line, computed: its password prompt reads the terminal.
        const QByteArray ha1 = QCryptographicHash::hash("ada:retrylab:lovelace", QCryptographicHash::Md5).toHex();
        RealServers::writeText(path("htdigest"), QStringLiteral("ada:retrylab:%1\n").arg(QString::fromLatin1(ha1)));
        const QString modules = QStringLiteral("/usr/lib/apache2/modules/");
        QString config
            = QStringLiteral("ServerRoot \"%1\"\nServerName 127.0.0.1\nListen 127.0.0.1:%2\nPidFile \"%1/httpd.pid\"\n"
                             "ErrorLog \"%1/error.log\"\nDefaultRuntimeDir \"%1\"\nLogLevel warn\n")
                  .arg(dir)
                  .arg(port);
        for (const char *module :
            {"mpm_prefork", "authn_core", "authn_file", "authz_core", "authz_user", "auth_digest"}) {
            config += QStringLiteral("LoadModule %1_module %2mod_%1.so\n").arg(QString::fromLatin1(module), modules);
        }
        // Apache started as root serves as an unprivileged user, which must read the folder.
        config += QStringLiteral(
            "User nobody\nGroup nogroup\nStartServers 1\nMinSpareServers 1\nMaxSpareServers 2\n"
            "LogFormat \"%r|%>s|%{Authorization}i\" retrylab\nCustomLog \"%1/access.log\" retrylab\n"
            "DocumentRoot \"%1/htdocs\"\n"
            "<Location /private/>\n  AuthType Digest\n  AuthName \"retrylab\"\n  AuthDigestDomain /private/\n"
            "  AuthDigestProvider file\n  AuthUserFile \"%1/htdigest\"\n  Require valid-user\n</Location>\n")
                      .arg(dir);
        RealServers::writeText(path("httpd.conf"), config);
        const auto readable
            = QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadGroup | QFileDevice::ReadOther;
        const auto traversable = readable | QFileDevice::ExeOwner | QFileDevice::ExeGroup | QFileDevice::ExeOther;
        for (const char *folderName : {"", "htdocs", "htdocs/private"})
            QFile::setPermissions(path(folderName), traversable);
        for (const char *file : {"htdocs/private/index.html", "htdigest", "httpd.conf"})
            QFile::setPermissions(path(file), readable);
        // Apache's prefork parent ends its whole process group when it stops:
        // a group of its own keeps the test out of it.
        m_process.setChildProcessModifier([] { ::setpgid(0, 0); });
        return startAndWait(RealServers::findProgram(QStringLiteral("apache2")),
            {QStringLiteral("-f"), path("httpd.conf"), QStringLiteral("-DFOREGROUND")}, {port}, path("error.log"),
            error);
    }

    QUrl url(const char *pathAndQuery) const
    {
        return QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(port).arg(QString::fromLatin1(pathAndQuery)));
    }

    /// The Authorization fields of the requests answered `status`, in order.
    QList<QByteArray> authorizations(int status) const
    {
        QList<QByteArray> fields;
        for (const QString &line : RealServers::readText(QDir(dir).filePath(QStringLiteral("access.log")))
                                       .split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
            const QStringList parts = line.split(QLatin1Char('|'));
            if (parts.size() >= 3 && parts[1].toInt() == status && parts[2] != QLatin1String("-"))
                fields.append(
                    parts.mid(2).join(QLatin1Char('|')).replace(QStringLiteral("\\\""), QStringLiteral("\"")).toUtf8());
        }
        return fields;
    }
};

// digest_verifier.py on a free port, for the given algorithms and qop.
class DigestVerifier
{
public:
    ~DigestVerifier()
    {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.kill();
            m_process.waitForFinished(5000);
        }
    }

    bool start(const QString &algorithms, const QString &qop)
    {
        m_process.start(QStringLiteral("/usr/bin/python3"),
            {sourceFile("digest_verifier.py"), QStringLiteral("ada"), QStringLiteral("lovelace"), algorithms, qop});
        if (!m_process.waitForStarted(10'000))
            return false;
        while (!m_process.canReadLine()) {
            if (!m_process.waitForReadyRead(15'000))
                return false;
        }
        const QByteArray line = m_process.readLine().trimmed();
        port = line.startsWith("PORT ") ? line.mid(5).toUShort() : 0;
        return port != 0;
    }

    QUrl url(const char *pathAndQuery) const
    {
        return QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(port).arg(QString::fromLatin1(pathAndQuery)));
    }

    /// What it said about the requests since the last call: "OK SHA-256 nc=00000001", "REFUSED ...".
    QList<QByteArray> verdicts()
    {
        m_process.waitForReadyRead(200);
        QList<QByteArray> lines;
        while (m_process.canReadLine())
            lines.append(m_process.readLine().trimmed());
        return lines;
    }

    QString errors() { return QString::fromUtf8(m_process.readAllStandardError()); }

    quint16 port = 0;

private:
    QProcess m_process;
};

} // namespace AuthServers
