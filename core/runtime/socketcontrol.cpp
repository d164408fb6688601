#include "core/runtime/socketcontrol.h"

#include <QAbstractSocket>
#include <QSslSocket>
#include <QTcpSocket>

#if defined(Q_OS_UNIX)
#include <cerrno>
#include <sys/socket.h>
#elif defined(Q_OS_WIN)
#include <winsock2.h>
#endif

namespace RetryLab::Core::SocketControl {

void reset(QAbstractSocket *socket)
{
    const qintptr fd = socket->socketDescriptor();
    if (fd >= 0) {
        struct linger option
        {
            1, 0
        };
#if defined(Q_OS_UNIX)
        ::setsockopt(static_cast<int>(fd), SOL_SOCKET, SO_LINGER, &option, sizeof option);
#elif defined(Q_OS_WIN)
        ::setsockopt(
            static_cast<SOCKET>(fd), SOL_SOCKET, SO_LINGER, reinterpret_cast<const char *>(&option), sizeof option);
#endif
    }
    socket->abort();
}

void shutdownWrite(QAbstractSocket *socket)
{
    const qintptr fd = socket->socketDescriptor();
    if (fd < 0)
        return;
#if defined(Q_OS_UNIX)
    ::shutdown(static_cast<int>(fd), SHUT_WR);
#elif defined(Q_OS_WIN)
    ::shutdown(static_cast<SOCKET>(fd), SD_SEND);
#endif
}

qint64 writeNow(QAbstractSocket *socket, QByteArrayView data)
{
#if defined(Q_OS_UNIX)
    const qintptr fd = socket->socketDescriptor();
    if (fd < 0 || data.isEmpty() || socket->state() != QAbstractSocket::ConnectedState || socket->bytesToWrite() > 0
        || qobject_cast<QSslSocket *>(socket))
        return 0;
    qint64 written = 0;
    while (written < data.size()) {
        const ssize_t n
            = ::send(static_cast<int>(fd), data.data() + written, size_t(data.size() - written), MSG_NOSIGNAL);
        if (n > 0) {
            written += n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        break; // full (EAGAIN) or failed: the socket takes the rest
    }
    return written;
#else
    Q_UNUSED(socket);
    Q_UNUSED(data);
    return 0;
#endif
}

bool isUnbuffered(const QAbstractSocket *socket)
{
    return socket && socket->socketType() == QAbstractSocket::TcpSocket
        && socket->openMode().testFlag(QIODevice::Unbuffered) && !qobject_cast<const QTcpSocket *>(socket);
}

} // namespace RetryLab::Core::SocketControl
