#pragma once

#include "core/executor/managerpool.h"
#include "core/executor/requestauth.h"
#include "core/http/headerinterner.h"
#include "core/policy/classifier.h"
#include "core/record/attemptrecord.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QNetworkRequest>
#include <QString>

#include <algorithm>
#include <functional>
#include <limits>
#include <memory>
#include <optional>

class QHostInfo;
class QNetworkAccessManager;
class QNetworkReply;
class QObject;

namespace RetryLab::Core {

class Clock;
struct ExecutorRequest;

/// One attempt's life on the network, for RetryExecutor: the request it puts on
/// the wire (with X-Retry-Request-Id and X-Retry-Attempt), the manager that
/// carries it, its hops through redirects, what the reply's signals say while it
/// runs (timings, the body as it arrives, TLS errors), the bound on the body
/// kept, and the attempt's record once Qt has said all it will. RetryExecutor
/// decides when an attempt starts and what follows it; this class does what
/// lies between, on the fields of the request that are the attempt's.
///
/// Not a QObject, and called directly: the executor pays nothing per attempt for
/// the split. The replies' signals go to `context` (the executor, on whose
/// thread this lives), and a reply's handlers find its request by id in the
/// executor's table: a reply of an earlier attempt or hop may still speak after
/// its request moved on, and must not touch it.
class AttemptTransport final
{
public:
    using Requests = QHash<quint64, std::shared_ptr<ExecutorRequest>>;

    /// `shared` must not be null; `injected` is the manager the executor was
    /// given (or null), compared only: a body cannot wait unread in its replies,
    /// since whoever owns it may destroy them. `added` hears of every manager the
    /// pool hands out, `shared` at once (the executor connects its finished()).
    AttemptTransport(QObject *context, const Clock &clock, const Requests &requests, QNetworkAccessManager *shared,
        const void *injected, ManagerPool::Added added);

    AttemptTransport(const AttemptTransport &) = delete;
    AttemptTransport &operator=(const AttemptTransport &) = delete;

    /// Bytes of each attempt's response body kept in its record; the rest is counted.
    void setBodyLimit(qint64 bytes) { m_bodyLimit = bytes; }
    qint64 bodyLimit() const { return m_bodyLimit; }
    /// Bytes of a response body read before its transfer is ended (the reply is
    /// aborted and the record says AttemptRecord::transferEnded); never less
    /// than the body limit. 0, as at first: no limit.
    void setTransferLimit(qint64 bytes) { m_transferLimit = bytes; }
    qint64 transferLimit() const
    {
        return m_transferLimit > 0 ? std::max(m_transferLimit, m_bodyLimit) : std::numeric_limits<qint64>::max();
    }

    /// Whether attempts carry X-Retry-Request-Id and X-Retry-Attempt (and the
    /// request's RequestSpec::attemptHeaders agrees).
    void setAttemptHeadersEnabled(bool enabled) { m_attemptHeaders = enabled; }
    bool attemptHeadersEnabled() const { return m_attemptHeaders; }

    /// Called when the transport itself ends the attempt in flight of a request
    /// (its connect timeout ran out, no address of the IP version asked for, its
    /// body file could not be opened): the executor cuts it as a network error.
    /// Never called from within start().
    using Ended = std::function<void(quint64 requestId)>;
    void setEnded(Ended ended) { m_ended = std::move(ended); }

    /// The records' repeated header names and values, one copy each.
    HeaderInterner &interner() { return m_interner; }
    /// The requests' auth: its token cache is this transport's.
    RequestAuth &auth() { return m_auth; }

