#pragma once

#include <QByteArray>
#include <QFile>
#include <QList>
#include <QString>

#if defined(Q_OS_LINUX) && defined(__GLIBC__)
#include <malloc.h>
#endif

/// Memory figures of the running process for the benchmark programs, from
/// /proc/self/status and glibc's allocator; -1 where the system has none.
namespace RetryLab::Bench {

/// A "Name:   1234 kB" field of /proc/self/status, in KiB.
inline qint64 procStatusKiB(const char *field)
{
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    const QByteArray name = QByteArray(field) + ':';
    const QList<QByteArray> lines = status.readAll().split('\n');
    for (const QByteArray &line : lines) {
        if (line.startsWith(name))
            return line.mid(name.size()).trimmed().split(' ').value(0).toLongLong();
    }
    return -1;
}

inline qint64 residentKiB()
{
    return procStatusKiB("VmRSS");
}

inline qint64 peakResidentKiB()
{
    return procStatusKiB("VmHWM");
}

/// Starts a new peak for VmHWM (Linux 4.0 and later).
inline void resetPeakResident()
{
    QFile file(QStringLiteral("/proc/self/clear_refs"));
    if (file.open(QIODevice::WriteOnly))
        file.write("5");
}

/// Bytes handed out by malloc and not yet freed: the heap the program really uses,
/// without the pages the allocator keeps for later.
inline qint64 heapInUseBytes()
{
#if defined(Q_OS_LINUX) && defined(__GLIBC__)
    const struct mallinfo2 info = mallinfo2();
    return static_cast<qint64>(info.uordblks + info.hblkhd);
#else
    return -1;
#endif
}

} // namespace RetryLab::Bench
