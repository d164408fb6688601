#pragma once

#include "core/grouping/observedattempt.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QPair>
#include <QString>

#include <optional>

namespace RetryLab::Core {

/// Puts each arriving attempt into a logical request of a client, and says
/// which rule did it. Pure: no clock, no socket; constant time per attempt
/// (hash lookups), so a flood of unrelated requests stays linear.
///
/// Rules, in order:
///  1. SDK identifiers: amz-sdk-invocation-id; x-goog-api-client's
///     gccl-invocation-id/...; X-Retry-Request-Id; Idempotency-Key. The same
///     identifier from the same client is the same logical request.
///  2. grpc-previous-rpc-attempts > 0 joins the client's last open request.
///  3. Otherwise the same method, target and body digest from the same client
///     (User-Agent and address) within the gap window after the previous
///     attempt ended, when that attempt did not succeed.
///  A success closes a logical request; so does a different request from the
///  same client on the same connection once the last attempt has been
///  answered (a client that moved on). A different request on another
///  connection is a parallel one and closes nothing.
class AttemptGrouper
{
public:
    struct Settings
    {
        /// Longest pause between an answer and the retry that follows it.
        double gapWindowMs = 60'000.0;
    };

    AttemptGrouper() = default;
    explicit AttemptGrouper(Settings settings) : m_settings(settings) { }
    Settings settings() const { return m_settings; }
    void setSettings(Settings settings) { m_settings = settings; }

    struct Decision
    {
        quint64 logicalId = 0;
        bool newLogicalRequest = true;
        int attemptIndex = 1; ///< 1-based
        GroupingRule rule = GroupingRule::NewRequest;
        QString detail; ///< why, in words
        /// Logical requests of this client that the decision closed, with why ("different request", "gap").
        QList<QPair<quint64, QString>> closed;
    };

    /// Decides for an attempt that has just arrived. Reads clientId, method,
    /// target, bodyDigest, retryKey/rule hints (see identify()) and arrivalMs.
    Decision assign(const ObservedAttempt &attempt, const QList<QPair<QByteArray, QByteArray>> &identityHeaders);
    /// The server finished answering an attempt: a success closes its logical
    /// request, and so does reaching the attempt limit the client announced.
    /// Returns why it closed ("success", "limit"), or an empty string while it stays open.
    QString complete(quint64 logicalId, bool succeeded, double endMs);
    /// Forgets a logical request (dropped for memory); later attempts start a new one.
    void forget(quint64 logicalId);
    /// Logical requests still open.
    int openCount() const { return static_cast<int>(m_open.size()); }

    /// The SDK identifier an attempt carries, if any, with its rule and the
    /// attempt number and limit the client announced.
    struct Identity
    {
        GroupingRule rule = GroupingRule::SameRequest;
        QByteArray key;
        std::optional<int> attempt;
        std::optional<int> maxAttempts;
    };
    static Identity identify(const QList<QPair<QByteArray, QByteArray>> &identityHeaders);
    /// assign() with the identity made already (identify() of the attempt's identity headers).
    Decision assignIdentified(const ObservedAttempt &attempt, const Identity &identity);

private:
    void close(quint64 logicalId);
    /// The client's id in UTF-8, as it starts the keys of m_byKey.
    const QByteArray &clientKey(const QString &client);
    struct Open
    {
        QString clientId;
        QByteArray key; ///< the hash key it is filed under
        bool byIdentifier = false;
        int attempts = 0;
        int inFlight = 0; ///< attempts not answered yet
        double lastEndMs = 0.0;
        QString lastPeer; ///< the connection of its last attempt
        std::optional<int> announcedMax;
    };
    Settings m_settings;
    quint64 m_nextId = 1;
    QHash<quint64, Open> m_open;
    QHash<QByteArray, quint64> m_byKey; ///< client + identifier or client + request -> open logical request
    QHash<QString, quint64> m_lastOfClient; ///< the client's most recent logical request
    QString m_keyClient; ///< clientKey()'s last client
    QByteArray m_keyClientUtf8;
};

} // namespace RetryLab::Core
