#include "core/runner/collectionrunreport.h"

#include "core/export/harexport.h"
#include "core/export/reportjson.h"
#include "core/util/coretr.h"

#include <QFileInfo>

namespace RetryLab::Core::CollectionRunReport {

namespace {

QString attemptStatusText(const AttemptRecord &attempt)
{
    if (attempt.httpStatus)
        return QString::number(*attempt.httpStatus);
    if (attempt.end == AttemptEnd::NetworkError)
        return networkErrorName(attempt.networkError);
    return attemptEndName(attempt.end);
}

} // namespace

QString statusText(const CollectionRequestRun &run)
{
    if (run.skipped)
        return Tr::tr("skipped");
    if (!run.sent())
        return Tr::tr("not sent");
    QStringList statuses;
    for (const AttemptRecord &attempt : run.attempts)
        statuses.append(attemptStatusText(attempt));
    if (statuses.isEmpty())
        return Tr::tr("no attempt: %1").arg(run.result->reason);
    const bool answered = run.attempts.constLast().httpStatus.has_value();
    if (statuses.size() == 1)
        return answered ? statuses.constFirst() : Tr::tr("no answer: %1").arg(statuses.constFirst());
    // Two attempts or more from here: the plural needs no translation to read right.
    const QString count = QString::number(statuses.size());
    const QString sequence = statuses.join(QStringLiteral(" → "));
    return answered ? Tr::tr("%1 after %2 attempts: %3").arg(statuses.constLast(), count, sequence)
                    : Tr::tr("no answer after %1 attempts: %2").arg(count, sequence);
}

QList<ExpectationResult> verdictsOf(const CollectionRequestRun &run)
{
    QList<ExpectationResult> verdicts;
    const double ms = run.result ? run.result->totalMs() : 0.0;
    const QList<quint64> ids = run.requestId ? QList<quint64>{run.requestId} : QList<quint64>{};
    for (const AssertionResult &assertion : run.assertions)
        verdicts.append({assertion.name, assertion.passed, assertion.message, ms, ids});
    for (const ScriptTest &test : run.tests) {
        if (!test.skipped)
            verdicts.append({test.name, test.passed, test.error, ms, ids});
    }
    for (const QString &error : run.errors)
        verdicts.append({Tr::tr("request runs"), false, error, ms, ids});
    if (verdicts.isEmpty() && run.sent())
        verdicts.append({Tr::tr("request runs"), true, statusText(run), ms, ids});
    return verdicts;
}

QList<ExpectationResult> allVerdicts(const CollectionRunResult &result)
{
    QList<ExpectationResult> all;
    for (const CollectionRequestRun &run : result.requests) {
        for (ExpectationResult verdict : verdictsOf(run)) {
            verdict.name = run.path + QStringLiteral(" › ") + verdict.name;
            all.append(verdict);
        }
    }
    return all;
}

QList<JUnitExport::Suite> junitSuites(const CollectionRunResult &result)
{
    QList<JUnitExport::Suite> suites;
    for (const CollectionRequestRun &run : result.requests) {
        JUnitExport::Suite suite;
        suite.name = result.iterations > 1 ? QStringLiteral("%1 (iteration %2)").arg(run.path).arg(run.iteration + 1)
                                           : run.path;
        suite.results = verdictsOf(run);
        suite.timestamp = run.attempts.isEmpty() ? result.startedAt : run.attempts.constFirst().startWall;
        suite.durationMs = run.result ? run.result->totalMs() : 0.0;
        suite.policyName = run.policyName;
        suite.seed = result.seed;
        suite.properties = {{QStringLiteral("attempts"), QString::number(run.attempts.size())},
            {QStringLiteral("retried"), run.retried() ? QStringLiteral("true") : QStringLiteral("false")}};
        if (run.sent() && !run.spec.transport.insecureHosts.isEmpty()) {
            suite.certificateErrorsIgnored = run.attempts.size();
            suite.insecureHosts = run.spec.transport.insecureHosts;
        }
        suites.append(suite);
    }
    return suites;
}

RunRecord recordOf(const CollectionRunResult &result, const CollectionRequestRun &run)
{
    RunRecord record;
    const quint64 id = run.requestId;
    const RunRecord &whole = result.record;
    if (id != 0 && whole.requests.contains(id)) {
        record.policy = whole.policyOf(id);
        record.startedAt = whole.startedAt;
        record.epochNs = whole.epochNs;
        record.seed = whole.seed;
        record.requests.insert(id, whole.requests.value(id));
        for (const AttemptRecord &attempt : whole.attempts) {
            if (attempt.requestId == id)
                record.attempts.append(attempt);
        }
        for (const RequestResult &each : whole.results) {
            if (each.requestId == id)
                record.results.append(each);
        }
        return record;
    }
    // The run goes on: its record does not exist yet.
    record.policy.name = run.policyName;
    if (!run.attempts.isEmpty()) {
        record.epochNs = run.attempts.constFirst().startNs;
        record.startedAt = run.attempts.constFirst().startWall;
    } else {
        record.startedAt = result.startedAt;
    }
    if (id != 0) {
        record.requests.insert(id, run.spec);
        record.attempts = run.attempts;
        if (run.result)
            record.results.append(*run.result);
    }
    return record;
}

Format formatOf(const QString &path)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("xml"))
        return Format::JUnit;
    if (suffix == QLatin1String("har"))
        return Format::Har;
    return Format::Report;
}

Result<qint64> write(const QString &path, const CollectionRunResult &result, const ExportOptions &options)
{
    switch (formatOf(path)) {
    case Format::JUnit:
        return JUnitExport::writeFile(path, junitSuites(result), options);
    case Format::Har:
        return HarExport::writeFile(path, result.record, options);
    case Format::Report:
        break;
    }
    return ReportJson::writeFile(path, result.record, options, allVerdicts(result));
}

} // namespace RetryLab::Core::CollectionRunReport
