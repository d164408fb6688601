#include "app/singleinstance.h"

#include <QCryptographicHash>
#include <QLocalServer>
#include <QLocalSocket>
#include <QLoggingCategory>
#include <QStandardPaths>

#include <unistd.h>

namespace {
Q_LOGGING_CATEGORY(lcSingleInstance, "retrylab.app.singleinstance", QtInfoMsg)
} // namespace

namespace RetryLab::App {

// A message is one line: the JSON of the request, then '\n'; the window answers "ok\n".
namespace {
constexpr char messageEnd = '\n';
const QByteArray acknowledgement = QByteArrayLiteral("ok\n");
} // namespace

SingleInstance::SingleInstance(QObject *parent) : QObject(parent), m_server(new QLocalServer(this))
{
    // Only the user's own processes may talk to the window.
    m_server->setSocketOptions(QLocalServer::UserAccessOption);
    connect(m_server, &QLocalServer::newConnection, this, &SingleInstance::handleNewConnection);
}

SingleInstance::~SingleInstance() = default;

QString SingleInstance::serverName()
{
    const QString data = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    const QByteArray digest = QCryptographicHash::hash(data.toUtf8(), QCryptographicHash::Sha256).toHex().left(16);
    return QStringLiteral("retrylab-%1-%2").arg(::getuid()).arg(QString::fromLatin1(digest));
}

bool SingleInstance::handOver(const QByteArray &message, int timeoutMs)
{
    QLocalSocket socket;
    socket.connectToServer(serverName());
    if (!socket.waitForConnected(timeoutMs))
        return false;
    socket.write(message);
    socket.write(&messageEnd, 1);
    if (!socket.waitForBytesWritten(timeoutMs))
        return false;
    QByteArray answer;
    while (answer.size() < acknowledgement.size() && socket.waitForReadyRead(timeoutMs))
        answer += socket.readAll();
    qCDebug(lcSingleInstance) << "handed over to" << serverName() << "answer" << answer;
    return answer.startsWith(acknowledgement);
}

bool SingleInstance::listen()
{
    const QString name = serverName();
    if (m_server->listen(name))
        return true;
    if (m_server->serverError() == QAbstractSocket::AddressInUseError) {
        // Nobody answered on it (handOver() failed first): a socket file left behind.
        QLocalServer::removeServer(name);
        if (m_server->listen(name))
            return true;
    }
    m_error = m_server->errorString();
    qCWarning(lcSingleInstance) << "cannot listen on" << name << ":" << m_error;
    return false;
}

void SingleInstance::handleNewConnection()
{
    while (QLocalSocket *socket = m_server->nextPendingConnection()) {
        connect(socket, &QLocalSocket::disconnected, socket, &QObject::deleteLater);
        connect(socket, &QLocalSocket::readyRead, this, [this, socket] { handleReadyRead(socket); });
        if (socket->bytesAvailable() > 0)
            handleReadyRead(socket);
    }
}

void SingleInstance::handleReadyRead(QLocalSocket *socket)
{
    if (socket->bytesAvailable() > maxMessageBytes) {
        socket->abort();
        return;
    }
    if (!socket->canReadLine())
        return;
    QByteArray message = socket->readLine(maxMessageBytes);
    message.chop(1);
    socket->write(acknowledgement);
    socket->disconnectFromServer();
    Q_EMIT messageReceived(message);
}

} // namespace RetryLab::App
