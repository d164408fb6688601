#include "ui/session/request/requestrunner.h"

#include "core/executor/preparedtransport.h"
#include "core/executor/threadedexecutor.h"
#include "core/faultserver/faultserver.h"
#include "core/http/retryheaders.h"
#include "core/util/randomsource.h"
#include "ui/session/run/runsession.h"

#include <QHostAddress>
#include <QLoggingCategory>

#include <utility>

namespace {
Q_LOGGING_CATEGORY(lcRunner, "retrylab.ui.runner")
} // namespace

namespace RetryLab::Ui {

RequestRunner::RequestRunner(Core::ThreadedExecutor *executor, RunSession *session, QObject *parent)
    : QObject(parent), m_executor(executor), m_session(session), m_keyToken(Core::RequestTemplate::newKeyToken())
{
    connect(executor, &Core::ThreadedExecutor::requestFinished, this, &RequestRunner::handleRequestFinished);
    if (session)
        connect(session, &RunSession::checksEvaluated, this, &RequestRunner::handleChecksEvaluated);
    m_repeatTimer.setTimerType(Qt::PreciseTimer);
    connect(&m_repeatTimer, &QTimer::timeout, this, &RequestRunner::handleRepeatTick);
}

void RequestRunner::setServer(Core::FaultServer *server, const QString &problem)
{
    if (server != m_server)
        m_perRequestTests.clear(); // ids of another server
    m_server = server;
    m_serverProblem = server ? QString() : problem;
    m_sharedTestId.clear();
}

bool RequestRunner::setScenario(const ServerScenario &scenario)
{
    if (scenario.isActive() && !scenario.problem().isEmpty())
        return false;
    if (scenario.instructions != m_scenario.instructions || scenario.sharing != m_scenario.sharing)
        m_sharedTestId.clear();
    m_scenario = scenario;
    return true;
}

void RequestRunner::restartSharedScenario()
{
    m_sharedTestId.clear();
}

QString RequestRunner::nextKey() const
{
    return m_keyToken + QLatin1Char('-') + QString::number(m_keyCounter);
}

void RequestRunner::setEnvironment(const QString &name, const QHash<QString, QString> &variables)
{
    // Values taken from responses belong to the environment they were taken with.
    if (name != m_environmentName)
        clearTakenVariables();
    m_environmentName = name;
    m_variables = variables;
}

void RequestRunner::clearTakenVariables()
{
    if (m_taken.isEmpty())
        return;
    m_taken.clear();
    Q_EMIT takenVariablesChanged();
}

void RequestRunner::handleChecksEvaluated(quint64 requestId)
{
    const ChecksVerdict *verdict = m_session ? m_session->checkVerdict(requestId) : nullptr;
    if (!verdict || verdict->values.isEmpty())
        return;
    for (const auto &[name, value] : verdict->values)
        m_taken.insert(name, value);
    qCDebug(lcRunner) << "request" << requestId << "set" << verdict->values.size() << "variables";
    Q_EMIT takenVariablesChanged();
}

Core::ExpansionContext RequestRunner::nextContext() const
{
    Core::ExpansionContext context;
    if (m_server)
        context.serverUrl = m_server->baseUrl();
    context.serverProblem = m_serverProblem;
    context.requestKey = nextKey();
    context.variables = m_variables;
    for (auto it = m_taken.cbegin(); it != m_taken.cend(); ++it)
        context.variables.insert(it.key(), it.value());
    context.environmentName = m_environmentName;
    return context;
}

Core::Result<Core::RequestSpec> RequestRunner::prepare(Core::Result<Core::RequestSpec> built, const QString &label)
{
    using R = Core::Result<Core::RequestSpec>;
    if (!built)
        return built;
    Core::RequestSpec spec = std::move(built).value();

    // The script's id means nothing to another server, and would tell it about this one.
    if (m_scenario.isActive() && (!m_server || targetsServer(spec.url))) {
        if (!m_server) {
            return R::failure(m_serverProblem.isEmpty()
                    ? tr("The server scenario needs the embedded server, which is not running.")
                    : tr("The server scenario needs the embedded server, which is not running: %1")
                          .arg(m_serverProblem));
        }
        QString testId;
        QString error;
        if (m_scenario.sharing == ServerScenario::Sharing::Shared) {
            // A reset of the server forgets the copy; make a new one then.
            if (m_sharedTestId.isEmpty() || !m_server->testStatus(m_sharedTestId)) {
                const Core::Result<QString> created = m_server->createTest(m_scenario.instructions);
                m_sharedTestId = created ? *created : QString();
                error = created.error();
            }
            testId = m_sharedTestId;
        } else {
            const Core::Result<QString> created = m_server->createTest(m_scenario.instructions);
            testId = created ? *created : QString();
            error = created.error();
            m_unsentTestId = testId;
        }
        if (testId.isEmpty())
            return R::failure(tr("The server did not take the scenario: %1").arg(error));
        const QByteArray header(Core::RetryHeaders::testId);
        spec.headers.removeIf([&](const auto &pair) { return pair.first.compare(header, Qt::CaseInsensitive) == 0; });
        spec.headers.append({header, testId.toLatin1()});
    }
    spec.label = label;
    spec.seed = m_runSeed;
    spec.seedStream = m_runStream;
    ++m_keyCounter;
    return spec;
}

void RequestRunner::setPolicy(const Core::BackoffPolicy &policy)
{
    if (m_executor)
        m_executor->setPolicy(policy);
}

Core::Result<quint64> RequestRunner::submit(const Core::RequestDraft &draft, const QString &label)
{
    if (!m_executor || !m_session)
        return Core::Result<quint64>::failure(tr("Nothing to send with."));
    return submitBuilt(Core::RequestTemplate::build(draft, nextContext()), draft.concurrency, label);
}

Core::Result<quint64> RequestRunner::submitBuilt(
    Core::Result<Core::RequestSpec> built, int concurrency, const QString &label)
{
    using R = Core::Result<quint64>;
    const auto spec = prepare(std::move(built), label);
    if (!spec)
        return R::failure(spec.error());
    m_executor->setConcurrencyLimit(concurrency);
    ++m_runStream;
    // The executor reports every result after submit() has returned; should one
    // ever arrive inside it, handleRequestFinished() deletes m_unsentTestId instead.
    const Core::EndpointPolicy *endpoint = Core::matchingEndpointPolicy(m_endpointPolicies, spec->url);
    const quint64 id = endpoint ? m_session->submit(*spec, endpoint->policy) : m_session->submit(*spec);
    if (id != 0)
        m_session->setChecks(id, m_checks);
    if (!m_unsentTestId.isEmpty()) {
        if (id == 0)
            deleteTest(std::exchange(m_unsentTestId, QString()));
        else
            m_perRequestTests.insert(id, std::exchange(m_unsentTestId, QString()));
    }
    qCDebug(lcRunner) << "sent" << id << spec->method << spec->url.toString();
    Q_EMIT sent(id);
    return id;
}

Core::Result<void> RequestRunner::checkTransportFiles(const Core::RequestDraft &draft)
{
    // Once per action (the executor reads them again for every request): a
    // certificate that cannot be used stops the send here, before a batch of
    // requests that would all fail the same way.
    if (draft.transport.isDefault())
        return {};
    const auto prepared = Core::PreparedTransport::prepare(draft.transport);
    if (!prepared)
        return Core::Result<void>(prepared.errorDetail());
    return {};
}

void RequestRunner::beginRun(const Core::RequestDraft &draft)
{
    m_runSeed = draft.seed.value_or(Core::RandomSource::freshSeed());
    m_runStream = 0;
    // The same seed draws the embedded server's random answers too (/fail?p=, /delay?dist=),
    // so that a replay meets what the run met, as `retrylab run --seed` does with its own server.
    if (m_server)
        m_server->reseed(m_runSeed);
    Q_EMIT seedChosen(m_runSeed, !draft.seed.has_value());
}

Core::Result<quint64> RequestRunner::send(const Core::RequestDraft &draft)
{
    if (const auto files = checkTransportFiles(draft); !files)
        return Core::Result<quint64>(files.errorDetail());
    beginRun(draft);
    return submit(draft, {});
}

Core::Result<void> RequestRunner::startBatch(const Core::RequestDraft &draft)
{
    if (!m_executor || !m_session)
        return Core::Result<void>::failure(tr("Nothing to send with."));
    if (const auto files = checkTransportFiles(draft); !files)
        return files;
    if (!isBatchRunning())
        resetBatch();
    beginRun(draft);
    const int count = std::clamp(draft.batchCount, 1, Core::RequestDraft::maxBatchCount);
    int sentCount = 0;
    QString problem;
    {
        // The batch's calls reach the executor's thread together when this block ends.
        const Core::ThreadedExecutor::CallBatch together(m_executor);
        // The draft is expanded once; each request puts its key in (when that is all it changes).
        Core::RequestTemplate::BatchBuilder builder(draft, nextContext());
        const QString label = tr("batch %1/%2");
        const QString countText = QString::number(count);
        for (int i = 0; i < count; ++i) {
            // The executor reports every result after submit() has returned, even
            // a refusal by an open breaker, so the id is known before its result.
            const auto id = submitBuilt(
                builder.build(nextKey()), draft.concurrency, label.arg(QString::number(i + 1), countText));
            if (!id) {
                problem = id.error();
                break;
            }
            ++sentCount;
            ++m_batchTotal;
            m_batchIds.insert(*id);
        }
    }
    Q_EMIT batchProgress(m_batchFinished, m_batchTotal, m_batchSucceeded);
    if (problem.isEmpty())
        return {};
    return Core::Result<void>::failure(
        sentCount == 0 ? problem : tr("Sent %1 of %2 requests: %3").arg(sentCount).arg(count).arg(problem));
}

Core::Result<void> RequestRunner::startRepeat(const Core::RequestDraft &draft)
{
    if (const auto files = checkTransportFiles(draft); !files)
        return files;
    const bool was = isRepeating();
    m_repeatTimer.stop();
    m_repeatDraft = draft;
    m_repeatCount = 0;
    beginRun(draft);
    ++m_repeatCount;
    const auto first = submit(m_repeatDraft, tr("repeat %1").arg(m_repeatCount));
    if (!first) {
        m_repeatCount = 0;
        if (was)
            Q_EMIT repeatingChanged(false);
        return first.errorDetail();
    }
    m_repeatTimer.start(std::clamp(
        draft.repeatIntervalMs, Core::RequestDraft::minRepeatIntervalMs, Core::RequestDraft::maxRepeatIntervalMs));
    if (!was)
        Q_EMIT repeatingChanged(true);
    return {};
}

void RequestRunner::handleRepeatTick()
{
    ++m_repeatCount;
    const auto id = submit(m_repeatDraft, tr("repeat %1").arg(m_repeatCount));
    if (id)
        return;
    m_repeatTimer.stop();
    Q_EMIT repeatingChanged(false);
    Q_EMIT failed(tr("Repeating stopped (requests sent: %1): %2").arg(m_repeatCount - 1).arg(id.error()));
}

Core::Result<void> RequestRunner::startOperation(const Core::RequestDraft &draft, const Core::PollingPolicy &policy)
{
    using R = Core::Result<void>;
    if (!m_executor || !m_session)
        return R::failure(tr("Nothing to send with."));
    if (isPolling())
        return R::failure(tr("An operation is being polled already; stop it first."));
    if (const auto files = checkTransportFiles(draft); !files)
        return files;
    beginRun(draft);
    const auto spec = prepare(Core::RequestTemplate::build(draft, nextContext()), QString());
    if (!spec)
        return R::failure(spec.error());
    m_executor->setConcurrencyLimit(draft.concurrency);
    ++m_runStream;
    m_operationSpec = *spec;
    if (m_operationSpec.label.isEmpty())
        m_operationSpec.label = tr("operation");
    // Every request of the operation shares one copy of the scenario, played in order.
    m_operationTestId = std::exchange(m_unsentTestId, QString());
    if (!m_poller) {
        m_poller = new Core::OperationPoller(m_executor.data(), this);
        connect(m_poller, &Core::OperationPoller::pollStarted, this, [this](int index, quint64 requestId) {
            // Each request a lane of its own, named for what it is: polls apart from retries.
            Core::RequestSpec lane = m_operationSpec;
            lane.label = index == 0 ? tr("%1 start").arg(m_operationSpec.label) : tr("poll %1").arg(index);
            if (m_operationPolicy)
                m_session->noteRequest(requestId, lane, *m_operationPolicy);
            else
                m_session->noteRequest(requestId, lane);
            m_session->setChecks(requestId, m_checks);
            Q_EMIT sent(requestId);
        });
        connect(m_poller, &Core::OperationPoller::finished, this, [this](const Core::OperationResult &result) {
            if (!m_operationTestId.isEmpty())
                deleteTest(std::exchange(m_operationTestId, QString()));
            qCInfo(lcRunner).noquote() << "operation" << Core::operationEndingName(result.ending) << result.reason;
            Q_EMIT operationFinished(result);
        });
    }
    // A policy of the operation's endpoint runs its requests, as it runs a Send.
    const Core::EndpointPolicy *endpoint = Core::matchingEndpointPolicy(m_endpointPolicies, spec->url);
    m_operationPolicy = endpoint ? std::optional<Core::BackoffPolicy>(endpoint->policy) : std::nullopt;
    m_poller->setRequestPolicy(m_operationPolicy);
    if (const auto started = m_poller->start(m_operationSpec, m_operationSpec, policy); !started) {
        if (!m_operationTestId.isEmpty())
            deleteTest(std::exchange(m_operationTestId, QString()));
        return started;
    }
    return {};
}

void RequestRunner::stop()
{
    const bool was = isRepeating();
    m_repeatTimer.stop();
    if (was)
        Q_EMIT repeatingChanged(false);
    if (isPolling())
        m_poller->cancel();
    if (m_executor)
        m_executor->cancelAll();
}

void RequestRunner::resetBatch()
{
    m_batchIds.clear();
    m_batchTotal = 0;
    m_batchFinished = 0;
    m_batchSucceeded = 0;
    Q_EMIT batchProgress(0, 0, 0);
}

bool RequestRunner::targetsServer(const QUrl &url) const
{
    if (!m_server)
        return false;
    // Its HTTPS port serves the same endpoints and scripts.
    const auto matches = [&url](const QUrl &base) {
        const int defaultPort = base.scheme() == QLatin1String("https") ? 443 : 80;
        if (base.isEmpty() || url.scheme().compare(base.scheme(), Qt::CaseInsensitive) != 0
            || url.port(defaultPort) != base.port(defaultPort))
            return false;
        const QString host = url.host().toLower();
        if (host == base.host().toLower())
            return true;
        // The server listens on loopback; "localhost" names it too.
        return host == QLatin1String("localhost") && QHostAddress(base.host()).isLoopback();
    };
    return matches(m_server->baseUrl()) || matches(m_server->httpsBaseUrl());
}

void RequestRunner::deleteTest(const QString &id)
{
    if (m_server && !id.isEmpty() && !m_server->deleteTest(id))
        qCDebug(lcRunner) << "test" << id << "was already gone (server reset)";
}

void RequestRunner::handleRequestFinished(const Core::RequestResult &result)
{
    // A per-request copy of the script is used up with its request; the server holds
    // only so many tests, so a long repeat would otherwise be refused after a while.
    if (const auto it = m_perRequestTests.constFind(result.requestId); it != m_perRequestTests.cend()) {
        deleteTest(it.value());
        m_perRequestTests.erase(it);
    } else if (!m_unsentTestId.isEmpty()) {
        deleteTest(std::exchange(m_unsentTestId, QString()));
    }
    const bool succeeded = result.outcome == Core::RequestOutcome::Succeeded;
    if (!m_batchIds.remove(result.requestId))
        return;
    ++m_batchFinished;
    if (succeeded)
        ++m_batchSucceeded;
    Q_EMIT batchProgress(m_batchFinished, m_batchTotal, m_batchSucceeded);
}

} // namespace RetryLab::Ui
