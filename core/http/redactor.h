#pragma once

#include "core/http/httpheaders.h"

#include <QByteArray>
#include <QString>
#include <QUrl>

namespace RetryLab::Core {

/// Removes credentials from everything RetryLab writes or prints: exports, logs,
/// the GUI's error list. A disabled Redactor returns its input unchanged, so that
/// an exporter calls the same functions whether redaction is on or off.
///
/// Headers: `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie` and
/// `X-Api-Key` always (case-insensitive), and every other header whose name is
/// sensitive by the name rule, except headers known to carry no secret
/// (`Idempotency-Key`, `X-Idempotency-Key`, `Sec-WebSocket-Key`). Authorization
/// keeps its scheme ("Bearer REDACTED"), cookies keep their names and attributes.
///
/// The name rule, for query parameters, form fields, JSON keys and header names:
/// the name is split into words at every character that is not an ASCII letter or
/// digit and at every step from a lower-case to an upper-case letter ("apiKey" ->
/// "api", "key"); words are compared in lower case without trailing digits. The
/// name is sensitive when one of its words
///  - is one of: key, keys, token, tokens, secret, secrets, password, passwords,
///    passwd, pwd, pass, passphrase, apikey, auth, authorization, credential,
///    credentials, signature, sig, sessionid, jsessionid; or
///  - ends in token, secret, password, passwd or apikey (compound words without a
///    separator: "accesstoken", "clientsecret", "dbpassword", "xapikey").
/// So `access_token`, `api_key`, `apikey`, `APIKey`, `client_secret`, `passwd`,
/// `X-Amz-Signature` and `key` are sensitive; `keyword`, `monkey`, `secretary`,
/// `tokenizer` and `page` are not.
///
/// URLs lose the user name and password (`https://REDACTED:REDACTED@host/`) and
/// the values of sensitive query (and fragment) parameters.
///
/// One value stays under a sensitive name: RetryLab's own `{id}` as `key=` (four
/// base-36 characters, a dash and a counter, `key=g3uv-17`), which names a logical
/// request for the fault server and is no secret.
class Redactor final
{
public:
    explicit Redactor(bool enabled = true) : m_enabled(enabled) { }

    bool isEnabled() const { return m_enabled; }

    /// What replaces a secret.
    static QByteArray mask() { return QByteArrayLiteral("REDACTED"); }

    /// The name rule above.
    static bool isSensitiveName(QStringView name);
    /// The fixed header list, or the name rule minus the known harmless headers.
    static bool isSensitiveHeader(QByteArrayView name);

    /// A header's value as it may be written: masked when the header is
    /// sensitive, otherwise with credentials removed from any URL or
    /// `name=value` pair inside it.
    QByteArray headerValue(QByteArrayView name, const QByteArray &value) const;
    HeaderList headers(const HeaderList &headers) const;

    QUrl url(const QUrl &url) const;
    /// url() as a fully encoded string.
    QString urlString(const QUrl &url) const;

    /// Free text (error strings, reasons, log lines): URLs inside it, header
    /// lines such as "Authorization: ...", "Bearer ..." credentials,
    /// `name=value` pairs and JSON `"name": "value"` pairs with sensitive names.
    QString text(const QString &text) const;

    /// A request or response body, by its Content-Type: form fields and JSON
    /// keys with sensitive names, and credentials in plain text. Binary bodies
    /// and bodies without anything to remove come back byte for byte.
    QByteArray body(const QByteArray &body, const HeaderList &headers) const;

    /// For the executor and the GUI: one line of log text, always redacted.
    static QString logLine(const QString &line);

private:
    bool m_enabled = true;
};

} // namespace RetryLab::Core
