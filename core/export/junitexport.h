#pragma once

#include "core/export/exportoptions.h"
#include "core/record/expectationresult.h"
#include "core/record/runrecord.h"
#include "core/util/result.h"

#include <QByteArray>
#include <QDateTime>
#include <QList>
#include <QPair>
#include <QStringList>

namespace RetryLab::Core {

/// Expectation verdicts as JUnit XML, the format CI servers show as test
/// results: one <testsuite> per scenario, one <testcase> per expectation, a
/// <failure> for each that did not hold, with tests / failures / errors /
/// skipped / time counts on every suite and on <testsuites>. Text is escaped by
/// the XML writer, and characters XML 1.0 cannot carry become U+FFFD.
namespace JUnitExport {

/// One scenario's verdicts.
struct Suite
{
    QString name;
    QList<ExpectationResult> results;
    QDateTime timestamp; ///< when the scenario started
    /// Wall time of the whole scenario in ms; negative: the sum of the test cases.
    double durationMs = -1.0;
    QString policyName;
    /// Attempts whose certificate errors were ignored, and their hosts: the
    /// suite then says so (properties certificateErrorsIgnored and insecureWarning).
    qsizetype certificateErrorsIgnored = 0;
    QStringList insecureHosts;
    /// The seed the run drew its jitter from (property "seed"), when known.
    std::optional<quint64> seed;
    /// More properties, written after those above in this order ("attempts", "retried").
    QList<QPair<QString, QString>> properties;
};

/// A suite for a finished run: its start, duration and policy come from the record.
Suite suiteFor(const QString &name, const RunRecord &run, const QList<ExpectationResult> &results);

QByteArray toXml(const QList<Suite> &suites, const ExportOptions &options = {});
Result<qint64> writeFile(const QString &path, const QList<Suite> &suites, const ExportOptions &options = {});

} // namespace JUnitExport

} // namespace RetryLab::Core
