#include "core/scenario/policycomparison.h"

#include "core/faultserver/faultserver.h"
#include "core/scenario/scenariorunner.h"
#include "core/util/coretr.h"

#include <QCoreApplication>
#include <QSet>

#include <algorithm>

namespace RetryLab::Core {

void ComparisonRow::summarise()
{
    requests = int(record.results.size());
    succeeded = 0;
    cancelled = 0;
    QList<double> successes;
    qint64 first = -1;
    qint64 last = -1;
    for (const RequestResult &r : std::as_const(record.results)) {
        if (r.outcome == RequestOutcome::Succeeded) {
            ++succeeded;
            successes.append(double(r.endNs - r.startNs) / 1e6);
        } else if (r.outcome == RequestOutcome::Cancelled) {
            ++cancelled;
        }
        if (r.startNs >= 0 && (first < 0 || r.startNs < first))
            first = r.startNs;
        last = std::max(last, r.endNs);
    }
    failed = requests - succeeded - cancelled;
    std::sort(successes.begin(), successes.end());
    medianSuccessMs = successes.isEmpty() ? std::nullopt : std::optional<double>(successes.at(successes.size() / 2));
    maxSuccessMs = successes.isEmpty() ? std::nullopt : std::optional<double>(successes.constLast());
    runMs = first >= 0 && last >= first ? double(last - first) / 1e6 : 0.0;

    // Attempts that went out (a refused or invalid request sends none), and the busiest second.
    // A hedged request's attempts all went out: the ones its winner cut were load too.
    QSet<quint64> hedgedRequests;
    for (const AttemptRecord &a : std::as_const(record.attempts)) {
        if (a.hedged)
            hedgedRequests.insert(a.requestId);
    }
    QList<qint64> starts;
    for (const AttemptRecord &a : std::as_const(record.attempts)) {
        if (a.startNs >= 0 && (a.end != AttemptEnd::Cancelled || hedgedRequests.contains(a.requestId)))
            starts.append(a.startNs);
    }
    std::sort(starts.begin(), starts.end());
    attempts = int(starts.size());
    peakAttemptsPerSecond = 0;
    qsizetype from = 0;
    for (qsizetype to = 0; to < starts.size(); ++to) {
        while (starts.at(to) - starts.at(from) >= 1'000'000'000LL)
            ++from;
        peakAttemptsPerSecond = std::max(peakAttemptsPerSecond, int(to - from + 1));
    }
}

PolicyComparison::PolicyComparison(QObject *parent) : QObject(parent)
{ }

PolicyComparison::~PolicyComparison() = default;

void PolicyComparison::setPolicies(const QList<BackoffPolicy> &policies, const QStringList &origins)
{
    m_rows.clear();
    for (qsizetype i = 0; i < policies.size(); ++i) {
        ComparisonRow row;
        row.policy = policies.at(i);
        row.origin = origins.value(i);
        m_rows.append(row);
    }
}

double PolicyComparison::spanMs() const
{
    double span = 0.0;
    for (const ComparisonRow &row : m_rows) {
        for (const RequestResult &r : row.record.results)
            span = std::max(span, double(r.endNs - row.record.epochNs) / 1e6);
    }
    return span;
}

void PolicyComparison::start()
{
    if (m_running)
        return;
    const auto fail = [this](const QString &message) {
        QMetaObject::invokeMethod(
            this, [this, message] { Q_EMIT failed(message); }, Qt::QueuedConnection);
    };
    if (m_rows.size() < minPolicies || m_rows.size() > maxPolicies) {
        fail(tr("compare two to four policies (got %1)").arg(m_rows.size()));
        return;
    }
    m_runners.clear();
    m_server.reset();
    if (m_scenario.needsServer()) {
        FaultServerOptions options;
        options.seed = m_seed;
        m_server = std::make_unique<FaultServer>(options);
        if (!m_server->listen()) {
            fail(tr("the embedded fault server cannot listen: %1").arg(m_server->errorString()));
            return;
        }
    }
    m_running = true;
    m_finished = 0;
    for (ComparisonRow &row : m_rows) {
        Scenario copy = m_scenario;
        copy.policy = row.policy;
        copy.policyOrigin = row.origin;
        copy.endpointPolicies.clear();
        copy.seed = m_seed;
        auto runner = std::make_unique<ScenarioRunner>();
        runner->setScenario(copy);
        if (m_server)
            runner->setFaultServer(m_server.get());
        ScenarioRunner *raw = runner.get();
        connect(raw, &ScenarioRunner::finished, this, &PolicyComparison::handleRunnerFinished);
        connect(raw, &ScenarioRunner::failed, this, [this](const QString &message) {
            if (!m_running)
                return;
            cancel();
            m_running = false;
            Q_EMIT failed(message);
        });
        m_runners.push_back(std::move(runner));
    }
    // Started together, so that the runs share one moment and one time axis.
    for (const auto &runner : m_runners)
        runner->start();
}

void PolicyComparison::cancel()
{
    if (!m_running)
        return;
    for (const auto &runner : m_runners)
        runner->cancel();
}

void PolicyComparison::handleRunnerFinished()
{
    if (!m_running || ++m_finished < int(m_runners.size()))
        return;
    m_running = false;
    for (qsizetype i = 0; i < m_rows.size(); ++i) {
        m_rows[i].record = m_runners.at(i)->record();
        m_rows[i].summarise();
    }
    Q_EMIT finished();
}

} // namespace RetryLab::Core
