#pragma once

#include "ui/session/hosting/proxyinstance.h"

#include <QHash>
#include <QList>
#include <QPointer>
#include <QWidget>

class QCheckBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTableView;
class QTabWidget;
class QTimer;

namespace RetryLab::Ui {

class FaultRulesModel;
class ServerLogModel;

/// The Proxy tab: fault proxies between clients and real services. A list of
/// proxies (several can run at once, one per upstream), the selected one's
/// settings (upstream, port, Host) with Start/Stop and the URLs to point a
/// client and a script at, its fault rules (switched on and off while traffic
/// flows, written as `--fault` lines, loaded from and saved to retrylab-faults
/// files), its log with the Server tab's columns, its clients' logical
/// requests as lanes, and what the observer made of them.
class ProxyView final : public QWidget
{
    Q_OBJECT

public:
    /// `laneViews` shows the current proxy's session (timeline, error log,
    /// statistics, which the window makes and points at currentProxy()->session()).
    explicit ProxyView(QWidget *laneViews, QWidget *parent = nullptr);
    ~ProxyView() override;

    /// The embedded fault server's address, which {server} in an upstream stands for and
    /// a new proxy forwards to; empty when it does not run. Set before setProxies().
    void setServerUrl(const QUrl &url) { m_serverUrl = url; }
    QUrl serverUrl() const { return m_serverUrl; }
    /// The proxies as saved with the window's settings.
    QList<ProxySettings> proxies() const;
    /// Replaces the proxies (stopped) with these. A saved upstream on this machine whose
    /// port no longer answers (the window's server of an earlier run) becomes {server}.
    void setProxies(const QList<ProxySettings> &proxies);
    ProxyInstance *addProxy(const ProxySettings &settings);
    ProxyInstance *currentProxy() const;
    QList<ProxyInstance *> instances() const { return m_instances; }
    void setCurrentProxy(int index);
    /// Refreshes counts and the clients' report now (a timer does it every second while the tab shows).
    void refresh();

    QListWidget *proxyList() const { return m_list; }
    QLineEdit *upstreamEdit() const { return m_upstream; }
    QSpinBox *portSpin() const { return m_port; }
    QPushButton *startButton() const { return m_startStop; }
    QLabel *status() const { return m_status; }
    QTableView *rulesView() const { return m_rulesView; }
    FaultRulesModel *rulesModel() const { return m_rules; }
    QLabel *rulesProblem() const { return m_rulesProblem; }
    ServerLogModel *logModel() const;
    QPlainTextEdit *clientsText() const { return m_clients; }

Q_SIGNALS:
    void currentProxyChanged(RetryLab::Ui::ProxyInstance *proxy);
    /// Settings or rules changed: the window saves them.
    void proxiesChanged();

private:
    /// A saved upstream on 127.0.0.1 or localhost that refuses connections, as {server}.
    ProxySettings followServerIfDead(const ProxySettings &saved);
    void showProxy();
    void applyForm();
    void startOrStop();
    void updateStatus();
    void loadRules();
    void saveRules();
    QString listTitle(const ProxyInstance *proxy) const;

    QList<ProxyInstance *> m_instances;
    QHash<ProxyInstance *, ServerLogModel *> m_logs;
    QListWidget *m_list;
    QPushButton *m_addProxy;
    QPushButton *m_removeProxy;
    QLineEdit *m_name;
    QLineEdit *m_upstream;
    QLineEdit *m_caBundle;
    QLineEdit *m_record;
    QPushButton *m_chooseRecord;
    QSpinBox *m_port;
    QCheckBox *m_keepHost;
    QCheckBox *m_forward;
    QPushButton *m_startStop;
    QLabel *m_status;
    FaultRulesModel *m_rules;
    QTableView *m_rulesView;
    QLabel *m_rulesProblem;
    QPushButton *m_addRule;
    QPushButton *m_removeRule;
    QPushButton *m_allOn;
    QPushButton *m_allOff;
    QPushButton *m_loadRules;
    QPushButton *m_saveRules;
    QTabWidget *m_bottom;
    QPushButton *m_copyUrl = nullptr;
    QTableView *m_logView;
    QPlainTextEdit *m_clients;
    QTimer *m_refresh;
    bool m_showing = false;
    QUrl m_serverUrl;
    /// Said under a proxy until it starts: why its saved upstream was replaced.
    QHash<const ProxyInstance *, QString> m_notes;
};

} // namespace RetryLab::Ui
