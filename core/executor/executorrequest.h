#pragma once

#include "core/executor/hoprequest.h"
#include "core/executor/preparedtransport.h"
#include "core/executor/requestauth.h"
#include "core/executor/retryplanner.h"
#include "core/policy/backoffpolicy.h"
#include "core/record/attemptrecord.h"

#include <QLoggingCategory>
#include <QNetworkReply>
#include <QPointer>
#include <QStringList>
#include <QTimer>

#include <memory>

QT_BEGIN_NAMESPACE
class QNetworkAccessManager;
QT_END_NAMESPACE

// The executor's own: a logical request as RetryExecutor (its state between
// attempts) and AttemptTransport (the fields of its attempt on the wire) keep it.

Q_DECLARE_LOGGING_CATEGORY(lcExecutor)

namespace RetryLab::Core {

struct ExecutorRequest
{
    /// Hedging: the request sends no attempt itself but its attempts, each a
    /// request of its own (hedgeOf), and waits for the first acceptable answer.
    enum class Phase { Queued, InFlight, Sleeping, Refused, Hedging, Done };

    // Copying the spec and the policy in, rather than assigning over default
    // ones, spares building their defaults (methods, the status set, the fault
    // table) for every request.
    ExecutorRequest(const RequestSpec &requestSpec, const BackoffPolicy &requestPolicy)
        : spec(requestSpec), policy(requestPolicy)
    { }

    quint64 id = 0;
    RequestSpec spec;
    BackoffPolicy policy;
    QString host;
    Phase phase = Phase::Queued;

    int attemptIndex = 0; ///< index of the next attempt
    QByteArray requestIdValue; ///< X-Retry-Request-Id of every attempt, made at the first
    RetryPlanner::State plan; ///< what the decisions between attempts depend on
    double lastRetryCost = 0.0;
    bool retryPaid = false; ///< lastRetryCost bought a retry that has not gone out yet
    bool breakerTrial = false;

    /// The endpoint of the attempts now: 0 the spec's URL, n its n-th fallback (spec.url is then that fallback).
    int fallback = 0;
    RequestOutcome primaryOutcome = RequestOutcome::GaveUp; ///< how the policy ended on the request's URL
    QString primaryReason;
    QStringList fallbackFailures; ///< why each fallback tried failed, in order
    /// Whether the last attempt's fault lets a fallback be asked (RetryPlanner::fallbackVerdict);
    /// allowed before any attempt, as when the circuit was open from the start.
    RetryPlanner::FallbackVerdict fallbackVerdict{true, {}, {}};
    /// With RequestSpec::fallbackOn set, what sent it to each fallback so far (RequestResult::fallbackTriggers).
    QStringList fallbackTriggers;

    qint64 submittedNs = 0;
    qint64 queuedSinceNs = 0;
    qint64 firstStartNs = -1;
    qint64 sleepStartNs = 0;
    double plannedDelayMs = 0.0;
    double actualDelayMs = 0.0;
    /// Why the next attempt waited for a spent rate limit before it started
    /// (RateLimitHold); its record's reason says so. Empty when it did not.
    QString holdNote;
    /// The attempt leaving the queue holds its token of the adaptive rate limiter.
    bool tokenTaken = false;
    /// It waits for that token, holding the concurrency slot it will go out in.
    bool waitingForToken = false;

    // Hedging (BackoffPolicy::hedging): a hedged request's attempts are requests
    // of their own under ids of their own, which the executor never reports.
    quint64 hedgeOf = 0; ///< an attempt of this hedged request; 0 for a request of its own
    QList<quint64> hedgeAttempts; ///< the hedged request's attempts that have not ended
    qint64 lastHedgeStartNs = -1; ///< when its last attempt went out
    int hedgesStarted = 0; ///< its attempts that went out (a queued one may be dropped unsent)
    /// Why its attempts still running were cut (an answer came first, the deadline, a cancel).
    QString hedgeEnd;
    /// The id the request's signals and records carry: the hedged request's for its attempts.
    quint64 logicalId() const { return hedgeOf ? hedgeOf : id; }

    // The attempt on the wire (AttemptTransport's).
    HopRequest hop; ///< the request in flight: the attempt's own, or where a redirect led
    /// TLS, proxy and HTTP version of every attempt, files read at submit().
    PreparedTransport transport;
    /// Its auth between hops and attempts (RequestAuth).
    RequestAuthState auth;
    /// The attempt's own request while a token request goes first.
    HopRequest afterToken;
    QPointer<QNetworkReply> reply;
    TlsDetails tls; ///< of the hop in flight: certificate errors as they arrive
    QNetworkAccessManager *manager = nullptr;
    AttemptRecord current;
    QByteArray body;
    qint64 bytesReceived = 0;
    bool readingBody = false; ///< readyRead is connected: the body is read as it arrives
    bool transferEnded = false; ///< the body reached the transfer limit and the reply was aborted
    /// The name lookup of the attempt's first hop in flight (QHostInfo's id), -1 for none.
    int lookupId = -1;
    quint64 lookupSerial = 0; ///< which lookup's answer is awaited (AttemptTransport's count)
    /// The address the hop in flight connects to instead of its host (ConnectTarget); empty: the host.
    QString connectAddress;
    /// Runs while the attempt's connection is not ready (TransportOptions::connectTimeoutMs).
    std::unique_ptr<QTimer> connectTimer;
};

} // namespace RetryLab::Core
