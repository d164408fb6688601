#pragma once

#include "core/policy/backoffpolicy.h"

#include <QWidget>

#include <optional>

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTableView;

namespace RetryLab::Core {
class ConformanceRunner;
class FaultServer;
} // namespace RetryLab::Core

namespace RetryLab::Ui {

class ConformanceModel;
class StorageConformanceView;

/// The conformance tab: the matrix of fault sequences x idempotency classes
/// for one policy, run against the embedded fault server. Before a run each
/// cell shows what the policy's rules expect; after it, pass or fail, with the
/// reason in the tooltip and in the details below the table.
///
/// Self-contained: the main window adds it as a tab, hands it the
/// application's server with setFaultServer() (without one, each run starts a
/// server of its own on loopback) and the edited policy with setPolicy().
class ConformanceView final : public QWidget
{
    Q_OBJECT

public:
    explicit ConformanceView(QWidget *parent = nullptr);
    ~ConformanceView() override;

    /// The policy being edited elsewhere; offered first in the policy box and chosen.
    /// During a run it is held back (and said to be pending) until the run ends, so
    /// that the results stay labelled with the policy they were run for.
    void setPolicy(const Core::BackoffPolicy &policy);
    /// The edited policy waiting for the running suite to end.
    const std::optional<Core::BackoffPolicy> &pendingPolicy() const { return m_pendingPolicy; }
    /// The policy the next run tests: the one chosen in the policy box.
    Core::BackoffPolicy policy() const;
    /// What the policy box has chosen, to persist: editedChoice() or a preset's id.
    QString policyChoice() const;
    /// Chooses the edited policy or a preset by id; false (and nothing changes) when
    /// there is no such choice or a run is going.
    bool setPolicyChoice(const QString &choice);
    static QString editedChoice() { return QStringLiteral("edited"); }
    /// Not owned; it must outlive the view or be removed (nullptr) first.
    void setFaultServer(Core::FaultServer *server);

    bool isRunning() const;
    ConformanceModel *model() const { return m_model; }
    /// The second suite: Google's Cloud Storage retry cases.
    StorageConformanceView *storageCases() const { return m_storage; }
    const Core::ConformanceRunner &runner() const { return *m_runner; }

public Q_SLOTS:
    /// Runs every cell for the chosen policy; ignored while a run is going.
    void run();
    void cancel();

Q_SIGNALS:
    void started();
    void finished(int passed, int total);
    void failed(const QString &message);
    /// The policy box chose another policy (policyChoice()).
    void policyChoiceChanged(const QString &choice);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    /// Gives the row labels what the four columns do not need, so that they are whole
    /// wherever the tab is wide enough (elided with their tooltip where it is not).
    void fitRowLabels();
    void handlePolicyChosen();
    void handleCellFinished(int index);
    void handleFinished();
    void handleFailed(const QString &message);
    void handleSelectionChanged();
    void showPlan();
    void setRunning(bool running);
    void applyEditedPolicy(const Core::BackoffPolicy &policy, bool showItsPlan);
    QString runningText() const;
    QString pendingText() const;

    Core::ConformanceRunner *m_runner = nullptr;
    ConformanceModel *m_model = nullptr;
    std::optional<Core::BackoffPolicy> m_editedPolicy;
    bool m_presetPinned = false; ///< a preset was chosen on purpose: edits do not switch away from it
    std::optional<Core::BackoffPolicy> m_pendingPolicy;

    QComboBox *m_policyBox = nullptr;
    QPushButton *m_runButton = nullptr;
    QPushButton *m_cancelButton = nullptr;
    QLabel *m_status = nullptr;
    QTableView *m_table = nullptr;
    QPlainTextEdit *m_details = nullptr;
    StorageConformanceView *m_storage = nullptr;
};

} // namespace RetryLab::Ui
