#pragma once

#include "core/http/serverlogentry.h"

#include <QObject>
#include <QString>
#include <QThread>
#include <QUrl>

namespace RetryLab::Core {
class ReplayServer;
} // namespace RetryLab::Core

namespace RetryLab::Ui {

/// The window's second embedded server: a recording (made by the Proxy tab or
/// retrylab proxy --record) served back by a Core::ReplayServer on a thread of
/// its own, so that the window's drawing does not change the recorded timing.
class ReplayInstance final : public QObject
{
    Q_OBJECT

public:
    explicit ReplayInstance(QObject *parent = nullptr);
    ~ReplayInstance() override;

    /// Reads the recording in `directory` and serves it on a free loopback port;
    /// false with errorString() (a folder that is no recording, a bad line).
    bool start(const QString &directory, bool recordedTiming = true);
    void stop();
    bool isRunning() const { return m_server != nullptr; }
    QString errorString() const { return m_error; }
    QUrl baseUrl() const { return m_baseUrl; }
    QString directory() const { return m_directory; }
    int recordedCount() const { return m_recorded; }

Q_SIGNALS:
    /// One per request answered, on this object's thread.
    void requestHandled(const RetryLab::Core::ServerLogEntry &entry);
    void runningChanged(bool running);

private:
    QThread m_thread;
    Core::ReplayServer *m_server = nullptr; ///< lives in m_thread while running
    QString m_error;
    QUrl m_baseUrl;
    QString m_directory;
    int m_recorded = 0;
};

} // namespace RetryLab::Ui
