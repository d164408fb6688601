#include "core/runtime/descriptorlimit.h"

#include <QDir>
#include <QFile>

#include <algorithm>
#include <limits>

#include <sys/resource.h>

namespace RetryLab::Core::DescriptorLimit {

namespace {

qint64 shown(rlim_t value)
{
    return value == RLIM_INFINITY ? std::numeric_limits<qint64>::max() : qint64(value);
}

} // namespace

Limits current()
{
    rlimit limit = {};
    if (::getrlimit(RLIMIT_NOFILE, &limit) != 0)
        return {};
    return {shown(limit.rlim_cur), shown(limit.rlim_max)};
}

Limits raiseSoftToHard()
{
    rlimit limit = {};
    if (::getrlimit(RLIMIT_NOFILE, &limit) != 0)
        return {};
    rlim_t target = limit.rlim_max;
    if (target == RLIM_INFINITY) {
        // An unlimited hard limit still stops at the kernel's nr_open.
        QFile nrOpen(QStringLiteral("/proc/sys/fs/nr_open"));
        bool ok = false;
        const qint64 kernel = nrOpen.open(QIODevice::ReadOnly) ? nrOpen.readAll().trimmed().toLongLong(&ok) : 0;
        target = ok && kernel > 0 ? rlim_t(kernel) : rlim_t(1 << 20);
    }
    if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < target) {
        rlimit raised = limit;
        raised.rlim_cur = target;
        ::setrlimit(RLIMIT_NOFILE, &raised); // a refusal leaves the soft limit as it was
    }
    return current();
}

int openCount()
{
    const QDir fds(QStringLiteral("/proc/self/fd"));
    if (!fds.exists())
        return -1;
    return int(fds.entryList(QDir::AllEntries | QDir::System | QDir::NoDotAndDotDot).size());
}

qint64 available()
{
    const Limits limits = current();
    const int open = openCount();
    if (limits.soft < 0 || open < 0)
        return std::numeric_limits<qint32>::max();
    return std::max<qint64>(0, limits.soft - open - reserve);
}

} // namespace RetryLab::Core::DescriptorLimit
