#pragma once

#include "core/faultserver/faultserver.h"

#include <QMutex>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QUrl>

#include <optional>
#include <vector>

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
    /// CAs kept in caFilePath(): this server's and those of other windows.
    static constexpr int maxTrustedCas = 8;

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
    /// The options of the last start().
    Core::FaultServerOptions options() const { return m_options; }

    /// Turns HTTPS on (on `port`, 0: a free one) or off (nothing) by starting the
    /// server again on the same HTTP port, so that {server} keeps its address.
    /// When that fails the server is started as it was and errorString() says why.
    bool setHttpsPort(std::optional<quint16> port);
    /// The HTTPS port presents the user's certificate (PEM, then its chain) and
    /// key (decrypted with `passphrase`); both empty: one made at each start.
    /// Applied by starting again as setHttpsPort() does; a file that cannot be
    /// used is named in errorString() and the server runs as before.
    bool setHttpsCertificate(const QString &certificateFile, const QString &keyFile, const QByteArray &passphrase);
    /// Starts as start() does, but HTTPS never keeps the server from serving
    /// HTTP: when the options' certificate cannot be used it starts with one made
    /// for it, and when HTTPS cannot start at all (its port taken) it starts
    /// without; httpsProblem() then says what went wrong.
    bool startPreferringHttp(const Core::FaultServerOptions &options);
    /// Why the last startPreferringHttp() gave up the user's certificate or HTTPS; empty when it did not.
    QString httpsProblem() const { return m_httpsProblem; }
    /// "https://127.0.0.1:PORT"; empty while HTTPS is off.
    QUrl httpsBaseUrl() const;
    /// A file holding the CA certificates a client needs to trust the HTTPS port
    /// (FaultServer::trustAnchorsPem()), written at every start with HTTPS to the
    /// same path, so that a request trusting it keeps working across restarts,
    /// whose certificates are new each time. The CAs of other windows running
    /// at the same time stay in it (at most maxTrustedCas, none expired). Empty
    /// while HTTPS is off or when the file could not be written (caFileError()
    /// says why).
    QString caFilePath() const { return m_caFile; }
    QString caFileError() const { return m_caFileError; }
    /// Where caFilePath() is written (the application's data directory).
    static QString defaultCaFilePath();

Q_SIGNALS:
    /// The server's requestHandled(), delivered on this object's thread.
    void requestHandled(const RetryLab::Core::ServerLogEntry &entry);
    void runningChanged(bool running);
    /// stop() is about to close the server and end its thread: what lives on
    /// that thread (an observer) must leave now.
    void aboutToStop();

private:
    /// On this object's thread: emits requestHandled() for each entry relayed so far.
    void deliverHandled();

    QThread *m_thread = nullptr;
    /// Entries the server's thread has handed over and this thread not taken yet: one
    /// event takes them all, so a batch's thousands of requests do not each post one.
    QMutex m_relayMutex;
    std::vector<Core::ServerLogEntry> m_relayed;
    void writeCaFile();

    QPointer<Core::FaultServer> m_server;
    Core::FaultServerOptions m_options;
    QString m_error;
    QString m_caFile;
    QString m_caFileError;
    QString m_httpsProblem;
};

} // namespace RetryLab::Ui
