#include "core/record/bodysource.h"

#include "core/util/coretr.h"

#include <QDir>
#include <QFileInfo>

namespace RetryLab::Core {

namespace {

Result<void> checkReadable(const QString &path)
{
    const QFileInfo info(path);
    const QString shown = QDir::toNativeSeparators(path);
    if (!info.exists())
        return Result<void>::failure(Tr::tr("the body file %1 does not exist").arg(shown));
    if (info.isDir())
        return Result<void>::failure(Tr::tr("the body file %1 is a folder, not a file").arg(shown));
    if (!info.isFile())
        return Result<void>::failure(Tr::tr("the body file %1 is not a regular file").arg(shown));
    if (!info.isReadable())
        return Result<void>::failure(Tr::tr("the body file %1 cannot be read").arg(shown));
    return {};
}

} // namespace

Result<void> BodySource::checkFiles() const
{
    switch (kind) {
    case Kind::Inline:
        return {};
    case Kind::File:
        return checkReadable(filePath);
    case Kind::Multipart:
        for (const FormPart &part : parts) {
            if (!part.isFile())
                continue;
            if (Result<void> readable = checkReadable(part.filePath); !readable)
                return readable;
        }
        return {};
    }
    return {};
}

QString BodySource::description() const
{
    switch (kind) {
    case Kind::Inline:
        return {};
    case Kind::File:
        return Tr::tr("file %1 (%2 bytes)").arg(QDir::toNativeSeparators(filePath)).arg(QFileInfo(filePath).size());
    case Kind::Multipart: {
        QStringList names;
        for (const FormPart &part : parts) {
            names.append(part.isFile() ? QStringLiteral("%1=@%2").arg(
                             QString::fromUtf8(part.name), QDir::toNativeSeparators(part.filePath))
                                       : QString::fromUtf8(part.name));
        }
        return Tr::tr("multipart/form-data: %1").arg(names.join(QStringLiteral(", ")));
    }
    }
    return {};
}

} // namespace RetryLab::Core
