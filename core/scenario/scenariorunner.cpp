#include "core/scenario/scenariorunner.h"

#include "core/collections/requesttemplate.h"
#include "core/executor/retryexecutor.h"
#include "core/faultserver/faultserver.h"
#include "core/http/retryheaders.h"
#include "core/util/durationtext.h"
#include "core/util/randomsource.h"

#include <QCoreApplication>
#include <QLoggingCategory>

#include <algorithm>
#include <cmath>
#include <utility>

namespace {
Q_LOGGING_CATEGORY(lcScenarioRunner, "retrylab.core.scenariorunner")
} // namespace

namespace RetryLab::Core {

namespace {

// A body or a header value may be any bytes (retrylab request --data-binary @file): the
// placeholders go in as bytes, and the rest is never decoded as UTF-8.
QByteArray expandedBytes(const QByteArray &bytes, const QUrl &server, const QString &key)
{
    const QByteArray serverToken = RequestTemplate::serverPlaceholder().toUtf8();
    const QByteArray idToken = RequestTemplate::idPlaceholder().toUtf8();
    if (!bytes.contains(serverToken) && !bytes.contains(idToken))
        return bytes;
    QByteArray out = bytes;
    out.replace(serverToken, Scenario::expand(RequestTemplate::serverPlaceholder(), server, key).toUtf8());
    out.replace(idToken, key.toUtf8());
    return out;
}

std::chrono::milliseconds timerMs(double ms)
{
    return std::chrono::milliseconds(static_cast<qint64>(std::ceil(std::min(ms, 2'000'000'000.0))));
}

} // namespace

ScenarioRunner::ScenarioRunner(QObject *parent) : QObject(parent)
{
    m_timeout.setSingleShot(true);
    connect(&m_timeout, &QTimer::timeout, this, &ScenarioRunner::handleTimeout);
}

ScenarioRunner::~ScenarioRunner()
{
    // The recorder listens to the executor; it goes first.
    m_recorder.reset();
    m_executor.reset();
}

void ScenarioRunner::setScenario(const Scenario &scenario)
{
    m_scenario = scenario;
}

void ScenarioRunner::setFaultServer(FaultServer *server)
{
    m_externalServer = server;
}

QString ScenarioRunner::requestLabel(quint64 requestId) const
{
    const QString name = m_names.value(requestId);
    const int group = m_groupOf.value(requestId, -1);
    if (group < 0 || m_scenario.requests.value(m_groups.value(group).entry).count <= 1)
        return name;
    return tr("%1 #%2").arg(name, QString::number(m_indexInGroup.value(requestId) + 1));
}

const RunRecord &ScenarioRunner::record() const
{
    return m_running && m_recorder ? m_recorder->record() : m_record;
}

bool ScenarioRunner::allExpectationsHold() const
{
    return std::all_of(m_verdicts.cbegin(), m_verdicts.cend(), [](const ExpectationResult &r) { return r.passed; });
}

void ScenarioRunner::start()
{
    if (m_running)
        return;
    teardown();
    m_groups.clear();
    m_groupOf.clear();
    m_names.clear();
    m_indexInGroup.clear();
    m_verdicts.clear();
    m_record = RunRecord{};
    m_seed = m_scenario.seed.value_or(RandomSource::freshSeed());
    m_keyPrefix = QString::number(RandomSource::derive(m_seed, 0x1D) % (36 * 36 * 36 * 36), 36)
                      .rightJustified(4, QLatin1Char('0'));
    m_keysMade = 0;
    m_total = m_scenario.totalRequests();
    m_finished = 0;
    m_timedOut = false;
    m_stopping = false;

    Result<void> prepared = prepareServer();
    if (prepared)
        prepared = prepareScripts();
    if (!prepared) {
        const QString error = prepared.error();
        teardown();
        qCWarning(lcScenarioRunner).noquote() << "cannot run" << m_scenario.name << ":" << error;
        // Asynchronous like every other outcome, so that start() never calls back into its caller.
        QMetaObject::invokeMethod(
            this, [this, error] { Q_EMIT failed(error); }, Qt::QueuedConnection);
        return;
    }

    m_executor = std::make_unique<RetryExecutor>();
    m_executor->setPolicy(m_scenario.policy);
    m_executor->setConcurrencyLimit(m_scenario.concurrency);
    m_executor->setSeed(m_seed);
    if (m_responseBodyLimit)
        m_executor->setResponseBodyLimit(*m_responseBodyLimit);
    if (m_transferLimit)
        m_executor->setTransferLimit(*m_transferLimit);
    // The recorder connects first, so the record holds each result before it is announced.
    m_recorder = std::make_unique<RunRecorder>(m_executor.get());
    m_recorder->setRunSeed(m_seed);
    connect(m_executor.get(), &RetryExecutor::attemptStarted, this, [this](quint64 requestId, int attemptIndex) {
        // A first attempt starts inside submit(), before the request's name is known: hold it back till then.
        if (m_submitting)
            m_heldStarts.append({requestId, attemptIndex});
        else
            Q_EMIT attemptStarted(requestId, attemptIndex);
    });
    connect(m_executor.get(), &RetryExecutor::attemptFinished, this, &ScenarioRunner::attemptFinished);
    connect(m_executor.get(), &RetryExecutor::retryScheduled, this, &ScenarioRunner::retryScheduled);
    connect(m_executor.get(), &RetryExecutor::requestFinished, this, &ScenarioRunner::handleRequestFinished);

    m_running = true;
    if (m_scenario.timeoutMs > 0.0)
        m_timeout.start(timerMs(m_scenario.timeoutMs));
    qCDebug(lcScenarioRunner).noquote() << "running" << m_scenario.name << "with" << m_total << "requests";
    Q_EMIT started(m_serverUrl);
    for (Group &group : m_groups)
        submitMore(group);
    if (m_total == 0)
        QMetaObject::invokeMethod(this, &ScenarioRunner::conclude, Qt::QueuedConnection);
}

Result<void> ScenarioRunner::prepareServer()
{
    m_serverUrl.clear();
    m_server = nullptr;
    if (!m_scenario.needsServer())
        return {};
    if (m_externalServer) {
        m_server = m_externalServer;
    } else {
        FaultServerOptions options;
        options.seed = m_seed;
        m_ownServer = std::make_unique<FaultServer>(options);
        if (!m_ownServer->listen())
            return Result<void>::failure(
                tr("the embedded fault server cannot listen: %1").arg(m_ownServer->errorString()));
        m_server = m_ownServer.get();
    }
    if (!m_server->isListening())
        return Result<void>::failure(tr("the fault server is not listening"));
    m_serverUrl = m_server->baseUrl();
    return {};
}

Result<void> ScenarioRunner::prepareScripts()
{
    // Every script is stored before the first request goes out, so that a
    // refused one stops the run before anything happened.
    for (int i = 0; i < m_scenario.requests.size(); ++i) {
        const ScenarioRequest &entry = m_scenario.requests[i];
        Group group;
        group.entry = i;
        if (entry.script && entry.script->shared) {
            const Result<QString> created = m_server->createTest(entry.script->steps);
            if (!created) {
                return Result<void>::failure(
                    QStringLiteral("requests[%1].script").arg(i), tr("the server refused it: %1").arg(created.error()));
            }
            group.sharedTestId = *created;
        }
        m_groups.append(group);
    }
    return {};
}

void ScenarioRunner::submitMore(Group &group)
{
    const ScenarioRequest &entry = m_scenario.requests[group.entry];
    const int groupIndex = static_cast<int>(&group - m_groups.data());
    while (!m_stopping && group.outstanding < entry.concurrency && group.submitted < entry.count) {
        RequestSpec spec = entry.spec;
        // {id}: a key of its own for every logical request, the same for all its
        // attempts, made from the run's seed so that a replay sends the same keys.
        const QString key = QStringLiteral("%1-%2").arg(m_keyPrefix).arg(++m_keysMade);
        spec.url = Scenario::resolveUrl(entry.urlTemplate, m_serverUrl, key);
        // Like the URL, the fallbacks come from their templates.
        spec.fallbackUrls.clear();
        for (const QString &fallback : entry.fallbackTemplates)
            spec.fallbackUrls.append(Scenario::resolveUrl(fallback, m_serverUrl, key));
        if (!entry.writeUrlTemplate.isEmpty())
            spec.readModifyWrite.writeUrl = Scenario::resolveUrl(entry.writeUrlTemplate, m_serverUrl, key);
        for (auto &[name, value] : spec.headers)
            value = expandedBytes(value, m_serverUrl, key);
        spec.body = expandedBytes(spec.body, m_serverUrl, key);
        if (entry.count > 1)
            spec.label = tr("%1 #%2").arg(entry.spec.label).arg(group.submitted + 1);
        if (entry.script) {
            QString testId = group.sharedTestId;
            if (testId.isEmpty()) {
                const Result<QString> created = m_server->createTest(entry.script->steps);
                if (created) {
                    testId = *created;
                } else {
                    // The server bounds its state; the request still runs, by its path alone.
                    qCWarning(lcScenarioRunner).noquote() << "script for" << entry.name << "refused:" << created.error()
                                                          << "- the request runs unscripted";
                }
            }
            spec.headers.removeIf(
                [](const auto &h) { return h.first.compare(RetryHeaders::testId, Qt::CaseInsensitive) == 0; });
            if (!testId.isEmpty())
                spec.headers.append({QByteArray(RetryHeaders::testId), testId.toLatin1()});
        }
        const int index = group.submitted++;
        ++group.outstanding;
        m_submitting = true;
        // Only an endpoint policy is handed over: the scenario's own is the executor's already.
        const EndpointPolicy *endpoint = matchingEndpointPolicy(m_scenario.endpointPolicies, spec.url);
        const quint64 id = endpoint ? m_recorder->submit(spec, endpoint->policy) : m_recorder->submit(spec);
        m_submitting = false;
        m_groupOf.insert(id, groupIndex);
        m_names.insert(id, entry.name);
        m_indexInGroup.insert(id, index);
        const QList<QPair<quint64, int>> held = std::exchange(m_heldStarts, {});
        for (const auto &[requestId, attemptIndex] : held)
            Q_EMIT attemptStarted(requestId, attemptIndex);
    }
}

void ScenarioRunner::handleRequestFinished(const RequestResult &result)
{
    const int groupIndex = m_groupOf.value(result.requestId, -1);
    if (!m_running || groupIndex < 0)
        return;
    ++m_finished;
    --m_groups[groupIndex].outstanding;
    Q_EMIT requestFinished(result);
    Q_EMIT progress(m_finished, m_total);
    submitMore(m_groups[groupIndex]);

    const bool done = std::all_of(m_groups.cbegin(), m_groups.cend(), [this](const Group &g) {
        return g.outstanding == 0 && (m_stopping || g.submitted == m_scenario.requests[g.entry].count);
    });
    if (done)
        conclude();
}

void ScenarioRunner::handleTimeout()
{
    if (!m_running)
        return;
    qCInfo(lcScenarioRunner).noquote() << "time limit of" << m_scenario.timeoutMs << "ms reached; cancelling";
    m_timedOut = true;
    cancel();
}

void ScenarioRunner::cancel()
{
    if (!m_running || m_stopping)
        return;
    m_stopping = true;
    // Requests never submitted stay out of the record; those in progress end
    // as cancelled, each through handleRequestFinished(), which concludes
    // after the last. Whatever the counts say, a run with nothing left in the
    // executor is over: conclude it here, or nothing ever would.
    if (m_executor)
        m_executor->cancelAll();
    if (m_running && (!m_executor || m_executor->activeCount() == 0))
        conclude();
}

void ScenarioRunner::conclude()
{
    if (!m_running)
        return;
    m_timeout.stop();
    m_running = false;
    m_record = m_recorder->takeRecord();
    m_verdicts = evaluateExpectations(m_scenario, m_record, m_names);
    if (m_timedOut) {
        for (ExpectationResult &verdict : m_verdicts) {
            if (!verdict.passed) {
                verdict.message
                    += tr(" (the scenario's time limit of %1 ran out)")
                           .arg(DurationText::format(double(m_scenario.timeoutMs), DurationText::Style::Exact));
            }
        }
        // A run cut short proves nothing about what it did not get to: it
        // fails, even when every expectation it has held (or it has none).
        ExpectationResult limit;
        limit.name = tr("time limit");
        limit.passed = false;
        limit.message = tr("the run did not finish within the scenario's time limit of %1; %2 of %n request(s) "
                           "finished, the rest were cancelled or never sent",
            nullptr, m_total)
                            .arg(DurationText::format(double(m_scenario.timeoutMs), DurationText::Style::Exact))
                            .arg(m_finished);
        limit.durationMs = m_scenario.timeoutMs;
        limit.requestIds = m_names.keys();
        std::sort(limit.requestIds.begin(), limit.requestIds.end());
        m_verdicts.append(limit);
    }
    qCDebug(lcScenarioRunner).noquote() << m_scenario.name << "finished:" << m_finished << "of" << m_total
                                        << "requests," << m_verdicts.size() << "expectations";
    if (m_ownServer) {
        // Free the port now; the server object goes once its event handlers are done.
        m_ownServer->close();
        m_ownServer.release()->deleteLater();
        m_server = nullptr;
    }
    Q_EMIT finished();
}

void ScenarioRunner::teardown()
{
    // Called between runs, possibly from a handler of the previous run's
    // signals: the old objects are deleted once control is back in the loop.
    if (m_recorder)
        m_recorder.release()->deleteLater();
    if (m_executor) {
        m_executor->disconnect(this);
        m_executor.release()->deleteLater();
    }
    if (m_ownServer) {
        m_ownServer->close();
        m_ownServer.release()->deleteLater();
    }
    m_server = nullptr;
}

} // namespace RetryLab::Core
