#pragma once

#include "core/herd/herdparameters.h"
#include "core/herd/herdreport.h"
#include "core/util/result.h"

#include <QObject>
#include <QString>

#include <memory>

class QThread;
class QTimer;

namespace RetryLab::Ui {

/// One herd simulation at a time, run by Core::HerdSimulator on a worker thread so
/// that the window stays responsive, with its progress reported at about 30 Hz
/// (a signal per finished run would flood the event loop). Without widgets: the
/// simulator tab shows what it reports. Destroying it cancels the run and waits.
class HerdJob final : public QObject
{
    Q_OBJECT

public:
    explicit HerdJob(QObject *parent = nullptr);
    ~HerdJob() override;

    /// Starts a run of `parameters` and emits started(); refused while a run is going.
    /// Parameters the simulator rejects end in failed(), like any other failure.
    Core::Result<void> start(const Core::HerdParameters &parameters);
    /// Asks the running simulation to stop; cancelled() follows within a few thousand events.
    void cancel();
    bool isRunning() const;

Q_SIGNALS:
    /// A run began; `runsTotal` is client counts x strategies x runs per cell.
    void started(qint64 runsTotal);
    /// Runs finished so far, and the share of simulated clients settled (0..1),
    /// which moves within a long run too; the last one comes just before the outcome.
    void progress(qint64 runsDone, qint64 runsTotal, double fractionDone);
    void finished(const Core::HerdReport &report, double seconds);
    void cancelled(qint64 runsDone, qint64 runsTotal);
    void failed(const QString &message);

private:
    struct Run;
    void handleWorkerFinished();
    void handleProgressTick();

    QTimer *m_progressTimer = nullptr;
    QThread *m_thread = nullptr;
    std::shared_ptr<Run> m_run;
    qint64 m_reportedDone = -1;
    double m_reportedFraction = -1.0;
};

} // namespace RetryLab::Ui
