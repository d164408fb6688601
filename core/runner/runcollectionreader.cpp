#include "core/runner/runcollectionreader.h"

#include "core/import/harimport.h"
#include "core/import/importjson.h"
#include "core/runner/brunorun.h"
#include "core/runner/harrun.h"
#include "core/runner/postmanrun.h"
#include "core/runner/retrylabrun.h"
#include "core/util/coretr.h"

#include <QFileInfo>
#include <QLoggingCategory>

namespace RetryLab::Core::RunCollectionReader {

namespace {

Q_LOGGING_CATEGORY(lcRunCollectionReader, "retrylab.core.runcollectionreader")

enum class Detected { Postman, RetryLab, Har, Unknown };

Detected detect(const QJsonObject &document)
{
    QJsonValue info = document.value(QStringLiteral("info"));
    // Postman's API wraps a collection in {"collection": {...}} (PostmanRun unwraps it).
    if (!info.isObject())
        info = document.value(QStringLiteral("collection")).toObject().value(QStringLiteral("info"));
    if (info.isObject()
        && (info.toObject().contains(QStringLiteral("schema"))
            || info.toObject().contains(QStringLiteral("_postman_id"))))
        return Detected::Postman;
    // A Postman collection v1, for PostmanRun to refuse with its version named.
    if (document.contains(QStringLiteral("requests")) && document.contains(QStringLiteral("order")))
        return Detected::Postman;
    if (document.contains(QStringLiteral("formatVersion")) && document.contains(QStringLiteral("items")))
        return Detected::RetryLab;
    // Postman's SDK (newman) reads an "item" list without "info" as a v2 collection.
    if (!document.contains(QStringLiteral("info")) && document.value(QStringLiteral("item")).isArray())
        return Detected::Postman;
    const QJsonValue log = document.value(QStringLiteral("log"));
    if (log.isObject() && log.toObject().contains(QStringLiteral("entries")))
        return Detected::Har;
    return Detected::Unknown;
}

} // namespace

Result<RunCollection> read(const QString &path)
{
    const QFileInfo info(path);
    if (info.isDir())
        return BrunoRun::readFolder(path);
    // The largest of the formats' limits: each reader applies its own again.
    const auto bytes = ImportJson::readFile(path, HarImport::maxFileBytes, Tr::tr("collections"));
    if (!bytes)
        return Error{path, bytes.errorDetail().message};
    const auto document = ImportJson::parseObject(*bytes, Tr::tr("a collection"));
    if (!document) {
        const Error error = document.errorDetail();
        return Error{path, error.text(), error.offset};
    }
    std::optional<Result<RunCollection>> read;
    switch (detect(*document)) {
    case Detected::Postman:
        read = PostmanRun::readFile(path);
        break;
    case Detected::RetryLab:
        read = RetryLabRun::readFile(path);
        break;
    case Detected::Har:
        read = HarRun::readFile(path);
        break;
    case Detected::Unknown:
        break;
    }
    if (read) {
        if (read->ok())
            qCDebug(lcRunCollectionReader) << path << "read as a" << RunCollection::formatName((*read)->format);
        return *read;
    }
    return Error{path,
        Tr::tr("not a collection retrylab run knows: no \"info.schema\" or \"info._postman_id\" (a Postman "
               "collection), no \"formatVersion\" and \"items\" (a RetryLab collection), no \"log.entries\" (a HAR "
               "file)")};
}

} // namespace RetryLab::Core::RunCollectionReader
