#pragma once

#include "core/policy/backoffpolicy.h"

#include <QPointer>
#include <QString>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QTableView;
class QTimer;

namespace RetryLab::Ui {

class ClientListModel;
class EmbeddedServer;
class Observation;
class VerdictPanel;

/// The Clients tab: watch other programs retry against the embedded server.
/// Controls for observing (on/off, the plan each logical request is served,
/// the gap window, Clear, the URL to point a client at), the clients seen,
/// their logical requests as lanes on a timeline with the error log and the
/// statistics beside it, and the verdict panel of the selected client, whose
/// inference is recomputed a moment after attempts arrive.
class ClientsView final : public QWidget
{
    Q_OBJECT

public:
    /// `laneViews` shows the observation's session (its timeline, error log and
    /// statistics, which the window makes: a feature folder does not include another).
    ClientsView(Observation *observation, EmbeddedServer *server, QWidget *laneViews, QWidget *parent = nullptr);

    /// The client whose verdicts show; empty when none is selected.
    QString selectedClient() const;
    void selectClient(const QString &clientId);
    /// Recomputes the client list and the verdicts now (normally a timer does it).
    void refresh();

    QCheckBox *observeToggle() const { return m_observe; }
    QComboBox *planCombo() const { return m_plan; }
    QDoubleSpinBox *gapWindow() const { return m_gap; }
    QTableView *clientTable() const { return m_clientTable; }
    ClientListModel *clientModel() const { return m_clients; }
    VerdictPanel *verdictPanel() const { return m_verdictPanel; }
    QLabel *status() const { return m_status; }

Q_SIGNALS:
    /// "Make a policy like this client": the policy dock should take it.
    void policyRequested(const RetryLab::Core::BackoffPolicy &policy);

private:
    void loadPlanFile();
    void applyPlan(int index);
    void scheduleRefresh();
    void updateStatus();

    QPointer<Observation> m_observation;
    QPointer<EmbeddedServer> m_server;
    QCheckBox *m_observe;
    QComboBox *m_plan;
    QPushButton *m_loadPlan;
    QDoubleSpinBox *m_gap;
    QPushButton *m_clear;
    QLabel *m_url;
    QPushButton *m_copyUrl;
    QLabel *m_status;
    ClientListModel *m_clients;
    QTableView *m_clientTable;
    VerdictPanel *m_verdictPanel;
    QTimer *m_refresh;
};

} // namespace RetryLab::Ui
