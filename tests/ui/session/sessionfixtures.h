#pragma once

// Records for feeding a RunSession without a network: single attempts built by hand,
// and a deterministic synthetic run of any size (shared by the ui tests and bench/).

#include "core/record/attemptrecord.h"
#include "ui/session/run/runsession.h"

#include <QString>

#include <random>

namespace RetryLab::Fixtures {

using Core::AttemptEnd;
using Core::AttemptRecord;
using Core::RequestOutcome;
using Core::RequestResult;
using Decision = Core::Classification::Decision;

constexpr qint64 ms = 1'000'000;

inline QByteArray reasonPhraseOf(int status)
{
    switch (status) {
    case 200:
        return "OK";
    case 404:
        return "Not Found";
    case 429:
        return "Too Many Requests";
    case 500:
        return "Internal Server Error";
    case 503:
        return "Service Unavailable";
    default:
        return {};
    }
}

/// An attempt that got an HTTP response. `nextDelayMs` >= 0 means a retry was scheduled.
inline AttemptRecord httpAttempt(
    quint64 request, int index, double startMs, double endMs, int status, double nextDelayMs = -1.0)
{
    AttemptRecord r;
    r.requestId = request;
    r.attemptIndex = index;
    r.method = "GET";
    r.url = QUrl(QStringLiteral("http://127.0.0.1:8080/fail/2"));
    r.startNs = static_cast<qint64>(startMs * ms);
    r.endNs = static_cast<qint64>(endMs * ms);
    r.finishedNs = r.endNs;
    r.end = AttemptEnd::Response;
    r.httpStatus = status;
    r.reasonPhrase = reasonPhraseOf(status);
    r.cause = QStringLiteral("http-%1").arg(status);
    if (status >= 200 && status < 300) {
        r.decision = Decision::Success;
        r.reason = QStringLiteral("HTTP %1: success").arg(status);
    } else if (status >= 500 || status == 429) {
        r.decision = Decision::RetryAfterDelay;
        r.reason = QStringLiteral("HTTP %1: server error; transient, retry after a delay").arg(status);
    } else {
        r.decision = Decision::GiveUp;
        r.reason = QStringLiteral("HTTP %1: client error; repeating the same request will not help").arg(status);
    }
    r.nextDelayMs = nextDelayMs;
    return r;
}

/// An attempt that failed in transport.
inline AttemptRecord networkAttempt(quint64 request, int index, double startMs, double endMs,
    QNetworkReply::NetworkError error, const QString &cause, double nextDelayMs = -1.0)
{
    AttemptRecord r = httpAttempt(request, index, startMs, endMs, 200, nextDelayMs);
    r.httpStatus.reset();
    r.reasonPhrase.clear();
    r.end = AttemptEnd::NetworkError;
    r.networkError = error;
    r.errorString = cause == QLatin1String("connection-refused") ? QStringLiteral("Connection refused")
                                                                 : QStringLiteral("Remote host closed the connection");
    r.cause = cause;
    r.decision = Decision::RetryAfterDelay;
    r.reason = QStringLiteral("%1; transient, retry after a delay").arg(cause);
    return r;
}

inline RequestResult result(quint64 request, RequestOutcome outcome, int attempts, double startMs, double endMs)
{
    RequestResult r;
    r.requestId = request;
    r.outcome = outcome;
    r.attempts = attempts;
    r.startNs = static_cast<qint64>(startMs * ms);
    r.endNs = static_cast<qint64>(endMs * ms);
    return r;
}

/// What syntheticRun() produced, for checking counts.
/// The hand-computed run of tst_runstatistics, through a session:
///   request 1: 503 [0,100] retried, 503 [300,420] retried, 200 [900,980]
///   request 2: 200 [10,60]
///   request 3: refused [20,30] retried, refused [530,540] given up
///   request 4: cancelled [40,1040]
inline void feedHandComputedRun(Ui::RunSession &session)
{
    session.recordAttempt(httpAttempt(1, 0, 0, 100, 503, 200));
    session.recordAttempt(httpAttempt(2, 0, 10, 60, 200));
    session.recordAttempt(
        networkAttempt(3, 0, 20, 30, QNetworkReply::ConnectionRefusedError, QStringLiteral("connection-refused"), 500));
    session.recordAttempt(httpAttempt(1, 1, 300, 420, 503, 480));
    session.recordAttempt(
        networkAttempt(3, 1, 530, 540, QNetworkReply::ConnectionRefusedError, QStringLiteral("connection-refused")));
    session.recordAttempt(httpAttempt(1, 2, 900, 980, 200));
    AttemptRecord cancelled = httpAttempt(4, 0, 40, 1040, 200);
    cancelled.httpStatus.reset();
    cancelled.end = AttemptEnd::Cancelled;
    cancelled.decision = Decision::GiveUp;
    cancelled.cause = QStringLiteral("cancelled");
    session.recordAttempt(cancelled);
    session.recordResult(result(2, RequestOutcome::Succeeded, 1, 10, 60));
    session.recordResult(result(3, RequestOutcome::AttemptsExhausted, 2, 20, 540));
    session.recordResult(result(1, RequestOutcome::Succeeded, 3, 0, 980));
    session.recordResult(result(4, RequestOutcome::Cancelled, 1, 40, 1040));
}

struct SyntheticCounts
{
    qint64 attempts = 0;
    qint64 requests = 0;
    qint64 succeeded = 0;
    qint64 retried = 0; ///< attempts that failed and were retried
    qint64 failed = 0; ///< attempts that ended their request in failure
};

/// A deterministic run: about 2 attempts per request in the mix a flaky service gives
/// (first-try successes, 503 then success, 429 twice then success, three refused
/// connections and give up). Requests start `spacingMs` apart.
inline SyntheticCounts syntheticRun(
    Ui::RunSession &session, qint64 requests, quint64 seed = 42, double spacingMs = 5.0, qint64 firstRequestId = 1)
{
    std::mt19937_64 random(seed);
    std::uniform_real_distribution<double> duration(3.0, 60.0);
    std::uniform_int_distribution<int> kind(0, 99);
    SyntheticCounts counts;

    // Templates keep the strings shared, as the executor's records would not, but
    // copying them is what makes a million records affordable in a test.
    const AttemptRecord ok = httpAttempt(0, 0, 0, 0, 200);
    const AttemptRecord busy = httpAttempt(0, 0, 0, 0, 503);
    const AttemptRecord limited = httpAttempt(0, 0, 0, 0, 429);
    const AttemptRecord refused
        = networkAttempt(0, 0, 0, 0, QNetworkReply::ConnectionRefusedError, QStringLiteral("connection-refused"));

    const auto feed = [&](const AttemptRecord &shape, quint64 id, int index, double start, double end, double next) {
        AttemptRecord r = shape;
        r.requestId = id;
        r.attemptIndex = index;
        r.startNs = static_cast<qint64>(start * ms);
        r.endNs = static_cast<qint64>(end * ms);
        r.finishedNs = r.endNs;
        r.nextDelayMs = next;
        r.plannedDelayMs = index == 0 ? 0.0 : 100.0 * (1 << (index - 1));
        r.actualDelayMs = r.plannedDelayMs;
        session.recordAttempt(r);
        ++counts.attempts;
        if (r.decision == Decision::Success)
            ++counts.succeeded;
        else if (next >= 0.0)
            ++counts.retried;
        else
            ++counts.failed;
    };

    for (qint64 i = 0; i < requests; ++i) {
        const quint64 id = quint64(firstRequestId + i);
        const double start = double(i) * spacingMs;
        const int k = kind(random);
        QList<const AttemptRecord *> shapes;
        if (k < 55)
            shapes = {&ok};
        else if (k < 80)
            shapes = {&busy, &ok};
        else if (k < 93)
            shapes = {&limited, &limited, &ok};
        else
            shapes = {&refused, &refused, &refused};
        double t = start;
        for (int a = 0; a < shapes.size(); ++a) {
            const bool last = a == shapes.size() - 1;
            const double next = last ? -1.0 : 100.0 * (1 << a);
            const double end = t + duration(random);
            feed(*shapes.at(a), id, a, t, end, next);
            t = end + (next > 0 ? next : 0.0);
        }
        const bool success = shapes.constLast() == &ok;
        session.recordResult(result(
            id, success ? RequestOutcome::Succeeded : RequestOutcome::AttemptsExhausted, int(shapes.size()), start, t));
        ++counts.requests;
    }
    return counts;
}

} // namespace RetryLab::Fixtures
