#pragma once

#include "core/assertions/assertion.h"
#include "core/assertions/assertionresult.h"
#include "core/collections/responsevariables.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <utility>

namespace RetryLab::Core {
struct AttemptRecord;
} // namespace RetryLab::Core

namespace RetryLab::Ui {

/// What the checks said of one request.
struct ChecksVerdict
{
    /// The attempt checked (its index within the request); -1 when none was made.
    int attemptIndex = -1;
    QList<Core::AssertionResult> results;
    /// The variables set, in the order of the rules (a name set twice: its last value).
    QList<std::pair<QString, QString>> values;
    /// One sentence per rule that found nothing ("token: /access_token is not in the body").
    QStringList problems;
    /// Why nothing could be checked ("no attempt was made: ..."); empty otherwise.
    QString error;

    int failedCount() const;
    /// Every assertion held and something was checked.
    bool passed() const { return error.isEmpty() && failedCount() == 0; }
};

/// What a request sent from the window must show of its answer (assertions) and
/// takes from it (extract rules): the checks of a saved request (CollectionItem's
/// assertions and extract), edited in the composer's Checks tab. Checked once per
/// request, on its last attempt (after its retries), as `retrylab run` does.
struct RequestChecks
{
    QList<Core::Assertion> assertions;
    QList<Core::ResponseVariables::Rule> extract;

    bool isEmpty() const { return assertions.isEmpty() && extract.isEmpty(); }
    /// The checks on the last attempt of a request.
    ChecksVerdict evaluate(const Core::AttemptRecord &last) const;
    /// The verdict on a request that made no attempt (refused by an open breaker).
    static ChecksVerdict notChecked(const QString &reason);

    friend bool operator==(const RequestChecks &, const RequestChecks &) = default;
};

} // namespace RetryLab::Ui
