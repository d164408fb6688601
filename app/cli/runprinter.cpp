#include "app/cli/runprinter.h"

#include "app/cli/texttable.h"

#include "core/executor/retryplanner.h"
#include "core/http/redactor.h"

#include "core/record/runstatistics.h"
#include "core/scenario/scenariorunner.h"
#include "core/util/durationtext.h"
#include "core/util/terminaltext.h"

#include <QCoreApplication>
#include <QMap>
#include <QMetaEnum>

#include <algorithm>
#include <cmath>

namespace RetryLab::Cli {

namespace {

QString latency(const std::optional<double> &ms)
{
    return ms ? Core::DurationText::format(*ms) : QStringLiteral("-");
}

} // namespace

RunPrinter::RunPrinter(Core::ScenarioRunner *runner, Console *console, bool live, QObject *parent)
    : QObject(parent), m_runner(runner), m_console(console)
{
    if (!live)
        return;
    connect(runner, &Core::ScenarioRunner::attemptFinished, this, &RunPrinter::handleAttemptFinished);
    connect(runner, &Core::ScenarioRunner::retryScheduled, this, &RunPrinter::handleRetryScheduled);
    connect(runner, &Core::ScenarioRunner::requestFinished, this, &RunPrinter::handleRequestFinished);
}

QString RunPrinter::describeFailure(const Core::AttemptRecord &record)
{
    switch (record.end) {
    case Core::AttemptEnd::AttemptTimeout:
        return tr("no answer within the per-attempt timeout");
    case Core::AttemptEnd::Deadline:
        return tr("the total deadline ran out during the attempt");
    case Core::AttemptEnd::Cancelled:
        return tr("cancelled");
    case Core::AttemptEnd::Response:
    case Core::AttemptEnd::NetworkError:
        break;
    }
    if (record.cause == QLatin1String("broken-stream")) {
        return tr("HTTP %1, but the body broke off after %2 of %3 bytes")
            .arg(record.httpStatus.value_or(0))
            .arg(record.bytesReceived)
            .arg(record.expectedBytes);
    }
    if (record.httpStatus) {
        const QString phrase = QString::fromUtf8(record.reasonPhrase).trimmed();
        return phrase.isEmpty() ? tr("HTTP %1").arg(*record.httpStatus)
                                : tr("HTTP %1 %2").arg(*record.httpStatus).arg(phrase);
    }
    const char *key = QMetaEnum::fromType<QNetworkReply::NetworkError>().valueToKey(record.networkError);
    const QString name = key ? QString::fromLatin1(key) : QString::number(int(record.networkError));
    return record.errorString.isEmpty() ? name : tr("%1 (%2)").arg(record.errorString, name);
}

QString RunPrinter::stamp(qint64 ns) const
{
    const double seconds = double(ns - m_runner->record().epochNs) / 1e9;
    return tr("[%1 s]").arg(seconds, 7, 'f', 3);
}

void RunPrinter::handleAttemptFinished(const Core::AttemptRecord &record)
{
    m_lastAttempt.insert(record.requestId, record);
}

void RunPrinter::handleRetryScheduled(
    quint64 requestId, int /*nextAttemptIndex*/, double delayMs, const QString &reason, int attemptsLeft)
{
    const Core::AttemptRecord record = m_lastAttempt.value(requestId);
    QString attempt = tr("attempt %1").arg(record.attemptIndex + 1);
    if (!record.step.isEmpty())
        attempt += tr(" (%1)").arg(record.step);
    if (record.nextDelayMs < 0.0) {
        // Not a retry: the policy gave up, and the request moves on to a fallback endpoint at once.
        m_console->print(tr("%1 %2, %3 failed: %4 [%5] - %6")
                             .arg(stamp(record.endNs), Core::TerminalText::escaped(m_runner->requestLabel(requestId)),
                                 attempt, describeFailure(record), record.cause, reason));
        return;
    }
    const QString left = attemptsLeft >= 0 ? tr("%n attempt(s) left", nullptr, attemptsLeft)
                                           : tr("no attempt limit (the deadline ends it)");
    m_console->print(
        tr("%1 %2, %3 failed: %4 [%5] - %6; retrying in %7 ms, %8")
            .arg(stamp(record.endNs), Core::TerminalText::escaped(m_runner->requestLabel(requestId)), attempt,
                describeFailure(record), record.cause, reason, QString::number(std::round(delayMs)), left));
}

void RunPrinter::handleRequestFinished(const Core::RequestResult &result)
{
    // The auth steps of its last attempt (a token fetched, a challenge answered) are said with it.
    const Core::AttemptRecord last = m_lastAttempt.take(result.requestId);
    QString authSteps;
    for (const Core::RedirectHop &hop : last.redirects) {
        const QString took = Core::DurationText::format(double(hop.finishedNs - hop.startNs) / 1e6);
        if (hop.kind == Core::RedirectHop::Kind::Token && hop.followed)
            authSteps += tr("; an access token from %1 first (%2)").arg(Core::Redactor().urlString(hop.from), took);
        else if (hop.kind == Core::RedirectHop::Kind::Challenge && hop.followed)
            authSteps += tr("; the server's Digest challenge answered (%1)").arg(took);
    }
    const Core::RequestSpec spec = m_runner->record().requests.value(result.requestId);
    const QString target = tr("%1 %2").arg(
        spec.kind == Core::RequestSpec::Kind::ReadModifyWrite ? tr("GET+PUT") : QString::fromLatin1(spec.method),
        spec.url.toString(QUrl::FullyEncoded));
    const QString label = Core::TerminalText::escaped(m_runner->requestLabel(result.requestId));
    const QString took = Core::DurationText::format(result.totalMs());
    if (result.outcome == Core::RequestOutcome::Succeeded && result.fallback > 0) {
        m_console->print(
            tr("%1 %2 (%3) succeeded after %n attempt(s) in %4, HTTP %5 from %6", nullptr, result.attempts)
                .arg(stamp(result.endNs), label, target, took, QString::number(result.finalStatus.value_or(0)),
                    Core::RetryPlanner::fallbackName(spec, result.fallback)));
    } else if (result.outcome == Core::RequestOutcome::Succeeded) {
        m_console->print(
            tr("%1 %2 (%3) succeeded after %n attempt(s) in %4, HTTP %5", nullptr, result.attempts)
                .arg(stamp(result.endNs), label, target, took, QString::number(result.finalStatus.value_or(0)))
            + authSteps);
    } else {
        m_console->print(tr("%1 %2 (%3) %4 after %n attempt(s) in %5: %6", nullptr, result.attempts)
                             .arg(stamp(result.endNs), label, target, Core::requestOutcomeName(result.outcome), took,
                                 result.reason));
    }
}

void RunPrinter::printSummary()
{
    const Core::Scenario &scenario = m_runner->scenario();
    const Core::RunRecord &run = m_runner->record();
    const QHash<quint64, QString> &names = m_runner->requestNames();

    TextTable table({tr("request"), tr("requests"), tr("succeeded"), tr("outcomes"), tr("attempts"),
        tr("amplification"), tr("p50"), tr("p90"), tr("p99")});
    for (int column : {1, 2, 4, 5, 6, 7, 8})
        table.setRightAligned(column);

    const auto addRow = [&](const QString &name, const Core::RunStatistics &stats, int planned) {
        QStringList outcomes;
        for (int i = 0; i <= int(Core::RequestOutcome::InvalidRequest); ++i) {
            const auto outcome = Core::RequestOutcome(i);
            if (const qint64 n = stats.requestCount(outcome))
                outcomes.append(tr("%1 %2").arg(Core::requestOutcomeName(outcome)).arg(n));
        }
        const QMap<int, qint64> &histogram = stats.attemptsHistogram();
        QString attempts = QStringLiteral("-");
        if (!histogram.isEmpty()) {
            const int low = histogram.firstKey();
            const int high = histogram.lastKey();
            attempts = low == high ? QString::number(low) : tr("%1-%2").arg(low).arg(high);
        }
        const auto amplification = stats.retryAmplification();
        const Core::RunStatistics::Percentiles p = stats.requestLatency();
        const QString finished = stats.requestCount() == planned
            ? QString::number(planned)
            : tr("%1 of %2").arg(stats.requestCount()).arg(planned);
        table.addRow({name, finished, QString::number(stats.requestCount(Core::RequestOutcome::Succeeded)),
            outcomes.isEmpty() ? QStringLiteral("-") : outcomes.join(QStringLiteral(", ")), attempts,
            amplification ? QString::number(*amplification, 'f', 2) : QStringLiteral("-"), latency(p.p50),
            latency(p.p90), latency(p.p99)});
    };

    for (const Core::ScenarioRequest &entry : scenario.requests) {
        Core::RunStatistics stats;
        stats.setOriginNs(run.epochNs);
        for (const Core::AttemptRecord &a : run.attempts) {
            if (names.value(a.requestId) == entry.name)
                stats.addAttempt(a);
        }
        for (const Core::RequestResult &r : run.results) {
            if (names.value(r.requestId) == entry.name)
                stats.addResult(r);
        }
        addRow(Core::TerminalText::escaped(entry.name), stats, entry.count);
    }
    const Core::RunStatistics all = Core::RunStatistics::fromRecord(run);
    if (scenario.requests.size() > 1)
        addRow(tr("all"), all, scenario.totalRequests());

    m_console->print();
    m_console->print(tr("Summary (latency of whole requests, first attempt to end)"));
    m_console->print(table.lines(QStringLiteral("  ")));
    // The rate is over every planned request: cancelled and never-sent ones did not succeed.
    const qint64 planned = std::max<qint64>(scenario.totalRequests(), all.requestCount());
    const qint64 unsent = planned - all.requestCount();
    const std::optional<double> rate = planned > 0
        ? std::optional<double>(double(all.requestCount(Core::RequestOutcome::Succeeded)) / double(planned))
        : std::nullopt;
    const auto amplification = all.retryAmplification();
    QString line = tr("Success rate %1, retry amplification %2: ")
                       .arg(rate ? tr("%1 %").arg(*rate * 100.0, 0, 'f', 1) : QStringLiteral("-"),
                           amplification ? QString::number(*amplification, 'f', 2) : QStringLiteral("-"));
    line += tr("%n attempt(s)", nullptr, int(all.attemptCount()));
    line += tr(" for %n request(s)", nullptr, int(all.requestCount()));
    line += tr(" (%1 retried, %2 failed for good")
                .arg(all.attemptCount(Core::AttemptOutcome::Retried))
                .arg(all.attemptCount(Core::AttemptOutcome::Failed));
    if (const qint64 cancelled = all.requestCount(Core::RequestOutcome::Cancelled))
        line += tr(", %n request(s) cancelled", nullptr, int(cancelled));
    if (unsent > 0)
        line += tr(", %n never sent", nullptr, int(unsent));
    line += QLatin1Char(')');
    m_console->print(line);
    if (m_runner->timedOut()) {
        m_console->print(tr("The scenario's time limit of %1 ran out; requests still running were cancelled.")
                             .arg(Core::DurationText::format(scenario.timeoutMs)));
    }
}

void RunPrinter::printExpectations()
{
    const QList<Core::ExpectationResult> &verdicts = m_runner->expectationResults();
    m_console->print();
    if (verdicts.isEmpty()) {
        m_console->print(tr("The scenario states no expectations."));
        return;
    }
    m_console->print(tr("Expectations"));
    int held = 0;
    for (const Core::ExpectationResult &verdict : verdicts) {
        if (verdict.passed) {
            ++held;
            m_console->print(tr("  PASS  %1").arg(Core::TerminalText::escaped(verdict.name)));
        } else {
            m_console->print(tr("  FAIL  %1").arg(Core::TerminalText::escaped(verdict.name)));
            m_console->print(tr("        %1").arg(verdict.message));
        }
    }
    // The verb agrees with the number that holds: "1 of 1 expectation holds", "2 of 3 expectations hold".
    m_console->print((held == 1 ? tr("%1 of %n expectation(s) holds", nullptr, static_cast<int>(verdicts.size()))
                                : tr("%1 of %n expectation(s) hold", nullptr, static_cast<int>(verdicts.size())))
                         .arg(held));
}

} // namespace RetryLab::Cli
