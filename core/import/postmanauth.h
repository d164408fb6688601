#pragma once

#include "core/auth/authspec.h"

#include <QHash>
#include <QString>

#include <optional>

namespace RetryLab::Core {

class JsonReader;

/// A Postman `auth` object's type and parameters as RetryLab's AuthSpec, for
/// the import and `retrylab run` alike: basic, bearer, apikey, digest, awsv4
/// and oauth2 (client credentials; a refresh token; an access token Postman
/// kept, sent as a bearer token). Values keep their {{variables}}.
struct PostmanAuth
{
    /// An auth object's parameters for `type`: v2.1's [{key, value}], v2.0's
    /// {key: value}. A value that is no text (OAuth 2.0 keeps objects and arrays
    /// among them) is left out; an entry without a key fails `auth`.
    static QHash<QString, QString> parameters(JsonReader &auth, const QString &type);

    /// The auth, or nothing with `unsupported` saying why ("ntlm is not
    /// supported", "oauth2 with the implicit grant"): never dropped unsaid.
    static std::optional<AuthSpec> read(
        const QString &type, const QHash<QString, QString> &parameters, QString *unsupported);
};

} // namespace RetryLab::Core
