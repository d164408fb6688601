#include "core/alerts/alertcommand.h"

#include "core/http/redactor.h"
#include "core/util/coretr.h"
#include "core/util/durationtext.h"

#include <QLoggingCategory>

#include <csignal>
#include <sys/types.h>
#include <unistd.h>

namespace {
Q_LOGGING_CATEGORY(lcAlertCommand, "retrylab.core.alertcommand")
} // namespace

namespace RetryLab::Core {

AlertCommand::AlertCommand(QStringList command, QProcessEnvironment environment, qint64 timeoutMs, QObject *parent)
    : QObject(parent), m_command(std::move(command)), m_timeoutMs(timeoutMs)
{
    m_process.setProgram(m_command.value(0));
    m_process.setArguments(m_command.mid(1));
    m_process.setProcessEnvironment(environment);
    m_process.setStandardInputFile(QProcess::nullDevice());
    m_process.setStandardOutputFile(QProcess::nullDevice());
    // A group of its own, so that the timeout kills what a script started too.
    m_process.setChildProcessModifier([] { ::setpgid(0, 0); });
    m_timeout.setSingleShot(true);
    connect(&m_process, &QProcess::finished, this, &AlertCommand::handleFinished);
    connect(&m_process, &QProcess::errorOccurred, this, &AlertCommand::handleError);
    connect(&m_process, &QProcess::readyReadStandardError, this, &AlertCommand::handleStderr);
    connect(&m_timeout, &QTimer::timeout, this, &AlertCommand::handleTimeout);
}

AlertCommand::~AlertCommand()
{
    if (m_process.state() != QProcess::NotRunning) {
        killGroup();
        m_process.waitForFinished(1000);
    }
}

void AlertCommand::start()
{
    qCDebug(lcAlertCommand) << "starting" << m_command.value(0);
    m_timeout.start(std::chrono::milliseconds(m_timeoutMs));
    m_process.start();
}

void AlertCommand::handleStderr()
{
    m_stderr += m_process.readAllStandardError();
    if (m_stderr.size() > stderrTailBytes)
        m_stderr = m_stderr.right(stderrTailBytes);
}

QString AlertCommand::stderrText() const
{
    const QString text = Redactor().text(QString::fromUtf8(m_stderr).trimmed());
    return text.isEmpty() ? QString() : QStringLiteral(": ") + text;
}

void AlertCommand::handleFinished(int exitCode, QProcess::ExitStatus status)
{
    m_timeout.stop();
    handleStderr();
    const QString program = m_command.value(0);
    if (m_timedOut) {
        report(Tr::tr("%1 did not finish within %2 and was killed")
                   .arg(program, DurationText::format(double(m_timeoutMs))));
    } else if (status == QProcess::CrashExit) {
        report(Tr::tr("%1 was ended by a signal%2").arg(program, stderrText()));
    } else if (exitCode != 0) {
        report(Tr::tr("%1 exited with status %2%3").arg(program).arg(exitCode).arg(stderrText()));
    } else {
        report({});
    }
}

void AlertCommand::handleError(QProcess::ProcessError error)
{
    // Every other error comes with finished() too.
    if (error != QProcess::FailedToStart)
        return;
    m_timeout.stop();
    report(Tr::tr("could not start %1: %2").arg(m_command.value(0), m_process.errorString()));
}

void AlertCommand::handleTimeout()
{
    m_timedOut = true;
    qCWarning(lcAlertCommand) << m_command.value(0) << "timed out; killing its process group";
    killGroup();
}

void AlertCommand::killGroup()
{
    const qint64 pid = m_process.processId();
    if (pid > 0)
        ::kill(-static_cast<pid_t>(pid), SIGKILL);
    m_process.kill();
}

void AlertCommand::report(const QString &problem)
{
    if (m_reported)
        return;
    m_reported = true;
    Q_EMIT finished(problem);
}

} // namespace RetryLab::Core
