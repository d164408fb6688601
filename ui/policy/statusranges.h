#pragma once

#include "core/util/result.h"

#include <QSet>
#include <QString>

namespace RetryLab::Ui {

/// HTTP status sets as people write them: "429, 500-599" or "429 5xx".
namespace StatusRanges {

/// Sorted, with runs of consecutive codes written as ranges: "404, 429, 500-599".
QString format(const QSet<int> &statuses);

/// Reads codes ("503"), ranges ("500-599") and classes ("5xx") separated by
/// commas or spaces. Anything else, a code outside 100..599, or a range that
/// ends before it starts is refused with a message that quotes the bad part.
/// Whether a code makes sense as a retryable status is validatePolicy()'s call.
Core::Result<QSet<int>> parse(const QString &text);

} // namespace StatusRanges

} // namespace RetryLab::Ui
