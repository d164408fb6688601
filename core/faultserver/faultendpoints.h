#pragma once

#include "core/faultserver/responseplan.h"
#include "core/util/randomsource.h"

#include <QByteArray>
#include <QHash>
#include <QMutex>

#include <optional>
#include <QString>

#include <algorithm>

namespace RetryLab::Core {

class Clock;
class RequestTarget;
struct HttpRequest;

/// The fault server's endpoints: /, /status/{code}, /delay/{ms}, /fail/{n},
/// /fault/*, /ratelimit, /redirect, /occ/{name} and /eventual/{name} (the
/// control API is ControlEndpoints). Each request becomes a ResponsePlan, decided
/// from the request, the state the endpoints keep (failure counters, token
/// buckets, /occ and /eventual resources, the seeded generator) and a Clock, and
/// nothing else: no socket is involved, so the endpoints are tested as tables of
/// request -> plan with a ManualClock.
///
/// Client-made state is bounded (keys, buckets and resources; the bodies of
/// /eventual), and every number is checked: a bad one gets 400 with a message.
/// handle() runs on the server's thread; reset() and the setters are safe from any.
class FaultEndpoints final
{
public:
    explicit FaultEndpoints(quint64 seed = 0x5EEDULL);

    /// Time for rate-limit refills, eventual visibility and Retry-After dates. Not
    /// owned; it must outlive the endpoints. nullptr restores the steady clock.
    /// Not thread-safe: set it on the server's thread.
    void setClock(const Clock *clock);
    /// Reseeds the generator behind /fail?p= and /delay?dist=; reset() reseeds with it again.
    void setSeed(quint64 seed);
    /// /eventual keeps the bodies of at most eight requests of this size in all.
    void setMaxBodyBytes(qint64 bytes);
    /// Keys, buckets and resources are made by clients (/fail keys, /ratelimit
    /// buckets, /occ and /eventual names): beyond this many of each kind a new one
    /// is refused until a reset, so that no client grows the server without limit.
    static constexpr qsizetype defaultMaxStateEntries = 100'000;
    void setMaxStateEntries(qsizetype entries) { m_maxStateEntries = std::max<qsizetype>(1, entries); }
    qsizetype maxStateEntries() const { return m_maxStateEntries; }

    /// What the request gets, by its path.
    ResponsePlan handle(const HttpRequest &request);
    ResponsePlan handle(const HttpRequest &request, const RequestTarget &target);
    /// Whether the target names one of these endpoints (or GET / and its list);
    /// everything else gets 404 from handle().
    static bool owns(const RequestTarget &target);
    /// Whether the path's "key" parameter names a logical request for the server's
    /// own counting (/fail/N, /ratelimit): RetryLab's key, not a credential.
    static bool keysRequests(QStringView path);

    /// Forgets counters, buckets and resources, and reseeds the generator.
    void reset();

private:
    struct FailCounter
    {
        qint64 requests = 0;
        qint64 failures = 0;
    };
    struct Bucket
    {
        double rps = 1.0;
        qint64 burst = 1;
        double tokens = 0.0;
        qint64 updatedNs = 0;
    };
    struct OccResource
    {
        qint64 value = 0;
        qint64 version = 1;
        /// The ETag of this version: "\"v3\"".
        QByteArray etag() const { return "\"v" + QByteArray::number(version) + '"'; }
    };
    struct EventualResource
    {
        QByteArray body;
        QByteArray contentType;
        qint64 createdNs = 0;
        qint64 hiddenMs = 0;
    };
    /// A long-running operation of /operation/{name}: done once doneAfterMs have passed
    /// since its first poll, with a response or the error it was given.
    struct Operation
    {
        qint64 startedNs = 0;
        qint64 doneAfterMs = 0;
        std::optional<int> error;
    };

    ResponsePlan statusEndpoint(const QString &code, const RequestTarget &target);
    ResponsePlan delayEndpoint(const QString &ms, const RequestTarget &target);
    ResponsePlan failEndpoint(const QString &n, const RequestTarget &target);
    ResponsePlan faultEndpoint(const QString &which, const RequestTarget &target);
    ResponsePlan rateLimitEndpoint(const RequestTarget &target);
    ResponsePlan redirectEndpoint(const RequestTarget &target);
    ResponsePlan occEndpoint(const HttpRequest &request, const QString &segment, const RequestTarget &target);
    /// A write to an /occ resource whose version is the "etag" field of its document (?etag=body).
    ResponsePlan writeWithBodyEtag(
        OccResource &resource, const QString &name, const QByteArray &body, const QString &envelope);
    ResponsePlan eventualEndpoint(const HttpRequest &request, const QString &name, const RequestTarget &target);
    ResponsePlan operationEndpoint(const HttpRequest &request, const QString &name, const RequestTarget &target);

    const Clock *m_clock;
    mutable QMutex m_mutex; // guards everything below
    qint64 m_maxBodyBytes = 8 * 1024 * 1024;
    qsizetype m_maxStateEntries = defaultMaxStateEntries;
    QHash<QString, FailCounter> m_failCounters;
    QHash<QString, Bucket> m_buckets;
    QHash<QString, OccResource> m_occ;
    QHash<QString, EventualResource> m_eventual;
    qint64 m_eventualBytes = 0; ///< bodies kept by /eventual
    QHash<QString, Operation> m_operations;
    RandomSource m_random;
    /// "status %1 as asked", translated once, around its placeholder: the detail of every
    /// /status answer is made by joining, where QString::arg() would parse it each time.
    QString m_statusDetailBefore;
    QString m_statusDetailAfter;
};

} // namespace RetryLab::Core
