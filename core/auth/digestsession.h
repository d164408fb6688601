#pragma once

#include "core/auth/digestauth.h"

namespace RetryLab::Core {

/// The Digest state of one origin (or one request) between its requests: the
/// challenge answered, the credentials and the nonce count. The executor keeps
/// one: after a 401 with a Digest challenge it makes a session and sends the
/// same request again with authorize()'s field; later requests to the same
/// origin answer the same nonce with the count one higher, until a 401 with a
/// new challenge (stale=true: the credentials were right) starts over at 1.
class DigestSession final
{
public:
    DigestSession() = default;
    DigestSession(DigestChallenge challenge, QString username, QString password);

    /// A session answering the Digest challenge among `wwwAuthenticate` (see DigestAuth::challenge()).
    static Result<DigestSession> fromChallenge(
        const QList<QByteArray> &wwwAuthenticate, const QString &username, const QString &password);

    bool isValid() const { return !m_challenge.nonce.isEmpty(); }
    const DigestChallenge &challenge() const { return m_challenge; }
    /// The nonce count of the last field authorize() made; 0 before the first.
    quint32 nonceCount() const { return m_nonceCount; }

    /// The Authorization value for the next request, the nonce count one
    /// higher. `cnonce` empty: a random one (DigestAuth::randomCnonce()).
    Result<QByteArray> authorize(
        QByteArrayView method, QByteArrayView requestTarget, QByteArrayView body = {}, QByteArrayView cnonce = {});

    /// A later 401's challenge for the same credentials: the new nonce, the
    /// count back to 0. Returns whether the server only found the nonce stale
    /// (answer again) rather than the credentials wrong (do not).
    Result<bool> renew(const QList<QByteArray> &wwwAuthenticate);

private:
    DigestChallenge m_challenge;
    QString m_username;
    QString m_password;
    quint32 m_nonceCount = 0;
};

} // namespace RetryLab::Core
