#pragma once

#include "core/policy/backoffpolicy.h"
#include "core/scenario/scenario.h"
#include "core/util/result.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace RetryLab::Core {

/// A scenario and a policy as a self-contained Locust file (resources/locust/locustfile.py):
/// one user class per request entry, performing its logical requests under the
/// policy as RetryLab's executor would, every attempt written as a JSON line that
/// `retrylab import-locust` reads back (LocustImport).
namespace LocustExport {

/// The Locust the generated files were tested with: Debian 12's python3-locust.
inline constexpr char testedLocustVersion[] = "2.12.1";

struct Generated
{
    QByteArray locustfile;
    /// What the file carries only approximately, or not at all, said in its header too.
    QStringList notes;
};

/// The Locust file for `scenario` under `policy`, its run named `runId` (in every
/// attempt line, so that logs of another run are told apart) and its jitter seeded
/// with `seed`. "{server}" in the URLs becomes Locust's --host. Refused, with the
/// request entry and the feature named, for what Locust cannot carry: the embedded
/// server's scripted steps, HTTP/2, a PKCS#12 certificate, and passphrases and
/// proxy passwords (never written to a file). A read-modify-write is carried with
/// its shape, fallback endpoints in their order, TLS files and proxies as requests
/// takes them (the approximations are in the notes).
Result<Generated> locustfile(const Scenario &scenario, const BackoffPolicy &policy, const QString &runId, quint64 seed);

} // namespace LocustExport

} // namespace RetryLab::Core
