#pragma once

#include "core/herd/herdparameters.h"
#include "core/herd/herdreport.h"
#include "core/util/result.h"

#include <QWidget>

class QColor;
class QEvent;
class QLabel;
class QProgressBar;
class QPushButton;

namespace RetryLab::Ui {

class HerdCharts;
class HerdJob;
class HerdParametersForm;

/// The herd simulator tab: the parameter form (HerdParametersForm), Run and
/// Cancel with progress and a status line, and the charts of the last finished
/// run (HerdCharts); the run itself is a HerdJob on a worker thread.
/// Self-contained: the main window only adds it as a tab.
class SimulatorView final : public QWidget
{
    Q_OBJECT

public:
    explicit SimulatorView(QWidget *parent = nullptr);

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
    const Core::HerdReport &report() const;

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
    QWidget *buildRunControls();
    void applyPalette();
    void showError(const QString &message);
    void showStatus(const QString &message);
    void setRunning(bool running);
    void validateForm();

    void handleFormEdited();
    void handleJobStarted(qint64 runsTotal);
    void handleJobProgress(qint64 runsDone, qint64 runsTotal, double fractionDone);
    void handleJobFinished(const Core::HerdReport &report, double seconds);
    void handleJobCancelled(qint64 runsDone, qint64 runsTotal);
    void handleJobFailed(const QString &message);

    HerdParametersForm *m_form = nullptr;
    HerdCharts *m_charts = nullptr;
    HerdJob *m_job = nullptr;

    QPushButton *m_runButton = nullptr;
    QPushButton *m_cancelButton = nullptr;
    QProgressBar *m_progress = nullptr;
    QLabel *m_statusLabel = nullptr;

    QString m_info; ///< what the status line shows when the form is valid
    bool m_showingError = false;
};

} // namespace RetryLab::Ui
