#include "core/monitor/monitor.h"

#include "core/util/coretr.h"
#include "core/util/durationtext.h"

#include <QDateTime>

#include <algorithm>

namespace RetryLab::Core {

namespace {

constexpr auto dayMs = static_cast<qint64>(DurationText::msPerDay);

} // namespace

bool MaintenanceWindow::contains(qint64 utcMs) const
{
    if (fromMs && toMs)
        return utcMs >= *fromMs && utcMs < *toMs;
    if (!dailyFrom || !dailyTo)
        return false;
    const qint64 ofDay = ((utcMs % dayMs) + dayMs) % dayMs;
    const qint64 from = dailyFrom->msecsSinceStartOfDay();
    const qint64 to = dailyTo->msecsSinceStartOfDay();
    if (from <= to)
        return ofDay >= from && ofDay < to;
    return ofDay >= from || ofDay < to; // across midnight
}

QString MaintenanceWindow::describe() const
{
    if (fromMs && toMs) {
        return Tr::tr("%1 to %2")
            .arg(QDateTime::fromMSecsSinceEpoch(*fromMs, Qt::UTC).toString(Qt::ISODate),
                QDateTime::fromMSecsSinceEpoch(*toMs, Qt::UTC).toString(Qt::ISODate));
    }
    if (dailyFrom && dailyTo) {
        return Tr::tr("daily %1-%2 UTC")
            .arg(dailyFrom->toString(QStringLiteral("HH:mm")), dailyTo->toString(QStringLiteral("HH:mm")));
    }
    return {};
}

BackoffPolicy Monitor::checkPolicy() const
{
    BackoffPolicy p = policy;
    p.deadlineMs = p.deadlineMs > 0.0 ? std::min(p.deadlineMs, timeoutMs) : timeoutMs;
    if (p.attemptTimeoutMs <= 0.0 || p.attemptTimeoutMs > timeoutMs)
        p.attemptTimeoutMs = timeoutMs;
    return p;
}

bool Monitor::inMaintenance(qint64 utcMs) const
{
    return std::any_of(maintenance.cbegin(), maintenance.cend(),
        [utcMs](const MaintenanceWindow &window) { return window.contains(utcMs); });
}

} // namespace RetryLab::Core
