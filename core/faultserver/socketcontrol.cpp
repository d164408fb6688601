#include "core/faultserver/socketcontrol.h"

#include <QAbstractSocket>

#if defined(Q_OS_UNIX)
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

} // namespace RetryLab::Core::SocketControl
