#pragma once

// The fault server in a child process of the benchmark (the program started again
// with --serve), so that client and server each have a process, and the client's
// memory and CPU figures are its own. Shared by bench_executor and bench_monitor.

#include "bench/processmemory.h"
#include "core/faultserver/faultserver.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QLoggingCategory>
#include <QProcess>
#include <QTextStream>
#include <QUrl>

#if defined(Q_OS_LINUX)
#include <signal.h>
#include <sys/prctl.h>
#endif

namespace RetryLab::Bench {

/// The fault server in a child process.
class ServerProcess final
{
public:
    bool start()
    {
        m_process.setProgram(QCoreApplication::applicationFilePath());
        m_process.setArguments({QStringLiteral("--serve")});
        m_process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        m_process.start();
        if (!m_process.waitForStarted(10'000))
            return false;
        QByteArray line;
        QElapsedTimer timer;
        timer.start();
        while (!line.endsWith('\n') && timer.elapsed() < 10'000) {
            if (!m_process.waitForReadyRead(1000))
                continue;
            line += m_process.readLine();
        }
        if (!line.startsWith("PORT "))
            return false;
        m_base = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(line.mid(5).trimmed().toInt()));
        return true;
    }
    ~ServerProcess()
    {
        m_process.kill();
        m_process.waitForFinished(5000);
    }

    QUrl url(const QString &pathAndQuery) const { return QUrl(m_base.toString() + pathAndQuery); }
    /// CPU time the server has used so far, in seconds (-1 if it cannot be read).
    double cpuSeconds() const { return otherProcessCpuSeconds(m_process.processId()); }

private:
    QProcess m_process;
    QUrl m_base;
};

/// The child's side: serves until killed, after printing "PORT <n>".
inline int serveFaults(int maxConnections = 20'000)
{
#if defined(Q_OS_LINUX)
    ::prctl(PR_SET_PDEATHSIG, SIGTERM); // never outlive the benchmark
#endif
    RetryLab::Core::FaultServerOptions options;
    options.maxConnections = maxConnections;
    options.logCapacity = 1000;
    RetryLab::Core::FaultServer server(options);
    if (!server.listen()) {
        QTextStream(stderr) << "the fault server cannot listen: " << server.errorString() << Qt::endl;
        return 1;
    }
    QTextStream(stdout) << "PORT " << server.serverPort() << Qt::endl;
    return QCoreApplication::exec();
}

} // namespace RetryLab::Bench
