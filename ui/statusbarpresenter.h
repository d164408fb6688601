#pragma once

#include <QObject>
#include <QString>

class QLabel;
class QStatusBar;
class QTimer;

namespace RetryLab::Ui {

class RunSession;

/// The window's status bar: the circuit breaker of each host (closed, OPEN,
/// half-open, polled while one is not closed, since an open breaker turns
/// half-open by time alone), the retry budget's tokens, the attempts in flight
/// and requests running, and the embedded server's address. Updates from the
/// executor's many signals are coalesced into one every 100 ms. The breakers and
/// the budget are read from the session, as the statistics read them, so the two
/// never disagree.
class StatusBarPresenter final : public QObject
{
    Q_OBJECT

public:
    /// Adds its fields to `bar`. `session` is the live run's, attached to the executor
    /// whose activity and policy are shown; it is not owned and must outlive this.
    StatusBarPresenter(QStatusBar *bar, RunSession *session, QObject *parent = nullptr);

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
    RunSession *m_session;
    QLabel *m_breakerStatus;
    QLabel *m_budgetStatus;
    QLabel *m_activityStatus;
    QLabel *m_serverStatus;
    QLabel *m_seedStatus;
    QTimer *m_updateTimer;
    QTimer *m_breakerPoll;
};

} // namespace RetryLab::Ui
