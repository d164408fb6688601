#pragma once

#include "core/auth/authspec.h"
#include "core/collections/draftbody.h"
#include "core/record/attemptrecord.h"
#include "core/record/transportoptions.h"
#include "core/util/result.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace RetryLab::Core {

/// One row of the composer's header table.
struct DraftHeader
{
    QString name;
    QString value;
    bool enabled = true;

    friend bool operator==(const DraftHeader &, const DraftHeader &) = default;
};

/// The request as the composer holds it: typed text with its placeholders (see
/// RequestTemplate), and how to send it. A plain value; Settings keeps it as JSON.
struct RequestDraft
{
    static constexpr int maxBatchCount = 10'000;
    static constexpr int maxConcurrency = 1000;
    static constexpr int minRepeatIntervalMs = 50;
    static constexpr int maxRepeatIntervalMs = 3'600'000;
    static constexpr int maxHeaders = 200;
    static constexpr qsizetype maxUrlLength = 8192;
    static constexpr qsizetype maxBodyLength = 1024 * 1024;

    QString method = QStringLiteral("GET");
    /// The URL with placeholders; the default sends to the embedded server, which
    /// answers a fresh key three times with 503 and then with 200.
    QString urlTemplate = defaultUrlTemplate();
    QList<DraftHeader> headers;
    QString body;
    /// Where the body comes from instead of `body`: form fields, a multipart form
    /// with files, or a file read for every attempt. Raw: `body` as typed (kept
    /// in the draft whatever the mode, so that switching back loses nothing).
    DraftBody bodyFrom;
    /// The user vouches that repeating the request is safe.
    bool idempotent = false;
    /// Send RetryLab's X-Retry-Request-Id and X-Retry-Attempt with every attempt.
    bool attemptHeaders = true;
    /// Per-attempt timeout for these requests; unset: the policy's.
    std::optional<double> attemptTimeoutMs;
    /// Alternative services (URLs with placeholders), tried in order, one attempt
    /// each, once the policy gives up on the URL (RequestSpec::fallbackUrls).
    QStringList fallbackTemplates;
    /// The faults that lead to a fallback, as typed (RequestSpec::fallbackOn,
    /// FallbackTriggers); empty: the faults the policy retries.
    QStringList fallbackOn;
    /// Send a read-modify-write (read, change an integer by `increment`, write
    /// back under the version read; restarted whole on a conflict) instead of
    /// the method and body above.
    bool readModifyWrite = false;
    qint64 increment = 1;
    /// How the resource is read and written; its writeUrl is writeUrlTemplate's expansion.
    ReadModifyWriteShape shape;
    /// The write's URL with placeholders; empty: the request's URL.
    QString writeUrlTemplate;
    /// Requests in one batch.
    int batchCount = 20;
    /// Attempts on the wire at once (the executor's limit).
    int concurrency = 6;
    /// Gap between two sends while repeating.
    int repeatIntervalMs = 1000;
    /// A polling preset (PollingPolicy::presetIds(), "google-lro"): Send polls the
    /// long-running operation the request starts or reads until it is done. Empty:
    /// Send sends one request.
    QString pollingPreset;
    /// The seed of the jitter of the next sends, to replay a run; unset: a
    /// fresh one for each send, batch or repeat.
    std::optional<quint64> seed;
    /// How the requests prove who sends them; Inherit and None send nothing.
    AuthSpec auth;
    /// TLS, proxy and HTTP version (the composer's Connection part). Saved through
    /// SavedTransport: never the passphrase, the proxy password or the hosts whose
    /// certificate errors are ignored.
    TransportOptions transport;

    static QString defaultUrlTemplate() { return QStringLiteral("{server}/fail/3?key={id}"); }

    /// Header names are written trimmed. Unless `keepCredentials`, credentials are
    /// replaced by Redactor::mask() ("REDACTED"), so that the user sees that a
    /// value was not saved (the settings file is plain text): values of credential
    /// headers (Authorization keeps its scheme), the URL's password and sensitive
    /// query parameters (see urlTemplateWithoutCredentials()), and credentials in the body.
    QJsonObject toJson(bool keepCredentials = false) const;
    /// "http://u:p@ss@host/x?token=t&key={id}" -> "http://u:REDACTED@host/x?token=REDACTED&key={id}".
    /// The user info ends at the last '@' of the authority (a password may hold '@');
    /// QUrl splits it into name and password. Values that are only a placeholder stay.
    static QString urlTemplateWithoutCredentials(const QString &urlTemplate);
    /// Whether a value holds Redactor::mask() as a word: what toJson() wrote in
    /// place of a credential ("Bearer REDACTED"), not a credential to send.
    static bool holdsMaskedCredential(const QString &value);
    /// The enabled credential headers whose value was masked when saved, by name:
    /// sending them would only earn 401s, so they must be typed again or unticked.
    QStringList maskedCredentialHeaders() const;
    /// An auth as toJson() writes it: secrets masked unless `keepCredentials`,
    /// except one that is only a {{variable}} (no secret: it stays).
    static QJsonObject authToJson(const AuthSpec &auth, bool keepCredentials);
    /// Reads what toJson() wrote; the error names the field.
    static Result<RequestDraft> fromJson(const QJsonObject &object);

    friend bool operator==(const RequestDraft &, const RequestDraft &) = default;
};

} // namespace RetryLab::Core
