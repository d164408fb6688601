#pragma once

#include "core/collections/collection.h"
#include "core/collections/environment.h"
#include "core/util/result.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

namespace RetryLab::Core {

/// Where collections and environments live: in the user's data folder,
/// `collections/` with one readable JSON file per collection (a folder that can
/// be put in git as it is) and `environments.json` beside it, outside that
/// folder, since it may hold secrets the user chose to keep. Every write is
/// atomic (ExportFile::write). A damaged file is copied aside as
/// `<file>.damaged-<date>` before anything is written over it, what could be
/// read is kept, and the problems say so, as Settings does for its file.
class CollectionStore final
{
public:
    /// `root` is the data folder; empty: QStandardPaths::AppDataLocation.
    explicit CollectionStore(const QString &root = {});

    static QString defaultRoot();
    QString root() const { return m_root; }
    QString collectionsDirectory() const;
    QString environmentsFile() const;

    struct LoadedCollections
    {
        /// Sorted by name; each with its file name.
        QList<Collection> collections;
        /// Sentences for the window: damaged files, items left out, files left alone.
        QStringList problems;
    };
    LoadedCollections loadCollections() const;
    /// Writes the collection; gives it a file name of its own (from its name) when
    /// it has none yet.
    Result<void> save(Collection *collection) const;
    /// Deletes the collection's file.
    Result<void> remove(const Collection &collection) const;

    struct LoadedEnvironments
    {
        QList<Environment> environments;
        /// The environment selected last; empty: none.
        QString active;
        QStringList problems;
    };
    LoadedEnvironments loadEnvironments() const;
    /// Secret values are written only for environments that opted in.
    Result<void> saveEnvironments(const QList<Environment> &environments, const QString &active) const;

    /// "payments-api.json" for "Payments API", unique in the folder.
    QString freeFileName(const QString &collectionName) const;

    /// The bytes of a collection or environments file, wherever it is (the store's
    /// own, or one named on a command line), refused above 64 MiB; the error
    /// names the file.
    static Result<QByteArray> readFile(const QString &path);

private:
    /// Copies a damaged file aside (once: an identical earlier copy is reused) and
    /// returns the sentence for the user.
    QString setAside(const QString &path, const QByteArray &bytes, const QString &damage) const;

    QString m_root;
};

} // namespace RetryLab::Core
