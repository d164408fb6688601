#include "ui/session/hosting/proxyinstance.h"

#include "core/observe/observationreport.h"
#include "core/observe/observer.h"
#include "core/proxy/proxycontrol.h"
#include "core/proxy/proxyserver.h"
#include "core/proxy/recording.h"
#include "core/util/clock.h"
#include "ui/session/run/runsession.h"
#include "ui/session/uitr.h"

#include <QCoreApplication>
#include <QRandomGenerator>

namespace RetryLab::Ui {

using namespace RetryLab::Core;

ProxyInstance::ProxyInstance(const ProxySettings &settings, QObject *parent)
    : QObject(parent), m_settings(settings), m_session(new RunSession(this)), m_observer(std::make_unique<Observer>()),
      m_lanes(m_session)
{
    m_thread.setObjectName(QStringLiteral("proxy"));
    m_session->setClock(&SteadyClock::instance());
    m_session->clear();
    m_lanes.setAnsweredBy(Tr::tr("through the proxy:"));
    connect(
        m_observer.get(), &Observer::attemptStarted, this, [this](const ObservedAttempt &a) { m_lanes.started(a); });
    connect(
        m_observer.get(), &Observer::attemptFinished, this, [this](const ObservedAttempt &a) { m_lanes.finished(a); });
    connect(m_observer.get(), &Observer::logicalRequestClosed, this,
        [this](quint64 logicalId, const QString &) { m_lanes.closed(logicalId); });
}

ProxyInstance::~ProxyInstance()
{
    stop();
}

template<typename F>
void ProxyInstance::onProxyThread(F function) const
{
    if (!m_proxy)
        return;
    if (m_thread.isRunning())
        QMetaObject::invokeMethod(m_proxy, function, Qt::BlockingQueuedConnection);
    else
        function();
}

void ProxyInstance::setSettings(const ProxySettings &settings)
{
    const bool rulesChanged = !(settings.rules.rules == m_settings.rules.rules);
    m_settings = settings;
    if (rulesChanged)
        setRules(settings.rules);
}

bool ProxyInstance::start(const QUrl &server)
{
    stop();
    ProxyOptions options;
    options.forward = m_settings.forward;
    if (!options.forward) {
        if (const QString problem = m_settings.upstreamProblem(server); !problem.isEmpty()) {
            m_error = problem;
            return false;
        }
        options.upstream = m_settings.resolvedUpstream(server);
    }
    options.port = m_settings.port;
    options.keepHost = m_settings.keepHost;
    options.caBundlePath = m_settings.caBundlePath;
    m_seed = m_settings.rules.seed.value_or(QRandomGenerator::system()->generate64() >> 1);
    FaultRuleList rules = m_settings.rules;
    rules.seed = m_seed;

    std::unique_ptr<RecordingWriter> recorder;
    if (!m_settings.recordDirectory.isEmpty()) {
        auto opened = RecordingWriter::open(m_settings.recordDirectory);
        if (!opened) {
            m_error = Tr::tr("recording: %1").arg(opened.error());
            return false;
        }
        recorder = std::move(opened).value();
    }
    auto *proxy = new ProxyServer(options);
    proxy->setFaultRules(rules);
    proxy->setRecorder(recorder.get());
    if (!proxy->listen()) {
        m_error = proxy->errorString();
        delete proxy;
        return false;
    }
    auto *control = new ProxyControl(proxy, proxy);
    if (!control->listen()) {
        m_error = Tr::tr("control port: %1").arg(control->errorString());
        delete proxy;
        return false;
    }
    m_error.clear();
    m_listenUrl = proxy->listenUrl();
    m_controlUrl = control->url();
    m_lanes.setBaseUrl(m_listenUrl);
    connect(proxy, &ProxyServer::exchangeFinished, this, [this](const ServerLogEntry &entry) {
        observe(entry);
        Q_EMIT exchangeFinished(entry);
    });
    connect(proxy, &ProxyServer::faultRulesChanged, this, &ProxyInstance::rulesChanged);
    connect(proxy, &ProxyServer::recordingFailed, this, [this](const QString &error) {
        m_recordingProblem = error;
        Q_EMIT runningChanged(true);
    });
    m_recorder = std::move(recorder);
    m_recordingProblem.clear();
    m_proxy = proxy;
    m_control = control;
    m_thread.start();
    proxy->moveToThread(&m_thread);
    Q_EMIT runningChanged(true);
    return true;
}

void ProxyInstance::stop()
{
    if (!m_proxy)
        return;
    ProxyServer *proxy = m_proxy;
    // The proxy is deleted on its thread, which then ends.
    QMetaObject::invokeMethod(
        proxy, [proxy] { delete proxy; }, Qt::BlockingQueuedConnection);
    m_proxy = nullptr;
    m_control = nullptr;
    m_thread.quit();
    m_thread.wait();
    m_recorder.reset();
    // The exchanges the proxy logged last are still queued for this thread.
    QCoreApplication::sendPostedEvents(this, QEvent::MetaCall);
    m_observer->finish();
    m_listenUrl.clear();
    m_controlUrl.clear();
    Q_EMIT runningChanged(false);
}

void ProxyInstance::setRules(const FaultRuleList &rules)
{
    m_settings.rules = rules;
    m_settings.rules.nameRules();
    if (!m_proxy) {
        Q_EMIT rulesChanged();
        return;
    }
    // An edit while traffic flows: unchanged rules keep their counts, the draws go on.
    const FaultRuleList applied = m_settings.rules;
    onProxyThread([proxy = m_proxy, applied] { proxy->setFaultRules(applied, false); });
}

void ProxyInstance::setRuleEnabled(const QString &name, bool enabled)
{
    for (FaultRule &r : m_settings.rules.rules) {
        if (r.name == name)
            r.enabled = enabled;
    }
    if (!m_proxy) {
        Q_EMIT rulesChanged();
        return;
    }
    onProxyThread([proxy = m_proxy, name, enabled] { proxy->setFaultEnabled(name, enabled); });
}

void ProxyInstance::setAllRulesEnabled(bool enabled)
{
    for (FaultRule &r : m_settings.rules.rules)
        r.enabled = enabled;
    if (!m_proxy) {
        Q_EMIT rulesChanged();
        return;
    }
    onProxyThread([proxy = m_proxy, enabled] { proxy->setAllFaultsEnabled(enabled); });
}

QList<FaultRule> ProxyInstance::rules() const
{
    if (!m_proxy)
        return m_settings.rules.rules;
    QList<FaultRule> rules;
    onProxyThread([proxy = m_proxy, &rules] { rules = proxy->faultRules(); });
    return rules;
}

QList<FaultRuleSet::Counts> ProxyInstance::counts() const
{
    QList<FaultRuleSet::Counts> counts;
    onProxyThread([proxy = m_proxy, &counts] {
        for (qsizetype i = 0; i < proxy->faultRules().size(); ++i)
            counts.append(proxy->faultCounts(i));
    });
    return counts;
}

QString ProxyInstance::recordingDirectory() const
{
    return m_recorder ? m_recorder->directory() : QString();
}

int ProxyInstance::recordedCount() const
{
    int count = 0;
    onProxyThread([recorder = m_recorder.get(), &count] { count = recorder ? recorder->count() : 0; });
    return count;
}

void ProxyInstance::observe(const ServerLogEntry &entry)
{
    if (entry.method.isEmpty())
        return; // a malformed request: nothing to group
    ServerLogEntry observed = entry;
    m_observer->observeRequest(observed, false);
    m_observer->observeAnswer(observed);
}

QString ProxyInstance::clientsReport() const
{
    ObservationReport report = ObservationReport::from(*m_observer);
    report.serverUrl = m_listenUrl.toString();
    return report.toText();
}

void ProxyInstance::finishObserved()
{
    m_observer->finish();
}

} // namespace RetryLab::Ui
