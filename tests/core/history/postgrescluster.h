#pragma once

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHostAddress>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTcpServer>
#include <QTemporaryDir>

#include <unistd.h>

namespace RetryLab::Testing {

/// A throwaway PostgreSQL 15 cluster for a suite: initdb into a temporary
/// folder, a server on 127.0.0.1 at a free port with its Unix socket in that
/// folder, trust authentication for the user "retrylab". initdb refuses to run
/// as root: as root every PostgreSQL program runs through `runuser -u postgres`,
/// in a folder that user may write. The server is stopped (fast) when the
/// object goes.
///
/// Usage: `if (!PostgresCluster::available()) RETRYLAB_MISSING_TOOL(...);`, then
/// start() (empty string: running; else why not), createDatabase(), url().
/// stop() and start() again keep the data and the port.
class PostgresCluster final
{
public:
    static QString binDirectory() { return QStringLiteral("/usr/lib/postgresql/15/bin"); }
    static bool available()
    {
        return QFileInfo(binDirectory() + QStringLiteral("/initdb")).isExecutable()
            && QFileInfo(binDirectory() + QStringLiteral("/pg_ctl")).isExecutable();
    }
    static QString missingMessage()
    {
        return QStringLiteral("PostgreSQL 15's initdb and pg_ctl are missing: install the Debian package postgresql");
    }

    PostgresCluster() = default;
    ~PostgresCluster() { stop(); }
    PostgresCluster(const PostgresCluster &) = delete;
    PostgresCluster &operator=(const PostgresCluster &) = delete;

    /// Creates the cluster the first time, then starts the server; empty when it runs.
    QString start()
    {
        if (m_running)
            return {};
        if (!m_dir.isValid())
            return QStringLiteral("no temporary folder: %1").arg(m_dir.errorString());
        if (!m_initialised) {
            if (asRoot()) {
                // The postgres user must create its data folder and socket here.
                QFile::setPermissions(m_dir.path(),
                    QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner | QFileDevice::ReadGroup
                        | QFileDevice::WriteGroup | QFileDevice::ExeGroup | QFileDevice::ReadOther
                        | QFileDevice::WriteOther | QFileDevice::ExeOther);
            }
            const QString initialised = run(QStringLiteral("initdb"),
                {QStringLiteral("-D"), dataDirectory(), QStringLiteral("-U"), QStringLiteral("retrylab"),
                    QStringLiteral("-A"), QStringLiteral("trust"), QStringLiteral("-E"), QStringLiteral("UTF8"),
                    QStringLiteral("--no-sync")});
            if (!initialised.isEmpty())
                return initialised;
            m_initialised = true;
            m_port = freePort();
        }
        const QString options = QStringLiteral("-c listen_addresses=127.0.0.1 -p %1 -c unix_socket_directories=%2"
                                               " -c fsync=off -c full_page_writes=off")
                                    .arg(m_port)
                                    .arg(m_dir.path());
        const QString started = run(QStringLiteral("pg_ctl"),
            {QStringLiteral("-D"), dataDirectory(), QStringLiteral("-l"), logFile(), QStringLiteral("-o"), options,
                QStringLiteral("-w"), QStringLiteral("-t"), QStringLiteral("60"), QStringLiteral("start")});
        if (!started.isEmpty())
            return started + QStringLiteral("\n") + log();
        m_running = true;
        return {};
    }

    /// Stops the server (fast: open connections are cut); empty when it stopped.
    QString stop()
    {
        if (!m_running)
            return {};
        m_running = false;
        return run(QStringLiteral("pg_ctl"),
            {QStringLiteral("-D"), dataDirectory(), QStringLiteral("-m"), QStringLiteral("fast"), QStringLiteral("-w"),
                QStringLiteral("-t"), QStringLiteral("60"), QStringLiteral("stop")});
    }

    /// A new database; empty when it was made.
    QString createDatabase(const QString &name)
    {
        return run(QStringLiteral("createdb"),
            {QStringLiteral("-h"), QStringLiteral("127.0.0.1"), QStringLiteral("-p"), QString::number(m_port),
                QStringLiteral("-U"), QStringLiteral("retrylab"), name});
    }

    bool isRunning() const { return m_running; }
    int port() const { return m_port; }
    QString socketDirectory() const { return m_dir.path(); }
    /// Over TCP: postgresql://retrylab@127.0.0.1:PORT/DATABASE
    QString url(const QString &database) const
    {
        return QStringLiteral("postgresql://retrylab@127.0.0.1:%1/%2").arg(m_port).arg(database);
    }
    /// Through the Unix socket in the cluster's folder.
    QString socketUrl(const QString &database) const
    {
        return QStringLiteral("postgres://retrylab@localhost:%1/%2?host=%3").arg(m_port).arg(database, m_dir.path());
    }
    QString log() const
    {
        QFile file(logFile());
        return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll().right(4000)) : QString();
    }

    /// A port nothing listens on (at the moment it is asked).
    static int freePort()
    {
        QTcpServer probe;
        probe.listen(QHostAddress::LocalHost, 0);
        return probe.serverPort();
    }

private:
    static bool asRoot() { return ::geteuid() == 0; }
    QString dataDirectory() const { return m_dir.filePath(QStringLiteral("data")); }
    QString logFile() const { return m_dir.filePath(QStringLiteral("server.log")); }

    // Runs a PostgreSQL program (as the postgres user when this is root); empty
    // when it succeeded, else its output.
    QString run(const QString &program, const QStringList &arguments) const
    {
        QString executable = binDirectory() + QLatin1Char('/') + program;
        QStringList all = arguments;
        if (asRoot()) {
            all = QStringList{QStringLiteral("-u"), QStringLiteral("postgres"), QStringLiteral("--"), executable}
                + arguments;
            executable = QStringLiteral("runuser");
        }
        QProcess process;
        process.setProcessChannelMode(QProcess::MergedChannels);
        process.setWorkingDirectory(m_dir.path());
        process.start(executable, all);
        if (!process.waitForFinished(120'000)) {
            process.kill();
            process.waitForFinished();
            return QStringLiteral("%1 did not finish: %2").arg(program, QString::fromUtf8(process.readAll()));
        }
        if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0)
            return QStringLiteral("%1 failed (%2): %3")
                .arg(program, process.errorString(), QString::fromUtf8(process.readAll()));
        return {};
    }

    QTemporaryDir m_dir;
    int m_port = 0;
    bool m_initialised = false;
    bool m_running = false;
};

} // namespace RetryLab::Testing
