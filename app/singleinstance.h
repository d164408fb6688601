#pragma once

#include <QByteArray>
#include <QObject>
#include <QString>

class QLocalServer;
class QLocalSocket;

namespace RetryLab::App {

/// One window per user and data folder. The first `retrylab` listens on a local
/// socket named after both; a later one hands what it was asked (files to open,
/// an action) to that window and exits, instead of starting a second embedded
/// server and a second set of monitors writing the same history.
class SingleInstance final : public QObject
{
    Q_OBJECT

public:
    explicit SingleInstance(QObject *parent = nullptr);
    ~SingleInstance() override;

    /// The socket's name: the user's id and a digest of the folder the window keeps
    /// its data in (QStandardPaths::AppDataLocation), so that a window run with
    /// other data (XDG_DATA_HOME) is a window of its own.
    static QString serverName();

    /// Gives `message` to the window already running and waits for it to be taken;
    /// false when no window listens (or it did not answer within `timeoutMs`).
    static bool handOver(const QByteArray &message, int timeoutMs = 5000);

    /// Listens for later instances, replacing a socket left by one that crashed;
    /// false, with errorString(), when it cannot (the window runs anyway).
    bool listen();
    QString errorString() const { return m_error; }

    /// The most a message may hold; a longer one is dropped with its connection.
    static constexpr qint64 maxMessageBytes = 1024 * 1024;

Q_SIGNALS:
    /// A later instance's message, once per connection.
    void messageReceived(const QByteArray &message);

private:
    void handleNewConnection();
    void handleReadyRead(QLocalSocket *socket);

    QLocalServer *m_server;
    QString m_error;
};

} // namespace RetryLab::App
