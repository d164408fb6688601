#pragma once

#include "core/export/exportoptions.h"
#include "core/record/runrecord.h"
#include "core/util/result.h"

#include <QByteArray>
#include <QStringList>

namespace RetryLab::Core {

/// One row per attempt, in the order the attempts started, as RFC 4180 CSV:
/// UTF-8, CRLF line ends, a header row with the stable names of columns(), and
/// fields quoted when they hold a comma, a quote, CR or LF. Times are
/// milliseconds relative to the run's start plus the start in UTC; unknown
/// values are empty. Header lists are compact JSON arrays of [name, value].
///
/// Text that came from outside (reason phrases, error strings, labels) and
/// starts with = + - @ or a tab is prefixed with ' so that a spreadsheet shows
/// it instead of evaluating it as a formula.
namespace CsvExport {

/// The column names, in order. Never renamed; new columns are added at the end.
QStringList columns();

QByteArray toCsv(const RunRecord &run, const ExportOptions &options = {});
Result<qint64> writeFile(const QString &path, const RunRecord &run, const ExportOptions &options = {});

/// Text from servers and users prefixed with ' when it starts with = + - @, a tab
/// or CR, so that a spreadsheet does not evaluate it as a formula.
QString neutralised(const QString &text);

/// One field, quoted per RFC 4180 when it needs to be.
QString quoteField(const QString &field);

} // namespace CsvExport

} // namespace RetryLab::Core
