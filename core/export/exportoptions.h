#pragma once

#include "core/util/coretr.h"

#include <QCoreApplication>
#include <QString>
#include <QStringList>

namespace RetryLab::Core {

/// Settings shared by every export (JSON report, CSV, HAR, JUnit, copy as curl).
/// Credentials are redacted unless the caller turns that off explicitly; an
/// export made without redaction says so inside the file.
struct ExportOptions
{
    bool redactCredentials = true;
    /// Bytes of attempt bodies a report or HAR file carries at most (the window's
    /// budget): beyond it the oldest attempts' bodies are left out and marked so.
    qint64 bodyBudget = 32LL * 1024 * 1024;

    /// The warning an unredacted export carries (a field, property or comment).
    static QString credentialsWarning()
    {
        return Tr::tr("This export was made without redaction: it contains credentials (Authorization, cookies, "
                      "API keys, tokens, passwords). Do not share it.");
    }

    /// The warning an export carries when certificate errors were ignored for
    /// some attempts (TransportOptions::insecureHosts): a field, property or
    /// comment, as for credentialsWarning().
    static QString insecureWarning(qsizetype attempts, const QStringList &hosts)
    {
        return Tr::tr("Certificate errors were ignored for %n attempt(s) (%1), as asked: those TLS connections were "
                      "not verified, and whoever was on the path could have read or changed them.",
            nullptr, int(attempts))
            .arg(hosts.join(QStringLiteral(", ")));
    }
};

} // namespace RetryLab::Core
