#pragma once

#include <QtGlobal>

namespace RetryLab::Core {

/// The process's address space, as `ulimit -v` (RLIMIT_AS) bounds it: every
/// attempt in flight holds its kept body and Qt's buffers, and a thousand of
/// them at once can take more than a limit of a few GiB allows. A headless run
/// sizes what it sends at once from what is left, and keeps a reserve that it
/// gives back when an allocation fails anyway, so that it can end and write
/// what it recorded instead of aborting.
namespace MemoryLimit {

/// The soft RLIMIT_AS in bytes; -1 when there is none.
qint64 addressSpaceLimit();
/// The process's address space now (VmSize); -1 when it cannot be read.
qint64 addressSpaceInUse();
/// Bytes of address space that can still be taken: limit - in use, at least 0;
/// a very large number when there is no limit.
qint64 available();

/// How many attempts fit in flight at once when each may take `perAttempt`
/// bytes: half of `available` (the rest for records, threads and the
/// reserve), at least 1.
qint64 attemptsThatFit(qint64 available, qint64 perAttempt);

/// Sets `bytes` of address space aside (untouched: it costs no memory, only
/// address space). Once; a second call does nothing.
void setReserve(qint64 bytes);
/// Bytes set aside now (0 once given back).
qint64 reserve();
/// An allocation failed: the reserve is given back, so that the process can
/// end its work. Thread-safe; true only for the first call.
bool noteExhausted();
/// Whether an allocation has failed.
bool exhausted();

} // namespace MemoryLimit

} // namespace RetryLab::Core
