#include "core/util/exportfile.h"
#include "core/util/coretr.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QLoggingCategory>
#include <QSaveFile>
#include <QThread>

#include <cerrno>
#include <optional>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {
Q_LOGGING_CATEGORY(lcExportFile, "retrylab.core.exportfile")
} // namespace

namespace RetryLab::Core::ExportFile {

namespace {

// Qt says "Unknown error" for some failed writes (a full disk among them);
// the system's own error, taken right after the call, names the cause.
QString reasonOf(const QFileDevice &file, int savedErrno)
{
    const QString qtReason = file.errorString();
    if (savedErrno != 0 && (qtReason.isEmpty() || qtReason == QLatin1String("Unknown error")))
        return qt_error_string(savedErrno);
    return qtReason;
}

// What an export writes, passed on to the file and counted (a FIFO or a
// device has no position to ask afterwards).
class CountingWriter final : public QIODevice
{
public:
    explicit CountingWriter(QIODevice &target) : m_target(target)
    {
        open(QIODevice::WriteOnly | QIODevice::Unbuffered);
    }
    qint64 count() const { return m_count; }
    bool isSequential() const override { return true; }

protected:
    qint64 readData(char *, qint64) override { return -1; }
    qint64 writeData(const char *data, qint64 size) override
    {
        const qint64 written = m_target.write(data, size);
        if (written > 0)
            m_count += written;
        return written;
    }

private:
    QIODevice &m_target;
    qint64 m_count = 0;
};

enum class Target { Missing, Regular, Directory, Fifo, Special };

// What `path` names, symbolic links followed: /dev/stdout is a pipe or a
// terminal, /dev/null a character device, a FIFO a reader's end.
Target targetOf(const QString &path)
{
    struct stat info = {};
    if (::stat(QFile::encodeName(path).constData(), &info) != 0)
        return Target::Missing;
    if (S_ISREG(info.st_mode))
        return Target::Regular;
    if (S_ISDIR(info.st_mode))
        return Target::Directory;
    if (S_ISFIFO(info.st_mode))
        return Target::Fifo;
    return Target::Special;
}

// How long a FIFO's reader may take to open it (one started just before, as `cat fifo &`).
constexpr int fifoReaderWaitMs = 2000;

// The write end of a FIFO, or -1 with errno ENXIO when no process opened it
// for reading within fifoReaderWaitMs: a plain open would wait for ever.
int openFifoForWriting(const QString &path)
{
    const QByteArray name = QFile::encodeName(path);
    QElapsedTimer waited;
    waited.start();
    for (;;) {
        const int fd = ::open(name.constData(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd >= 0) {
            ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
            return fd;
        }
        if (errno != ENXIO || waited.elapsed() >= fifoReaderWaitMs)
            return -1;
        QThread::msleep(20);
    }
}

QString noReader(const QString &shown)
{
    return Tr::tr("cannot write %1: no process reads this FIFO (start the reader first)").arg(shown);
}

// A device, a FIFO or a socket is written as it is: renaming a temporary file
// over it would replace the device node (or the pipe) with a regular file.
Result<qint64> writeSpecial(
    const QString &path, const QString &shown, bool fifo, const std::function<bool(QIODevice &)> &produce)
{
    QFile file(path);
    errno = 0;
    if (fifo) {
        const int fd = openFifoForWriting(path);
        if (fd < 0) {
            return Result<qint64>::failure(
                errno == ENXIO ? noReader(shown) : Tr::tr("cannot write %1: %2").arg(shown, qt_error_string(errno)));
        }
        if (!file.open(fd, QIODevice::WriteOnly | QIODevice::Unbuffered, QFileDevice::AutoCloseHandle)) {
            ::close(fd);
            return Result<qint64>::failure(Tr::tr("cannot write %1: %2").arg(shown, file.errorString()));
        }
    } else if (!file.open(QIODevice::WriteOnly | QIODevice::Unbuffered)) {
        return Result<qint64>::failure(Tr::tr("cannot write %1: %2").arg(shown, reasonOf(file, errno)));
    }
    errno = 0;
    CountingWriter writer(file);
    if (!produce(writer) || file.error() != QFileDevice::NoError)
        return Result<qint64>::failure(Tr::tr("cannot write %1: %2").arg(shown, reasonOf(file, errno)));
    const qint64 written = writer.count();
    qCDebug(lcExportFile) << "wrote" << written << "bytes to the special file" << shown;
    return written;
}

} // namespace

Result<qint64> write(const QString &path, const QByteArray &data)
{
    return writeWith(path, [&data](QIODevice &device) { return device.write(data) == data.size(); });
}

Result<qint64> writeWith(const QString &path, const std::function<bool(QIODevice &)> &produce)
{
    const QString shown = QDir::toNativeSeparators(path);
    if (path.isEmpty())
        return Result<qint64>::failure(Tr::tr("no file name given"));
    const Target target = targetOf(path);
    switch (target) {
    case Target::Directory:
        return Result<qint64>::failure(Tr::tr("cannot write %1: it is a directory").arg(shown));
    case Target::Fifo:
    case Target::Special:
        return writeSpecial(path, shown, target == Target::Fifo, produce);
    case Target::Missing:
    case Target::Regular:
        break;
    }

    // The new file keeps the permissions of the one it replaces (a 0444 file stays 0444).
    // The *User flags say what this process may do; Qt would set them as the owner's.
    const QFileDevice::Permissions userFlags = QFileDevice::ReadUser | QFileDevice::WriteUser | QFileDevice::ExeUser;
    const std::optional<QFileDevice::Permissions> kept
        = target == Target::Regular ? std::optional(QFile::permissions(path) & ~userFlags) : std::nullopt;
    QSaveFile file(path);
    // Unbuffered: a full disk fails the write that hits it.
    errno = 0;
    if (!file.open(QIODevice::WriteOnly | QIODevice::Unbuffered))
        return Result<qint64>::failure(Tr::tr("cannot write %1: %2").arg(shown, reasonOf(file, errno)));
    errno = 0;
    CountingWriter writer(file);
    if (!produce(writer) || file.error() != QFileDevice::NoError) {
        const QString reason = reasonOf(file, errno);
        file.cancelWriting();
        return Result<qint64>::failure(Tr::tr("cannot write %1: %2").arg(shown, reason));
    }
    const qint64 written = writer.count();
    errno = 0;
    if (!file.commit())
        return Result<qint64>::failure(Tr::tr("cannot write %1: %2").arg(shown, reasonOf(file, errno)));
    if (kept && (QFile::permissions(path) & ~userFlags) != *kept)
        QFile::setPermissions(path, *kept);
    qCDebug(lcExportFile) << "wrote" << written << "bytes to" << shown;
    return written;
}

Result<void> checkWritable(const QString &path)
{
    if (path.isEmpty())
        return Result<void>::failure(Tr::tr("no file name given"));
    const QFileInfo file(path);
    const QFileInfo directory(file.absolutePath());
    const Target target = targetOf(path);
    if (target == Target::Directory)
        return Result<void>::failure(Tr::tr("it is a directory"));
    if (target == Target::Fifo
        || target == Target::Special) { // written in place: its directory (/dev) need not be writable
        if (!file.isWritable())
            return Result<void>::failure(Tr::tr("the file is not writable"));
        if (target == Target::Fifo) {
            const int fd = openFifoForWriting(path);
            if (fd < 0)
                return Result<void>::failure(Tr::tr("no process reads this FIFO (start the reader first)"));
            ::close(fd); // the reader sees an end of file only once nobody holds the write end
        }
        return {};
    }
    if (target == Target::Missing && file.isSymLink()) {
        // A link to nowhere: the file would be made where it points, if its directory exists.
        return Result<void>::failure(Tr::tr("it is a symbolic link to %1, which does not exist")
                                         .arg(QDir::toNativeSeparators(file.symLinkTarget())));
    }
    if (!directory.isDir()) {
        return Result<void>::failure(
            Tr::tr("the directory %1 does not exist").arg(QDir::toNativeSeparators(directory.filePath())));
    }
    if (!directory.isWritable()) {
        return Result<void>::failure(
            Tr::tr("the directory %1 is not writable").arg(QDir::toNativeSeparators(directory.filePath())));
    }
    if (file.exists() && !file.isWritable())
        return Result<void>::failure(Tr::tr("the file is not writable"));
    return {};
}

} // namespace RetryLab::Core::ExportFile
