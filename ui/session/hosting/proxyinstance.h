#pragma once

#include "core/http/serverlogentry.h"
#include "core/proxy/faultrule.h"
#include "core/proxy/faultruleset.h"
#include "ui/session/hosting/proxysettings.h"
#include "ui/session/run/observedlanes.h"

#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QThread>
#include <QUrl>

#include <memory>

namespace RetryLab::Core {
class Observer;
class ProxyControl;
class ProxyServer;
class RecordingWriter;
} // namespace RetryLab::Core

namespace RetryLab::Ui {

class RunSession;

/// A fault proxy the window runs: a Core::ProxyServer and its control port on
/// a thread of their own (so that drawing the window does not hold traffic
/// up), the exchanges it logs, and an observer on this thread that groups them
/// into logical requests of clients, shown as lanes (session()).
///
/// Rules can change at any time, running or not; the next request sees them.
/// Whatever switches them (this object, or the control port) emits
/// rulesChanged(), and rules() and counts() read the proxy's own state.
class ProxyInstance final : public QObject
{
    Q_OBJECT

public:
    explicit ProxyInstance(const ProxySettings &settings, QObject *parent = nullptr);
    ~ProxyInstance() override;

    const ProxySettings &settings() const { return m_settings; }
    /// Name, upstream, port and Host handling apply at the next start; the rules at once.
    void setSettings(const ProxySettings &settings);

    /// Starts listening (and the control port); false with errorString(). `server` is the
    /// embedded server's address, for an upstream that follows it (ProxySettings::upstreamIsServer).
    bool start(const QUrl &server = {});
    void stop();
    bool isRunning() const { return m_proxy != nullptr; }
    QString errorString() const { return m_error; }
    QUrl listenUrl() const { return m_listenUrl; }
    QUrl controlUrl() const { return m_controlUrl; }
    /// The seed the rules draw from in this run.
    quint64 seed() const { return m_seed; }
    /// While it records (ProxySettings::recordDirectory): the folder, and the answers in it.
    QString recordingDirectory() const;
    int recordedCount() const;
    /// The last answer that could not be recorded, and why; empty while all were.
    QString recordingProblem() const { return m_recordingProblem; }

    void setRules(const Core::FaultRuleList &rules);
    void setRuleEnabled(const QString &name, bool enabled);
    void setAllRulesEnabled(bool enabled);
    /// The rules as the proxy has them now (switched by the control port too).
    QList<Core::FaultRule> rules() const;
    QList<Core::FaultRuleSet::Counts> counts() const;

    /// The observed logical requests as lanes, attempts as rows.
    RunSession *session() const { return m_session; }
    /// What the observer made of the clients so far: grouping, inferred policies, verdicts.
    QString clientsReport() const;
    /// Ends the logical requests whose attempts have all been answered, as if
    /// the observation ended there: a client that gave up shows as having given
    /// up instead of waiting for its gap window. Later attempts start new ones.
    void finishObserved();

Q_SIGNALS:
    void exchangeFinished(const RetryLab::Core::ServerLogEntry &entry);
    void runningChanged(bool running);
    void rulesChanged();

private:
    template<typename F>
    void onProxyThread(F function) const;
    void observe(const Core::ServerLogEntry &entry);

    ProxySettings m_settings;
    QThread m_thread;
    Core::ProxyServer *m_proxy = nullptr; ///< lives in m_thread while running
    Core::ProxyControl *m_control = nullptr; ///< lives in m_thread while running
    QString m_error;
    QUrl m_listenUrl;
    QUrl m_controlUrl;
    quint64 m_seed = 0;
    std::unique_ptr<Core::RecordingWriter> m_recorder; ///< written on the proxy's thread
    QString m_recordingProblem;
    RunSession *m_session;
    std::unique_ptr<Core::Observer> m_observer;
    ObservedLanes m_lanes;
};

} // namespace RetryLab::Ui
