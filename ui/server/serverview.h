#pragma once

#include "ui/session/hosting/serverscenario.h"

#include <QPointer>
#include <QWidget>

class QButtonGroup;
class QCheckBox;
class QComboBox;
class QLabel;
class QPlainTextEdit;
class QRadioButton;
class QTableView;
class QTimer;
class QToolButton;

namespace RetryLab::Ui {

class EmbeddedServer;
class FieldMessage;
class HttpsPanel;
class ServerLogModel;

/// The Server tab: the embedded fault server's address (or why it is not running),
/// its scripted scenario (a preset or edited steps, checked as they are typed, with
/// the error on the line it is on), whether each request gets its own copy of the
/// script or all share one, and the server's own log of what it received.
///
/// A valid script becomes the scenario for the next sends at once (scenarioChanged());
/// an invalid one is refused: the last valid scenario is kept and scenarioProblem()
/// says what is wrong, so that the window can refuse to send until it is fixed.
class ReplayInstance;

class ServerView final : public QWidget
{
    Q_OBJECT

public:
    explicit ServerView(QWidget *parent = nullptr);
    ~ServerView() override;

    /// Not owned; shows its address and log. Null or a stopped server shows `problem`.
    void setServer(EmbeddedServer *server);

    /// The scenario in force (the last valid one).
    ServerScenario scenario() const { return m_scenario; }
    /// Loads a scenario into the editor (from the settings).
    void setScenario(const ServerScenario &scenario);
    /// Why the script being edited cannot be used; empty when it is in force.
    QString scenarioProblem() const { return m_problem; }

    /// The shared copy on the server, to show how far it has got.
    void setSharedTestId(const QString &id);

    ServerLogModel *logModel() const { return m_logModel; }
    QTableView *logView() const { return m_logView; }
    QPlainTextEdit *scriptEditor() const { return m_script; }
    QComboBox *presetChooser() const { return m_preset; }
    /// HTTPS: on/off, its URLs, the CA.
    HttpsPanel *httpsPanel() const { return m_https; }

    /// Serves the recording in `directory` as a second server beside the fault
    /// server (its answers join the log); false with the reason shown when the
    /// folder is no recording. What "Replay a recording…" does after its dialog.
    bool startReplay(const QString &directory);
    void stopReplay();
    ReplayInstance *replay() const { return m_replay; }

Q_SIGNALS:
    void scenarioChanged(const RetryLab::Ui::ServerScenario &scenario);
    /// The script became unusable (a reason) or usable again (empty).
    void scenarioProblemChanged(const QString &problem);
    /// "Restart" was pressed: the next send takes a fresh shared copy.
    void restartRequested();

protected:
    void showEvent(QShowEvent *event) override;

private:
    void handlePresetActivated(int index);
    void handleScriptEdited();
    void handleSharingChanged();
    void handleResetServer();
    void validate();
    void updateAddress();
    void updateStatus();
    void updateLogCount();
    QStringList scriptLines(QList<int> *lineNumbers = nullptr) const;

    QPointer<EmbeddedServer> m_server;
    ServerScenario m_scenario;
    QString m_problem;
    QString m_sharedTestId;
    bool m_filling = false;

    QLabel *m_address;
    FieldMessage *m_serverProblem;
    QToolButton *m_copyAddress;
    QToolButton *m_resetServer;
    QToolButton *m_replayButton;
    QLabel *m_replayStatus;
    ReplayInstance *m_replay;
    HttpsPanel *m_https;
    QComboBox *m_preset;
    QLabel *m_presetDescription;
    QPlainTextEdit *m_script;
    QComboBox *m_insertStep;
    FieldMessage *m_scriptMessage;
    QRadioButton *m_perRequest;
    QRadioButton *m_shared;
    QButtonGroup *m_sharing;
    QLabel *m_status;
    QToolButton *m_restart;
    ServerLogModel *m_logModel;
    QTableView *m_logView;
    QLabel *m_logCount;
    QCheckBox *m_follow;
    QTimer *m_statusTimer;
};

} // namespace RetryLab::Ui
