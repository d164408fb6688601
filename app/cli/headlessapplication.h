#pragma once

#include <QCoreApplication>

namespace RetryLab::Cli {

/// The application of a command without windows. An allocation that fails in
/// an event handler, on any thread (under `ulimit -v`, a thousand attempts in
/// flight can ask for more than is left), does not abort the process: the
/// address space set aside at start (Core::MemoryLimit) is given back and the
/// command ends as an interruption ends it (InterruptWatcher), with what it
/// recorded printed and written.
class HeadlessApplication final : public QCoreApplication
{
public:
    /// Bytes of address space set aside when a limit is in force.
    static constexpr qint64 reserveBytes = 64LL * 1024 * 1024;

    HeadlessApplication(int &argc, char **argv);

    bool notify(QObject *receiver, QEvent *event) override;
};

} // namespace RetryLab::Cli
