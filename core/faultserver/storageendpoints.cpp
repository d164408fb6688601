#include "core/faultserver/storageendpoints.h"

#include "core/faultserver/requesttarget.h"
#include "core/faultserver/storageretrytests.h"
#include "core/http/controlguard.h"
#include "core/http/httprequestparser.h"
#include "core/util/coretr.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include <limits>

namespace RetryLab::Core {

namespace {

const QLatin1String opBucketsGet("storage.buckets.get");
const QLatin1String opObjectsList("storage.objects.list");
const QLatin1String opObjectsGet("storage.objects.get");
const QLatin1String opObjectsDelete("storage.objects.delete");
const QLatin1String opObjectsInsert("storage.objects.insert");

// The path's segments, each percent-decoded on its own: an object name may hold "/" as %2F.
QStringList storageSegments(const HttpRequest &r)
{
    QStringList segments;
    for (const QByteArray &raw : r.path.split('/')) {
        if (!raw.isEmpty())
            segments.append(QString::fromUtf8(QByteArray::fromPercentEncoding(raw)));
    }
    return segments;
}

// Where the JSON API's resources start: {"storage","v1","b"}, after "upload" or "download" for media.
qsizetype apiStart(const QStringList &s)
{
    const auto at = [&](qsizetype i) {
        return s.value(i) == QLatin1String("storage") && s.value(i + 1) == QLatin1String("v1")
            && s.value(i + 2) == QLatin1String("b");
    };
    if (at(0))
        return 0;
    if ((s.value(0) == QLatin1String("upload") || s.value(0) == QLatin1String("download")) && at(1))
        return 1;
    return -1;
}

ResponsePlan gcsError(int status, const QString &message)
{
    static const QHash<int, QString> reasons{{400, QStringLiteral("invalid")}, {401, QStringLiteral("required")},
        {403, QStringLiteral("forbidden")}, {404, QStringLiteral("notFound")}, {405, QStringLiteral("notAllowed")},
        {412, QStringLiteral("conditionNotMet")}, {413, QStringLiteral("uploadTooLarge")},
        {429, QStringLiteral("rateLimitExceeded")}, {503, QStringLiteral("backendError")}};
    const QJsonObject detail{{QStringLiteral("domain"), QStringLiteral("global")},
        {QStringLiteral("reason"), reasons.value(status, QStringLiteral("error"))},
        {QStringLiteral("message"), message}};
    return ResponsePlan::json(status,
        QJsonObject{{QStringLiteral("error"),
            QJsonObject{{QStringLiteral("code"), status}, {QStringLiteral("message"), message},
                {QStringLiteral("errors"), QJsonArray{detail}}}}},
        message);
}

ResponsePlan storageFailed(const StorageFailure &f)
{
    return gcsError(f.status, f.message);
}

ResponsePlan storageWrongMethod(const char *allowed)
{
    ResponsePlan p = gcsError(405, Tr::tr("this Cloud Storage resource takes %1").arg(QLatin1String(allowed)));
    p.addHeader("Allow", allowed);
    return p;
}

QJsonObject objectJson(const StorageObject &o)
{
    return QJsonObject{
        {QStringLiteral("kind"), QStringLiteral("storage#object")},
        {QStringLiteral("id"), QStringLiteral("%1/%2/%3").arg(o.bucket, o.name).arg(o.generation)},
        {QStringLiteral("name"), o.name},
        {QStringLiteral("bucket"), o.bucket},
        // Cloud Storage writes its 64-bit numbers as strings.
        {QStringLiteral("generation"), QString::number(o.generation)},
        {QStringLiteral("metageneration"), QString::number(o.metageneration)},
        {QStringLiteral("contentType"), o.contentType},
        {QStringLiteral("size"), QString::number(o.size)},
    };
}

ResponsePlan objectAnswer(const StorageObject &o)
{
    return ResponsePlan::json(200, objectJson(o),
        Tr::tr("object gs://%1/%2 generation %3").arg(o.bucket, RequestTarget::shortened(o.name)).arg(o.generation));
}

// The answer that `plan` was, cut after `bytes` of its body, as the testbench's broken streams are.
ResponsePlan cutAnswer(ResponsePlan plan, qint64 bytes)
{
    if (plan.kind != ResponsePlan::Kind::Respond || plan.body.isEmpty()) {
        ResponsePlan empty = ResponsePlan::fault(ResponsePlan::Kind::Empty);
        empty.detail = Tr::tr("the answer has no body to break: closed without an answer");
        return empty;
    }
    ResponsePlan p = plan;
    p.kind = ResponsePlan::Kind::BrokenStream;
    p.action = QStringLiteral("broken-stream");
    p.announcedBytes = plan.body.size();
    p.sentBytes = std::min<qint64>(bytes, plan.body.size() - 1);
    p.detail = Tr::tr("%1 of %2 body bytes sent, then closed").arg(p.sentBytes).arg(p.announcedBytes);
    return p;
}

Result<StoragePreconditions> preconditionsOf(const RequestTarget &t)
{
    StoragePreconditions pre;
    const auto read = [&](const char *name, std::optional<qint64> &into) -> Result<void> {
        const auto text = t.query(QLatin1String(name));
        if (!text)
            return {};
        const auto value = RequestTarget::readInteger(text, name, 0, std::numeric_limits<qint64>::max(), 0);
        if (!value)
            return value.errorDetail();
        into = *value;
        return {};
    };
    for (const auto &[name, field] : {std::pair{"ifGenerationMatch", &pre.ifGenerationMatch},
             std::pair{"ifGenerationNotMatch", &pre.ifGenerationNotMatch},
             std::pair{"ifMetagenerationMatch", &pre.ifMetagenerationMatch},
             std::pair{"ifMetagenerationNotMatch", &pre.ifMetagenerationNotMatch}}) {
        if (const Result<void> ok = read(name, *field); !ok)
            return ok.errorDetail();
    }
    return pre;
}

QString instructionNote(const QString &testId, const QString &operation, const StorageInstruction &i)
{
    return Tr::tr("retry test %1, %2: %3").arg(testId, operation, i.text);
}

} // namespace

struct StorageEndpoints::Call
{
    HttpRequest request;
    RequestTarget target;
    QStringList segments;
    qsizetype start = -1; ///< index of "storage" in segments
    QString operation;
    QString bucket;
    QString object;
    StoragePreconditions preconditions;
    QString testId;
    QString replayKey;
};

StorageEndpoints::StorageEndpoints(StorageRetryTests &tests, StorageObjects &objects)
    : m_tests(tests), m_objects(objects)
{ }

bool StorageEndpoints::owns(const HttpRequest &r)
{
    // Asked of every request the fault server routes, and most are not the storage API's:
    // their first segment says so without the path split and percent-decoded (4,000 of
    // the 23,000 instructions of a /status/200).
    QByteArrayView path = r.path;
    while (path.startsWith('/'))
        path = path.sliced(1);
    const qsizetype slash = path.indexOf('/');
    const QByteArrayView first = slash < 0 ? path : path.first(slash);
    if (!first.contains('%') && first != "retry_test" && first != "retry_tests" && first != "storage"
        && first != "upload" && first != "download")
        return false;
    const QStringList s = storageSegments(r);
    if (s.value(0) == QLatin1String("retry_test") || (s.value(0) == QLatin1String("retry_tests") && s.size() == 1))
        return true;
    return apiStart(s) >= 0;
}

QString StorageEndpoints::operationOf(const HttpRequest &r)
{
    const QStringList s = storageSegments(r);
    const qsizetype start = apiStart(s);
    if (start < 0)
        return {};
    const qsizetype n = s.size() - start; // "storage" "v1" "b" BUCKET ["o" [OBJECT]]
    const bool upload = start == 1 && s.value(0) == QLatin1String("upload");
    if (upload)
        return n == 5 && s.value(start + 4) == QLatin1String("o") && (r.method == "POST" || r.method == "PUT")
            ? QString(opObjectsInsert)
            : QString();
    if (n == 4 && r.method == "GET" && start == 0)
        return opBucketsGet;
    if (n == 5 && s.value(start + 4) == QLatin1String("o") && r.method == "GET" && start == 0)
        return opObjectsList;
    if (n == 6 && s.value(start + 4) == QLatin1String("o")) {
        if (r.method == "GET")
            return opObjectsGet;
        if (r.method == "DELETE" && start == 0)
            return opObjectsDelete;
    }
    return {};
}

ResponsePlan StorageEndpoints::handle(const HttpRequest &r, const QString &testId, const QString &replayKey)
{
    const QStringList segments = storageSegments(r);
    if (segments.value(0) == QLatin1String("retry_test") || segments.value(0) == QLatin1String("retry_tests"))
        return retryTestEndpoint(r, segments);

    Call call{r, RequestTarget(r), segments, apiStart(segments), operationOf(r), {}, {}, {}, testId, replayKey};
    const qsizetype n = segments.size() - call.start;
    if (n < 4 || n > 6 || (n >= 5 && segments.value(call.start + 4) != QLatin1String("o")))
        return gcsError(
            404, Tr::tr("no Cloud Storage resource at %1").arg(RequestTarget::shortened(call.target.path())));
    call.bucket = segments.value(call.start + 3);
    call.object = segments.value(call.start + 5);
    if (!StorageObjects::isBucketName(call.bucket))
        return gcsError(400,
            Tr::tr("\"%1\" is not a valid bucket name (3-63 of a-z 0-9 - _ ., starting and ending with a letter or "
                   "digit)")
                .arg(RequestTarget::shortened(call.bucket)));
    if (n == 6 && !StorageObjects::isObjectName(call.object))
        return gcsError(400, Tr::tr("an object name is 1-1024 bytes of UTF-8 without CR or LF"));
    if (call.operation.isEmpty()) {
        const bool upload = segments.value(0) == QLatin1String("upload");
        if (upload)
            return n == 5 ? storageWrongMethod("POST, PUT")
                          : gcsError(404, Tr::tr("uploads go to /upload/storage/v1/b/{bucket}/o"));
        if (segments.value(0) == QLatin1String("download"))
            return n == 6 ? storageWrongMethod("GET")
                          : gcsError(404, Tr::tr("downloads come from /download/storage/v1/b/{bucket}/o/{object}"));
        return storageWrongMethod(n == 6 ? "GET, DELETE" : "GET");
    }
    auto pre = preconditionsOf(call.target);
    if (!pre)
        return gcsError(400, pre.error());
    call.preconditions = *pre;

    std::optional<StorageInstruction> instruction;
    if (!testId.isEmpty())
        instruction = m_tests.next(testId, call.operation, replayKey);
    if (!instruction)
        return serve(call, std::nullopt);

    const QString note = instructionNote(testId, call.operation, *instruction);
    const auto noted = [&note](ResponsePlan p) {
        p.detail = p.detail.isEmpty() ? note : note + QStringLiteral(": ") + p.detail;
        return p;
    };
    switch (instruction->kind) {
    case StorageInstruction::Kind::Return:
        consume(call);
        return noted(gcsError(instruction->status, Tr::tr("Retry Test: Caused a %1").arg(instruction->status)));
    case StorageInstruction::Kind::ResetConnection:
        consume(call);
        return noted(ResponsePlan::fault(ResponsePlan::Kind::Reset));
    case StorageInstruction::Kind::BrokenStream: {
        // As the testbench: the operation is carried out, its answer is what breaks.
        consume(call);
        return noted(cutAnswer(serve(call, std::nullopt), StorageInstruction::brokenStreamBytes));
    }
    case StorageInstruction::Kind::BrokenStreamAfterBytes:
    case StorageInstruction::Kind::StallAfterBytes:
        if (call.operation == opObjectsGet)
            return getObject(call, instruction);
        return insertObject(call, instruction);
    case StorageInstruction::Kind::ReturnAfterBytes:
        return insertObject(call, instruction);
    }
    return serve(call, std::nullopt);
}

void StorageEndpoints::consume(const Call &call)
{
    m_tests.consume(call.testId, call.operation, call.replayKey);
}

ResponsePlan StorageEndpoints::serve(const Call &call, const std::optional<StorageInstruction> &instruction)
{
    if (call.operation == opBucketsGet) {
        return ResponsePlan::json(200,
            QJsonObject{{QStringLiteral("kind"), QStringLiteral("storage#bucket")}, {QStringLiteral("id"), call.bucket},
                {QStringLiteral("name"), call.bucket}, {QStringLiteral("metageneration"), QStringLiteral("1")},
                {QStringLiteral("location"), QStringLiteral("US")},
                {QStringLiteral("storageClass"), QStringLiteral("STANDARD")}},
            Tr::tr("bucket %1").arg(call.bucket));
    }
    if (call.operation == opObjectsList) {
        const QString prefix = call.target.query(QLatin1String("prefix")).value_or(QString());
        QJsonArray items;
        for (const StorageObject &o : m_objects.list(call.bucket, prefix))
            items.append(objectJson(o));
        return ResponsePlan::json(200,
            QJsonObject{{QStringLiteral("kind"), QStringLiteral("storage#objects")}, {QStringLiteral("items"), items}},
            Tr::tr("%1 objects in %2").arg(items.size()).arg(call.bucket));
    }
    if (call.operation == opObjectsGet)
        return getObject(call, instruction);
    if (call.operation == opObjectsDelete) {
        const auto removed = m_objects.remove(call.bucket, call.object, call.preconditions);
        if (const auto *f = std::get_if<StorageFailure>(&removed))
            return storageFailed(*f);
        ResponsePlan p;
        p.status = 204;
        p.detail = Tr::tr("deleted gs://%1/%2").arg(call.bucket, RequestTarget::shortened(call.object));
        return p;
    }
    return insertObject(call, instruction);
}

ResponsePlan StorageEndpoints::getObject(const Call &call, const std::optional<StorageInstruction> &instruction)
{
    const auto found = m_objects.object(call.bucket, call.object, call.preconditions);
    if (const auto *f = std::get_if<StorageFailure>(&found))
        return storageFailed(*f);
    const StorageObject &o = std::get<StorageObject>(found);
    const bool media = call.segments.value(0) == QLatin1String("download")
        || call.target.query(QLatin1String("alt")) == QLatin1String("media");
    if (const auto alt = call.target.query(QLatin1String("alt"));
        alt && *alt != QLatin1String("media") && *alt != QLatin1String("json"))
        return gcsError(400, Tr::tr("alt must be json or media (got \"%1\")").arg(RequestTarget::shortened(*alt)));
    ResponsePlan p = objectAnswer(o);
    if (media) {
        p.body = o.data;
        p.contentType = o.contentType.toUtf8();
        p.detail = Tr::tr("%1 bytes of gs://%2/%3").arg(o.data.size()).arg(o.bucket, RequestTarget::shortened(o.name));
        // A resumed download asks for the rest: "Range: bytes=N-" or "bytes=N-M".
        if (const auto range = call.request.header("Range")) {
            static const QRegularExpression form(QStringLiteral("^bytes=([0-9]{1,18})-([0-9]{0,18})$"));
            const auto m = form.match(QString::fromLatin1(range->trimmed()));
            if (!m.hasMatch())
                return gcsError(400, Tr::tr("Range must be \"bytes=FIRST-\" or \"bytes=FIRST-LAST\""));
            const qint64 first = m.captured(1).toLongLong();
            qint64 last = m.captured(2).isEmpty() ? o.data.size() - 1 : m.captured(2).toLongLong();
            last = std::min<qint64>(last, o.data.size() - 1);
            if (first >= o.data.size() || last < first) {
                ResponsePlan none = gcsError(416, Tr::tr("the object has %1 bytes").arg(o.data.size()));
                none.addHeader("Content-Range", "bytes */" + QByteArray::number(o.data.size()));
                return none;
            }
            p.status = 206;
            p.body = o.data.sliced(first, last - first + 1);
            p.addHeader("Content-Range",
                "bytes " + QByteArray::number(first) + '-' + QByteArray::number(last) + '/'
                    + QByteArray::number(o.data.size()));
        }
        p.addHeader("x-goog-generation", QByteArray::number(o.generation));
        p.addHeader("x-goog-metageneration", QByteArray::number(o.metageneration));
        p.addHeader("x-goog-stored-content-length", QByteArray::number(o.data.size()));
    }
    if (!instruction)
        return p;
    // The testbench's "after" faults: when the body never reaches N, the answer is whole and the
    // instruction stays for the next request.
    if (p.body.size() <= instruction->afterBytes)
        return p;
    const QString note = instructionNote(call.testId, call.operation, *instruction);
    consume(call);
    if (instruction->kind == StorageInstruction::Kind::BrokenStreamAfterBytes) {
        ResponsePlan cut = cutAnswer(p, instruction->afterBytes);
        cut.detail = note + QStringLiteral(": ") + cut.detail;
        return cut;
    }
    p.pauseAfterBytes = instruction->afterBytes;
    p.pauseMs = instruction->stallSeconds * 1000;
    p.detail = note + QStringLiteral(": ") + p.detail;
    return p;
}

ResponsePlan StorageEndpoints::insertObject(const Call &call, const std::optional<StorageInstruction> &instruction)
{
    if (call.request.method == "PUT" || call.target.query(QLatin1String("upload_id")))
        return uploadChunk(call, instruction);
    const auto type = call.target.query(QLatin1String("uploadType"));
    if (!type)
        return gcsError(400, Tr::tr("uploadType is required (media or resumable)"));
    const HttpRequest &r = call.request;
    if (*type == QLatin1String("resumable")) {
        // The name comes in the query or in the JSON metadata of the body.
        QString name = call.target.query(QLatin1String("name")).value_or(QString());
        QString contentType = QString::fromUtf8(r.header("X-Upload-Content-Type").value_or(QByteArray()));
        if (!r.body.trimmed().isEmpty()) {
            QJsonParseError error;
            const QJsonDocument metadata = QJsonDocument::fromJson(r.body, &error);
            if (!metadata.isObject())
                return gcsError(400,
                    Tr::tr("the body of a resumable upload's start is the object's JSON metadata: %1")
                        .arg(error.error == QJsonParseError::NoError ? Tr::tr("not an object") : error.errorString()));
            if (name.isEmpty())
                name = metadata.object().value(QLatin1String("name")).toString();
            if (contentType.isEmpty())
                contentType = metadata.object().value(QLatin1String("contentType")).toString();
        }
        if (!StorageObjects::isObjectName(name))
            return gcsError(400, Tr::tr("a resumable upload needs the object's name (?name= or \"name\" in the body)"));
        const auto started = m_objects.startUpload(call.bucket, name,
            contentType.isEmpty() ? QStringLiteral("application/octet-stream") : contentType, call.preconditions);
        if (const auto *f = std::get_if<StorageFailure>(&started))
            return storageFailed(*f);
        const QString id = std::get<QString>(started);
        QByteArray location = "/upload/storage/v1/b/" + QUrl::toPercentEncoding(call.bucket)
            + "/o?uploadType=resumable&upload_id=" + id.toLatin1();
        // Absolute where the Host is one of ours to name (clients resolve a relative one too).
        if (const auto host = r.header("Host"); host && isLoopbackHost(*host))
            location = "http://" + host->trimmed() + location;
        ResponsePlan p = ResponsePlan::json(200, QJsonObject{}, Tr::tr("resumable upload %1 started").arg(id));
        p.body.clear();
        p.addHeader("Location", location);
        p.addHeader("X-GUploader-UploadID", id.toLatin1());
        return p;
    }
    if (*type != QLatin1String("media"))
        return gcsError(400,
            Tr::tr("uploadType \"%1\" is not served here (media or resumable)").arg(RequestTarget::shortened(*type)));
    const QString name = call.target.query(QLatin1String("name")).value_or(QString());
    if (!StorageObjects::isObjectName(name))
        return gcsError(400, Tr::tr("a media upload needs the object's name: ?name="));
    const QString contentType
        = QString::fromUtf8(r.header("Content-Type").value_or(QByteArrayLiteral("application/octet-stream")));
    const auto store = [this, call, name, contentType] {
        const auto stored = m_objects.insert(call.bucket, name, call.request.body, contentType, call.preconditions);
        if (const auto *f = std::get_if<StorageFailure>(&stored))
            return storageFailed(*f);
        return objectAnswer(std::get<StorageObject>(stored));
    };
    if (!instruction || r.body.size() < instruction->afterBytes)
        return store(); // the threshold not reached: the instruction stays, as in the testbench
    const QString note = instructionNote(call.testId, call.operation, *instruction);
    consume(call);
    if (instruction->kind == StorageInstruction::Kind::ReturnAfterBytes) {
        ResponsePlan p = gcsError(instruction->status, Tr::tr("Fault injected during a single-shot upload"));
        p.detail = note + QStringLiteral(": ") + p.detail;
        return p;
    }
    return ResponsePlan::wait(instruction->stallSeconds * 1000, [store, note] {
        ResponsePlan p = store();
        p.detail = note + QStringLiteral(": ") + p.detail;
        return p;
    });
}

ResponsePlan StorageEndpoints::uploadChunk(const Call &call, const std::optional<StorageInstruction> &instruction)
{
    const auto id = call.target.query(QLatin1String("upload_id"));
    if (!id)
        return gcsError(
            400, Tr::tr("a PUT to /upload/storage/v1/b/{bucket}/o continues a resumable upload: ?upload_id="));
    const auto current = m_objects.upload(*id);
    if (const auto *f = std::get_if<StorageFailure>(&current))
        return storageFailed(*f);
    if (const StorageUpload &u = std::get<StorageUpload>(current); u.object)
        return objectAnswer(*u.object);

    const HttpRequest &r = call.request;
    // "bytes FIRST-LAST/TOTAL", "bytes FIRST-LAST/*", "bytes */TOTAL", "bytes */*"; none: the whole upload.
    qint64 first = 0;
    std::optional<qint64> total;
    bool query = false;
    if (const auto range = r.header("Content-Range")) {
        static const QRegularExpression form(
            QStringLiteral("^bytes (?:([0-9]{1,18})-([0-9]{1,18})|\\*)/(?:([0-9]{1,18})|\\*)$"));
        const auto m = form.match(QString::fromLatin1(range->trimmed()));
        if (!m.hasMatch())
            return gcsError(400,
                Tr::tr("Content-Range must be \"bytes FIRST-LAST/TOTAL\", \"bytes FIRST-LAST/*\", "
                       "\"bytes */TOTAL\" or \"bytes */*\""));
        if (!m.captured(3).isEmpty())
            total = m.captured(3).toLongLong();
        if (m.captured(1).isEmpty()) {
            query = true;
        } else {
            first = m.captured(1).toLongLong();
            const qint64 last = m.captured(2).toLongLong();
            if (last < first || last - first + 1 != r.body.size())
                return gcsError(400,
                    Tr::tr("Content-Range says %1 bytes, the body has %2")
                        .arg(last < first ? 0 : last - first + 1)
                        .arg(r.body.size()));
            if (total && last >= *total)
                return gcsError(400, Tr::tr("Content-Range goes past the total it names"));
        }
        if (query && !r.body.isEmpty())
            return gcsError(400, Tr::tr("Content-Range \"bytes */...\" comes without a body"));
    } else {
        total = r.body.size();
    }

    const auto proceed = [this, call, id = *id, first, total, query, instruction]() -> ResponsePlan {
        const std::optional<StorageInstruction> failAfter
            = instruction && instruction->kind == StorageInstruction::Kind::ReturnAfterBytes ? instruction
                                                                                             : std::nullopt;
        qint64 persisted = 0;
        if (!query) {
            const qint64 keepUntil = failAfter ? failAfter->afterBytes : std::numeric_limits<qint64>::max();
            const auto appended = m_objects.appendUpload(id, first, call.request.body, keepUntil);
            if (const auto *f = std::get_if<StorageFailure>(&appended))
                return storageFailed(*f);
            persisted = std::get<StorageUpload>(appended).data.size();
        } else {
            persisted = std::get<StorageUpload>(m_objects.upload(id)).data.size();
        }
        if (failAfter && persisted >= failAfter->afterBytes) {
            // The bytes up to N are kept, as Cloud Storage keeps what it persisted before a fault.
            consume(call);
            return gcsError(failAfter->status, Tr::tr("Fault injected during a resumable upload"));
        }
        if (total && persisted > *total)
            return gcsError(400, Tr::tr("%1 bytes are persisted, more than the total %2").arg(persisted).arg(*total));
        if (total && persisted == *total) {
            const auto finished = m_objects.finishUpload(id);
            if (const auto *f = std::get_if<StorageFailure>(&finished))
                return storageFailed(*f);
            return objectAnswer(*std::get<StorageUpload>(finished).object);
        }
        ResponsePlan p;
        p.status = 308;
        p.contentType.clear();
        if (persisted > 0)
            p.addHeader("Range", "bytes=0-" + QByteArray::number(persisted - 1));
        p.detail = Tr::tr("resumable upload %1: %2 bytes persisted").arg(id).arg(persisted);
        return p;
    };

    if (instruction && instruction->kind == StorageInstruction::Kind::StallAfterBytes && !query) {
        const qint64 persisted = std::get<StorageUpload>(current).data.size();
        const qint64 reach = first + r.body.size();
        if (persisted <= instruction->afterBytes && reach > instruction->afterBytes) {
            consume(call);
            const QString note = instructionNote(call.testId, call.operation, *instruction);
            return ResponsePlan::wait(instruction->stallSeconds * 1000, [proceed, note] {
                ResponsePlan p = proceed();
                p.detail = note + QStringLiteral(": ") + p.detail;
                return p;
            });
        }
        return proceed();
    }
    return proceed();
}

ResponsePlan StorageEndpoints::retryTestEndpoint(const HttpRequest &r, const QStringList &segments)
{
    // A web page could reach the server too: it must not script faults.
    if (const auto refusal = controlRequestRefusal(r))
        return ResponsePlan::error(refusal->status, refusal->message);
    if (segments.value(0) == QLatin1String("retry_tests")) {
        if (r.method != "GET")
            return storageWrongMethod("GET");
        QJsonArray all;
        for (const QJsonObject &test : m_tests.describeAll())
            all.append(test);
        return ResponsePlan::json(
            200, QJsonObject{{QStringLiteral("retry_test"), all}}, Tr::tr("%1 retry tests").arg(all.size()));
    }
    if (segments.size() == 1) {
        if (r.method != "POST")
            return storageWrongMethod("POST");
        QJsonParseError error;
        const QJsonDocument doc = QJsonDocument::fromJson(r.body, &error);
        if (!doc.isObject())
            return ResponsePlan::error(400,
                Tr::tr("the body must be a JSON object {\"instructions\": {...}}: %1")
                    .arg(error.error == QJsonParseError::NoError ? Tr::tr("not an object") : error.errorString()));
        const auto created = m_tests.create(doc.object());
        if (!created)
            return ResponsePlan::error(400, created.error());
        return ResponsePlan::json(
            200, *created, Tr::tr("retry test %1 created").arg(created->value(QLatin1String("id")).toString()));
    }
    if (segments.size() != 2)
        return ResponsePlan::error(404, Tr::tr("retry tests are at /retry_test/{id}"));
    const QString &id = segments[1];
    if (r.method == "GET") {
        if (const auto test = m_tests.describe(id))
            return ResponsePlan::json(200, *test, Tr::tr("retry test %1").arg(id));
    } else if (r.method == "DELETE") {
        if (m_tests.remove(id)) {
            ResponsePlan p = ResponsePlan::json(200, QJsonObject{}, Tr::tr("retry test %1 deleted").arg(id));
            p.body = "Deleted " + id.toUtf8();
            p.contentType = "text/plain";
            return p;
        }
    } else {
        return storageWrongMethod("GET, DELETE");
    }
    return ResponsePlan::error(404, Tr::tr("no retry test \"%1\"").arg(RequestTarget::shortened(id)));
}

} // namespace RetryLab::Core
