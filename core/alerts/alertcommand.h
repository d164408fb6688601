#pragma once

#include <QByteArray>
#include <QObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QStringList>
#include <QTimer>

namespace RetryLab::Core {

/// One run of a command alert target: the program started without a shell,
/// in a process group of its own, with the event in its environment, stdin
/// closed and stdout discarded. When it outlives its timeout the whole group
/// is killed (a script's children with it), so that a hung command never holds
/// anything. It reports once, by finished(), whatever happened.
class AlertCommand final : public QObject
{
    Q_OBJECT

public:
    /// `command` is the program's absolute path, then its arguments.
    AlertCommand(QStringList command, QProcessEnvironment environment, qint64 timeoutMs, QObject *parent = nullptr);
    /// Kills the process group of a command still running.
    ~AlertCommand() override;

    void start();

    /// The last bytes of standard error kept for the report.
    static constexpr qsizetype stderrTailBytes = 1024;

Q_SIGNALS:
    /// `problem` is empty when the command exited with status 0; otherwise why
    /// it failed to start, timed out, exited with another status or crashed,
    /// with the end of what it wrote to standard error (credentials redacted).
    void finished(const QString &problem);

private:
    void handleFinished(int exitCode, QProcess::ExitStatus status);
    void handleError(QProcess::ProcessError error);
    void handleTimeout();
    void handleStderr();
    void killGroup();
    void report(const QString &problem);
    QString stderrText() const;

    QStringList m_command;
    QProcess m_process;
    QTimer m_timeout;
    qint64 m_timeoutMs = 0;
    QByteArray m_stderr;
    bool m_timedOut = false;
    bool m_reported = false;
};

} // namespace RetryLab::Core
