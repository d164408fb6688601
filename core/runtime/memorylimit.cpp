#include "core/runtime/memorylimit.h"

#include <QFile>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <limits>

#include <sys/resource.h>

namespace RetryLab::Core::MemoryLimit {

namespace {

std::atomic<void *> reserved{nullptr};
std::atomic<qint64> reservedBytes{0};
std::atomic<bool> failed{false};

} // namespace

qint64 addressSpaceLimit()
{
    rlimit limit = {};
    if (::getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
        return -1;
    return qint64(std::min<rlim_t>(limit.rlim_cur, rlim_t(std::numeric_limits<qint64>::max())));
}

qint64 addressSpaceInUse()
{
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    // "VmSize:\t  123456 kB"; read whole, since a file of /proc has no size to be at the end of.
    const QByteArray text = status.readAll();
    const qsizetype at = text.indexOf("\nVmSize:");
    if (at < 0)
        return -1;
    const qsizetype end = text.indexOf('\n', at + 1);
    bool ok = false;
    const qint64 kib = text.mid(at + 8, end - at - 8).trimmed().split(' ').value(0).toLongLong(&ok);
    return ok ? kib * 1024 : -1;
}

qint64 available()
{
    const qint64 limit = addressSpaceLimit();
    if (limit < 0)
        return std::numeric_limits<qint64>::max();
    const qint64 used = addressSpaceInUse();
    return used < 0 ? limit : std::max<qint64>(0, limit - used);
}

qint64 attemptsThatFit(qint64 available, qint64 perAttempt)
{
    if (perAttempt <= 0)
        return std::numeric_limits<qint64>::max();
    return std::max<qint64>(1, available / 2 / perAttempt);
}

void setReserve(qint64 bytes)
{
    if (bytes <= 0 || reserved.load() != nullptr || failed.load())
        return;
    // Not written to: the pages are never touched, only their addresses are held.
    if (void *block = std::malloc(size_t(bytes))) {
        reserved.store(block);
        reservedBytes.store(bytes);
    }
}

qint64 reserve()
{
    return reservedBytes.load();
}

bool noteExhausted()
{
    std::free(reserved.exchange(nullptr));
    reservedBytes.store(0);
    return !failed.exchange(true);
}

bool exhausted()
{
    return failed.load();
}

} // namespace RetryLab::Core::MemoryLimit
