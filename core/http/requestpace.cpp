#include "core/http/requestpace.h"

#include "core/util/coretr.h"

#include <QCoreApplication>

#include <algorithm>

namespace RetryLab::Core {

RequestPace::RequestPace(int headerTimeoutMs, qint64 minBodyBytesPerSecond)
    : m_periodMs(headerTimeoutMs), m_minBodyBytesPerSecond(minBodyBytesPerSecond)
{ }

RequestPace::Timer RequestPace::afterRead(bool partial, bool readingBody, qint64 bytesReceived, bool timerActive)
{
    if (!partial) {
        m_timingBody = false;
        return Timer::Stop;
    }
    if (!timerActive) {
        // The first bytes of a request: its header section has the whole period, however it trickles.
        m_timingBody = false;
        return Timer::Start;
    }
    if (readingBody && !m_timingBody) {
        m_timingBody = true;
        m_periodStartBytes = bytesReceived;
        return Timer::Start; // the first period of the body begins
    }
    return Timer::Keep;
}

std::optional<QString> RequestPace::expired(bool readingBody, qint64 bytesReceived)
{
    if (!readingBody)
        return Tr::tr("the request's header section was not complete %1 ms after its first byte").arg(m_periodMs);
    if (!m_timingBody) { // the header section ended in the same read as the deadline
        m_timingBody = true;
        m_periodStartBytes = bytesReceived;
        return std::nullopt;
    }
    const qint64 arrived = bytesReceived - m_periodStartBytes;
    const qint64 needed = m_minBodyBytesPerSecond * m_periodMs / 1000;
    if (m_minBodyBytesPerSecond <= 0 || arrived >= needed) {
        m_periodStartBytes = bytesReceived;
        return std::nullopt;
    }
    return Tr::tr("the body arrived at %1 bytes/s, below the minimum of %2 bytes/s")
        .arg(arrived * 1000 / std::max(1, m_periodMs))
        .arg(m_minBodyBytesPerSecond);
}

} // namespace RetryLab::Core
