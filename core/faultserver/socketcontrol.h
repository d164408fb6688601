#pragma once

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

} // namespace SocketControl

} // namespace RetryLab::Core
