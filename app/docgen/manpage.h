#pragma once

#include "app/docgen/commandhelp.h"

#include <QString>
#include <QStringList>

namespace RetryLab::DocGen {

/// What a manual page says beyond the command's help: its name and one-line
/// summary (the NAME section), the version in its footer and the pages it points to.
struct ManPageInfo
{
    QString name; ///< "retrylab-run"
    QString summary;
    QString version; ///< "RetryLab 0.1.0"
    /// The page of each command of `CommandHelp::commands`, by the command's name
    /// ("run" -> "retrylab-run"); empty for a page without a command list.
    QStringList commandPages;
    QStringList seeAlso; ///< "retrylab", "retrylab-cli": section 1 pages
};

/// A section 1 manual page in roff (the man macros) from a command's help: the
/// usage as SYNOPSIS, the description, OPTIONS, ARGUMENTS, the top level's
/// COMMANDS, the text after the arguments as NOTES, and SEE ALSO. It is written
/// to pass `groff -ww` without a warning: text is escaped, options are minus
/// signs, characters outside ASCII are named, and long words may break at `|` and `/`.
class ManPage final
{
public:
    static QString write(const CommandHelp &help, const ManPageInfo &info);

    /// `text` as roff text on lines of its own: backslashes escaped, a dash that
    /// starts an option a minus sign, other characters beyond ASCII as \[uXXXX],
    /// and a line that would start with a control character made plain.
    static QString escape(const QString &text);
};

} // namespace RetryLab::DocGen
