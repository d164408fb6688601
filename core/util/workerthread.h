#pragma once

#include <QObject>
#include <QThread>

#include <functional>

namespace RetryLab::Core {

/// Starts `thread` with Qt's own event dispatcher rather than GLib's, then runs
/// `ready` on it through `resident` (an object already moved to it) and waits for
/// it: the thread makes its dispatcher as it starts, so the choice holds once
/// `ready` has run. `ready` must not start another thread this way.
///
/// GLib's loop, Qt's default for threads on Linux, costs more per turn: it
/// gathers and sorts its sources and wakes itself through an eventfd several times
/// per event, and a thread polling a thousand sockets (the fault server under a
/// batch) or waking for a thousand timers (the executor) pays that at every turn.
/// The window's own thread keeps GLib, which the desktop integration needs. A user
/// who set QT_NO_THREADED_GLIB keeps that setting.
void startWithQtDispatcher(QThread &thread, QObject *resident, const std::function<void()> &ready);

} // namespace RetryLab::Core
