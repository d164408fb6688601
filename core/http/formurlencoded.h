#pragma once

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>

#include <optional>

namespace RetryLab::Core {

/// The body of application/x-www-form-urlencoded (the WHATWG URL standard's
/// form encoding, which OAuth 2.0's token requests use): names and values in
/// UTF-8, every byte but A-Z a-z 0-9 * - . _ percent-encoded, a space as "+".
/// QUrlQuery is not this: it leaves "+" alone on reading and "&" "=" inside a
/// value ambiguous on writing.
class FormUrlEncoded final
{
public:
    using Fields = QList<QPair<QString, QString>>;

    static QByteArray encode(const Fields &fields);
    /// One name or value as the form writes it.
    static QByteArray encodeText(const QString &text);
    /// Every field in order; a piece without "=" is a name with an empty value.
    static Fields decode(const QByteArray &body);
    /// The first value of `name` in `fields`.
    static std::optional<QString> value(const Fields &fields, const QString &name);
};

} // namespace RetryLab::Core
