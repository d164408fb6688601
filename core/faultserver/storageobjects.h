#pragma once

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QMutex>
#include <QString>

#include <optional>
#include <variant>

namespace RetryLab::Core {

/// An object of the fault server's Cloud Storage API.
struct StorageObject
{
    QString bucket;
    QString name;
    QByteArray data;
    QString contentType;
    qint64 generation = 0;
    qint64 metageneration = 1;
    qint64 size = 0; ///< of data, kept when a finished upload's description drops the bytes
};

/// Cloud Storage's preconditions (query parameters ifGenerationMatch, ...);
/// ifGenerationMatch=0 asks that the object does not exist.
struct StoragePreconditions
{
    std::optional<qint64> ifGenerationMatch;
    std::optional<qint64> ifGenerationNotMatch;
    std::optional<qint64> ifMetagenerationMatch;
    std::optional<qint64> ifMetagenerationNotMatch;
};

/// Why a storage operation failed, as the HTTP status it answers and a sentence.
struct StorageFailure
{
    int status = 400;
    QString message;
};

/// A resumable upload session as the store keeps it.
struct StorageUpload
{
    QString id;
    QString bucket;
    QString name;
    QString contentType;
    StoragePreconditions preconditions;
    QByteArray data; ///< the bytes persisted so far (none once completed)
    std::optional<StorageObject> object; ///< set once the upload completed, without its bytes
};

/// The objects and resumable uploads of the fault server's Cloud Storage API,
/// in memory and bounded: the bytes of all objects and unfinished uploads
/// together stay within maxBytes() (an upload or object that would pass it is
/// refused with 507, one larger than the whole limit with 413), and at most
/// maxObjects objects and maxUploads upload sessions are held. Every valid
/// bucket name exists, empty until objects are put in it. Safe from any thread.
class StorageObjects final
{
public:
    static constexpr qint64 defaultMaxBytes = 64LL * 1024 * 1024;
    static constexpr qsizetype maxObjects = 100'000;
    static constexpr qsizetype maxUploads = 1'000;

    template<typename T>
    using Outcome = std::variant<T, StorageFailure>;

    qint64 maxBytes() const;
    /// Bytes held for objects and unfinished uploads together (16 MiB-64 GiB is sensible; at least 1).
    void setMaxBytes(qint64 bytes);
    qint64 heldBytes() const;

    /// Cloud Storage's bucket naming rules: 3-63 of a-z 0-9 - _ . starting and ending with a letter or digit.
    static bool isBucketName(const QString &name);
    /// 1-1024 bytes of UTF-8, no CR or LF.
    static bool isObjectName(const QString &name);

    Outcome<StorageObject> object(const QString &bucket, const QString &name, const StoragePreconditions &pre) const;
    /// The objects of a bucket whose names start with `prefix`, by name; their data left out.
    QList<StorageObject> list(const QString &bucket, const QString &prefix) const;
    Outcome<StorageObject> insert(const QString &bucket, const QString &name, const QByteArray &data,
        const QString &contentType, const StoragePreconditions &pre);
    Outcome<bool> remove(const QString &bucket, const QString &name, const StoragePreconditions &pre);

    /// Starts a resumable upload; its id.
    Outcome<QString> startUpload(
        const QString &bucket, const QString &name, const QString &contentType, const StoragePreconditions &pre);
    Outcome<StorageUpload> upload(const QString &id) const;
    /// Persists the bytes of a chunk that starts at `offset` (bytes already
    /// persisted are skipped, a gap is refused), at most up to `keepUntil` bytes in all.
    Outcome<StorageUpload> appendUpload(const QString &id, qint64 offset, const QByteArray &chunk, qint64 keepUntil);
    /// Completes the upload as an object (its preconditions checked now).
    Outcome<StorageUpload> finishUpload(const QString &id);

    void clear();

private:
    static QString key(const QString &bucket, const QString &name) { return bucket + QLatin1Char('/') + name; }
    static std::optional<StorageFailure> check(const StorageObject *existing, const StoragePreconditions &pre);
    /// Makes room for `bytes` more, or says why not. Needs m_mutex.
    std::optional<StorageFailure> reserve(qint64 bytes) const;
    Outcome<StorageObject> store(StorageObject object, const StoragePreconditions &pre);

    mutable QMutex m_mutex; // guards everything below
    qint64 m_maxBytes = defaultMaxBytes;
    qint64 m_held = 0;
    qint64 m_nextGeneration = 1;
    quint64 m_nextUpload = 1;
    QHash<QString, StorageObject> m_objects; ///< "bucket/name"
    QHash<QString, StorageUpload> m_uploads;
};

} // namespace RetryLab::Core
