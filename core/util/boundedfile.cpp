#include "core/util/boundedfile.h"

#include "core/util/coretr.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <algorithm>

#include <sys/stat.h>

namespace RetryLab::Core::BoundedFile {

namespace {

QString shown(const QString &path)
{
    return QDir::toNativeSeparators(path);
}

// A file of Qt's resource system (":/presets/iam.json"), which the operating system does not know.
bool isResource(const QString &path)
{
    return path.startsWith(QLatin1Char(':'));
}

// What a stat() mode is, for the error; an empty string for a regular file.
QString kindOf(mode_t mode)
{
    if (S_ISREG(mode))
        return {};
    if (S_ISDIR(mode))
        return Tr::tr("a folder");
    if (S_ISFIFO(mode))
        return Tr::tr("a FIFO (named pipe)");
    if (S_ISCHR(mode) || S_ISBLK(mode))
        return Tr::tr("a device");
    if (S_ISSOCK(mode))
        return Tr::tr("a socket");
    return Tr::tr("not a regular file");
}

} // namespace

QString sizeText(qint64 bytes)
{
    if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) == 0)
        return Tr::tr("%1 MiB").arg(bytes / (1024 * 1024));
    if (bytes >= 1024 && bytes % 1024 == 0)
        return Tr::tr("%1 KiB").arg(bytes / 1024);
    return bytes == 1 ? Tr::tr("1 byte") : Tr::tr("%1 bytes").arg(bytes);
}

QString notARegularFile(const QString &path)
{
    if (isResource(path))
        return QFile::exists(path) ? QString() : Tr::tr("cannot read %1: no such file").arg(shown(path));
    struct stat info = {};
    if (::stat(QFile::encodeName(path).constData(), &info) != 0)
        return Tr::tr("cannot read %1: no such file").arg(shown(path));
    const QString kind = kindOf(info.st_mode);
    if (kind.isEmpty())
        return {};
    return Tr::tr("cannot read %1: it is %2, not a regular file").arg(shown(path), kind);
}

Result<QByteArray> read(const QString &path, const Limit &limit, Accept accept)
{
    using R = Result<QByteArray>;
    if (path.isEmpty())
        return R::failure(Tr::tr("no file name given"));
    struct stat info = {};
    if (isResource(path)) {
        // Built into the program: a regular file of a known size.
        const QFileInfo resource(path);
        if (!resource.exists())
            return R::failure(Tr::tr("cannot read %1: no such file").arg(shown(path)));
        info.st_mode = resource.isDir() ? S_IFDIR : S_IFREG;
        info.st_size = resource.size();
    } else if (::stat(QFile::encodeName(path).constData(), &info) != 0) {
        return R::failure(Tr::tr("cannot read %1: no such file").arg(shown(path)));
    }
    if (S_ISDIR(info.st_mode))
        return R::failure(Tr::tr("cannot read %1: it is a folder, not a file").arg(shown(path)));
    if (accept == Accept::RegularFiles && !S_ISREG(info.st_mode))
        return R::failure(
            Tr::tr("cannot read %1: it is %2, not a regular file").arg(shown(path), kindOf(info.st_mode)));
    const QString tooLarge
        = Tr::tr("%1 is larger than %2, the most %3 may be").arg(shown(path), sizeText(limit.maxBytes), limit.what);
    if (S_ISREG(info.st_mode) && info.st_size > limit.maxBytes)
        return R::failure(tooLarge);
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return R::failure(Tr::tr("cannot read %1: %2").arg(shown(path), file.errorString()));
    // Up to one byte more than the limit, which tells a file that grew, or a device,
    // from one that fits; a regular file in one read of its size.
    QByteArray bytes;
    qint64 chunk = S_ISREG(info.st_mode) ? std::min<qint64>(info.st_size, limit.maxBytes) + 1 : 64 * 1024;
    while (bytes.size() <= limit.maxBytes) {
        const QByteArray part = file.read(std::min<qint64>(chunk, limit.maxBytes + 1 - bytes.size()));
        if (part.isEmpty())
            break;
        bytes += part;
        chunk = 64 * 1024;
    }
    if (bytes.size() > limit.maxBytes)
        return R::failure(tooLarge);
    if (file.error() != QFileDevice::NoError)
        return R::failure(Tr::tr("cannot read %1: %2").arg(shown(path), file.errorString()));
    return bytes;
}

} // namespace RetryLab::Core::BoundedFile
