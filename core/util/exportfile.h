#pragma once

#include "core/util/result.h"

#include <QByteArray>
#include <QString>

#include <functional>

QT_BEGIN_NAMESPACE
class QIODevice;
QT_END_NAMESPACE

namespace RetryLab::Core {

/// Writing export files. A file is written to a temporary name and renamed
/// over the target only when every byte is on disk (QSaveFile), so a failed
/// or interrupted export never leaves half a report behind, and never
/// destroys the previous one. A special file (a device such as /dev/null, a
/// FIFO, /dev/stdout on a pipe) is written in place instead, never replaced;
/// a directory is refused.
namespace ExportFile {

/// Writes `data` to `path`; returns the number of bytes written, or an error
/// that names the file and the reason.
Result<qint64> write(const QString &path, const QByteArray &data);

/// Writes what `produce` writes to the device it is given, as it goes (an
/// export of a huge run is never built whole in memory), with the same
/// guarantees as write(): `produce` returns false to give up, and then the
/// previous file is kept.
Result<qint64> writeWith(const QString &path, const std::function<bool(QIODevice &)> &produce);

/// Whether `path` can be written, checked before the work that produces the
/// data, so that a bad path costs nothing: the reason when it cannot (a
/// directory, a missing or read-only directory, a read-only file).
Result<void> checkWritable(const QString &path);

} // namespace ExportFile

} // namespace RetryLab::Core
