#pragma once

#include "core/record/runrecord.h"
#include "core/util/result.h"

#include <QHash>
#include <QString>
#include <QStringList>

namespace RetryLab::Core {

/// The attempt logs of a Locust file made by LocustExport, read back into a run.
///
/// Each worker process writes one file: a first line that names the format
/// ("retrylab-locust-attempts", version 1), the run, the worker, and its clock
/// (its wall time at a monotonic instant), then one line per attempt. The files of
/// one run become one RunRecord: its logical requests in the order they started,
/// every attempt with its times placed on one axis by each worker's own clock
/// (its monotonic start plus its wall time there: machines whose wall clocks
/// disagree disagree in the result by as much, which the notes say per worker),
/// and a result for every logical request that finished.
namespace LocustImport {

struct Imported
{
    RunRecord run;
    QString runId;
    QStringList workers;
    /// The scenario entry ("entry" of its lines) of each logical request, by its id in `run`.
    QHash<quint64, QString> entries;
    /// Per worker: where its clock started, and how far the other workers' started from it.
    QStringList notes;
    /// Logical requests whose last attempt had no outcome yet when the file ended (the run was cut short).
    int unfinished = 0;
};

/// Reads the given files, or every "*.jsonl" in a given folder. Refused, naming the
/// file and line, for a line that is not complete JSON, a field of the wrong type,
/// a file of another format or version, and a file of another run than the first.
Result<Imported> read(const QStringList &paths);

} // namespace LocustImport

} // namespace RetryLab::Core
