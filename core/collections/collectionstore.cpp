#include "core/collections/collectionstore.h"

#include "core/collections/collectionjson.h"
#include "core/collections/environmentsjson.h"
#include "core/util/boundedfile.h"
#include "core/util/coretr.h"
#include "core/util/exportfile.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLoggingCategory>
#include <QRegularExpression>
#include <QStandardPaths>

#include <algorithm>

namespace {
Q_LOGGING_CATEGORY(lcCollections, "retrylab.core.collections")
} // namespace

namespace RetryLab::Core {

namespace {

constexpr qint64 maxFileSize = 64LL * 1024 * 1024;

QString native(const QString &path)
{
    return QDir::toNativeSeparators(path);
}

QString errorLines(const QList<Error> &errors)
{
    QStringList lines;
    for (qsizetype i = 0; i < errors.size() && i < 5; ++i)
        lines.append(errors.at(i).text());
    if (errors.size() > 5)
        lines.append(Tr::tr("and %1 more").arg(errors.size() - 5));
    return lines.join(QStringLiteral("; "));
}

} // namespace

Result<QByteArray> CollectionStore::readFile(const QString &path)
{
    if (const QString problem = BoundedFile::notARegularFile(path);
        !problem.isEmpty() && QFileInfo::exists(path) && !QFileInfo(path).isDir())
        return Result<QByteArray>::failure(problem);
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return Result<QByteArray>::failure(Tr::tr("%1 cannot be read: %2").arg(native(path), file.errorString()));
    const QString tooLarge = Tr::tr("%1 is larger than %2 MiB").arg(native(path)).arg(maxFileSize >> 20);
    if (file.size() > maxFileSize)
        return Result<QByteArray>::failure(tooLarge);
    QByteArray bytes = file.read(maxFileSize + 1);
    if (bytes.size() > maxFileSize)
        return Result<QByteArray>::failure(tooLarge);
    return bytes;
}

CollectionStore::CollectionStore(const QString &root) : m_root(root.isEmpty() ? defaultRoot() : root)
{ }

QString CollectionStore::defaultRoot()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
}

QString CollectionStore::collectionsDirectory() const
{
    return QDir(m_root).filePath(QStringLiteral("collections"));
}

QString CollectionStore::environmentsFile() const
{
    return QDir(m_root).filePath(QStringLiteral("environments.json"));
}

QString CollectionStore::setAside(const QString &path, const QByteArray &bytes, const QString &damage) const
{
    qCWarning(lcCollections) << "damaged file" << path << damage;
    const QFileInfo info(path);
    // Opened again with the same damage: the copy taken last time is still good.
    for (const QFileInfo &earlier :
        info.absoluteDir().entryInfoList({info.fileName() + QStringLiteral(".damaged-*")}, QDir::Files, QDir::Time)) {
        QFile copy(earlier.absoluteFilePath());
        if (earlier.size() == bytes.size() && copy.open(QIODevice::ReadOnly) && copy.readAll() == bytes) {
            return Tr::tr("%1 is still damaged (%2). What could be read is kept; the original file is kept at %3.")
                .arg(native(path), damage, native(earlier.absoluteFilePath()));
        }
    }
    const QString stamp = QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"));
    QString backup = path + QStringLiteral(".damaged-") + stamp;
    for (int n = 2; QFileInfo::exists(backup); ++n)
        backup = path + QStringLiteral(".damaged-") + stamp + QLatin1Char('-') + QString::number(n);
    if (QFile::copy(path, backup)) {
        return Tr::tr("%1 is damaged (%2). What could be read is kept; the original file was copied to %3.")
            .arg(native(path), damage, native(backup));
    }
    return Tr::tr("%1 is damaged (%2) and could not be copied aside. What could be read is kept.")
        .arg(native(path), damage);
}

