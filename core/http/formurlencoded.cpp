#include "core/http/formurlencoded.h"

namespace RetryLab::Core {

namespace {

bool formIsUnreserved(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '*' || c == '-'
        || c == '.' || c == '_';
}

int formHexValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

QString formDecodeText(QByteArrayView piece)
{
    QByteArray bytes;
    bytes.reserve(piece.size());
    for (qsizetype i = 0; i < piece.size(); ++i) {
        const char c = piece[i];
        if (c == '+') {
            bytes.append(' ');
        } else if (c == '%' && i + 2 < piece.size() && formHexValue(piece[i + 1]) >= 0
            && formHexValue(piece[i + 2]) >= 0) {
            bytes.append(char(formHexValue(piece[i + 1]) * 16 + formHexValue(piece[i + 2])));
            i += 2;
        } else {
            // A "%" without two hex digits stays as it is, as the URL standard says.
            bytes.append(c);
        }
    }
    return QString::fromUtf8(bytes);
}

} // namespace

QByteArray FormUrlEncoded::encodeText(const QString &text)
{
    static const char hex[] = "0123456789ABCDEF";
    const QByteArray utf8 = text.toUtf8();
    QByteArray out;
    out.reserve(utf8.size() * 3);
    for (const char c : utf8) {
        if (formIsUnreserved(c)) {
            out.append(c);
        } else if (c == ' ') {
            out.append('+');
        } else {
            const auto byte = static_cast<unsigned char>(c);
            out.append('%');
            out.append(hex[byte >> 4]);
            out.append(hex[byte & 0xF]);
        }
    }
    return out;
}

QByteArray FormUrlEncoded::encode(const Fields &fields)
{
    QByteArray out;
    for (const auto &[name, value] : fields) {
        if (!out.isEmpty())
            out.append('&');
        out.append(encodeText(name));
        out.append('=');
        out.append(encodeText(value));
    }
    return out;
}

FormUrlEncoded::Fields FormUrlEncoded::decode(const QByteArray &body)
{
    Fields fields;
    for (const QByteArray &piece : body.split('&')) {
        if (piece.isEmpty())
            continue;
        const qsizetype equals = piece.indexOf('=');
        if (equals < 0)
            fields.append({formDecodeText(piece), QString()});
        else
            fields.append({formDecodeText(QByteArrayView(piece).first(equals)),
                formDecodeText(QByteArrayView(piece).sliced(equals + 1))});
    }
    return fields;
}

std::optional<QString> FormUrlEncoded::value(const Fields &fields, const QString &name)
{
    for (const auto &[each, value] : fields) {
        if (each == name)
            return value;
    }
    return std::nullopt;
}

} // namespace RetryLab::Core
