#include "core/faultserver/storageobjects.h"

#include "core/faultserver/requesttarget.h"
#include "core/util/coretr.h"

#include <QMutexLocker>
#include <QRegularExpression>

#include <algorithm>

namespace RetryLab::Core {

namespace {

StorageFailure storeRefusal(int status, const QString &message)
{
    return StorageFailure{status, message};
}

QString objectPath(const QString &bucket, const QString &name)
{
    return QStringLiteral("gs://%1/%2").arg(bucket, RequestTarget::shortened(name));
}

} // namespace

qint64 StorageObjects::maxBytes() const
{
    QMutexLocker lock(&m_mutex);
    return m_maxBytes;
}

void StorageObjects::setMaxBytes(qint64 bytes)
{
    QMutexLocker lock(&m_mutex);
    m_maxBytes = std::max<qint64>(1, bytes);
}

qint64 StorageObjects::heldBytes() const
{
    QMutexLocker lock(&m_mutex);
    return m_held;
}

bool StorageObjects::isBucketName(const QString &name)
{
    static const QRegularExpression valid(QStringLiteral("^[a-z0-9][a-z0-9._-]{1,61}[a-z0-9]$"));
    return valid.match(name).hasMatch();
}

bool StorageObjects::isObjectName(const QString &name)
{
    if (name.isEmpty() || name.contains(QLatin1Char('\r')) || name.contains(QLatin1Char('\n')))
        return false;
    return name.toUtf8().size() <= 1024;
}

std::optional<StorageFailure> StorageObjects::check(const StorageObject *existing, const StoragePreconditions &pre)
{
    const qint64 generation = existing ? existing->generation : 0;
    const auto failed = [](const char *name, qint64 expected) {
        return storeRefusal(412, Tr::tr("precondition %1=%2 failed").arg(QLatin1String(name)).arg(expected));
    };
    if (pre.ifGenerationMatch && *pre.ifGenerationMatch != generation)
        return failed("ifGenerationMatch", *pre.ifGenerationMatch);
    if (pre.ifGenerationNotMatch && *pre.ifGenerationNotMatch == generation)
        return failed("ifGenerationNotMatch", *pre.ifGenerationNotMatch);
    // A metageneration precondition on an object that does not exist fails (there is none to match).
    if (pre.ifMetagenerationMatch && (!existing || existing->metageneration != *pre.ifMetagenerationMatch))
        return failed("ifMetagenerationMatch", *pre.ifMetagenerationMatch);
    if (pre.ifMetagenerationNotMatch && existing && existing->metageneration == *pre.ifMetagenerationNotMatch)
        return failed("ifMetagenerationNotMatch", *pre.ifMetagenerationNotMatch);
    return std::nullopt;
}

std::optional<StorageFailure> StorageObjects::reserve(qint64 bytes) const
{
    if (bytes > m_maxBytes) {
        return storeRefusal(413,
            Tr::tr("%1 bytes are more than this server keeps for all its objects together (%2 bytes)")
                .arg(bytes)
                .arg(m_maxBytes));
    }
    if (m_held + bytes > m_maxBytes) {
        return storeRefusal(507,
            Tr::tr("the server's objects and uploads hold %1 of %2 bytes: %3 more do not fit; delete objects first")
                .arg(m_held)
                .arg(m_maxBytes)
                .arg(bytes));
    }
    return std::nullopt;
}

StorageObjects::Outcome<StorageObject> StorageObjects::object(
    const QString &bucket, const QString &name, const StoragePreconditions &pre) const
{
    QMutexLocker lock(&m_mutex);
    const auto it = m_objects.constFind(key(bucket, name));
    if (it == m_objects.cend())
        return storeRefusal(404, Tr::tr("no such object: %1").arg(objectPath(bucket, name)));
    if (auto failed = check(&*it, pre))
        return *failed;
    return *it;
}

QList<StorageObject> StorageObjects::list(const QString &bucket, const QString &prefix) const
{
    QMutexLocker lock(&m_mutex);
    QList<StorageObject> found;
    for (const StorageObject &o : m_objects) {
        if (o.bucket != bucket || !o.name.startsWith(prefix))
            continue;
        found.append(o); // the data shared, not copied
    }
    std::sort(
        found.begin(), found.end(), [](const StorageObject &a, const StorageObject &b) { return a.name < b.name; });
    return found;
}

StorageObjects::Outcome<StorageObject> StorageObjects::store(StorageObject object, const StoragePreconditions &pre)
{
    const QString k = key(object.bucket, object.name);
    const auto it = m_objects.constFind(k);
    const StorageObject *existing = it == m_objects.cend() ? nullptr : &*it;
    if (auto failed = check(existing, pre))
        return *failed;
    const qint64 freed = existing ? existing->data.size() : 0;
    if (!existing && m_objects.size() >= maxObjects)
        return storeRefusal(
            507, Tr::tr("the server holds %1 objects, its limit: delete objects first").arg(maxObjects));
    m_held -= freed;
    if (auto full = reserve(object.data.size())) {
        m_held += freed;
        return *full;
    }
    m_held += object.data.size();
    object.generation = m_nextGeneration++;
    object.metageneration = 1;
    object.size = object.data.size();
    m_objects.insert(k, object);
    return object;
}

StorageObjects::Outcome<StorageObject> StorageObjects::insert(const QString &bucket, const QString &name,
    const QByteArray &data, const QString &contentType, const StoragePreconditions &pre)
{
    QMutexLocker lock(&m_mutex);
    return store(StorageObject{bucket, name, data, contentType}, pre);
}

StorageObjects::Outcome<bool> StorageObjects::remove(
    const QString &bucket, const QString &name, const StoragePreconditions &pre)
{
    QMutexLocker lock(&m_mutex);
    const auto it = m_objects.find(key(bucket, name));
    if (it == m_objects.end())
        return storeRefusal(404, Tr::tr("no such object: %1").arg(objectPath(bucket, name)));
    if (auto failed = check(&*it, pre))
        return *failed;
    m_held -= it->data.size();
    m_objects.erase(it);
    return true;
}

StorageObjects::Outcome<QString> StorageObjects::startUpload(
    const QString &bucket, const QString &name, const QString &contentType, const StoragePreconditions &pre)
{
    QMutexLocker lock(&m_mutex);
    if (m_uploads.size() >= maxUploads) {
        // The oldest finished session goes first; unfinished ones are kept until the client is done.
        for (auto it = m_uploads.begin(); it != m_uploads.end(); ++it) {
            if (it->object) {
                m_uploads.erase(it);
                break;
            }
        }
        if (m_uploads.size() >= maxUploads)
            return storeRefusal(
                507, Tr::tr("the server holds %1 unfinished resumable uploads, its limit").arg(maxUploads));
    }
    StorageUpload upload;
    upload.id = QStringLiteral("u%1").arg(m_nextUpload++);
    upload.bucket = bucket;
    upload.name = name;
    upload.contentType = contentType;
    upload.preconditions = pre;
    m_uploads.insert(upload.id, upload);
    return upload.id;
}

StorageObjects::Outcome<StorageUpload> StorageObjects::upload(const QString &id) const
{
    QMutexLocker lock(&m_mutex);
    const auto it = m_uploads.constFind(id);
    if (it == m_uploads.cend())
        return storeRefusal(404, Tr::tr("no resumable upload \"%1\"").arg(RequestTarget::shortened(id)));
    return *it;
}

StorageObjects::Outcome<StorageUpload> StorageObjects::appendUpload(
    const QString &id, qint64 offset, const QByteArray &chunk, qint64 keepUntil)
{
    QMutexLocker lock(&m_mutex);
    const auto it = m_uploads.find(id);
    if (it == m_uploads.end())
        return storeRefusal(404, Tr::tr("no resumable upload \"%1\"").arg(RequestTarget::shortened(id)));
    const qint64 persisted = it->data.size();
    if (it->object)
        return *it;
    if (offset > persisted) {
        return storeRefusal(400,
            Tr::tr("the chunk starts at byte %1, but only %2 bytes are persisted: ask for the upload's state "
                   "(Content-Range: bytes */*) and resume from there")
                .arg(offset)
                .arg(persisted));
    }
    const qint64 skip = persisted - offset; // already persisted: ignored, as Cloud Storage does
    qint64 take = std::max<qint64>(0, chunk.size() - skip);
    take = std::min(take, std::max<qint64>(0, keepUntil - persisted));
    if (take > 0) {
        if (auto full = reserve(take))
            return *full;
        it->data.append(chunk.constData() + skip, take);
        m_held += take;
    }
    return *it;
}

StorageObjects::Outcome<StorageUpload> StorageObjects::finishUpload(const QString &id)
{
    QMutexLocker lock(&m_mutex);
    const auto it = m_uploads.find(id);
    if (it == m_uploads.end())
        return storeRefusal(404, Tr::tr("no resumable upload \"%1\"").arg(RequestTarget::shortened(id)));
    if (it->object)
        return *it;
    // The session's bytes become the object's: count them once.
    m_held -= it->data.size();
    auto stored = store(StorageObject{it->bucket, it->name, it->data, it->contentType}, it->preconditions);
    if (auto *failed = std::get_if<StorageFailure>(&stored)) {
        m_held += it->data.size();
        return *failed;
    }
    // The session keeps the object's description, not its bytes: a later delete frees them.
    it->object = std::get<StorageObject>(stored);
    it->object->data = QByteArray();
    it->data = QByteArray();
    return *it;
}

void StorageObjects::clear()
{
    QMutexLocker lock(&m_mutex);
    m_objects.clear();
    m_uploads.clear();
    m_held = 0;
}

} // namespace RetryLab::Core
