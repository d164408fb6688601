#pragma once

#include "core/runner/collectionrunner.h"
#include "core/runner/runcollection.h"
#include "core/util/result.h"

#include <QObject>
#include <QString>

class QThread;

namespace RetryLab::Ui {

/// Runs a collection (CollectionRunner, the runner of `retrylab run`) on a
/// thread of its own, so that the window stays responsive while its requests,
/// scripts and retries go on. Made and used on the window's thread; every signal
/// arrives there.
///
/// The runner is made on the host's thread, where its script engine and its
/// executor must live. One run at a time: start() while a run goes on is
/// refused with the reason. stop() cancels the request in flight and finished()
/// follows with what ran. The destructor ends a run without waiting for its
/// answer and stops the thread.
class CollectionRunHost final : public QObject
{
    Q_OBJECT

public:
    explicit CollectionRunHost(QObject *parent = nullptr);
    ~CollectionRunHost() override;

    /// Starts running `collection`; started() follows at once. The error says why not.
    Core::Result<void> start(const Core::RunCollection &collection, const Core::CollectionRunOptions &options);
    /// Ends the run after cancelling the request in flight; finished() still follows.
    void stop();
    bool isRunning() const { return m_running; }
    /// The requests the run will send when no script changes the order: its
    /// selection's times its iterations. 0 before the first run.
    int plannedRequests() const { return m_planned; }

Q_SIGNALS:
    void started(const QString &collectionName, int plannedRequests, int iterations);
    void requestStarted(int index, const QString &path, int iteration);
    void requestFinished(const RetryLab::Core::CollectionRequestRun &run);
    void finished(const RetryLab::Core::CollectionRunResult &result);

private:
    void handleFinished(const Core::CollectionRunResult &result);

    QThread *m_thread;
    /// Lives on m_thread: the runner of a run is its child, made and deleted there.
    QObject *m_context;
    bool m_running = false;
    int m_planned = 0;
};

} // namespace RetryLab::Ui
