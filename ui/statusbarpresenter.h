#pragma once

#include <QObject>
#include <QString>

class QLabel;
class QStatusBar;
class QTimer;

namespace RetryLab::Core {
class ThreadedExecutor;
} // namespace RetryLab::Core

namespace RetryLab::Ui {

/// The window's status bar: the circuit breaker of each host (closed, OPEN,
/// half-open, polled while one is not closed, since an open breaker turns
/// half-open by time alone), the retry budget's tokens, the attempts in flight
/// and requests running, and the embedded server's address. Updates from the
/// executor's many signals are coalesced into one every 100 ms.
class StatusBarPresenter final : public QObject
{
    Q_OBJECT

public:
    /// Adds its fields to `bar`; `executor` is not owned and must outlive it.
    StatusBarPresenter(QStatusBar *bar, Core::ThreadedExecutor *executor, QObject *parent = nullptr);

    /// Updates within 100 ms, once however often it is asked.
    void scheduleUpdate();
    /// Updates now.
    void update();
    void setServer(const QString &text, const QString &toolTip = {});
    /// The seed of the last send; `drawn`: a fresh one rather than the composer's.
    void setSeed(quint64 seed, bool drawn);

Q_SIGNALS:
    /// After every update, for the parts of the window that show activity too.
    void updated(int attemptsInFlight, int requestsRunning);

private:
    Core::ThreadedExecutor *m_executor;
    QLabel *m_breakerStatus;
    QLabel *m_budgetStatus;
    QLabel *m_activityStatus;
    QLabel *m_serverStatus;
    QLabel *m_seedStatus;
    QTimer *m_updateTimer;
    QTimer *m_breakerPoll;
};

} // namespace RetryLab::Ui
