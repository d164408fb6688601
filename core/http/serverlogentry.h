#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QMetaType>
#include <QPair>
#include <QString>

#include <optional>

namespace RetryLab::Core {

/// The fault server's record of one request it handled (or one connection it
/// turned away): what arrived, and what the server did about it. The GUI shows
/// these next to the client's attempts; `retrylab serve` prints one per line.
struct ServerLogEntry
{
    quint64 sequence = 0; ///< 1, 2, 3, ... for the lifetime of the server
    QDateTime time; ///< UTC, when the request had been read completely
    QString peer; ///< "127.0.0.1:53422"
    /// Empty for plain HTTP; over TLS the connection's handshake as
    /// TlsFaults::name() says it: "pass" on the HTTPS port, "expired" on that
    /// fault's port (a client that accepted the certificate anyway), ...
    QString tls;
    QByteArray method; ///< empty when the request could not be parsed
    QString target; ///< path and query as sent
    QString testId; ///< X-Retry-Test-Id, if any
    int instructionIndex = -1; ///< 0-based scripted step used, -1 when answered by the path
    QString clientAttempt; ///< X-Retry-Attempt as sent by the client, if any
    /// The client sent the same attempt again (same X-Retry-Request-Id and
    /// X-Retry-Attempt): a resend by its HTTP library, not a retry of its own.
    bool replayed = false;
    /// What the server did, as a stable machine name: "respond", "reject"
    /// (malformed or oversized request), "over-capacity", "reset",
    /// "reset-after-headers", "empty", "stall", "broken-stream", "garbage",
    /// "drip", "client-closed" (the client left before the server finished);
    /// for TLS connections that never carried a request "tls-cut", "tls-alert",
    /// "plain-http" (handshake faults), "tls-refused" (the client ended the
    /// handshake, usually refusing the certificate), "tls-closed" (it left
    /// right after the handshake, as curl does on a wrong host name) and "tls-timeout".
    QString action;
    QString detail; ///< the same for people, with the reason
    std::optional<int> status; ///< the status sent, none for a connection fault
    qint64 bytesSent = 0; ///< status line, headers and body as written
    double durationMs = 0.0; ///< from the complete request to the end of the answer

    /// When the request had been read completely on the server's steady clock
    /// (Clock::nowNs()): arrivals and ends of answers compare exactly, unlike `time`.
    qint64 receivedNs = 0;
    /// The headers that tell who sent the request and which retry it is
    /// (identityHeaderNames(), names lower-case, in the order sent); credentials
    /// in them are masked as in the target. Empty for a request that could not be parsed.
    QList<QPair<QByteArray, QByteArray>> identityHeaders;
    /// The first 16 hex digits of the SHA-256 of the request body; empty for no body.
    QByteArray bodyDigest;
    /// What arrived, for telling requests apart (requestDigestOf), taken before
    /// anything is masked; empty for a request that could not be parsed.
    QByteArray requestDigest;
    /// The Retry-After value the server sent, if it sent one.
    QByteArray retryAfter;
    /// Set by a FaultServer::RequestHook to find its own record of the request again; 0 otherwise.
    quint64 hookTag = 0;

    /// The value of an identity header (name lower-case), if it was sent.
    std::optional<QByteArray> identityHeader(QByteArrayView name) const;
    /// The identity headers among `headers` (names lower-case, in order).
    static QList<QPair<QByteArray, QByteArray>> identityHeadersOf(const QList<QPair<QByteArray, QByteArray>> &headers);
    /// The first 16 hex digits of the body's SHA-256; empty for no body.
    static QByteArray bodyDigestOf(QByteArrayView body);
    /// The first 16 hex digits of a SHA-256 of the target exactly as sent and of
    /// the values of the headers that carry credentials (Redactor::isSensitiveHeader):
    /// what tells two requests apart whose difference the masked log hides
    /// (?key=a and ?key=b; two bearer tokens). Left out: Cookie (a server may set
    /// one on a failed answer, and the retry carries it) and a request signature
    /// (AWS SigV4 signs every attempt anew): only the part of an Authorization
    /// value before "Signature=" counts.
    static QByteArray requestDigestOf(QByteArrayView target, const QList<QPair<QByteArray, QByteArray>> &headers);
    /// User-Agent, the retry identifiers SDKs send (amz-sdk-invocation-id,
    /// amz-sdk-request, x-goog-api-client, x-retry-request-id, x-retry-attempt,
    /// idempotency-key, grpc-previous-rpc-attempts, ...), all lower-case.
    static const QList<QByteArray> &identityHeaderNames();

    QJsonObject toJson() const;
    /// One line for a terminal: "#12 GET /status/503 -> 503 respond (0.4 ms, 112 B) ...".
    QString summary() const;
};

} // namespace RetryLab::Core

Q_DECLARE_METATYPE(RetryLab::Core::ServerLogEntry)
