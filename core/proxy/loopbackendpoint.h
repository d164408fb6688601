#pragma once

#include "core/http/httprequestparser.h"

#include <QByteArray>
#include <QHostAddress>
#include <QObject>
#include <QString>
#include <QUrl>

#include <functional>

QT_BEGIN_NAMESPACE
class QTcpServer;
class QTcpSocket;
QT_END_NAMESPACE

namespace RetryLab::Core {

/// The small HTTP/1.1 server of a control API on loopback (the proxy's control
/// port, toxiproxy's API): it listens on loopback only, reads requests in
/// order on each connection (kept alive while the client asks), and writes what
/// the handler answers. What a request means is the handler's business.
class LoopbackEndpoint final : public QObject
{
    Q_OBJECT

public:
    struct Answer
    {
        int status = 200;
        QByteArray body; ///< not sent with 204
        QByteArray contentType = "application/json";
    };
    using Handler = std::function<Answer(const HttpRequest &request)>;
    /// The answer to a request that does not parse (a status of the parser's, its words).
    using ErrorAnswer = std::function<Answer(int status, const QString &message)>;

    /// `name` says what listens, in errors: "the control port".
    LoopbackEndpoint(QString name, Handler handler, ErrorAnswer errorAnswer, QObject *parent = nullptr);
    ~LoopbackEndpoint() override;

    /// Listens on a loopback address only; false with errorString() otherwise.
    bool listen(const QHostAddress &address, quint16 port);
    void close();
    bool isListening() const;
    QString errorString() const { return m_error; }
    /// "http://127.0.0.1:PORT"; empty while not listening.
    QUrl url() const;

private:
    void serve(QTcpSocket *socket, HttpRequestParser *parser);

    QString m_name;
    Handler m_handler;
    ErrorAnswer m_errorAnswer;
    QTcpServer *m_tcp;
    QString m_error;
};

} // namespace RetryLab::Core
