#pragma once

#include "core/util/result.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace RetryLab::Core {

/// One step of a scripted fault-server test: what the server does with the
/// next request that carries the test's id (header X-Retry-Test-Id). Once a
/// test's steps are used up, its requests are answered by their path again.
///
/// The grammar (grammar() lists it for the UI and the command line):
///   return-<code>              answer with that status (200-599)
///   return-<code>-after-<N>s   the same with "Retry-After: N" (0-86400)
///   delay-<N>ms                wait N ms (0-300000), then answer by the path
///   pass                       answer by the path (a step without a fault)
///   reset                      read the request, then reset the TCP connection (RST)
///   reset-after-headers        send status and headers announcing a body, then RST
///   empty                      close the connection without any response
///   stall                      read the request and never answer
///   broken-stream              announce 1024 body bytes, send 512, close
///   garbage                    send bytes that are not HTTP, then close
///   drip, drip-<N>ms           200 with a 16-byte body sent a byte every N ms (default 100, 0-10000)
/// Any step may end in "*K" to repeat it K times (1-1000): "reset*4".
struct FaultInstruction
{
    enum class Kind {
        Pass,
        Respond,
        Delay,
        Reset,
        ResetAfterHeaders,
        Empty,
        Stall,
        BrokenStream,
        Garbage,
        Drip,
    };

    Kind kind = Kind::Pass;
    int status = 200; ///< Respond
    std::optional<int> retryAfterSeconds; ///< Respond
    /// Respond: 409 with a Google error body {"error": {"code": 409, "status": "ABORTED"}}, as
    /// Cloud IAM answers a write whose etag is stale ("aborted").
    bool aborted = false;
    int milliseconds = 0; ///< Delay: the wait; Drip: the gap between bytes

    /// What broken-stream announces and sends, and what drip sends.
    static constexpr int brokenAnnouncedBytes = 1024;
    static constexpr int brokenSentBytes = 512;
    static constexpr int dripBytes = 16;
    static constexpr int defaultDripIntervalMs = 100;
    static constexpr int maxDelayMs = 300'000;
    static constexpr int maxDripIntervalMs = 10'000;
    static constexpr int maxRetryAfterSeconds = 86'400;
    static constexpr int maxRepeat = 1000;
    static constexpr int maxInstructions = 10'000;

    /// The canonical text, which parse() reads back to an equal instruction.
    QString toString() const;
    /// True for the steps that break the connection instead of answering.
    bool isConnectionFault() const;

    /// Reads one step (without a repeat suffix). The error names the step and what is wrong.
    static Result<FaultInstruction> parse(const QString &text);
    /// Reads a script; "step*K" expands to K copies. At most maxInstructions steps in all.
    static Result<QList<FaultInstruction>> parseList(const QStringList &texts);

    /// The grammar, one entry per form, for help texts and pickers.
    struct Syntax
    {
        QString form; ///< "return-<code>-after-<N>s"
        QString example; ///< "return-429-after-2s"
        QString description;
    };
    static QList<Syntax> grammar();

    friend bool operator==(const FaultInstruction &, const FaultInstruction &) = default;
};

} // namespace RetryLab::Core
