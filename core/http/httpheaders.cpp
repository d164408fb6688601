#include "core/http/httpheaders.h"
#include "core/http/fieldname.h"

#include "core/util/coretr.h"

#include <algorithm>

namespace RetryLab::Core {

bool isDigits(QByteArrayView text)
{
    return !text.isEmpty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool isTokenChar(char c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
        return true;
    switch (c) {
    case '!':
    case '#':
    case '$':
    case '%':
    case '&':
    case '\'':
    case '*':
    case '+':
    case '-':
    case '.':
    case '^':
    case '_':
    case '`':
    case '|':
    case '~':
        return true;
    default:
        return false;
    }
}

bool isToken(QByteArrayView text)
{
    return !text.isEmpty() && std::all_of(text.begin(), text.end(), isTokenChar);
}

bool isToken(QStringView text)
{
    return !text.isEmpty() && std::all_of(text.begin(), text.end(), [](QChar c) {
        return c.unicode() < 128 && isTokenChar(char(c.unicode()));
    });
}

namespace {

/// "a line feed (LF)", "a NUL byte", "the byte 0x1b": the byte as a person looks for it.
QString byteName(unsigned char c)
{
    switch (c) {
    case '\r':
        return Tr::tr("a carriage return (CR)");
    case '\n':
        return Tr::tr("a line feed (LF)");
    case 0:
        return Tr::tr("a NUL byte");
    case ' ':
        return Tr::tr("a space");
    case '\t':
        return Tr::tr("a tab");
    default:
        break;
    }
    if (c >= 0x21 && c < 0x7f)
        return Tr::tr("\"%1\"").arg(QLatin1Char(char(c)));
    return Tr::tr("the byte 0x%1").arg(uint(c), 2, 16, QLatin1Char('0'));
}

} // namespace

QString fieldValueProblem(QByteArrayView value)
{
    for (qsizetype i = 0; i < value.size(); ++i) {
        if (!isFieldValueChar(value.at(i)))
            return Tr::tr("%1 at byte %2 cannot stand in a header value")
                .arg(byteName(static_cast<unsigned char>(value.at(i))))
                .arg(i + 1);
    }
    return {};
}

QString tokenProblem(QByteArrayView text)
{
    if (text.isEmpty())
        return Tr::tr("it is empty");
    for (qsizetype i = 0; i < text.size(); ++i) {
        if (!isTokenChar(text.at(i)))
            return Tr::tr("%1 at byte %2 cannot stand in a method or header name")
                .arg(byteName(static_cast<unsigned char>(text.at(i))))
                .arg(i + 1);
    }
    return {};
}

void removeHeader(HeaderList &headers, QByteArrayView name)
{
    headers.removeIf([name](const auto &h) { return h.first.compare(name, Qt::CaseInsensitive) == 0; });
}

std::optional<QByteArray> headerValue(const HeaderList &headers, QByteArrayView name)
{
    for (const auto &[key, value] : headers) {
        if (sameFieldName(key, name))
            return value;
    }
    return std::nullopt;
}

QByteArray reasonPhrase(int status)
{
    switch (status) {
    case 100:
        return "Continue";
    case 200:
        return "OK";
    case 201:
        return "Created";
    case 202:
        return "Accepted";
    case 204:
        return "No Content";
    case 301:
        return "Moved Permanently";
    case 302:
        return "Found";
    case 304:
        return "Not Modified";
    case 400:
        return "Bad Request";
    case 401:
        return "Unauthorized";
    case 403:
        return "Forbidden";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 408:
        return "Request Timeout";
    case 409:
        return "Conflict";
    case 412:
        return "Precondition Failed";
    case 413:
        return "Content Too Large";
    case 414:
        return "URI Too Long";
    case 428:
        return "Precondition Required";
    case 429:
        return "Too Many Requests";
    case 431:
        return "Request Header Fields Too Large";
    case 500:
        return "Internal Server Error";
    case 501:
        return "Not Implemented";
    case 502:
        return "Bad Gateway";
    case 503:
        return "Service Unavailable";
    case 504:
        return "Gateway Timeout";
    case 505:
        return "HTTP Version Not Supported";
    case 507:
        return "Insufficient Storage";
    default:
        break;
    }
    if (status < 300)
        return "Success";
    if (status < 400)
        return "Redirection";
    if (status < 500)
        return "Client Error";
    return "Server Error";
}

} // namespace RetryLab::Core
