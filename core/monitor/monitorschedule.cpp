#include "core/monitor/monitorschedule.h"

#include <QByteArray>

namespace RetryLab::Core::MonitorSchedule {

quint64 seedOf(const QString &name)
{
    quint64 hash = 0xcbf29ce484222325ULL;
    for (const char c : name.toUtf8()) {
        hash ^= static_cast<unsigned char>(c);
        hash *= 0x100000001b3ULL;
    }
    // FNV-1a leaves its high bits alike for names that differ at the end
    // ("endpoint-1", "endpoint-2"): a finalizer spreads every bit over all of them.
    hash ^= hash >> 33;
    hash *= 0xff51afd7ed558ccdULL;
    hash ^= hash >> 33;
    hash *= 0xc4ceb9fe1a85ec53ULL;
    hash ^= hash >> 33;
    return hash;
}

qint64 phaseMs(const QString &name, qint64 intervalMs)
{
    if (intervalMs <= 0)
        return 0;
    // The high bits mix best; the product stays below 2^64 for intervals under 2^32 ms.
    const quint64 fraction = seedOf(name) >> 32;
    return static_cast<qint64>((fraction * static_cast<quint64>(intervalMs)) >> 32);
}

qint64 nextDueMs(qint64 nowMs, qint64 intervalMs, qint64 phaseMs)
{
    if (intervalMs <= 0)
        return nowMs;
    const qint64 since = nowMs - phaseMs;
    qint64 k = since / intervalMs;
    if (since < 0 && since % intervalMs != 0)
        --k;
    qint64 due = phaseMs + k * intervalMs;
    if (due < nowMs)
        due += intervalMs;
    return due;
}

} // namespace RetryLab::Core::MonitorSchedule
