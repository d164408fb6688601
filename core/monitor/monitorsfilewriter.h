#pragma once

#include "core/alerts/alerttarget.h"
#include "core/monitor/monitor.h"
#include "core/util/result.h"

#include <QJsonObject>
#include <QList>
#include <QString>

namespace RetryLab::Core {

/// Writes monitors files (format "retrylab-monitors", version 1) that
/// MonitorsFileReader reads back to the same monitors: the window keeps the
/// monitors a person made in one. Values are written as they are, resolved (no
/// environments): a header's credential too, since the file is the user's own,
/// and so writeFile() makes it readable by its owner only. A policy equal to a
/// preset is written as the preset's id, a single attempt as "none", any other
/// as a whole policy object. Monitors that name alert targets need those targets
/// in `alertTargets`, or the reader refuses the file.
namespace MonitorsFileWriter {

QJsonObject toJson(const QList<Monitor> &monitors, const QList<AlertTarget> &alertTargets = {});
/// One monitor's entry of the "monitors" array.
QJsonObject monitorToJson(const Monitor &monitor);
/// Writes atomically (QSaveFile: the old file stays whole until the new one is
/// on disk), with owner-only permissions (0600). The error names the file.
Result<void> writeFile(
    const QString &path, const QList<Monitor> &monitors, const QList<AlertTarget> &alertTargets = {});

} // namespace MonitorsFileWriter

} // namespace RetryLab::Core
