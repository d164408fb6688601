#include "core/util/exportfile.h"
#include "core/util/coretr.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QLoggingCategory>
#include <QSaveFile>

namespace {
Q_LOGGING_CATEGORY(lcExportFile, "retrylab.core.exportfile")
} // namespace

namespace RetryLab::Core::ExportFile {

Result<qint64> write(const QString &path, const QByteArray &data)
{
    const QString shown = QDir::toNativeSeparators(path);
    if (path.isEmpty())
        return Result<qint64>::failure(Tr::tr("no file name given"));

    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return Result<qint64>::failure(Tr::tr("cannot write %1: %2").arg(shown, file.errorString()));
    const qint64 written = file.write(data);
    if (written != data.size()) {
        const QString reason = file.errorString();
        file.cancelWriting();
        return Result<qint64>::failure(Tr::tr("cannot write %1: %2").arg(shown, reason));
    }
    if (!file.commit())
        return Result<qint64>::failure(Tr::tr("cannot write %1: %2").arg(shown, file.errorString()));
    qCDebug(lcExportFile) << "wrote" << written << "bytes to" << shown;
    return written;
}

Result<void> checkWritable(const QString &path)
{
    if (path.isEmpty())
        return Result<void>::failure(Tr::tr("no file name given"));
    const QFileInfo file(path);
    const QFileInfo directory(file.absolutePath());
    if (file.isDir())
        return Result<void>::failure(Tr::tr("it is a directory"));
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
