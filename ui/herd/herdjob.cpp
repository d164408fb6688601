#include "ui/herd/herdjob.h"

#include "core/herd/herdsimulator.h"

#include <QElapsedTimer>
#include <QLoggingCategory>
#include <QThread>
#include <QTimer>

#include <optional>

namespace RetryLab::Ui {

namespace {
Q_LOGGING_CATEGORY(lcHerdJob, "retrylab.ui.herdjob", QtInfoMsg)
} // namespace

using namespace RetryLab::Core;

// Shared by the job and its worker thread: the worker writes the result and the
// time, the job reads them once the thread has finished.
struct HerdJob::Run
{
    HerdParameters parameters;
    HerdControl control;
    qint64 total = 0;
    std::optional<Result<HerdReport>> result;
    double seconds = 0.0;
};

HerdJob::HerdJob(QObject *parent) : QObject(parent)
{
    m_progressTimer = new QTimer(this);
    m_progressTimer->setInterval(33); // ~30 Hz: smooth enough, and no flood of repaints
    connect(m_progressTimer, &QTimer::timeout, this, &HerdJob::handleProgressTick);
}

HerdJob::~HerdJob()
{
    if (m_thread) {
        m_run->control.cancel();
        m_thread->wait();
        delete m_thread;
    }
}

bool HerdJob::isRunning() const
{
    return m_thread != nullptr;
}

Result<void> HerdJob::start(const HerdParameters &parameters)
{
    if (isRunning())
        return Result<void>::failure(tr("A simulation is already running."));

    m_run = std::make_shared<Run>();
    m_run->parameters = parameters;
    m_run->total = static_cast<qint64>(parameters.clientCounts.size()) * parameters.strategies.size() * parameters.runs;
    m_reportedDone = -1;
    m_reportedFraction = -1.0;

    const std::shared_ptr<Run> run = m_run;
    m_thread = QThread::create([run] {
        QElapsedTimer timer;
        timer.start();
        run->result = HerdSimulator::run(run->parameters, &run->control);
        run->seconds = static_cast<double>(timer.nsecsElapsed()) / 1e9;
    });
    m_thread->setObjectName(QStringLiteral("herd simulator"));
    connect(m_thread, &QThread::finished, this, &HerdJob::handleWorkerFinished);
    m_progressTimer->start();
    m_thread->start(QThread::LowPriority);
    qCDebug(lcHerdJob) << "started" << m_run->total << "runs";
    Q_EMIT started(m_run->total);
    return {};
}

void HerdJob::cancel()
{
    if (isRunning())
        m_run->control.cancel();
}

void HerdJob::handleProgressTick()
{
    if (!m_run)
        return;
    const qint64 done = m_run->control.runsDone();
    const double fraction = m_run->control.fractionDone();
    if (done == m_reportedDone && fraction == m_reportedFraction)
        return;
    m_reportedDone = done;
    m_reportedFraction = fraction;
    Q_EMIT progress(done, m_run->total, fraction);
}

void HerdJob::handleWorkerFinished()
{
    m_progressTimer->stop();
    handleProgressTick();
    const std::shared_ptr<Run> run = std::move(m_run);
    m_thread->deleteLater();
    m_thread = nullptr;
    if (!run)
        return;

    if (run->result && run->result->ok()) {
        qCDebug(lcHerdJob) << "finished in" << run->seconds << "s";
        Q_EMIT finished(std::move(*run->result).value(), run->seconds);
        return;
    }
    if (run->control.isCancelled()) {
        qCDebug(lcHerdJob) << "cancelled after" << run->control.runsDone() << "runs";
        Q_EMIT cancelled(run->control.runsDone(), run->total);
        return;
    }
    const QString message = run->result ? run->result->error() : tr("The simulation stopped without a result.");
    qCDebug(lcHerdJob) << "failed:" << message;
    Q_EMIT failed(message);
}

} // namespace RetryLab::Ui
