#pragma once

#include "core/import/importedrequest.h"
#include "core/policy/backoffpolicy.h"
#include "core/util/result.h"

#include <QByteArray>
#include <QDateTime>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace RetryLab::Core {

/// Requests read from a HAR 1.2 file (HTTP Archive: what a browser's network
/// panel saves, and RetryLab's own HAR export), to be listed and picked.
///
/// Each entry's request becomes an ImportedRequest that sends what the browser
/// sent: method, URL, headers, body. Headers that only repeat what Qt writes
/// from the URL and body are left out: HTTP/2 pseudo-headers (`:authority`),
/// Content-Length, and Host when it names the URL's own host. Headers about
/// how the bytes travel are left out and listed in `ignored`: the hop-by-hop
/// ones (Connection, Keep-Alive, TE, Transfer-Encoding, Upgrade...) and
/// Accept-Encoding, because Qt decodes only the compressions it asked for
/// itself. Cookies that are only in `cookies` become a Cookie header; a body
/// comes from `postData.text` (base64-decoded when `encoding` says so) or from
/// `postData.params` (form-encoded, or multipart with a boundary of ours). A
/// request sent over HTTP/2 (`"h2"`, `"HTTP/2"`) asks for HTTP/2 again. A
/// request whose page has a title is named after it.
///
/// A HAR written by RetryLab reads back as it was written: the attempts of one
/// logical request (`_requestId`, `_attemptIndex`) are ONE request, with its
/// label, and the headers the executor adds to every attempt
/// (X-Retry-Request-Id, X-Retry-Attempt) are left out; the run's policy is
/// read from `_policy`.
///
/// Entries RetryLab cannot send (data:, blob:, ws: and other non-HTTP URLs) are
/// left out and listed in Archive::skipped. Anything else that does not fit
/// HAR refuses the file, with the place named: "log.entries[3].request.url: missing".
namespace HarImport {

/// Files and entry counts above these are refused before they are parsed or read.
inline constexpr qint64 maxFileBytes = qint64(256) * 1024 * 1024;
inline constexpr qsizetype maxEntries = 100'000;

/// One request of the archive, with what a picker shows about it.
struct Entry
{
    ImportedRequest request;
    /// Its places in `log.entries`: one, or for RetryLab's HAR every attempt of the request.
    QList<qsizetype> sourceIndexes;
    int attempts = 1;
    int status = 0; ///< the (last) response's status; 0 when none came
    QString statusText;
    QString error; ///< why no response came (`_error`: "net::ERR_ABORTED"), if it says
    double timeMs = -1.0; ///< the entry's time; for attempts, first start to last end; -1 unknown
    QDateTime started; ///< invalid when the file's date cannot be read
    QString pageTitle;
    QString resourceType; ///< Chrome's `_resourceType` ("fetch", "document", "image"), empty otherwise
    QString responseMimeType;

    /// One line for a picker, credentials masked:
    /// "POST https://api.example.com/orders → 201 Created · 84 ms".
    QString summary() const;
};

/// A HAR file as read: the importable requests in the file's order.
struct Archive
{
    QString creator; ///< log.creator.name: "WebInspector" (Chrome), "Firefox", "RetryLab"...
    QString creatorVersion;
    QString version; ///< log.version, "1.2"
    bool fromRetryLab = false;
    /// RetryLab's export said it masked credentials: values read "REDACTED" and
    /// have to be typed in again.
    bool redacted = false;
    std::optional<BackoffPolicy> policy; ///< the run's policy, in RetryLab's HAR
    QList<Entry> entries;
    /// Entries left out, each with its place ("log.entries[7].request.url") and why.
    QList<Error> skipped;
    /// What was read but not used, for the dialog to say once (an unreadable `_policy`).
    QStringList notes;
};

/// Reads a HAR document; errors name the place in `path`.
Result<Archive> read(const QByteArray &json);
/// read() on a file; the caller names the file when it shows an error.
Result<Archive> readFile(const QString &path);

/// The requests at `indexes` of Archive::entries, in the order given; an index
/// that is not in the archive is an error.
Result<QList<ImportedRequest>> pick(const Archive &archive, const QList<qsizetype> &indexes);
/// Every request of the archive.
QList<ImportedRequest> requests(const Archive &archive);

} // namespace HarImport

} // namespace RetryLab::Core
