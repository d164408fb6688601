#include "core/proxy/loopbackendpoint.h"

#include "core/http/httpheaders.h"
#include "core/util/coretr.h"

#include <QTcpServer>
#include <QTcpSocket>

#include <memory>

namespace RetryLab::Core {

LoopbackEndpoint::LoopbackEndpoint(QString name, Handler handler, ErrorAnswer errorAnswer, QObject *parent)
    : QObject(parent), m_name(std::move(name)), m_handler(std::move(handler)), m_errorAnswer(std::move(errorAnswer)),
      m_tcp(new QTcpServer(this))
{
    connect(m_tcp, &QTcpServer::newConnection, this, [this] {
        while (QTcpSocket *socket = m_tcp->nextPendingConnection()) {
            socket->setParent(this);
            auto parser = std::make_shared<HttpRequestParser>();
            connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            connect(socket, &QTcpSocket::readyRead, socket, [this, socket, parser] { serve(socket, parser.get()); });
        }
    });
}

LoopbackEndpoint::~LoopbackEndpoint() = default;

void LoopbackEndpoint::serve(QTcpSocket *socket, HttpRequestParser *parser)
{
    HttpRequestParser::Status status = parser->feed(socket->readAll());
    while (status != HttpRequestParser::Status::NeedMore) {
        const bool failed = status == HttpRequestParser::Status::Error;
        const HttpRequest request = failed ? HttpRequest() : parser->takeRequest();
        const Answer answer = failed ? m_errorAnswer(parser->errorStatus(), parser->errorString()) : m_handler(request);
        const bool keepAlive = !failed && request.keepAlive;
        QByteArray head = "HTTP/1.1 " + QByteArray::number(answer.status) + ' ' + reasonPhrase(answer.status) + "\r\n";
        if (answer.status != 204) {
            head += "Content-Type: " + answer.contentType
                + "\r\nContent-Length: " + QByteArray::number(answer.body.size()) + "\r\n";
        }
        head += keepAlive ? "\r\n" : "Connection: close\r\n\r\n";
        socket->write(head + (answer.status == 204 ? QByteArray() : answer.body));
        if (!keepAlive) {
            QObject::disconnect(socket, &QTcpSocket::readyRead, nullptr, nullptr);
            socket->disconnectFromHost();
            return;
        }
        status = parser->next();
    }
}

bool LoopbackEndpoint::listen(const QHostAddress &address, quint16 port)
{
    close();
    if (!address.isLoopback()) {
        m_error = Tr::tr("%1 listens on loopback only, not on %2").arg(m_name, address.toString());
        return false;
    }
    if (!m_tcp->listen(address, port)) {
        m_error = Tr::tr("cannot listen on %1:%2: %3").arg(address.toString()).arg(port).arg(m_tcp->errorString());
        return false;
    }
    m_error.clear();
    return true;
}

void LoopbackEndpoint::close()
{
    if (m_tcp->isListening())
        m_tcp->close();
}

bool LoopbackEndpoint::isListening() const
{
    return m_tcp->isListening();
}

QUrl LoopbackEndpoint::url() const
{
    if (!m_tcp->isListening())
        return {};
    QUrl url;
    url.setScheme(QStringLiteral("http"));
    url.setHost(m_tcp->serverAddress().toString());
    url.setPort(m_tcp->serverPort());
    return url;
}

} // namespace RetryLab::Core