CollectionStore::LoadedCollections CollectionStore::loadCollections() const
{
    LoadedCollections loaded;
    const QDir dir(collectionsDirectory());
    if (!dir.exists())
        return loaded;
    for (const QFileInfo &info : dir.entryInfoList({QStringLiteral("*.json")}, QDir::Files, QDir::Name)) {
        const QString path = info.absoluteFilePath();
        const auto bytes = readFile(path);
        if (!bytes) {
            loaded.problems.append(Tr::tr("The collection %1 was not opened.").arg(bytes.error()));
            continue;
        }
        auto read = CollectionJson::fromJson(*bytes);
        if (!read) {
            if (read.errorDetail().path == QLatin1String("formatVersion")) {
                // Not damaged, only newer: left alone, and never written over.
                loaded.problems.append(Tr::tr("The collection %1 was not opened: %2. The file is left as it is.")
                                           .arg(native(path), read.errorDetail().message));
            } else {
                loaded.problems.append(setAside(path, *bytes, read.error()));
            }
            continue;
        }
        Collection collection = std::move(read.value().collection);
        collection.fileName = info.fileName();
        if (collection.name.trimmed().isEmpty())
            collection.name = info.completeBaseName();
        if (!read.value().leftOut.isEmpty()) {
            loaded.problems.append(
                setAside(path, *bytes, Tr::tr("left out: %1").arg(errorLines(read.value().leftOut))));
        }
        loaded.collections.append(std::move(collection));
    }
    std::stable_sort(loaded.collections.begin(), loaded.collections.end(),
        [](const Collection &a, const Collection &b) { return a.name.compare(b.name, Qt::CaseInsensitive) < 0; });
    return loaded;
}

QString CollectionStore::freeFileName(const QString &collectionName) const
{
    QString stem = collectionName.toLower();
    static const QRegularExpression unsafe(QStringLiteral("[^a-z0-9]+"));
    stem.replace(unsafe, QStringLiteral("-"));
    while (stem.startsWith(QLatin1Char('-')))
        stem.remove(0, 1);
    while (stem.endsWith(QLatin1Char('-')))
        stem.chop(1);
    stem.truncate(60);
    if (stem.isEmpty())
        stem = QStringLiteral("collection");
    const QDir dir(collectionsDirectory());
    QString name = stem + QStringLiteral(".json");
    for (int n = 2; QFileInfo::exists(dir.filePath(name)); ++n)
        name = stem + QLatin1Char('-') + QString::number(n) + QStringLiteral(".json");
    return name;
}

Result<void> CollectionStore::save(Collection *collection) const
{
    if (!QDir().mkpath(collectionsDirectory())) {
        return Result<void>::failure(Tr::tr("The folder %1 cannot be created.").arg(native(collectionsDirectory())));
    }
    if (collection->fileName.isEmpty())
        collection->fileName = freeFileName(collection->name);
    const auto written = ExportFile::write(
        QDir(collectionsDirectory()).filePath(collection->fileName), CollectionJson::toJson(*collection));
    if (!written)
        return Result<void>(written.errorDetail());
    return {};
}

Result<void> CollectionStore::remove(const Collection &collection) const
{
    if (collection.fileName.isEmpty())
        return {};
    QFile file(QDir(collectionsDirectory()).filePath(collection.fileName));
    if (file.exists() && !file.remove())
        return Result<void>::failure(
            Tr::tr("%1 cannot be deleted: %2").arg(native(file.fileName()), file.errorString()));
    return {};
}

CollectionStore::LoadedEnvironments CollectionStore::loadEnvironments() const
{
    LoadedEnvironments loaded;
    const QString path = environmentsFile();
    if (!QFileInfo::exists(path))
        return loaded;
    const auto bytes = readFile(path);
    if (!bytes) {
        loaded.problems.append(Tr::tr("The environments were not read: %1").arg(bytes.error()));
        return loaded;
    }
    auto read = EnvironmentsJson::fromJson(*bytes);
    if (!read) {
        if (read.errorDetail().path == QLatin1String("formatVersion")) {
            loaded.problems.append(Tr::tr("The environments in %1 were %2; they are not used here.")
                                       .arg(native(path), read.errorDetail().message));
        } else {
            loaded.problems.append(setAside(path, *bytes, read.error()));
        }
        return loaded;
    }
    loaded.environments = std::move(read.value().environments);
    loaded.active = read.value().active;
    if (!read.value().leftOut.isEmpty())
        loaded.problems.append(setAside(path, *bytes, Tr::tr("left out: %1").arg(errorLines(read.value().leftOut))));
    return loaded;
}

Result<void> CollectionStore::saveEnvironments(const QList<Environment> &environments, const QString &active) const
{
    if (!QDir().mkpath(m_root))
        return Result<void>::failure(Tr::tr("The folder %1 cannot be created.").arg(native(m_root)));
    const auto written = ExportFile::write(environmentsFile(), EnvironmentsJson::toJson(environments, active));
    if (!written)
        return Result<void>(written.errorDetail());
    return {};
}

} // namespace RetryLab::Core
