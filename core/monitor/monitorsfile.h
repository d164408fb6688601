#pragma once

#include "core/alerts/alerttarget.h"
#include "core/collections/environment.h"
#include "core/monitor/monitor.h"
#include "core/util/result.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QString>

namespace RetryLab::Core {

/// What a monitors file holds.
struct MonitorsFile
{
    QList<Monitor> monitors;
    QList<Environment> environments;
    /// The environment whose variables filled the monitors' {{names}}; empty: none.
    QString environment;
    /// The alert targets monitors name in their "alerts".
    QList<AlertTarget> alertTargets;
    QStringList alertNames() const;

    const Monitor *find(const QString &name) const;
};

/// Reads monitors files (format "retrylab-monitors", version 1): monitors, the
/// environments their {{variables}} come from, and alert targets. A monitor
/// entry takes the fields of a scenario's request entry (name, method, url,
/// headers, body, transport, idempotent, attemptTimeoutMs, fallbacks,
/// fallbackOn) and its own: intervalMs, downIntervalMs, policy (as a scenario
/// spells it, or "none"), timeoutMs, conditions, downAfter, upAfter,
/// maintenance, objective, alerts, paused. A monitor may instead name a request
/// saved in a collection: "collection" (its file), "request" (its name or
/// path), and optionally "environments" (an environments file) and
/// "environment"; without "policy" it keeps the policy saved with the request.
/// Errors name the file and the JSON
/// path ("monitors.json: monitors[2].intervalMs: ..."). The format is described
/// in docs/files.md.
namespace MonitorsFileReader {

inline constexpr int formatVersion = 1;
inline constexpr char formatName[] = "retrylab-monitors";
inline constexpr int maxMonitors = 100'000;
inline constexpr double minIntervalMs = 100.0;
inline constexpr double maxIntervalMs = 7.0 * 24 * 3600 * 1000;
inline constexpr qint64 maxFileBytes = 64 * 1024 * 1024;

/// What the reader lets through that `retrylab monitor` cannot run.
struct ReadOptions
{
    /// "{server}" may stand in a monitor's url (and a saved request's, for a
    /// collection entry) and is kept in Monitor::urlTemplate: the window's
    /// monitors, whose engine knows the embedded fault server
    /// (MonitorEngine::setServerUrl). Off: refused with the file and JSON path,
    /// since the headless command has no embedded server. Fallbacks and a write
    /// URL never may use it.
    bool allowServer = false;
};

/// `environment` overrides the file's "environment" (its name must be one of its environments).
/// Collections named by monitors are found relative to `folder` (empty: the current folder).
Result<MonitorsFile> fromJson(const QByteArray &json, const QString &environment = {}, const QString &folder = {},
    const ReadOptions &options = {});
Result<MonitorsFile> readFile(const QString &path, const QString &environment = {}, const ReadOptions &options = {});

} // namespace MonitorsFileReader

} // namespace RetryLab::Core
