#include "app/cli/console.h"

#include "core/http/redactor.h"
#include "core/util/terminaltext.h"

#include <QLoggingCategory>

#include <cstdio>

namespace RetryLab::Cli {

namespace {

bool logRedaction = true;
QtMessageHandler previousHandler = nullptr;

void redactingHandler(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    const QString text
        = Core::TerminalText::escapedKeepingLines(logRedaction ? Core::Redactor::logLine(message) : message);
    if (previousHandler)
        previousHandler(type, context, text);
}

} // namespace

Console::Console(bool redact, PrintTo printTo)
    : m_redact(redact), m_out(printTo == PrintTo::StandardError ? stderr : stdout), m_err(stderr)
{ }

QString Console::clean(const QString &line) const
{
    // Redacted first (the redactor reads the raw text), then made safe for a terminal.
    return Core::TerminalText::escapedKeepingLines(m_redact ? Core::Redactor::logLine(line) : line);
}

void Console::print(const QString &line)
{
    m_out << clean(line) << Qt::endl;
}

void Console::print(const QStringList &lines)
{
    for (const QString &line : lines)
        m_out << clean(line) << '\n';
    m_out.flush();
}

void Console::error(const QString &line)
{
    m_err << clean(line) << Qt::endl;
}

void Console::installMessageHandler(bool redact)
{
    logRedaction = redact;
    if (!previousHandler)
        previousHandler = qInstallMessageHandler(redactingHandler);
    QLoggingCategory::setFilterRules(QStringLiteral("retrylab.*.debug=false\n"
                                                    "retrylab.core.executor.info=false\n"
                                                    "retrylab.core.executor.warning=false\n"
                                                    // Qt's OpenSSL backend warns about a file it cannot
                                                    // read; the command's own message names the file.
                                                    "qt.tlsbackend.ossl.warning=false"));
}

} // namespace RetryLab::Cli
