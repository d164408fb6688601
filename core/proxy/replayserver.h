#pragma once

#include "core/http/httprequestparser.h"
#include "core/http/serverlogentry.h"
#include "core/proxy/recording.h"

#include <QHostAddress>
#include <QObject>
#include <QUrl>

QT_BEGIN_NAMESPACE
class QTcpServer;
QT_END_NAMESPACE

namespace RetryLab::Core {

/// Serves a Recording back over HTTP/1.1 on loopback, offline: each request gets
/// the answer recorded for its method, path, query and body (in turn, when
/// several were), after the time the service took to start answering unless
/// told otherwise, with "X-RetryLab-Replay: recorded". A request nothing was
/// recorded for gets 404 with "X-RetryLab-Replay: not-recorded" and a body that
/// names what was asked and what was recorded for that path. Faults go on top
/// by a ProxyServer in front (retrylab serve --replay does that).
class ReplayServer final : public QObject
{
    Q_OBJECT

public:
    struct Options
    {
        QHostAddress address = QHostAddress(QHostAddress::LocalHost);
        quint16 port = 0;
        bool allowNonLoopback = false;
        /// Wait the recorded time to the first byte before answering.
        bool recordedTiming = true;
    };

    ReplayServer(Recording recording, const Options &options, QObject *parent = nullptr);
    ~ReplayServer() override;

    bool listen();
    void close();
    QString errorString() const { return m_error; }
    /// "http://127.0.0.1:PORT".
    QUrl baseUrl() const;
    const Recording &recording() const { return m_recording; }
    quint64 answered() const { return m_answered; }
    quint64 notRecordedCount() const { return m_notRecorded; }

Q_SIGNALS:
    /// One per request answered: action "replayed" or "not-recorded".
    void requestHandled(const RetryLab::Core::ServerLogEntry &entry);

private:
    friend class ReplayConnection;
    /// The answer to a request and how long to wait before it.
    QByteArray answer(const HttpRequest &request, double *delayMs, ServerLogEntry &entry);

    Recording m_recording;
    Options m_options;
    QTcpServer *m_tcp;
    QString m_error;
    quint64 m_answered = 0;
    quint64 m_notRecorded = 0;
    quint64 m_sequence = 0;
};

} // namespace RetryLab::Core
