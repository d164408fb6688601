#pragma once

#include <QObject>

namespace RetryLab::Cli {

/// Turns SIGINT, SIGTERM and SIGHUP into a Qt signal on the event loop, so that a
/// headless run stopped with Ctrl+C still prints and writes what it recorded.
/// A second interruption ends the process at once, as if nobody listened.
/// One watcher at a time; the default handlers come back when it goes. An
/// allocation that fails interrupts it too (HeadlessApplication).
class InterruptWatcher final : public QObject
{
    Q_OBJECT

public:
    explicit InterruptWatcher(QObject *parent = nullptr);
    ~InterruptWatcher() override;

    /// False when the handlers could not be installed (the run then simply cannot be interrupted gently).
    bool isActive() const { return m_active; }
    /// Whether the interruption is an allocation that failed (noteOutOfMemory), not a signal.
    bool outOfMemory() const { return m_outOfMemory; }

    /// An allocation failed on some thread: the watcher, if there is one, interrupts
    /// the command as a signal would, and says so with outOfMemory(). Allocates nothing.
    static void noteOutOfMemory();

Q_SIGNALS:
    void interrupted();

private:
    bool m_active = false;
    bool m_outOfMemory = false;
};

} // namespace RetryLab::Cli
