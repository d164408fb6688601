#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QPair>
#include <QString>
#include <QStringView>

#include <optional>

namespace RetryLab::Core {

/// Header fields in the order they were sent or received; a name may repeat.
using HeaderList = QList<QPair<QByteArray, QByteArray>>;

/// Whether `text` is one ASCII digit or more, as a status code, a Content-Length
/// or the seconds of a Retry-After are (RFC 9110 1*DIGIT).
bool isDigits(QByteArrayView text);
/// Whether `c` is an RFC 9110 tchar: a letter, a digit or one of !#$%&'*+-.^_`|~.
bool isTokenChar(char c);
/// Whether `text` is an RFC 9110 token (one tchar or more), as methods and
/// header field names must be.
bool isToken(QByteArrayView text);
/// The same for text typed by a user: a character beyond ASCII is no tchar.
bool isToken(QStringView text);
/// Whether `c` may stand in a field value (RFC 9110 section 5.5): VCHAR,
/// obs-text, SP and HTAB. Inline: the request parser asks it of every byte of every value.
inline bool isFieldValueChar(char c)
{
    const auto u = static_cast<unsigned char>(c);
    return u == '\t' || u == ' ' || (u >= 0x21 && u != 0x7f);
}
/// Why `value` cannot be sent as a field value, or an empty string when it can:
/// the first byte that is no field-value character, named and placed ("a line
/// feed (LF) at byte 12"). CR and LF would end the header line and let the rest
/// of the value become headers or a second request; NUL and other controls are
/// refused by servers and proxies alike. Every value that becomes a header, a
/// cookie or an authorization is checked with this before it is sent.
QString fieldValueProblem(QByteArrayView value);
/// The same for a method or a header name, which must be tokens.
QString tokenProblem(QByteArrayView text);

/// The value of the first field called `name` (compared case-insensitively).
std::optional<QByteArray> headerValue(const HeaderList &headers, QByteArrayView name);
/// Removes every field called `name` (compared case-insensitively).
void removeHeader(HeaderList &headers, QByteArrayView name);

/// The reason phrase RFC 9110 gives a status ("Service Unavailable"), or the
/// name of its class ("Server Error") for a status it does not name.
QByteArray reasonPhrase(int status);

} // namespace RetryLab::Core
