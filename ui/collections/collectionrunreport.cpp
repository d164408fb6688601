#include "ui/collections/collectionrunreport.h"

#include "core/export/harexport.h"
#include "core/export/reportjson.h"
#include "ui/session/uitr.h"

#include <QFileInfo>

namespace RetryLab::Ui::CollectionRunReport {

namespace {

QString attemptStatusText(const Core::AttemptRecord &attempt)
{
    if (attempt.httpStatus)
        return QString::number(*attempt.httpStatus);
    if (attempt.end == Core::AttemptEnd::NetworkError)
        return Core::networkErrorName(attempt.networkError);
    return Core::attemptEndName(attempt.end);
}

} // namespace

QString statusText(const Core::CollectionRequestRun &run)
{
    if (run.skipped)
        return Tr::tr("skipped");
    if (!run.sent())
        return Tr::tr("not sent");
    QStringList statuses;
    for (const Core::AttemptRecord &attempt : run.attempts)
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

QList<Core::ExpectationResult> verdictsOf(const Core::CollectionRequestRun &run)
{
    QList<Core::ExpectationResult> verdicts;
    const double ms = run.result ? run.result->totalMs() : 0.0;
    const QList<quint64> ids = run.requestId ? QList<quint64>{run.requestId} : QList<quint64>{};
    for (const Core::AssertionResult &assertion : run.assertions)
        verdicts.append({assertion.name, assertion.passed, assertion.message, ms, ids});
    for (const Core::ScriptTest &test : run.tests) {
        if (!test.skipped)
            verdicts.append({test.name, test.passed, test.error, ms, ids});
    }
    for (const QString &error : run.errors)
        verdicts.append({Tr::tr("request runs"), false, error, ms, ids});
    if (verdicts.isEmpty() && run.sent())
        verdicts.append({Tr::tr("request runs"), true, statusText(run), ms, ids});
    return verdicts;
}

QList<Core::ExpectationResult> allVerdicts(const Core::CollectionRunResult &result)
{
    QList<Core::ExpectationResult> all;
    for (const Core::CollectionRequestRun &run : result.requests) {
        for (Core::ExpectationResult verdict : verdictsOf(run)) {
            verdict.name = run.path + QStringLiteral(" › ") + verdict.name;
            all.append(verdict);
        }
    }
    return all;
}

QList<Core::JUnitExport::Suite> junitSuites(const Core::CollectionRunResult &result)
{
    QList<Core::JUnitExport::Suite> suites;
    for (const Core::CollectionRequestRun &run : result.requests) {
        Core::JUnitExport::Suite suite;
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

Core::RunRecord recordOf(const Core::CollectionRunResult &result, const Core::CollectionRequestRun &run)
{
    Core::RunRecord record;
    const quint64 id = run.requestId;
    const Core::RunRecord &whole = result.record;
    if (id != 0 && whole.requests.contains(id)) {
        record.policy = whole.policyOf(id);
        record.startedAt = whole.startedAt;
        record.epochNs = whole.epochNs;
        record.seed = whole.seed;
        record.requests.insert(id, whole.requests.value(id));
        for (const Core::AttemptRecord &attempt : whole.attempts) {
            if (attempt.requestId == id)
                record.attempts.append(attempt);
        }
        for (const Core::RequestResult &each : whole.results) {
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

Core::Result<qint64> write(
    const QString &path, const Core::CollectionRunResult &result, const Core::ExportOptions &options)
{
    switch (formatOf(path)) {
    case Format::JUnit:
        return Core::JUnitExport::writeFile(path, junitSuites(result), options);
    case Format::Har:
        return Core::HarExport::writeFile(path, result.record, options);
    case Format::Report:
        break;
    }
    return Core::ReportJson::writeFile(path, result.record, options, allVerdicts(result));
}

} // namespace RetryLab::Ui::CollectionRunReport
