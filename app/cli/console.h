#pragma once

#include <QString>
#include <QStringList>
#include <QTextStream>

namespace RetryLab::Cli {

/// Where the headless commands print: every line to stdout or stderr passes
/// through the Redactor (unless redaction was turned off), so that no
/// credential from a URL, a header or a server's answer reaches a terminal or
/// a CI log. Lines are flushed at once, so a run can be watched live.
class Console final
{
public:
    /// Where print() writes. Standard error for a command whose standard
    /// output carries data (`retrylab request` writes the response body there).
    enum class PrintTo { StandardOutput, StandardError };

    explicit Console(bool redact = true, PrintTo printTo = PrintTo::StandardOutput);

    bool redacts() const { return m_redact; }
    void print(const QString &line = {});
    void print(const QStringList &lines);
    void error(const QString &line);

    /// Routes Qt's log messages through the same redaction and silences the
    /// executor's own per-attempt lines, which the commands print themselves.
    /// QT_LOGGING_RULES still decides in the end.
    static void installMessageHandler(bool redact);

private:
    QString clean(const QString &line) const;

    bool m_redact = true;
    QTextStream m_out;
    QTextStream m_err;
};

} // namespace RetryLab::Cli
