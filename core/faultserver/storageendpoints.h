#pragma once

#include "core/faultserver/responseplan.h"
#include "core/faultserver/storageinstruction.h"
#include "core/faultserver/storageobjects.h"

#include <QString>
#include <QStringList>

#include <optional>

namespace RetryLab::Core {

class RequestTarget;
class StorageRetryTests;
struct HttpRequest;

/// A small Cloud Storage JSON API in memory, and the storage-testbench's retry
/// test API over it, so that Cloud Storage clients (and RetryLab under its Cloud
/// Storage preset) can be run against the testbench's conformance cases:
///   POST /retry_test, GET /retry_tests, GET|DELETE /retry_test/{id}
///   GET /storage/v1/b/{bucket}                          storage.buckets.get
///   GET /storage/v1/b/{bucket}/o?prefix=                storage.objects.list
///   GET /storage/v1/b/{bucket}/o/{object}[?alt=media]   storage.objects.get (also /download/storage/v1/...)
///   DELETE /storage/v1/b/{bucket}/o/{object}            storage.objects.delete
///   POST /upload/storage/v1/b/{bucket}/o?uploadType=media|resumable&name=   storage.objects.insert
///   PUT /upload/storage/v1/b/{bucket}/o?upload_id=      storage.objects.insert (a resumable upload's chunk)
/// with ifGenerationMatch, ifGenerationNotMatch, ifMetagenerationMatch and
/// ifMetagenerationNotMatch (412 when one fails). Objects are StorageObjects'.
///
/// A request whose x-retry-test-id names a test of StorageRetryTests meets the
/// next instruction of its operation first (StorageInstruction). Like the
/// other endpoints it turns a request into a ResponsePlan without a socket.
class StorageEndpoints final
{
public:
    StorageEndpoints(StorageRetryTests &tests, StorageObjects &objects);

    /// True for the paths above.
    static bool owns(const HttpRequest &request);
    /// The Cloud Storage operation of a request ("storage.objects.get"); empty when it is none.
    static QString operationOf(const HttpRequest &request);

    /// `testId` names a retry test of the store (or is empty); `replayKey` is the
    /// request's "request-id#attempt", empty when it carries none.
    ResponsePlan handle(const HttpRequest &request, const QString &testId, const QString &replayKey);

private:
    struct Call;
    ResponsePlan retryTestEndpoint(const HttpRequest &request, const QStringList &segments);
    ResponsePlan serve(const Call &call, const std::optional<StorageInstruction> &instruction);
    ResponsePlan getObject(const Call &call, const std::optional<StorageInstruction> &instruction);
    ResponsePlan insertObject(const Call &call, const std::optional<StorageInstruction> &instruction);
    ResponsePlan uploadChunk(const Call &call, const std::optional<StorageInstruction> &instruction);
    /// The instruction was played: it is used up.
    void consume(const Call &call);

    StorageRetryTests &m_tests;
    StorageObjects &m_objects;
};

} // namespace RetryLab::Core