    /// Starts attempt `r.attemptIndex`: its request (RetryPlanner's, with the
    /// attempt headers) in r.hop, its record begun in r.current at `nowNs`, a
    /// manager acquired and the first hop sent.
    void start(ExecutorRequest &r, qint64 nowNs);
    /// The request whose hop `reply` carries now; 0 for none (a reply of the
    /// shared manager's owner, or one its request let go).
    quint64 requestOf(const QNetworkReply *reply) const { return m_replyRequests.value(reply, 0); }
    /// `r`'s reply finished: a redirect is followed and nothing is returned,
    /// otherwise how the attempt ended.
    std::optional<AttemptEnd> finished(ExecutorRequest &r);
    /// Cuts the hop in flight: what arrived of the body is kept, the reply is
    /// aborted and its end not heard.
    void cut(ExecutorRequest &r);
    /// Completes the record of the attempt that ended as `end` from what the
    /// reply said (status, headers, body, error, TLS) and classifies it under
    /// the request's policy (AttemptObserver).
    Classification conclude(ExecutorRequest &r, AttemptEnd end);
    /// Lets go of the request's reply (deleted later) and of its manager.
    void release(ExecutorRequest &r);

    /// `manager` is being destroyed: the pool forgets it. Only its address is
    /// used, as the QNetworkAccessManager part of the object is already gone.
    void forgetManager(const void *manager);
    /// The attempt in flight lost its manager, and its reply with it: the record
    /// says so, as a network error, for conclude().
    void loseManager(ExecutorRequest &r);
    /// Aborts every reply in flight without a word (the executor is going).
    void abandonAll();

private:
    /// The first hop's connection: a --resolve pin, or a name lookup (timed, and
    /// for -4/-6 choosing the address), then sendHop().
    void aimFirstHop(ExecutorRequest &r, qint64 nowNs);
    /// The first hop once aimed: the token request, or the attempt's own with its auth.
    void sendFirstHop(ExecutorRequest &r);
    /// A hop after the first (a redirect, a token's, a challenge's answer): the points measured
    /// for the first exchange are let go, the hop's host pinned if a pin names it.
    void aimNextHop(ExecutorRequest &r);
    void handleLookup(quint64 requestId, quint64 serial, const QHostInfo &info);
    void handleConnectTimeout(quint64 requestId);
    /// (Re)starts the connect timer of a request with a connect timeout.
    void armConnectTimer(ExecutorRequest &r);
    /// The hop's connection carries the request: the connect timer stops.
    static void connectionReady(ExecutorRequest &r);
    /// Ends the attempt in flight from the transport's side, after the event in progress.
    void endLater(const ExecutorRequest &r);
    void sendHop(ExecutorRequest &r);
    bool followRedirect(ExecutorRequest &r);
    /// The token request of `r` was answered: true when the attempt's own request went out after it.
    bool followToken(ExecutorRequest &r);
    /// A 401 with a Digest challenge for a request with Digest auth: true when
    /// the answer went out.
    bool followChallenge(ExecutorRequest &r);
    /// Sends the attempt's own request, its auth applied.
    void sendOwnHop(ExecutorRequest &r);
    /// The reply no longer answers to its request (ended, aborted, or left for a redirect).
    void forgetReply(const ExecutorRequest &r);
    /// The request whose hop `reply` is now, or null; for handlers that neither
    /// finish nor cancel it (the executor holds it meanwhile).
    ExecutorRequest *replyOwner(quint64 requestId, const QNetworkReply *reply) const;
    bool bodyStopsAtLength(const ExecutorRequest &r) const;
    QByteArray attemptNumber(int number);

    QObject *m_context;
    const Clock &m_clock;
    const Requests &m_requests;
    ManagerPool m_managers;
    const void *m_injectedManager; ///< compared only
    QHash<const QNetworkReply *, quint64> m_replyRequests; ///< the reply in flight of each request
    QNetworkRequest m_hopRequest; ///< the attributes of every hop
    QNetworkRequest m_defaultTransportRequest; ///< the same with the default transport applied
    HeaderInterner m_interner;
    RequestAuth m_auth;
    QString m_lastReasonText; ///< the last reason phrase Qt gave, and its bytes
    QByteArray m_lastReason;
    QByteArray m_requestIdPrefix; ///< "<pid>.<executor>-": unique within the process, X-Retry-Request-Id's start
    QList<QByteArray> m_attemptNumbers; ///< "1", "2", ... of X-Retry-Attempt, made once
    qint64 m_bodyLimit = 0;
    qint64 m_transferLimit = 0;
    bool m_attemptHeaders = true;
    Ended m_ended;
    quint64 m_lookupSerial = 0;
};

} // namespace RetryLab::Core
