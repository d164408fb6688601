#include "core/runner/collectionrunner.h"

#include "core/assertions/assertionresult.h"
#include "core/collections/dynamicvariables.h"
#include "core/collections/requesttemplate.h"
#include "core/collections/responsevariables.h"
#include "core/collections/variables.h"
#include "core/executor/retryexecutor.h"
#include "core/executor/runrecorder.h"
#include "core/util/coretr.h"
#include "core/util/variablesubstitution.h"

#include <QLoggingCategory>
#include <QTimer>
#include <QUrlQuery>

#include <algorithm>

Q_LOGGING_CATEGORY(lcCollectionRunner, "retrylab.core.runner")

namespace RetryLab::Core {

namespace {

/// The auth's texts with the run's variables in; the names without a value go to `unresolved`.
RunAuth resolvedAuth(RunAuth auth, const QHash<QString, QString> &values, DynamicVariables *dynamic,
    QStringList *unresolved, QStringList *unknown)
{
    auth.forEachText([&](QString &text) { text = Variables::resolve(text, values, dynamic, unresolved, unknown); });
    return auth;
}

/// The values with the references in them replaced once more, as newman does
/// ({{url}} holding "{{base}}/get"; Postman import's Nesting::OneLevel).
QHash<QString, QString> nestedResolved(const QHash<QString, QString> &values)
{
    QHash<QString, QString> resolved = values;
    for (auto it = resolved.begin(); it != resolved.end(); ++it) {
        if (it->contains(QLatin1String("{{")))
            *it = VariableSubstitution::substitute(*it, values);
    }
    return resolved;
}

bool hasHeader(const RequestDraft &draft, const QString &name)
{
    return std::any_of(draft.headers.cbegin(), draft.headers.cend(), [&](const DraftHeader &header) {
        return header.enabled && header.name.compare(name, Qt::CaseInsensitive) == 0;
    });
}

/// Adds what the auth sends to the draft: a header the request does not set
/// itself, or a query parameter.
void applyAuth(RequestDraft &draft, const RunAuth &auth)
{
    const QString authorization = QStringLiteral("Authorization");
    switch (auth.kind) {
    case RunAuth::Kind::Inherit:
    case RunAuth::Kind::None:
        return;
    case RunAuth::Kind::Basic:
        if (!hasHeader(draft, authorization)) {
            const QByteArray pair = (auth.username + QLatin1Char(':') + auth.password).toUtf8();
            draft.headers.append({authorization, QStringLiteral("Basic ") + QString::fromLatin1(pair.toBase64())});
        }
        return;
    case RunAuth::Kind::Bearer:
        if (!hasHeader(draft, authorization))
            draft.headers.append({authorization, QStringLiteral("Bearer ") + auth.token});
        return;
    case RunAuth::Kind::ApiKey:
        if (auth.key.isEmpty())
            return;
        if (!auth.inQuery) {
            if (!hasHeader(draft, auth.key))
                draft.headers.append({auth.key, auth.value});
            return;
        }
        {
            const qsizetype hash = draft.urlTemplate.indexOf(QLatin1Char('#'));
            const QString fragment = hash >= 0 ? draft.urlTemplate.mid(hash) : QString();
            QString url = hash >= 0 ? draft.urlTemplate.left(hash) : draft.urlTemplate;
            url += url.contains(QLatin1Char('?')) ? QLatin1Char('&') : QLatin1Char('?');
            url += QString::fromLatin1(QUrl::toPercentEncoding(auth.key)) + QLatin1Char('=')
                + QString::fromLatin1(QUrl::toPercentEncoding(auth.value));
            draft.urlTemplate = url + fragment;
        }
        return;
    case RunAuth::Kind::Digest:
    case RunAuth::Kind::OAuth2ClientCredentials:
    case RunAuth::Kind::OAuth2RefreshToken:
    case RunAuth::Kind::OAuth2AuthorizationCode:
    case RunAuth::Kind::AwsSigV4:
    case RunAuth::Kind::GoogleServiceAccount:
        // Answered, signed or fetched for every attempt by the executor.
        draft.auth = auth;
        return;
    }
}

ScriptResponse scriptResponseOf(const AttemptRecord &attempt)
{
    ScriptResponse response;
    response.code = attempt.httpStatus.value_or(0);
    response.status = QString::fromLatin1(attempt.reasonPhrase);
    for (const auto &header : attempt.responseHeaders)
        response.headers.append({header.first, header.second});
    response.body = attempt.responseBody;
    const qint64 start = attempt.lastExchangeStartNs();
    const qint64 end = attempt.finishedNs >= 0 ? attempt.finishedNs : attempt.endNs;
    response.responseTimeMs = (start >= 0 && end >= start) ? double(end - start) / 1e6 : attempt.durationMs();
    return response;
}

} // namespace

bool CollectionRequestRun::retried() const
{
    return result && result->attempts > 1;
}

int CollectionRequestRun::failedAssertions() const
{
    return int(std::count_if(
        assertions.cbegin(), assertions.cend(), [](const AssertionResult &verdict) { return !verdict.passed; }));
}

int CollectionRequestRun::failedTests() const
{
    return int(std::count_if(
        tests.cbegin(), tests.cend(), [](const ScriptTest &test) { return !test.passed && !test.skipped; }));
}

bool CollectionRequestRun::failed() const
{
    return !errors.isEmpty() || failedAssertions() > 0 || failedTests() > 0;
}

int CollectionRunResult::failedRequests() const
{
    return int(std::count_if(
        requests.cbegin(), requests.cend(), [](const CollectionRequestRun &run) { return run.failed(); }));
}

int CollectionRunResult::passedAfterRetries() const
{
    return int(std::count_if(
        requests.cbegin(), requests.cend(), [](const CollectionRequestRun &run) { return run.passedAfterRetries(); }));
}

CollectionRunner::CollectionRunner(RunCollection collection, CollectionRunOptions options, QObject *parent)
    : QObject(parent), m_collection(std::move(collection)), m_options(std::move(options))
{
    m_selection = m_collection.requests(m_options.folders);
    m_dynamic = std::make_unique<DynamicVariables>(m_options.seed);
    ScriptSandbox::Options sandbox;
    sandbox.dialect = m_collection.dialect;
    sandbox.timeLimitMs = m_options.scriptTimeLimitMs;
    sandbox.dynamic = m_dynamic.get();
    m_sandbox = std::make_unique<ScriptSandbox>(sandbox);

    m_executor = new RetryExecutor(nullptr, this);
    m_executor->setSeed(m_options.seed);
    m_executor->setResponseBodyLimit(std::clamp(
        m_options.responseBodyLimit, RetryExecutor::minResponseBodyLimit, RetryExecutor::maxResponseBodyLimit));
    m_executor->setPolicy(m_options.defaultPolicy);
    m_recorder = new RunRecorder(m_executor, this);
    m_recorder->setRunSeed(m_options.seed);
    connect(m_executor, &RetryExecutor::attemptFinished, this, &CollectionRunner::onAttemptFinished);
    connect(m_executor, &RetryExecutor::requestFinished, this, &CollectionRunner::onRequestFinished);

    m_scopes = m_options.scopes;
    for (const auto &[name, value] : std::as_const(m_collection.variables)) {
        if (!m_scopes.collection.contains(name))
            m_scopes.collection.insert(name, QJsonValue(value));
    }
    m_iterationCount = std::max(1, m_options.iterations);

    m_result.collectionName = m_collection.name;
    m_result.source = m_collection.source;
    m_result.format = RunCollection::formatName(m_collection.format);
    m_result.seed = m_options.seed;
    m_result.iterations = m_iterationCount;
    m_result.ignored = m_collection.ignored;
}

CollectionRunner::~CollectionRunner() = default;

void CollectionRunner::start()
{
    if (m_running)
        return;
    m_running = true;
    m_result.startedAt = QDateTime::currentDateTimeUtc();
    m_startNs = m_executor->nowNs();
    m_iteration = 0;
    if (m_selection.isEmpty()) {
        QTimer::singleShot(0, this, [this] { finish({}); });
        return;
    }
    QTimer::singleShot(0, this, [this] { runRequest(0); });
}

void CollectionRunner::stop()
{
    if (!m_running || m_stopping)
        return;
    m_stopping = true;
    if (m_current.requestId != 0 && !m_current.result)
        m_executor->cancel(m_current.requestId);
    else
        QTimer::singleShot(0, this, &CollectionRunner::next);
}

int CollectionRunner::positionAfter(int position) const
{
    if (!m_nextRequest)
        return position + 1 < m_selection.size() ? position + 1 : -1;
    if (m_nextRequest->isEmpty())
        return -1;
    for (int i = 0; i < m_selection.size(); ++i) {
        if (m_selection.at(i).item->name == *m_nextRequest || m_selection.at(i).path == *m_nextRequest)
            return i;
    }
    return -1;
}

void CollectionRunner::next()
{
    if (!m_running)
        return;
    if (m_stopping) {
        finish(Tr::tr("stopped"));
        return;
    }
    int position = positionAfter(m_position);
    m_nextRequest.reset();
    if (position < 0) {
        if (++m_iteration >= m_iterationCount) {
            finish({});
            return;
        }
        position = 0;
    }
    if (m_result.requests.size() >= m_options.maxRequests) {
        finish(
            Tr::tr("the run reached its limit of %1 requests (a pm.setNextRequest loop?)").arg(m_options.maxRequests));
        return;
    }
    runRequest(position);
}

void CollectionRunner::runRequest(int position)
{
    m_position = position;
    const RunCollection::Request &request = m_selection.at(position);
    const RunItem &item = *request.item;
    m_current = CollectionRequestRun{};
    m_current.index = int(m_result.requests.size());
    m_current.iteration = m_iteration;
    m_current.path = request.path;
    m_current.name = item.name;
    m_current.itemId = item.id;
    Q_EMIT requestStarted(m_current.index, m_current.path, m_iteration);

    m_scopes.data.clear();
    if (!m_options.dataRows.isEmpty()) {
        const auto &row = m_options.dataRows.at(m_iteration % m_options.dataRows.size());
        for (auto it = row.cbegin(); it != row.cend(); ++it)
            m_scopes.data.insert(it.key(), QJsonValue(it.value()));
    }
    for (const auto &[name, value] : item.variables) {
        QStringList unresolved;
        const QString text = Variables::resolve(value, m_scopes.flattened(), m_dynamic.get(), &unresolved, nullptr);
        m_scopes.local.insert(name, QJsonValue(text));
    }

    m_scriptRequest = ScriptRequest{};
    m_scriptRequest.id = item.id;
    m_scriptRequest.name = item.name;
    m_scriptRequest.method = item.request.method;
    m_scriptRequest.url = item.request.urlTemplate;
    for (const DraftHeader &header : item.request.headers) {
        if (header.enabled)
            m_scriptRequest.headers.append({header.name, header.value});
    }
    m_scriptRequest.body = item.request.body;

    runScripts(ScriptSandbox::Event::PreRequest, nullptr);
    if (m_current.skipped || m_stopping) {
        conclude();
        return;
    }
    sendPrepared();
}

void CollectionRunner::sendPrepared()
{
    const RunCollection::Request &request = m_selection.at(m_position);
    RequestDraft draft = request.item->request;
    draft.method = m_scriptRequest.method;
    draft.urlTemplate = m_scriptRequest.url;
    draft.headers.clear();
    for (const auto &[name, value] : std::as_const(m_scriptRequest.headers))
        draft.headers.append({name, value});
    draft.body = m_scriptRequest.body;

    QHash<QString, QString> values = m_scopes.flattened();
    if (m_collection.format == RunCollection::Format::Postman)
        values = nestedResolved(values);
    QStringList unresolved;
    QStringList unknown;
    const RunAuth auth = resolvedAuth(request.auth, values, m_dynamic.get(), &unresolved, &unknown);
    const Result<RequestDraft> resolved = Variables::apply(draft, values, m_options.environmentName, m_dynamic.get());
    if (!resolved) {
        m_current.errors.append(resolved.error());
        conclude();
        return;
    }
    if (!unresolved.isEmpty() || !unknown.isEmpty()) {
        unresolved.append(unknown);
        unresolved.removeDuplicates();
        m_current.errors.append(
            Tr::tr("the authorization uses variables without a value: %1").arg(unresolved.join(QStringLiteral(", "))));
        conclude();
        return;
    }
    draft = resolved.value();
    applyAuth(draft, auth);
    // newman (postman-runtime) sends "Accept: */*" when the request names no
    // Accept, and Qt sends none: a server that picks its answer by Accept must
    // see a Postman collection as newman shows it. Added here, as the request
    // goes out, since newman's pre-request scripts do not see it either.
    const QString accept = QStringLiteral("Accept");
    if (m_collection.format == RunCollection::Format::Postman && !hasHeader(draft, accept))
        draft.headers.append({accept, QStringLiteral("*/*")});

    ExpansionContext context;
    context.serverUrl = m_options.serverUrl;
    context.serverProblem = Tr::tr("no fault server runs in this run");
    context.requestKey = RequestTemplate::newKeyToken() + QLatin1Char('-') + QString::number(m_current.index + 1);
    context.environmentName = m_options.environmentName;
    Result<RequestSpec> built = RequestTemplate::build(draft, context);
    if (!built) {
        m_current.errors.append(built.error());
        conclude();
        return;
    }
    RequestSpec spec = built.value();
    if (!spec.attemptTimeoutMs && m_options.attemptTimeoutMs)
        spec.attemptTimeoutMs = m_options.attemptTimeoutMs;
    if (m_options.insecure && !spec.transport.ignoresCertificateErrorsFor(spec.url.host()))
        spec.transport.insecureHosts.append(spec.url.host());
    spec.seed = m_options.seed;
    spec.seedStream = quint64(m_current.index);
    spec.label = m_current.path;

    BackoffPolicy policy = m_options.defaultPolicy;
    m_current.policyName = m_options.defaultPolicyName;
    if (request.policy) {
        const std::optional<BackoffPolicy> own = request.policy->policy();
        if (!own) {
            m_current.errors.append(
                Tr::tr("its policy \"%1\" is not a preset of this RetryLab").arg(request.policy->preset));
            conclude();
            return;
        }
        policy = *own;
        m_current.policyName = request.policy->displayName();
    }
    m_current.spec = spec;
    // Test scripts see the request as it was sent (pm.request, Bruno's req), as in
    // newman: variables filled in, the authorization and the runner's own headers added.
    m_scriptRequest.method = QString::fromLatin1(spec.method);
    m_scriptRequest.url = spec.url.toString(QUrl::FullyEncoded);
    m_scriptRequest.headers.clear();
    for (const auto &[name, value] : std::as_const(spec.headers))
        m_scriptRequest.headers.append({QString::fromLatin1(name), QString::fromUtf8(value)});
    m_scriptRequest.body = QString::fromUtf8(spec.body);
    m_current.requestId = m_recorder->submit(spec, policy);
}

void CollectionRunner::onAttemptFinished(const AttemptRecord &record)
{
    if (record.requestId != m_current.requestId || m_current.result)
        return;
    m_current.attempts.append(record);
    Q_EMIT attemptFinished(record);
}

void CollectionRunner::onRequestFinished(const RequestResult &result)
{
    if (result.requestId != m_current.requestId || m_current.result)
        return;
    m_current.result = result;
    afterResponse();
}

void CollectionRunner::afterResponse()
{
    const RunItem &item = *m_selection.at(m_position).item;
    if (m_current.attempts.isEmpty()) {
        m_current.errors.append(Tr::tr("no attempt was made: %1").arg(m_current.result->reason));
        conclude();
        return;
    }
    const AttemptRecord &last = m_current.attempts.constLast();
    if (!last.httpStatus) {
        const QString why = last.errorString.isEmpty() ? last.reason : last.errorString;
        m_current.errors.append(
            Tr::tr("no answer after %n attempt(s): %1", nullptr, int(m_current.attempts.size())).arg(why));
    }
    m_current.assertions = evaluateAll(item.assertions, last);
    if (!item.extract.isEmpty()) {
        const ResponseVariables::Outcome outcome = ResponseVariables(item.extract).apply(last);
        for (auto it = outcome.values.cbegin(); it != outcome.values.cend(); ++it) {
            m_scopes.local.insert(it.key(), QJsonValue(it.value()));
            m_current.extracted.append({it.key(), it.value()});
        }
        for (const QString &problem : outcome.problems)
            m_current.errors.append(Tr::tr("extract %1").arg(problem));
    }
    const ScriptResponse response = scriptResponseOf(last);
    runScripts(ScriptSandbox::Event::Test, &response);
    conclude();
}

void CollectionRunner::runScripts(ScriptSandbox::Event event, const ScriptResponse *response)
{
    const RunCollection::Request &request = m_selection.at(m_position);
    QList<const RunScript *> scripts;
    const auto pick = [event](const auto &owner) {
        return event == ScriptSandbox::Event::PreRequest ? &owner.preRequest : &owner.test;
    };
    scripts.append(pick(m_collection));
    for (const RunItem *folder : request.folders)
        scripts.append(pick(*folder));
    scripts.append(pick(*request.item));

    ScriptInfo info;
    info.requestName = request.item->name;
    info.requestId = request.item->id;
    info.iteration = m_iteration;
    info.iterationCount = m_iterationCount;
    for (const RunScript *script : std::as_const(scripts)) {
        if (script->isEmpty())
            continue;
        ScriptOutcome outcome = m_sandbox->run(*script, event, m_scopes, m_scriptRequest, response, info);
        m_current.tests.append(outcome.tests);
        m_current.console.append(outcome.console);
        if (!outcome.error.isEmpty())
            m_current.errors.append(outcome.error);
        if (outcome.nextRequest)
            m_nextRequest = outcome.nextRequest;
        if (outcome.skipRequest)
            m_current.skipped = true;
    }
}

void CollectionRunner::conclude()
{
    // The record keeps the bodies (within its budget); the request's own copies go.
    for (AttemptRecord &attempt : m_current.attempts) {
        attempt.responseBody.clear();
        attempt.requestBody.clear();
    }
    m_result.requests.append(m_current);
    const CollectionRequestRun &run = m_result.requests.constLast();
    Q_EMIT requestFinished(run);
    if (m_options.bail && run.failed()) {
        finish(Tr::tr("--bail: \"%1\" failed").arg(run.path));
        return;
    }
    if (m_nextRequest && m_nextRequest->isEmpty() && m_iteration + 1 >= m_iterationCount) {
        finish(Tr::tr("pm.setNextRequest(null) in \"%1\"").arg(run.path));
        return;
    }
    if (m_options.delayRequestMs > 0 && !m_stopping)
        QTimer::singleShot(m_options.delayRequestMs, this, &CollectionRunner::next);
    else
        QTimer::singleShot(0, this, &CollectionRunner::next);
}

void CollectionRunner::finish(const QString &stoppedEarly)
{
    if (!m_running)
        return;
    m_running = false;
    m_result.stoppedEarly = stoppedEarly;
    m_result.durationMs = double(m_executor->nowNs() - m_startNs) / 1e6;
    m_result.record = m_recorder->record();
    qCDebug(lcCollectionRunner) << "run of" << m_collection.name << "ended:" << m_result.requests.size() << "requests,"
                                << m_result.failedRequests() << "failed";
    Q_EMIT finished();
}

} // namespace RetryLab::Core
