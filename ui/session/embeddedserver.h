#pragma once

#include "core/faultserver/faultserver.h"

#include <QObject>
#include <QPointer>
#include <QString>
#include <QUrl>

class QThread;

namespace RetryLab::Ui {

/// The window's fault server, run in a worker thread of its own, so that a busy GUI
/// thread (a big repaint, filtering a million log rows) does not delay its answers and
/// distort the timings the window shows. Listening and closing happen on that thread,
/// as FaultServer requires; server() may be used from here for its thread-safe calls
/// (createTest, testStatus, reset, log, baseUrl).
class EmbeddedServer final : public QObject
{
    Q_OBJECT

public:
    explicit EmbeddedServer(QObject *parent = nullptr);
    ~EmbeddedServer() override;

    /// Starts the thread and listens; false with errorString() when it cannot
    /// (the port is taken, a non-loopback address, ...). Stops a running server first.
    bool start(const Core::FaultServerOptions &options = {});
    /// Closes every connection and ends the thread; waits until it has.
    void stop();

    bool isRunning() const { return m_server != nullptr; }
    QString errorString() const { return m_error; }
    /// Empty when not running.
    QUrl baseUrl() const;
    /// The server, or null when not running. Only its thread-safe members may be called.
    Core::FaultServer *server() const { return m_server; }

Q_SIGNALS:
    /// The server's requestHandled(), delivered on this object's thread.
    void requestHandled(const RetryLab::Core::ServerLogEntry &entry);
    void runningChanged(bool running);

private:
    QThread *m_thread = nullptr;
    QPointer<Core::FaultServer> m_server;
    QString m_error;
};

} // namespace RetryLab::Ui
