#pragma once

#include "core/util/result.h"

#include <QByteArray>
#include <QString>

namespace RetryLab::Core {

/// The one way RetryLab reads a whole file that someone named: a policy, a
/// scenario, a report, a HAR or Postman file, a certificate, a request body.
/// The size is checked as the bytes arrive, not only by what the file system
/// says (a device such as /dev/zero has size 0 and never ends), and by default
/// only regular files are read: a FIFO would block the reader until somebody
/// writes to it, a device may never end. Errors name the file, and the limit
/// and what it is for when that is the problem.
namespace BoundedFile {

enum class Accept {
    RegularFiles, ///< a regular file (or a link to one); anything else is refused
    AnyReadable, ///< also a FIFO, a device or a socket, read up to the limit (asked for by name, as /dev/stdin)
};

/// What a reader allows: the most bytes, and what the file is, for the error
/// ("a policy file": "... larger than 4 MiB, the most a policy file may be").
struct Limit
{
    qint64 maxBytes = 0;
    QString what;
};

/// The whole of `path`, if it may be read and is at most `limit.maxBytes` long.
Result<QByteArray> read(const QString &path, const Limit &limit, Accept accept = Accept::RegularFiles);

/// Why `path` is not something RetryLab reads ("cannot read P: it is a FIFO
/// (named pipe), not a regular file"; missing, a folder, a device), or an
/// empty string when it is a regular file.
QString notARegularFile(const QString &path);

/// "4 MiB", "512 KiB", "100 bytes": a limit as the errors name it.
QString sizeText(qint64 bytes);

} // namespace BoundedFile

} // namespace RetryLab::Core
