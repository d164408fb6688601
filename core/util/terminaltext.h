#pragma once

#include <QString>
#include <QStringView>

namespace RetryLab::Core {

/// Text from outside (a request target, a header, a scenario or expectation
/// name, a server's answer) made safe for a terminal or a text log: control
/// characters cannot move the cursor, clear the screen, rewrite a line or
/// forge a new one. C0 and C1 controls and DEL become visible escapes
/// (`\e`, `\r`, `\n`, `\t`, `\x07`, `\x85`, `\u202e`), as do the Unicode controls that
/// reorder or hide text (bidirectional overrides and isolates, zero-width
/// joiners excepted). Everything else, backslashes included, is kept as is.
namespace TerminalText {

/// Every control escaped, line breaks too: for one field of a line.
QString escaped(QStringView text);
/// The same, but `\n` is kept: for a message of several lines built by RetryLab itself.
QString escapedKeepingLines(QStringView text);

/// The bound of an echo of input in a message: 200 characters.
inline constexpr qsizetype echoLimit = 200;
/// Text echoed from input into a message or a log, bounded: at most
/// `maxChars` characters of it and, when there were more, how many in all
/// ("abc… (8388608 characters in all)"). An 8 MiB instruction or key thus
/// costs a line, not 8 MiB, in a reply, a log or an error.
QString elided(QStringView text, qsizetype maxChars = echoLimit);
/// The same; a text short enough is returned shared, not copied.
QString elided(const QString &text, qsizetype maxChars = echoLimit);
/// The bound of a request target or a detail kept in the server's log: 2048 characters.
inline constexpr qsizetype logFieldLimit = 2048;

} // namespace TerminalText

} // namespace RetryLab::Core
