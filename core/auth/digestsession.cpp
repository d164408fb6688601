#include "core/auth/digestsession.h"

#include "core/util/coretr.h"

#include <limits>
#include <utility>

namespace RetryLab::Core {

DigestSession::DigestSession(DigestChallenge challenge, QString username, QString password)
    : m_challenge(std::move(challenge)), m_username(std::move(username)), m_password(std::move(password))
{ }

Result<DigestSession> DigestSession::fromChallenge(
    const QList<QByteArray> &wwwAuthenticate, const QString &username, const QString &password)
{
    const Result<DigestChallenge> challenge = DigestAuth::challenge(wwwAuthenticate);
    if (!challenge)
        return challenge.errorDetail();
    return DigestSession(*challenge, username, password);
}

Result<QByteArray> DigestSession::authorize(
    QByteArrayView method, QByteArrayView requestTarget, QByteArrayView body, QByteArrayView cnonce)
{
    if (!isValid())
        return Result<QByteArray>::failure(Tr::tr("there is no Digest challenge to answer yet"));
    if (m_nonceCount == std::numeric_limits<quint32>::max())
        return Result<QByteArray>::failure(Tr::tr("the Digest nonce count is exhausted; a new challenge is needed"));
    const QByteArray clientNonce = cnonce.isEmpty() ? DigestAuth::randomCnonce() : cnonce.toByteArray();
    const Result<QByteArray> field = DigestAuth::authorization(
        m_challenge, m_username, m_password, method, requestTarget, clientNonce, m_nonceCount + 1, body);
    if (field)
        ++m_nonceCount;
    return field;
}

Result<bool> DigestSession::renew(const QList<QByteArray> &wwwAuthenticate)
{
    const Result<DigestChallenge> challenge = DigestAuth::challenge(wwwAuthenticate);
    if (!challenge)
        return challenge.errorDetail();
    m_challenge = *challenge;
    m_nonceCount = 0;
    return m_challenge.stale;
}

} // namespace RetryLab::Core
