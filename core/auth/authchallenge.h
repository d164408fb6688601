#pragma once

#include "core/util/result.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QPair>

#include <optional>

namespace RetryLab::Core {

/// One challenge of a WWW-Authenticate or Proxy-Authenticate field (RFC 9110
/// section 11.6.1): a scheme, then a token68 or auth-params. A field may hold
/// several challenges ("Basic realm=\"a\", Digest realm=\"b\", nonce=...") and
/// a response several such fields; parse() reads them all, in order. The same
/// syntax is that of an Authorization field's credentials.
struct AuthChallenge
{
    QByteArray scheme; ///< as sent: "Digest", "Basic", "Bearer"
    QByteArray token68; ///< "Negotiate YIIB...": the one value of schemes without parameters
    /// Names in lower case, values with quotes and backslash escapes removed, in order.
    QList<QPair<QByteArray, QByteArray>> params;

    /// Whether the scheme is `name`, compared case-insensitively.
    bool isScheme(QByteArrayView name) const;
    /// The value of the first parameter called `name` (lower case).
    std::optional<QByteArray> param(QByteArrayView name) const;

    /// Every challenge of `fieldValues`, one entry per field (entries holding
    /// several fields joined by line feeds are split). An error says which
    /// field and byte are malformed and why.
    static Result<QList<AuthChallenge>> parse(const QList<QByteArray> &fieldValues);
    static Result<QList<AuthChallenge>> parse(QByteArrayView fieldValue);

    /// `value` as a quoted-string: in double quotes, with '"' and '\' escaped.
    static QByteArray quoted(QByteArrayView value);

    friend bool operator==(const AuthChallenge &, const AuthChallenge &) = default;
};

} // namespace RetryLab::Core
