#pragma once

#include "core/herd/herdreport.h"
#include "core/util/result.h"

#include <QWidget>

#include <memory>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QThread;
class QTimer;

class QChart;
class QChartView;
class QColor;
class QEvent;

namespace RetryLab::Ui {

/// The herd simulator tab: a form for the model and its parameters, a run in a
/// worker thread with progress and Cancel, and charts of calls and completion time
/// against the client count (a line per strategy) and of the server load over time
/// for one client count. Self-contained: the main window only adds it as a tab.
class SimulatorView final : public QWidget
{
    Q_OBJECT

public:
    explicit SimulatorView(QWidget *parent = nullptr);
    ~SimulatorView() override;

    /// What the form describes, or every reason it cannot be simulated.
    Core::Result<Core::HerdParameters> parameters() const;
    /// Fills the form (the model's own widgets are enabled accordingly).
    void setParameters(const Core::HerdParameters &parameters);

    bool isRunning() const;
    /// A strategy's colour in the list and the charts, readable on the palette's base colour.
    QColor strategyColor(const Core::HerdStrategy &strategy) const;
    /// The colour of the status line when the form has an error.
    QColor errorColor() const;
    /// The last finished run's report (no cells before the first one finished).
    const Core::HerdReport &report() const { return m_report; }

public Q_SLOTS:
    /// Starts a run in a worker thread; refused (failed()) when the form is invalid or a run is going.
    void start();
    /// Asks the running simulation to stop; cancelled() follows shortly.
    void cancel();

Q_SIGNALS:
    void started();
    void finished();
    void cancelled();
    void failed(const QString &message);
    /// The form changed (by the user or setParameters()); parameters() says whether it is valid.
    void parametersEdited();

protected:
    void changeEvent(QEvent *event) override;

private:
    struct Job;
    void applyPalette();
    void styleAxes(QChart *chart) const;

    QWidget *buildForm();
    QWidget *buildCharts();
    void loadDefaults(Core::HerdModel model);
    void updateEnabledFields();
    void validateForm();
    void showError(const QString &message);
    void showStatus(const QString &message);
    void setRunning(bool running);

    void handleModelChanged();
    void handleWorkerFinished();
    void handleProgressTick();
    void handleLoadClientsChanged();

    void plotGrid();
    void plotLoad();

    // Form
    QComboBox *m_model = nullptr;
    QLineEdit *m_clients = nullptr;
    QSpinBox *m_runs = nullptr;
    QLineEdit *m_seed = nullptr;
    QListWidget *m_strategies = nullptr;
    QDoubleSpinBox *m_base = nullptr;
    QDoubleSpinBox *m_cap = nullptr;
    QDoubleSpinBox *m_multiplier = nullptr;
    QDoubleSpinBox *m_jitter = nullptr;
    QSpinBox *m_maxAttempts = nullptr;
    QDoubleSpinBox *m_deadline = nullptr;
    QDoubleSpinBox *m_networkMean = nullptr;
    QDoubleSpinBox *m_networkSd = nullptr;
    QComboBox *m_arrivals = nullptr;
    QDoubleSpinBox *m_arrivalRate = nullptr;
    QGroupBox *m_serverGroup = nullptr;
    QDoubleSpinBox *m_serviceRate = nullptr;
    QSpinBox *m_queue = nullptr;
    QComboBox *m_status = nullptr;
    QSpinBox *m_retryAfter = nullptr;
    QCheckBox *m_honourRetryAfter = nullptr;
    QGroupBox *m_outageGroup = nullptr;
    QDoubleSpinBox *m_outageStart = nullptr;
    QDoubleSpinBox *m_outageEnd = nullptr;
    QDoubleSpinBox *m_bin = nullptr;

    // Run
    QPushButton *m_runButton = nullptr;
    QPushButton *m_cancelButton = nullptr;
    QProgressBar *m_progress = nullptr;
    QLabel *m_statusLabel = nullptr;
    QTimer *m_progressTimer = nullptr;
    QThread *m_thread = nullptr;
    std::shared_ptr<Job> m_job;

    // Charts
    QChartView *m_callsView = nullptr;
    QChartView *m_completionView = nullptr;
    QChartView *m_loadView = nullptr;
    QComboBox *m_loadClients = nullptr;
    QCheckBox *m_logScale = nullptr;

    Core::HerdReport m_report;
    QString m_info; ///< what the status line shows when the form is valid
    bool m_showingError = false;
};

} // namespace RetryLab::Ui
