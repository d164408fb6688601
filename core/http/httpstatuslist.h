#pragma once

#include <QList>
#include <QString>

namespace RetryLab::Core {

/// Sets of HTTP statuses as people read them in notes and warnings.
namespace HttpStatusList {

/// Sorted, without repeats, runs of three or more as ranges: "408, 429, 500-504, 599".
QString format(QList<int> statuses);

} // namespace HttpStatusList

} // namespace RetryLab::Core
