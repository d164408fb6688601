#pragma once

#include "core/util/result.h"

#include <QList>
#include <QMap>
#include <QSet>
#include <QString>

namespace RetryLab::Core {

/// Sets of HTTP statuses as people read and write them: in notes and warnings,
/// and in the policy editor's "retryable statuses" field.
namespace HttpStatusList {

/// Sorted, without repeats, runs of three or more consecutive codes as ranges:
/// "408, 429, 500-504, 599". Two in a row stay a list ("502, 503"): a range
/// would be no shorter and reads less plainly.
QString format(QList<int> statuses);
QString format(const QSet<int> &statuses);

/// Reads codes ("503"), ranges ("500-599", also with an en dash or spaces
/// around the dash) and classes ("5xx") separated by commas, semicolons or
/// spaces; format()'s text reads back to the same set. Anything else, a code
/// outside 100..599, or a range that ends before it starts is refused with a
/// message that quotes the bad part. Whether a code makes sense as a retryable
/// status is validatePolicy()'s call.
Result<QSet<int>> parse(const QString &text);

/// Factors by status as the policy editor shows them: "429=2, 503=0.5", sorted
/// by status; empty for none.
QString formatFactors(const QMap<int, double> &factors);
/// Reads formatFactors()'s text: STATUS=FACTOR pairs separated by commas,
/// semicolons or spaces ("429 = 2" and "429×2" too). A status outside
/// 100..599, a factor that is not a number or a status given twice is refused
/// with a message that quotes the bad part; the factor's range is
/// validatePolicy()'s call.
Result<QMap<int, double>> parseFactors(const QString &text);

} // namespace HttpStatusList

} // namespace RetryLab::Core
