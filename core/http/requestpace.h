#pragma once

#include <QString>
#include <QtGlobal>

#include <optional>

namespace RetryLab::Core {

/// How fast a request must arrive on a connection, so that a client trickling
/// a byte every few seconds (slowloris) cannot hold a connection for ever: the
/// header section must be complete headerTimeoutMs after its first byte,
/// however steadily it comes, and a body must arrive at minBodyBytesPerSecond
/// at least, measured over each period of headerTimeoutMs.
///
/// The servers that take requests (the fault server's connections and the
/// proxy's) each own a single-shot timer and ask this class what to do with
/// it: after every read (afterRead) and when it fires (expired). The timer's
/// interval is always periodMs().
class RequestPace
{
public:
    RequestPace() = default;
    RequestPace(int headerTimeoutMs, qint64 minBodyBytesPerSecond);

    int periodMs() const { return m_periodMs; }

    /// What the timer does after a read.
    enum class Timer {
        Stop, ///< no request is partly received: nothing to time
        Start, ///< (re)start it: a request's first bytes, or its body's first period
        Keep, ///< leave it running
    };
    /// After each read, or when a request was taken up: whether a request is
    /// partly received (`partial`), whether its header section is complete and
    /// its body is arriving (`readingBody`), the connection's bytes so far, and
    /// whether the timer runs now.
    Timer afterRead(bool partial, bool readingBody, qint64 bytesReceived, bool timerActive);

    /// A request was taken up whole: nothing to time until the next one's first bytes.
    void reset() { m_timingBody = false; }

    /// The timer fired while a request was partly received: no value to start
    /// it again (the body kept its pace), or why the request missed its deadline
    /// ("the request's header section was not complete 10000 ms after its first byte").
    std::optional<QString> expired(bool readingBody, qint64 bytesReceived);

private:
    int m_periodMs = 10'000;
    qint64 m_minBodyBytesPerSecond = 0;
    bool m_timingBody = false; ///< the timer measures the body's rate
    qint64 m_periodStartBytes = 0; ///< bytes received when the current body period began
};

} // namespace RetryLab::Core
