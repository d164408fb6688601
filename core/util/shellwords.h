#pragma once

#include "core/util/result.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

namespace RetryLab::Core {

/// A command line split into words as a POSIX shell (bash) would split it,
/// without running anything: single and double quotes, backslash escapes, line
/// continuations (backslash + newline), ANSI-C quoting ($'...'), comments, and
/// the operators that end a word (| ; & && || < > >> and friends) as words of
/// their own. Nothing is expanded: $VAR, ${VAR}, $(...) and `...` stay as
/// written and are listed, because a pasted command refers to a shell the
/// import does not have.
///
/// Words are bytes, since $'\xff' can produce any byte; the rest of the text
/// is UTF-8.
namespace ShellWords {

struct Word
{
    QByteArray text; ///< after quote removal: what the program receives
    qsizetype offset = 0; ///< where the word starts in the input (0-based, UTF-16 units)
    /// An unquoted operator ("|", ";", "&&", ">", "2>", "\n" for a line end that
    /// ends a command); `text` then holds the operator as written.
    bool isOperator = false;
};

struct Split
{
    QList<Word> words;
    /// Shell expansions left as written: "$TOKEN", "${HOME}", "$(date)", "`id`".
    QStringList expansions;
};

/// Splits `line`. Errors: a quote that is never closed, with its position.
Result<Split> split(const QString &line);

/// `word` written as one argument of a POSIX shell command, the inverse of
/// split(): bare when it is not empty and every character is safe, otherwise
/// in single quotes, with each ' written as '\''. Safe are the ASCII letters
/// and digits and _ @ % + = : , . / -, which no POSIX shell (nor bash) treats
/// specially anywhere in an argument: no globbing (* ? [), expansion ($ ` ~),
/// quoting, comment (#), history (!), brace (bash's { }) or operator
/// character. Anything else, non-ASCII letters included, is quoted, so that
/// the text reads the same in any locale. `=` is safe in an argument but would
/// make a command's first word an assignment: quote() is for arguments.
QString quote(const QString &word);

/// "column 14", or "line 2, column 5" when `line` has several lines: where
/// `offset` is, for people (1-based).
QString position(const QString &line, qsizetype offset);

/// Whether `word` is one of the operators that separate commands (; & && ||
/// and a line end), as opposed to a pipe or a redirection.
bool isCommandSeparator(const Word &word);
/// Whether `word` is a redirection (<, >, >>, 2>, &>, >&, ...).
bool isRedirection(const Word &word);

} // namespace ShellWords

} // namespace RetryLab::Core
