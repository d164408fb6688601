#pragma once

#include "core/record/transportoptions.h"

#include <QSsl>
#include <QString>

class QSslCertificate;
class QSslConfiguration;

namespace RetryLab::Core {

/// What TLS an attempt used, in the words of the record (TlsDetails): read
/// from the reply's QSslConfiguration once the attempt is over, or from the
/// certificate a QSslError names when the handshake failed before Qt filled
/// the configuration in.
namespace TlsInspection {

/// "TLSv1.3", "TLSv1.2", as OpenSSL and curl print them; empty when unknown.
QString protocolName(QSsl::SslProtocol protocol);
/// "CN=localhost, O=RetryLab tests".
QString subjectOf(const QSslCertificate &certificate);
QString issuerOf(const QSslCertificate &certificate);

/// Fills the peer certificate's subject, issuer and validity (ISO 8601, UTC)
/// unless `details` already has a subject.
void notePeer(TlsDetails &details, const QSslCertificate &certificate);
/// Fills protocol and cipher (when `established`: the handshake completed)
/// and the peer certificate from a finished reply's configuration; the errors
/// already in `details` stay.
void noteSession(TlsDetails &details, const QSslConfiguration &session, bool established);

} // namespace TlsInspection

} // namespace RetryLab::Core
