#pragma once

#include <QList>
#include <QString>

namespace RetryLab::Core {

/// The verdict on one expectation of a scenario ("request 1 succeeds after 3
/// attempts"). The scenario runner fills these; the JUnit export writes one test
/// case per result and the JSON report keeps them next to the records.
struct ExpectationResult
{
    /// Short, stable name; it becomes the JUnit test case name.
    QString name;
    bool passed = false;
    /// Why it failed, or what was checked when it passed.
    QString message;
    /// Time the checked request(s) took, in milliseconds.
    double durationMs = 0.0;
    /// The logical requests this expectation looked at.
    QList<quint64> requestIds;

    friend bool operator==(const ExpectationResult &, const ExpectationResult &) = default;
};

} // namespace RetryLab::Core
