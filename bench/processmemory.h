#pragma once

#include <QByteArray>
#include <QFile>
#include <QList>
#include <QString>

#if defined(Q_OS_LINUX) && defined(__GLIBC__)
#include <malloc.h>
#endif
#if defined(Q_OS_LINUX)
#include <sys/resource.h>
#include <unistd.h>
#endif

/// Memory and CPU figures of the running process for the benchmark programs,
/// from /proc and glibc's allocator; -1 where the system has none.
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

/// CPU time, user and system, this process has used so far (its threads
/// included), in seconds; -1 where the system cannot say.
inline double processCpuSeconds()
{
#if defined(Q_OS_LINUX)
    rusage usage{};
    if (::getrusage(RUSAGE_SELF, &usage) != 0)
        return -1.0;
    return double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
#else
    return -1.0;
#endif
}

/// CPU time, user and system, another running process has used so far, from
/// /proc/<pid>/stat (in clock ticks, 10 ms each on most systems); -1 where it
/// cannot be read.
inline double otherProcessCpuSeconds(qint64 pid)
{
#if defined(Q_OS_LINUX)
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return -1.0;
    const QByteArray text = stat.readAll();
    // The command name, in parentheses, may hold spaces: count the fields after it.
    const qsizetype close = text.lastIndexOf(')');
    if (close < 0)
        return -1.0;
    const QList<QByteArray> fields = text.mid(close + 2).split(' ');
    // After the name: state is field 3 of the whole line, utime 14 and stime 15.
    if (fields.size() < 13)
        return -1.0;
    const double ticks = double(fields[11].toLongLong() + fields[12].toLongLong());
    return ticks / double(::sysconf(_SC_CLK_TCK));
#else
    Q_UNUSED(pid);
    return -1.0;
#endif
}

} // namespace RetryLab::Bench
