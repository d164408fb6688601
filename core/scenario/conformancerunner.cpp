#include "core/scenario/conformancerunner.h"

#include "core/executor/retryexecutor.h"
#include "core/executor/runrecorder.h"
#include "core/faultserver/faultserver.h"
#include "core/util/durationtext.h"

#include <QCoreApplication>
#include <QHostAddress>
#include <QLoggingCategory>
#include <QTcpServer>

#include <algorithm>

namespace {
Q_LOGGING_CATEGORY(lcConformance, "retrylab.core.conformance")
} // namespace

namespace RetryLab::Core {

namespace {

void shift(qint64 &ns, qint64 offset)
{
    if (ns >= 0)
        ns += offset;
}

// A loopback port where nothing listens: one the system just handed out and
// took back. Connecting to it is refused before any byte is sent.
QUrl closedPortUrl()
{
    QTcpServer probe;
    if (!probe.listen(QHostAddress::LocalHost, 0))
        return {};
    const quint16 port = probe.serverPort();
    probe.close();
    return QUrl(QStringLiteral("http://127.0.0.1:%1").arg(port));
}

} // namespace

struct ConformanceRunner::Client
{
    std::unique_ptr<RetryExecutor> executor;
    std::unique_ptr<RunRecorder> recorder;
};

ConformanceRunner::ConformanceRunner(QObject *parent) : QObject(parent)
{
    m_timeLimit.setSingleShot(true);
    connect(&m_timeLimit, &QTimer::timeout, this, [this] {
        qCWarning(lcConformance) << "time limit of" << timeLimitMs() << "ms reached; cancelling the remaining cells";
        m_timedOut = true;
        cancel();
    });
    planCells();
}

ConformanceRunner::~ConformanceRunner()
{
    for (auto &client : m_clients) {
        if (!client)
            continue; // a cell that does not apply has none
        client->recorder.reset();
        client->executor.reset();
    }
}

void ConformanceRunner::setPolicy(const BackoffPolicy &policy)
{
    m_policy = policy;
    if (!m_running)
        planCells();
}

void ConformanceRunner::setExpectationPolicy(const std::optional<BackoffPolicy> &policy)
{
    m_expectationPolicy = policy;
    if (!m_running)
        planCells();
}

void ConformanceRunner::setFaultServer(FaultServer *server)
{
    m_externalServer = server;
}

void ConformanceRunner::planCells()
{
    m_cells.clear();
    m_records.clear();
    // Expectations come from the timing that runs, so that deadlines are judged as they will happen.
    BackoffPolicy expectations = Conformance::compressed(m_expectationPolicy.value_or(m_policy));
    if (m_expectationPolicy) {
        // Only the rules differ; the waits are those of the policy that runs.
        const BackoffPolicy run = runPolicy();
        expectations.deadlineMs = run.deadlineMs;
    }
    for (const ConformanceCase &cell : Conformance::cases(expectations)) {
        ConformanceCellResult planned;
        planned.cell = cell;
        if (!cell.applies()) {
            planned.done = true;
            planned.verdict = {true, ConformanceCase::notApplicableReason()};
        }
        m_cells.append(planned);
    }
}

int ConformanceRunner::timeLimitMs() const
{
    if (m_timeLimitMs > 0)
        return m_timeLimitMs;
    double longest = 0.0;
    for (const ConformanceCellResult &cell : m_cells)
        longest = std::max(longest, cell.cell.expected.longestMs);
    // A day at most: beyond that a QTimer's int of milliseconds is near.
    return int(std::clamp(30'000.0 + 2.0 * longest, 60'000.0, 86'400'000.0));
}

int ConformanceRunner::playedCount() const
{
    return static_cast<int>(std::count_if(
        m_cells.cbegin(), m_cells.cend(), [](const ConformanceCellResult &c) { return c.cell.applies(); }));
}

int ConformanceRunner::finishedCount() const
{
    return static_cast<int>(std::count_if(
        m_cells.cbegin(), m_cells.cend(), [](const ConformanceCellResult &c) { return c.cell.applies() && c.done; }));
}

int ConformanceRunner::passedCount() const
{
    return static_cast<int>(std::count_if(m_cells.cbegin(), m_cells.cend(),
        [](const ConformanceCellResult &c) { return c.cell.applies() && c.done && c.verdict.passed; }));
}

bool ConformanceRunner::allPassed() const
{
    return playedCount() > 0 && passedCount() == playedCount();
}

void ConformanceRunner::start()
{
    if (m_running)
        return;
    releaseClients();
    planCells();

    QString error;
    const BackoffPolicy policy = runPolicy();
    for (const PolicyIssue &issue : validatePolicy(policy)) {
        if (issue.isError()) {
            error = tr("the policy is not usable: %1: %2").arg(issue.field, issue.message);
            break;
        }
    }
    m_server = m_externalServer;
    if (error.isEmpty() && !m_server) {
        FaultServerOptions options;
        options.seed = m_seed;
        m_ownServer = std::make_unique<FaultServer>(options);
        if (m_ownServer->listen())
            m_server = m_ownServer.get();
        else
            error = tr("the embedded fault server cannot listen: %1").arg(m_ownServer->errorString());
    }
    if (error.isEmpty() && !m_server->isListening())
        error = tr("the fault server is not listening");

    // Store every script first: a refused one stops the run before anything is sent.
    m_testIds.clear();
    for (qsizetype i = 0; i < m_cells.size() && error.isEmpty(); ++i) {
        const FaultSequence &sequence = m_cells[i].cell.sequence;
        QString id;
        if (!sequence.steps.isEmpty() && m_cells[i].cell.applies()) {
            const Result<QString> created = m_server->createTest(sequence.steps);
            if (created)
                id = *created;
            else
                error = tr("the server refused the script of \"%1\": %2").arg(sequence.title, created.error());
        }
        m_testIds.append(id);
    }
    if (!error.isEmpty()) {
        m_server = nullptr;
        m_ownServer.reset();
        QMetaObject::invokeMethod(
            this, [this, error] { Q_EMIT failed(error); }, Qt::QueuedConnection);
        return;
    }

    m_running = true;
    m_records = QList<RunRecord>(m_cells.size());
    const QUrl base = m_server->baseUrl();
    const QUrl unreachable = closedPortUrl();
    qCDebug(lcConformance).noquote() << "running" << m_cells.size() << "cells for" << m_policy.name << "on"
                                     << base.toString();
    m_timedOut = false;
    m_timeLimit.start(timeLimitMs());
    Q_EMIT started();
    for (int i = 0; i < m_cells.size(); ++i) {
        if (!m_cells[i].cell.applies()) {
            m_clients.push_back(nullptr); // one per cell, by index
            continue;
        }
        auto client = std::make_unique<Client>();
        client->executor = std::make_unique<RetryExecutor>();
        client->executor->setPolicy(policy);
        client->executor->setConcurrencyLimit(1);
        client->executor->setSeed(m_seed + quint64(i));
        client->recorder = std::make_unique<RunRecorder>(client->executor.get());
        connect(client->executor.get(), &RetryExecutor::requestFinished, this,
            [this, i](const RequestResult &result) { handleCellFinished(i, result); });
        RunRecorder *recorder = client->recorder.get();
        m_clients.push_back(std::move(client));
        recorder->submit(m_cells[i].cell.request(base, m_testIds[i], unreachable));
    }
}

void ConformanceRunner::handleCellFinished(int index, const RequestResult &result)
{
    if (!m_running || index < 0 || index >= m_cells.size() || m_cells[index].done || !m_clients[index])
        return;
    ConformanceCellResult &cell = m_cells[index];
    m_records[index] = m_clients[index]->recorder->record();
    cell.done = true;
    cell.result = result;
    cell.attempts = m_records[index].attempts;
    std::sort(cell.attempts.begin(), cell.attempts.end(),
        [](const AttemptRecord &a, const AttemptRecord &b) { return a.attemptIndex < b.attemptIndex; });
    const QString testId = m_testIds.value(index);
    if (!testId.isEmpty() && m_server) {
        if (const auto status = m_server->testStatus(testId))
            cell.stepsUsed = status->consumed;
    }
    cell.verdict = Conformance::judge(cell.cell, result, cell.attempts, cell.stepsUsed);
    if (m_timedOut && result.outcome == RequestOutcome::Cancelled) {
        // Why it could not finish comes before what it did not do.
        cell.verdict.passed = false;
        cell.verdict.message
            = tr("the matrix's time limit of %1 ran out before this cell finished (the model allows it up to "
                 "%2)")
                  .arg(DurationText::format(double(timeLimitMs())), DurationText::format(cell.cell.expected.longestMs))
            + QLatin1Char('\n') + cell.verdict.message;
    }
    Q_EMIT cellFinished(index);
    if (finishedCount() == playedCount())
        conclude();
}

void ConformanceRunner::cancel()
{
    if (!m_running)
        return;
    for (auto &client : m_clients) {
        if (client)
            client->executor->cancelAll();
    }
}

void ConformanceRunner::conclude()
{
    m_timeLimit.stop();
    m_running = false;
    if (m_ownServer) {
        m_ownServer->close();
        m_ownServer.release()->deleteLater();
    }
    m_server = nullptr;
    qCDebug(lcConformance) << passedCount() << "of" << playedCount() << "cells passed";
    Q_EMIT finished();
}

void ConformanceRunner::releaseClients()
{
    // Possibly called from a handler of the last run's signals: delete later.
    for (auto &client : m_clients) {
        if (!client)
            continue;
        client->recorder.release()->deleteLater();
        client->executor->disconnect(this);
        client->executor.release()->deleteLater();
    }
    m_clients.clear();
}

RunRecord ConformanceRunner::record() const
{
    RunRecord merged;
    merged.policy = runPolicy();
    for (const RunRecord &r : m_records) {
        if (r.startedAt.isValid() && (!merged.startedAt.isValid() || r.startedAt < merged.startedAt))
            merged.startedAt = r.startedAt;
    }
    // Each cell's executor has a clock of its own; line them up on wall time.
    for (qsizetype i = 0; i < m_records.size(); ++i) {
        const RunRecord &r = m_records[i];
        if (!r.startedAt.isValid())
            continue;
        const quint64 id = quint64(i) + 1;
        const qint64 offset = merged.startedAt.msecsTo(r.startedAt) * 1'000'000 - r.epochNs;
        for (auto it = r.requests.cbegin(); it != r.requests.cend(); ++it)
            merged.requests.insert(id, it.value());
        for (AttemptRecord a : r.attempts) {
            a.requestId = id;
            shift(a.startNs, offset);
            shift(a.endNs, offset);
            shift(a.connectionStartedNs, offset);
            shift(a.requestSentNs, offset);
            shift(a.firstByteNs, offset);
            shift(a.finishedNs, offset);
            merged.attempts.append(a);
        }
        for (RequestResult result : r.results) {
            result.requestId = id;
            shift(result.startNs, offset);
            shift(result.endNs, offset);
            merged.results.append(result);
        }
    }
    return merged;
}

QList<ExpectationResult> ConformanceRunner::expectationResults() const
{
    QList<ExpectationResult> list;
    for (qsizetype i = 0; i < m_cells.size(); ++i) {
        const ConformanceCellResult &c = m_cells[i];
        if (!c.cell.applies())
            continue;
        ExpectationResult r;
        r.name = c.cell.name();
        r.passed = c.done && c.verdict.passed;
        r.message = c.done ? c.verdict.message : tr("did not run");
        r.durationMs = c.result.totalMs();
        r.requestIds = {quint64(i) + 1};
        list.append(r);
    }
    return list;
}

} // namespace RetryLab::Core
