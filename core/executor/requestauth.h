#pragma once

#include "core/auth/accesstoken.h"
#include "core/auth/authspec.h"
#include "core/auth/digestsession.h"
#include "core/executor/hoprequest.h"
#include "core/util/result.h"

#include <QByteArray>
#include <QDateTime>
#include <QHash>
#include <QString>

#include <optional>

namespace RetryLab::Core {

class Clock;

/// What one logical request's auth holds between its hops and attempts.
struct RequestAuthState
{
    /// The hop in flight is the token request that goes before the attempt's own.
    bool tokenHop = false;
    /// That token request spends a refresh token the cache kept (one the server gave).
    bool refreshFromCache = false;
    /// The attempt ended at its token request: the token endpoint's answer, not
    /// the resource's (its host's breaker and rate limits hear nothing of it).
    bool tokenFailed = false;
    /// The access token the attempt's request carries, and where it came from.
    QByteArray accessToken;
    bool tokenFromCache = false;
    /// A 401 already led to a fresh token once: a second one is the answer.
    bool refreshedAfterRejection = false;
    /// The cache's key of the request's auth (empty until a token is needed).
    QByteArray tokenKey;
    /// Why the attempt's auth failed (no token, a challenge that cannot be
    /// answered), for its reason; empty when it did not.
    QString problem;
    /// Digest: the challenge answered, kept for the request's later attempts.
    std::optional<DigestSession> digest;
    /// Digest: the server's challenge was answered within this attempt.
    bool challengeAnswered = false;
};

/// The auth of a request (RequestSpec::auth) applied to each of its attempts:
/// Basic, Bearer and API keys added as the request does not set them itself,
/// AWS Signature Version 4 computed afresh for every attempt (its time is part
/// of it), a Digest challenge answered within the attempt, and the access
/// tokens of OAuth 2.0 and Google service accounts fetched by a hop of their own
/// before the request, kept until shortly before they expire, and dropped when
/// the server rejects one with a 401 (the request then gets a fresh one, once).
///
/// One per AttemptTransport: its token cache is the executor's, shared by the
/// requests with the same auth.
class RequestAuth final
{
public:
    /// A cached token is renewed this long before it expires, or at a tenth of
    /// its life when that is shorter.
    static constexpr qint64 renewMarginNs = 60'000'000'000LL;

    explicit RequestAuth(const Clock &clock) : m_clock(clock) { }

    /// Called whenever a token fetch ends, well or not: the requests waiting for
    /// it (awaitsToken()) may go on.
    void setFetchEnded(std::function<void()> ended) { m_fetchEnded = std::move(ended); }
    /// Whether a request with this auth should wait rather than fetch a token
    /// itself: another attempt is fetching the same one now, and the cache holds
    /// none that is usable. One token request for a batch, not one per request.
    bool awaitsToken(const AuthSpec &auth, RequestAuthState &state);
    /// The attempt's token request ended without a token, or was cut: others may fetch.
    void abandonFetch(RequestAuthState &state);

    /// Why `request` cannot be sent with this auth at all (a field it needs is
    /// empty, the token URL is no http or https URL, a signature that cannot be
    /// made); empty when it can.
    static QString check(const AuthSpec &auth, const HopRequest &request);
    /// The token request to send before the attempt's own, when its auth needs
    /// a token that the cache does not hold (or holds about to expire); nothing
    /// otherwise.
    std::optional<HopRequest> tokenRequest(const AuthSpec &auth, RequestAuthState &state);
    /// The token request was answered: the token is cached; the problem (an
    /// error answer, no access_token) otherwise, said plainly.
    QString takeToken(
        const AuthSpec &auth, RequestAuthState &state, int status, const HeaderList &headers, const QByteArray &body);
    /// Adds what the auth sends to `hop`: a header the request does not set
    /// itself, a query parameter, a signature. Empty, or the problem.
    QString apply(const AuthSpec &auth, RequestAuthState &state, HopRequest &hop) const;
    /// The attempt got 401 with a Digest challenge (`wwwAuthenticate`, every
    /// field): the request answering it, to send within the attempt; nothing
    /// when the auth is not Digest, the challenge was answered already and the
    /// server refused the credentials (state.problem says so), or the challenge
    /// cannot be answered (an algorithm RetryLab does not know; state.problem).
    std::optional<HopRequest> answerChallenge(const AuthSpec &auth, RequestAuthState &state, const HopRequest &current,
        const QList<QByteArray> &wwwAuthenticate) const;
    /// The attempt got 401 with the token the cache gave it: the token is
    /// forgotten and true returned when the request may fetch a fresh one and
    /// try again (once per request).
    bool rejectToken(const AuthSpec &auth, RequestAuthState &state);

    /// The tokens cached now (for tests and the inspector).
    qsizetype cachedTokens() const { return m_tokens.size(); }

private:
    struct CachedToken
    {
        AccessToken token;
        qint64 marginNs = RequestAuth::renewMarginNs; ///< fetched again this long before it expires
    };

    static QByteArray keyOf(const AuthSpec &auth);
    bool usableCached(const QByteArray &key) const;
    void endFetch(const QByteArray &key);

    const Clock &m_clock;
    QHash<QByteArray, CachedToken> m_tokens;
    QHash<QByteArray, qint64> m_fetchStartNs; ///< the keys being fetched now, and when their request went out
    std::function<void()> m_fetchEnded;
};

} // namespace RetryLab::Core
