#pragma once

#include "core/monitor/monitor.h"
#include "core/policy/backoffpolicy.h"
#include "core/record/attemptrecord.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace RetryLab::Ui {

/// `wanted`, or "wanted (2)", "wanted (3)"... : the first not in `taken`; at
/// most 100 characters, as a monitors file allows.
QString uniqueMonitorName(const QString &wanted, const QStringList &taken);

/// A monitor of the request being composed, under `policy`: named after its
/// host and path ("api.example.com/health"), made unique among `takenNames`,
/// with Monitor's defaults for the rest (a check a minute, 30 s timeout).
Core::Monitor monitorFromRequest(
    const Core::RequestSpec &spec, const Core::BackoffPolicy &policy, const QStringList &takenNames);
/// The same, with `urlTemplate` (the URL as typed, its {{variables}} filled in)
/// as the monitor's URL template: {server} stays in it, for the engine to fill
/// with the embedded server's URL at each check (MonitorEngine::setServerUrl),
/// since the server gets a new port at every start; {id} stays too. `spec` is
/// the request built from it and gives the rest. A monitor of {server} is named
/// after the template without its query ("{server}/fail/3"); an empty template
/// is the overload above.
Core::Monitor monitorFromRequest(const Core::RequestSpec &spec, const QString &urlTemplate,
    const Core::BackoffPolicy &policy, const QStringList &takenNames);

/// The monitors made of saved requests, and why the others could not be made.
struct CollectionMonitors
{
    QList<Core::Monitor> monitors;
    QStringList errors;
};

/// One monitor per saved request of the collection file `collectionFile`:
/// `requestOrFolder` is a request's path ("Orders/List") or a folder's, for
/// every request under it ("Orders"); empty: every request of the collection.
/// Each is made as a monitors file's collection entry makes it
/// (Core::monitorFromSavedRequest): its {{variables}} from the environment
/// `environmentName` of `environmentFile` (both may be empty), the policy
/// saved with it, and named after its path, made unique among `takenNames`.
/// With `allowServer`, a request whose URL uses {server} keeps it (for an
/// engine told the server's URL); without, it is refused.
CollectionMonitors monitorsFromCollection(const QString &collectionFile, const QString &requestOrFolder,
    const QString &environmentFile, const QString &environmentName, const QStringList &takenNames,
    bool allowServer = false);

} // namespace RetryLab::Ui
