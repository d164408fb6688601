#include "core/executor/precisewakeups.h"

#include "core/runtime/timerfd.h"
#include "core/util/clock.h"

#include <QSocketNotifier>

#include <algorithm>
#include <utility>

#ifdef Q_OS_LINUX
#include <unistd.h>
#endif

namespace RetryLab::Core {

PreciseWakeups::PreciseWakeups(Handler handler, QObject *parent) : QObject(parent), m_handler(std::move(handler))
{
    m_fd = createTimerFd();
    if (m_fd >= 0) {
        m_notifier = new QSocketNotifier(qintptr(m_fd), QSocketNotifier::Read, this);
        connect(m_notifier, &QSocketNotifier::activated, this, &PreciseWakeups::handleDue);
    }
    m_fallback.setSingleShot(true);
    m_fallback.setTimerType(Qt::PreciseTimer);
    connect(&m_fallback, &QTimer::timeout, this, &PreciseWakeups::handleDue);
}

PreciseWakeups::~PreciseWakeups()
{
#ifdef Q_OS_LINUX
    if (m_fd >= 0) {
        delete m_notifier; // before its descriptor goes
        ::close(m_fd);
    }
#endif
}

void PreciseWakeups::schedule(quint64 key, qint64 delayNs)
{
    cancel(key);
    const qint64 deadline = monotonicNowNs() + std::max<qint64>(0, delayNs);
    m_keys.insert(key, m_deadlines.emplace(deadline, key));
    if (m_armedNs < 0 || deadline < m_armedNs)
        arm();
}

void PreciseWakeups::cancel(quint64 key)
{
    const auto it = m_keys.constFind(key);
    if (it == m_keys.cend())
        return;
    m_deadlines.erase(*it);
    m_keys.erase(it);
    // Left armed for a deadline that went: the wake-up finds nothing due and re-arms.
}

void PreciseWakeups::arm()
{
    m_armedNs = m_deadlines.empty() ? -1 : m_deadlines.begin()->first;
    if (m_fd >= 0) {
        armTimerFd(m_fd, m_armedNs);
        return;
    }
    if (m_armedNs < 0) {
        m_fallback.stop();
        return;
    }
    const qint64 deadline = m_armedNs;
    const qint64 waitNs = std::max<qint64>(0, deadline - monotonicNowNs());
    m_fallback.start(static_cast<int>(std::min<qint64>((waitNs + 999'999) / 1'000'000, 2'000'000'000)));
}

void PreciseWakeups::handleDue()
{
    if (m_fd >= 0)
        drainFd(m_fd);
    m_armedNs = -1;
    // One reading of the clock for the keys due now; the handler's work does not make later ones due.
    const qint64 now = monotonicNowNs();
    while (!m_deadlines.empty() && m_deadlines.begin()->first <= now) {
        const auto first = m_deadlines.begin();
        const quint64 key = first->second;
        m_keys.remove(key);
        m_deadlines.erase(first);
        m_handler(key);
    }
    arm();
}

} // namespace RetryLab::Core
