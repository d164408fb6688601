#pragma once

#include "core/faultserver/faultinstruction.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QJsonObject>
#include <QList>
#include <QPair>
#include <QString>

#include <functional>
#include <optional>

namespace RetryLab::Core {

/// What the fault server will do with one request, decided before anything is
/// written: an answer (status, headers, body), a wait after which the answer is
/// decided, or one of the connection faults. The endpoints produce plans without
/// a socket (core/faultserver/faultendpoints.h), a Connection executes them; this
/// split is what lets the endpoints be tested as request -> plan tables.
struct ResponsePlan
{
    enum class Kind {
        Respond, ///< status, headers and body
        Wait, ///< waitMs, then whatever `then` decides
        Reset, ///< RST before any response
        ResetAfterHeaders, ///< status and headers announcing announcedBytes, then RST
        Empty, ///< close without a response
        Stall, ///< never answer; the connection lives until the client leaves
        BrokenStream, ///< announce announcedBytes, send sentBytes, close
        Garbage, ///< garbageBytes(), then close
        Drip, ///< 200 with dripBytes sent one every dripIntervalMs
    };
    Kind kind = Kind::Respond;
    int status = 200;
    QList<QPair<QByteArray, QByteArray>> headers;
    QByteArray body;
    QByteArray contentType = "application/json";
    bool close = false; ///< close the connection after the answer
    /// The machine name logged as ServerLogEntry::action ("respond", "reset", ...).
    QString action = QStringLiteral("respond");
    QString detail; ///< the same for people, with the reason
    int waitMs = 0; ///< Wait
    std::function<ResponsePlan()> then; ///< Wait: decided when the wait is over
    qint64 announcedBytes = 0; ///< BrokenStream, ResetAfterHeaders
    qint64 sentBytes = 0; ///< BrokenStream
    bool chunked = false; ///< BrokenStream: one chunk, then the close instead of the last chunk
    qint64 dripBytes = 0; ///< Drip
    int dripIntervalMs = 0; ///< Drip
    /// Respond: with pauseMs > 0, the body stops after this many bytes for pauseMs,
    /// then goes on (a download that stalls midway). BrokenStream: with a body,
    /// sentBytes of that body go out under `status` and `headers`, not filler.
    qint64 pauseAfterBytes = 0;
    int pauseMs = 0;

    void addHeader(QByteArray name, QByteArray value) { headers.append({std::move(name), std::move(value)}); }
    /// The value of the first header of that name (case-insensitive), for tests and callers that inspect plans.
    std::optional<QByteArray> header(QByteArrayView name) const;

    /// `status` with a compact JSON body (and a final newline).
    static ResponsePlan json(int status, const QJsonObject &body, QString detail);
    /// `status` with {"status": status, "error": message}; the message is the detail too.
    static ResponsePlan error(int status, const QString &message);
    /// Waits `ms`, then answers as `then` decides at that moment.
    static ResponsePlan wait(int ms, std::function<ResponsePlan()> then);
    /// A connection fault (any kind but Respond and Wait) with its action name and
    /// the sizes of the scripted steps (1024 announced, 512 sent, 16 bytes dripped
    /// every 100 ms); /fault/* then adjusts them to its parameters.
    static ResponsePlan fault(Kind kind);
    /// The plan of a scripted step. `byPath` answers the request by its path: at
    /// once for "pass", after the wait for "delay-<N>ms".
    static ResponsePlan forStep(const FaultInstruction &step, std::function<ResponsePlan()> byPath);

    /// What Garbage sends: a TLS record header, text, invalid UTF-8, a NUL and an SSH banner.
    static const QByteArray &garbageBytes();
};

} // namespace RetryLab::Core
