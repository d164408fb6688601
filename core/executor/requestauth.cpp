#include "core/executor/requestauth.h"

#include "core/auth/accesstoken.h"
#include "core/auth/authjson.h"
#include "core/auth/awssigv4.h"
#include "core/auth/digestauth.h"
#include "core/auth/serviceaccountkey.h"
#include "core/auth/tokenrequest.h"
#include "core/auth/tokenresponse.h"
#include "core/util/clock.h"
#include "core/util/coretr.h"

#include <QCryptographicHash>
#include <QUrlQuery>

namespace RetryLab::Core {

namespace {

bool hasHeaderNamed(const HeaderList &headers, QByteArrayView name)
{
    return std::any_of(headers.cbegin(), headers.cend(),
        [name](const auto &h) { return h.first.compare(name, Qt::CaseInsensitive) == 0; });
}

void addHeaderUnlessSet(HeaderList &headers, const QByteArray &name, const QByteArray &value)
{
    if (!hasHeaderNamed(headers, name))
        headers.append({name, value});
}

QByteArray basicCredentials(const QString &user, const QString &password)
{
    return "Basic " + (user + QLatin1Char(':') + password).toUtf8().toBase64();
}

} // namespace

QByteArray RequestAuth::keyOf(const AuthSpec &auth)
{
    // Everything that decides which token the server gives; the secrets only hashed with the rest.
    QCryptographicHash hash(QCryptographicHash::Sha256);
    hash.addData(AuthSpec::kindName(auth.kind).toUtf8());
    AuthSpec copy = auth;
    copy.forEachText([&hash](QString &text) {
        hash.addData(QByteArray::number(text.size()));
        hash.addData(":");
        hash.addData(text.toUtf8());
    });
    hash.addData(auth.clientAuth == AuthSpec::ClientAuth::Body ? "b" : "h");
    return hash.result();
}

QString RequestAuth::check(const AuthSpec &auth, const HopRequest &request)
{
    if (const QString problem = AuthJson::problem(auth); !problem.isEmpty())
        return problem;
    if (auth.kind == AuthSpec::Kind::AwsSigV4) {
        // What would refuse every attempt's signature is said before the first.
        AwsSigV4Request trial;
        trial.method = request.method;
        trial.url = request.url;
        trial.headers = request.headers;
        trial.body = request.body;
        if (auto signature = AwsSigV4::sign(trial, auth, QDateTime::currentDateTimeUtc()); !signature)
            return signature.error();
    }
    if (auth.kind == AuthSpec::Kind::OAuth2ClientCredentials || auth.kind == AuthSpec::Kind::OAuth2RefreshToken
        || auth.kind == AuthSpec::Kind::OAuth2AuthorizationCode) {
        const QUrl url(auth.tokenUrl, QUrl::StrictMode);
        if (!url.isValid() || url.host().isEmpty()
            || (url.scheme() != QLatin1String("http") && url.scheme() != QLatin1String("https")))
            return Tr::tr("the token URL is not an http or https URL");
    }
    if (auth.kind == AuthSpec::Kind::OAuth2AuthorizationCode) {
        return Tr::tr("the authorization code flow needs a person at a browser: get the tokens in the window's Auth "
                      "tab, then send with their refresh token");
    }
    if (auth.kind == AuthSpec::Kind::GoogleServiceAccount) {
        // The key file is read now, so that a malformed one is said before any attempt.
        if (auto key = ServiceAccountKey::read(auth.keyFile); !key)
            return key.error();
    }
    return {};
}

std::optional<HopRequest> RequestAuth::tokenRequest(const AuthSpec &auth, RequestAuthState &state)
{
    state.tokenHop = false;
    state.accessToken.clear();
    state.tokenFromCache = false;
    if (!auth.needsToken())
        return std::nullopt;
    if (state.tokenKey.isEmpty())
        state.tokenKey = keyOf(auth);
    const auto cached = m_tokens.constFind(state.tokenKey);
    if (usableCached(state.tokenKey)) {
        state.accessToken = cached->token.authorizationValue();
        state.tokenFromCache = true;
        return std::nullopt;
    }
    // A refresh token the server rotated, or gave with the token, is used from then on.
    state.refreshFromCache = cached != m_tokens.cend() && !cached->token.refreshToken.isEmpty()
        && auth.kind != AuthSpec::Kind::GoogleServiceAccount;
    Result<TokenRequest> request = state.refreshFromCache ? TokenRequest::refresh(auth, cached->token.refreshToken)
                                                          : TokenRequest::forAuth(auth, m_clock.wallTime());
    if (!request) {
        // A key file that no longer reads, say: the attempt fails saying so.
        state.problem = request.error();
        return std::nullopt;
    }

    HopRequest hop;
    hop.method = request->method;
    hop.url = request->url;
    hop.headers = request->headers;
    hop.body = request->body;
    state.tokenHop = true;
    m_fetchStartNs.insert(state.tokenKey, m_clock.nowNs());
    return hop;
}

QString RequestAuth::takeToken(
    const AuthSpec &auth, RequestAuthState &state, int status, const HeaderList &headers, const QByteArray &body)
{
    Q_UNUSED(headers)
    state.tokenHop = false;
    const Result<TokenResponse> response = TokenResponse::parse(status, body);
    if (!response) {
        // A refresh token the server no longer takes is forgotten: the next attempt asks
        // with the auth's own grant (its own refresh token, its client credentials).
        if (state.refreshFromCache && status >= 400 && status < 500)
            m_tokens.remove(state.tokenKey);
        endFetch(state.tokenKey);
        // Its words name the status and the OAuth error, never the body.
        return response.errorDetail().message;
    }
    if (state.tokenKey.isEmpty())
        state.tokenKey = keyOf(auth);
    // expires_in counts from the answer; the request's start is the safe side of it.
    const qint64 fetchedNs = m_fetchStartNs.value(state.tokenKey);
    const qint64 now = m_clock.nowNs();
    const QDateTime wall = m_clock.wallTime().addMSecs(-(now - (fetchedNs > 0 ? fetchedNs : now)) / 1'000'000);
    CachedToken cached;
    cached.token = AccessToken::fromResponse(*response, fetchedNs > 0 ? fetchedNs : now, wall);
    if (cached.token.refreshToken.isEmpty()) {
        // The refresh grant may answer without one: the one it was given stays good.
        if (const auto earlier = m_tokens.constFind(state.tokenKey); earlier != m_tokens.cend())
            cached.token.refreshToken = earlier->token.refreshToken;
    }
    // Renewed a minute before it expires, or at a tenth of its life when that is shorter.
    if (cached.token.expiresAtNs)
        cached.marginNs = std::min(renewMarginNs, (*cached.token.expiresAtNs - (fetchedNs > 0 ? fetchedNs : now)) / 10);
    m_tokens.insert(state.tokenKey, cached);
    state.accessToken = cached.token.authorizationValue();
    state.tokenFromCache = false;
    endFetch(state.tokenKey);
    return {};
}

bool RequestAuth::usableCached(const QByteArray &key) const
{
    const auto cached = m_tokens.constFind(key);
    return cached != m_tokens.cend() && !cached->token.expiresSoon(m_clock.nowNs(), cached->marginNs);
}

bool RequestAuth::awaitsToken(const AuthSpec &auth, RequestAuthState &state)
{
    if (!auth.needsToken() || m_fetchStartNs.isEmpty())
        return false;
    if (state.tokenKey.isEmpty())
        state.tokenKey = keyOf(auth);
    return m_fetchStartNs.contains(state.tokenKey) && !usableCached(state.tokenKey);
}

void RequestAuth::abandonFetch(RequestAuthState &state)
{
    if (std::exchange(state.tokenHop, false))
        endFetch(state.tokenKey);
}

void RequestAuth::endFetch(const QByteArray &key)
{
    if (m_fetchStartNs.remove(key) > 0 && m_fetchEnded)
        m_fetchEnded();
}

QString RequestAuth::apply(const AuthSpec &auth, RequestAuthState &state, HopRequest &hop) const
{
    switch (auth.kind) {
    case AuthSpec::Kind::Inherit:
    case AuthSpec::Kind::None:
        return {};
    case AuthSpec::Kind::Basic:
        addHeaderUnlessSet(hop.headers, "Authorization", basicCredentials(auth.username, auth.password));
        return {};
    case AuthSpec::Kind::Bearer:
        addHeaderUnlessSet(hop.headers, "Authorization", "Bearer " + auth.token.toUtf8());
        return {};
    case AuthSpec::Kind::ApiKey:
        if (auth.inQuery) {
            QUrlQuery query(hop.url);
            if (!query.hasQueryItem(auth.key)) {
                query.addQueryItem(QString::fromLatin1(QUrl::toPercentEncoding(auth.key)),
                    QString::fromLatin1(QUrl::toPercentEncoding(auth.value)));
                hop.url.setQuery(query.toString(QUrl::FullyEncoded), QUrl::StrictMode);
            }
        } else {
            addHeaderUnlessSet(hop.headers, auth.key.toUtf8(), auth.value.toUtf8());
        }
        return {};
    case AuthSpec::Kind::OAuth2ClientCredentials:
    case AuthSpec::Kind::OAuth2RefreshToken:
    case AuthSpec::Kind::OAuth2AuthorizationCode:
    case AuthSpec::Kind::GoogleServiceAccount:
        if (state.accessToken.isEmpty())
            return Tr::tr("no access token");
        hop.headers.removeIf([](const auto &h) { return h.first.compare("Authorization", Qt::CaseInsensitive) == 0; });
        hop.headers.append({QByteArrayLiteral("Authorization"), state.accessToken});
        return {};
    case AuthSpec::Kind::Digest:
        // After the first challenge, every request answers the same nonce, the count one higher.
        if (state.digest && state.digest->isValid() && !hasHeaderNamed(hop.headers, "Authorization")) {
            auto field = state.digest->authorize(hop.method, DigestAuth::requestTarget(hop.url), hop.body);
            if (!field)
                return field.error();
            hop.headers.append({QByteArrayLiteral("Authorization"), *field});
        }
        return {};
    case AuthSpec::Kind::AwsSigV4: {
        // Signed afresh for every attempt and hop: the time is part of the signature.
        AwsSigV4Request request;
        request.method = hop.method;
        request.url = hop.url;
        request.headers = hop.headers;
        request.body = hop.body;
        auto signature = AwsSigV4::sign(request, auth, m_clock.wallTime());
        if (!signature)
            return signature.error();
        hop.url = signature->url;
        for (const auto &[name, value] : std::as_const(signature->headers)) {
            hop.headers.removeIf([&name](const auto &h) { return h.first.compare(name, Qt::CaseInsensitive) == 0; });
            hop.headers.append({name, value});
        }
        return {};
    }
    }
    return {};
}

std::optional<HopRequest> RequestAuth::answerChallenge(const AuthSpec &auth, RequestAuthState &state,
    const HopRequest &current, const QList<QByteArray> &wwwAuthenticate) const
{
    if (auth.kind != AuthSpec::Kind::Digest || wwwAuthenticate.isEmpty())
        return std::nullopt;
    const QString refused = Tr::tr("the server refused the Digest credentials of \"%1\"").arg(auth.username);
    if (state.challengeAnswered) {
        // Answered within this attempt and refused again: the credentials are wrong.
        state.digest.reset();
        state.problem = refused;
        return std::nullopt;
    }
    if (state.digest && state.digest->isValid()) {
        // An earlier attempt's nonce: answered again only when the server found it stale.
        const auto stale = state.digest->renew(wwwAuthenticate);
        if (!stale || !*stale) {
            state.problem = stale ? refused : stale.error();
            state.digest.reset();
            return std::nullopt;
        }
    } else {
        auto session = DigestSession::fromChallenge(wwwAuthenticate, auth.username, auth.password);
        if (!session) {
            state.problem = session.error();
            return std::nullopt;
        }
        state.digest = std::move(session).value();
    }
    HopRequest next = current;
    next.headers.removeIf([](const auto &h) { return h.first.compare("Authorization", Qt::CaseInsensitive) == 0; });
    auto field = state.digest->authorize(next.method, DigestAuth::requestTarget(next.url), next.body);
    if (!field) {
        state.problem = field.error();
        return std::nullopt;
    }
    next.headers.append({QByteArrayLiteral("Authorization"), *field});
    state.challengeAnswered = true;
    return next;
}

bool RequestAuth::rejectToken(const AuthSpec &auth, RequestAuthState &state)
{
    if (!auth.needsToken() || !state.tokenFromCache || state.refreshedAfterRejection)
        return false;
    // The access token is spent; a refresh token the server gave with it stays. A token
    // another request fetched since is not this one: it stays too.
    if (const auto cached = m_tokens.find(state.tokenKey);
        cached != m_tokens.end() && cached->token.authorizationValue() == state.accessToken) {
        cached->token.expiresAtNs = m_clock.nowNs() - 1;
    }
    state.refreshedAfterRejection = true;
    return true;
}

} // namespace RetryLab::Core
