#pragma once

#include <QByteArrayView>
#include <QIODevice>
#include <QtGlobal>

QT_BEGIN_NAMESPACE
class QAbstractSocket;
QT_END_NAMESPACE

namespace RetryLab::Core {

/// What the fault server does to a socket below Qt's API: the faults that need
/// a reset instead of a close, and the half-close of a lingering connection.
/// Shared by the HTTP connections and the TLS handshake faults.
namespace SocketControl {

/// Closes the connection with RST instead of FIN (SO_LINGER with a zero
/// timeout), dropping whatever was not sent yet.
void reset(QAbstractSocket *socket);
/// Sends FIN but keeps the receiving side open.
void shutdownWrite(QAbstractSocket *socket);
/// Writes what the kernel takes of `data` now, past Qt's write buffer, and returns
/// how much that was; the caller writes the rest through the socket. Only for a
/// plain TCP socket with nothing of its own left to write (0 otherwise, and on an
/// error, which the socket then meets and reports itself). An answer that goes out
/// whole this way costs one system call, where the socket's way is a write
/// notifier turned on and off and, for an answer of less than a buffer chunk, a copy.
qint64 writeNow(QAbstractSocket *socket, QByteArrayView data);

/// The open mode of a TCP socket whose reads go from the kernel straight into the
/// caller's buffer: one system call a read. Only a bare QAbstractSocket of type
/// TcpSocket reads so; a QTcpSocket buffers whatever its mode (FIONREAD, a read into
/// its buffer and a copy out of it at every readable turn). Such a socket emits
/// readyRead() once per readable turn until read() is called, and shows its peer's
/// close only as a read() of -1, after which it is unconnected without having
/// emitted disconnected().
inline constexpr QIODevice::OpenMode unbufferedMode = QIODevice::ReadWrite | QIODevice::Unbuffered;
/// The socket reads as unbufferedMode says: a bare QAbstractSocket opened so.
bool isUnbuffered(const QAbstractSocket *socket);

} // namespace SocketControl

} // namespace RetryLab::Core
