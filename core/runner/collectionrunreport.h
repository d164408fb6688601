#pragma once

#include "core/export/exportoptions.h"
#include "core/export/junitexport.h"
#include "core/record/expectationresult.h"
#include "core/record/runrecord.h"
#include "core/runner/collectionrunner.h"
#include "core/util/result.h"

#include <QList>
#include <QString>

namespace RetryLab::Core {

/// What a collection run is made into for people and other tools, by `retrylab run`
/// and the window alike: one verdict per assertion, test and error of each
/// request, the JSON report with those verdicts, JUnit with one suite per
/// request (its attempts and whether it was retried as properties), HAR, and
/// the attempts of one request as a run of their own for the timeline.
namespace CollectionRunReport {

/// A request's status in a few words: "200", "200 after 3 attempts: 503 → 503 → 200",
/// "no answer: ConnectionRefusedError", "not sent", "skipped".
QString statusText(const CollectionRequestRun &run);
/// Its assertions, then its tests (the skipped left out), then its errors; a
/// request with none of them that was sent is one passed verdict "request runs".
QList<ExpectationResult> verdictsOf(const CollectionRequestRun &run);
/// Every request's verdicts, each named "path › verdict".
QList<ExpectationResult> allVerdicts(const CollectionRunResult &result);
QList<JUnitExport::Suite> junitSuites(const CollectionRunResult &result);

/// The run's record cut down to one request: its spec, its attempts and its
/// result, with the policy it ran with. Before the run ended (its record is
/// made at the end) it is made from the request's own copies, whose bodies
/// were let go.
RunRecord recordOf(const CollectionRunResult &result, const CollectionRequestRun &run);

/// The kinds of file the run is written as.
enum class Format { Report, JUnit, Har };
/// By the name's suffix: .xml JUnit, .har HAR, anything else the JSON report.
Format formatOf(const QString &path);
/// Writes the run (atomically); the bytes written or the error naming the file.
Result<qint64> write(const QString &path, const CollectionRunResult &result, const ExportOptions &options = {});

} // namespace CollectionRunReport

} // namespace RetryLab::Core
