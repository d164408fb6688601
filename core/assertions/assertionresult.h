#pragma once

#include "core/assertions/assertion.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

namespace RetryLab::Core {

struct AttemptRecord;

/// The verdict on one assertion for one answer: whether it held, and a
/// sentence with what was expected and what came ("status 200 expected, 503
/// came"), under the assertion's name for reports.
struct AssertionResult
{
    QString name;
    bool passed = false;
    QString message;
    /// For a schema: its keywords this validator does not check (JsonSchema::notChecked()),
    /// also named in the message, so that a pass never hides them.
    QStringList notChecked;

    friend bool operator==(const AssertionResult &, const AssertionResult &) = default;
};

/// Checks `assertion` against the answer `record` got: its status, response
/// headers, response body (record.responseBody, what the executor kept of it;
/// a truncated body is said so in the message) and duration.
AssertionResult evaluate(const Assertion &assertion, const AttemptRecord &record);
/// The same with the body given apart (a ResponseCheck is handed it that way).
AssertionResult evaluate(const Assertion &assertion, const AttemptRecord &record, const QByteArray &body);
/// Every assertion, in order.
QList<AssertionResult> evaluateAll(const QList<Assertion> &assertions, const AttemptRecord &record);

} // namespace RetryLab::Core
