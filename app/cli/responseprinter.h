#pragma once

#include "app/cli/console.h"

#include "core/record/attemptrecord.h"
#include "core/record/runrecord.h"

#include <QByteArray>
#include <QString>

namespace RetryLab::Cli {

/// What `retrylab request` makes of the response that came back: the status
/// line, and with -i (or for a HEAD request, as curl's -I) the headers, on
/// standard output; then the body, on standard output (credentials masked, and
/// not at all when it is binary and standard output is a terminal), or byte for
/// byte into -o's file. Messages go to the Console.
class ResponsePrinter final
{
public:
    struct Settings
    {
        bool include = false; ///< -i: the status line and headers on standard output
        bool live = true; ///< the status line and "Wrote the body" on the Console (not with --quiet)
        bool redact = true;
        QString outputPath; ///< -o; empty: standard output
        qint64 bodyLimit = 0; ///< the most of a body kept (--max-body), for the message when one is longer
    };

    ResponsePrinter(Console *console, Settings settings);

    /// What became of the body.
    enum class Body {
        Delivered, ///< shown, written by -o, or there was none
        Cut, ///< longer than what was kept, so -o wrote nothing
        WriteFailed, ///< -o could not write it (a file error)
    };

    /// The response to the run's one request, if one came.
    Body print(const Core::RunRecord &run, const QByteArray &method) const;

    /// Whether a terminal should not be sent `body`: it holds NUL, control characters other than tab,
    /// line ends and form feed (escape sequences included), or text that is not UTF-8.
    static bool looksBinary(const QByteArray &body);
    /// "512 bytes", "1.5 KiB", "3.2 MiB".
    static QString sizeText(qint64 bytes);

private:
    void printHead(const Core::AttemptRecord &last, const QByteArray &method) const;
    Body writeBody(const QByteArray &body, const Core::AttemptRecord &last) const;
    void showBody(const QByteArray &body, const Core::AttemptRecord &last) const;

    Console *m_console;
    Settings m_settings;
};

} // namespace RetryLab::Cli
