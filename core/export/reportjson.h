#pragma once

#include "core/export/exportoptions.h"
#include "core/record/expectationresult.h"
#include "core/record/runrecord.h"
#include "core/util/result.h"

#include <QByteArray>
#include <QJsonObject>

namespace RetryLab::Core {

/// The JSON report of a run: the policy (as PolicyJson writes it), every
/// request, every attempt record with all its fields, every result and the
/// expectation verdicts, under a format name and version.
///
/// Times appear twice: `...Ms` relative to the run's start (`startedAt`), which
/// is what the reader uses, and `...Utc` as ISO 8601 UTC for people and tools.
/// Byte fields (headers, bodies) are strings when they are UTF-8 and
/// `{"base64": "..."}` otherwise; 64-bit integers beyond 2^53 are decimal
/// strings. With redaction off the report says so in `redacted` and
/// `credentialsWarning`.
///
/// Every attempt carries its response body (`responseBody`, redacted by its
/// Content-Type as the request bodies are, with `responseBodyTruncated` when the
/// executor kept only the first part) and, when it is not the request's own, its
/// request body (`requestBody`; absent means the body of its request). Bodies beyond
/// ExportOptions::bodyBudget are left out, oldest attempts first, and
/// `requestBodyDropped` / `responseBodyDropped` say so, as they do for bodies the
/// run itself dropped to bound its memory.
///
/// Reading is lossless for an unredacted report, and a malformed file is
/// refused with a message naming the field ("attempts[2].httpStatus: ...").
namespace ReportJson {

inline constexpr int formatVersion = 1;
inline constexpr char formatName[] = "retrylab-report";
/// The largest integer a JSON number (a double) holds exactly: integers beyond it are decimal strings.
inline constexpr qint64 maxExactInteger = qint64(1) << 53;

/// A report read back.
struct Report
{
    RunRecord run;
    QList<ExpectationResult> expectations;
    /// False when the file was written with redaction off.
    bool redacted = true;
};

QJsonObject toJsonObject(
    const RunRecord &run, const ExportOptions &options = {}, const QList<ExpectationResult> &expectations = {});
QByteArray toJson(
    const RunRecord &run, const ExportOptions &options = {}, const QList<ExpectationResult> &expectations = {});

Result<Report> fromJsonObject(const QJsonObject &object);
Result<Report> fromJson(const QByteArray &json);
Result<Report> readFile(const QString &path);

/// A request's kind as a report names it: "single" or "read-modify-write".
QString requestKindName(RequestSpec::Kind kind);

/// Writes atomically (ExportFile::write); returns the bytes written or the error.
Result<qint64> writeFile(const QString &path, const RunRecord &run, const ExportOptions &options = {},
    const QList<ExpectationResult> &expectations = {});

} // namespace ReportJson

} // namespace RetryLab::Core
