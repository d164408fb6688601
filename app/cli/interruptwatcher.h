#pragma once

#include <QObject>

namespace RetryLab::Cli {

/// Turns SIGINT, SIGTERM and SIGHUP into a Qt signal on the event loop, so that a
/// headless run stopped with Ctrl+C still prints and writes what it recorded.
/// A second interruption ends the process at once, as if nobody listened.
/// One watcher at a time; the default handlers come back when it goes.
class InterruptWatcher final : public QObject
{
    Q_OBJECT

public:
    explicit InterruptWatcher(QObject *parent = nullptr);
    ~InterruptWatcher() override;

    /// False when the handlers could not be installed (the run then simply cannot be interrupted gently).
    bool isActive() const { return m_active; }

Q_SIGNALS:
    void interrupted();

private:
    bool m_active = false;
};

} // namespace RetryLab::Cli
