#include "core/executor/tlsinspection.h"

#include <QSslCertificate>
#include <QSslCipher>
#include <QSslConfiguration>
#include <QStringList>

namespace RetryLab::Core::TlsInspection {

namespace {

QString distinguishedName(const QSslCertificate &certificate, bool issuer)
{
    QStringList parts;
    const QList<QByteArray> attributes
        = issuer ? certificate.issuerInfoAttributes() : certificate.subjectInfoAttributes();
    for (const QByteArray &attribute : attributes) {
        const QStringList values = issuer ? certificate.issuerInfo(attribute) : certificate.subjectInfo(attribute);
        for (const QString &value : values)
            parts.append(QString::fromLatin1(attribute) + QLatin1Char('=') + value);
    }
    return parts.join(QStringLiteral(", "));
}

QString utc(const QDateTime &time)
{
    return time.isValid() ? time.toUTC().toString(Qt::ISODate) : QString();
}

} // namespace

QString protocolName(QSsl::SslProtocol protocol)
{
    // Qt 6 negotiates nothing older than TLS 1.2 by default; older versions read as unknown.
    if (protocol == QSsl::TlsV1_3)
        return QStringLiteral("TLSv1.3");
    if (protocol == QSsl::TlsV1_2)
        return QStringLiteral("TLSv1.2");
    return {};
}

QString subjectOf(const QSslCertificate &certificate)
{
    return distinguishedName(certificate, false);
}

QString issuerOf(const QSslCertificate &certificate)
{
    return distinguishedName(certificate, true);
}

void notePeer(TlsDetails &details, const QSslCertificate &certificate)
{
    if (certificate.isNull() || !details.peerSubject.isEmpty())
        return;
    details.peerSubject = subjectOf(certificate);
    details.peerIssuer = issuerOf(certificate);
    details.peerNotBefore = utc(certificate.effectiveDate());
    details.peerNotAfter = utc(certificate.expiryDate());
}

void noteSession(TlsDetails &details, const QSslConfiguration &session, bool established)
{
    const QString protocol = protocolName(session.sessionProtocol());
    if (established && !protocol.isEmpty()) {
        details.protocol = protocol;
        details.cipher = session.sessionCipher().name();
    }
    notePeer(details, session.peerCertificate());
}

} // namespace RetryLab::Core::TlsInspection
