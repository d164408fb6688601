#include "core/executor/requestauth.h"

#include "core/auth/authjson.h"
#include "core/auth/awssigv4.h"
#include "core/auth/digestauth.h"
#include "core/util/clock.h"
#include "core/util/coretr.h"

#include <QCryptographicHash>
#include <QJsonDocument>
#include <QJsonObject>
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

// The form of an OAuth 2.0 token request (RFC 6749 4.4, 6), client authentication included.
HopRequest oauthTokenHop(const AuthSpec &auth, const QString &refreshToken)
{
    HopRequest hop;
    hop.method = "POST";
    hop.url = QUrl(auth.tokenUrl);
    QUrlQuery form;
    if (auth.kind == AuthSpec::Kind::OAuth2RefreshToken) {
        form.addQueryItem(QStringLiteral("grant_type"), QStringLiteral("refresh_token"));
        form.addQueryItem(QStringLiteral("refresh_token"), refreshToken);
    } else {
        form.addQueryItem(QStringLiteral("grant_type"), QStringLiteral("client_credentials"));
    }
    if (!auth.scope.isEmpty())
        form.addQueryItem(QStringLiteral("scope"), auth.scope);
    if (!auth.audience.isEmpty())
        form.addQueryItem(QStringLiteral("audience"), auth.audience);
    if (auth.clientAuth == AuthSpec::ClientAuth::Body || auth.clientSecret.isEmpty()) {
        form.addQueryItem(QStringLiteral("client_id"), auth.clientId);
        if (!auth.clientSecret.isEmpty())
            form.addQueryItem(QStringLiteral("client_secret"), auth.clientSecret);
    } else {
        // RFC 6749 2.3.1: both form-encoded before they are joined.
        const QString id = QString::fromLatin1(QUrl::toPercentEncoding(auth.clientId));
        const QString secret = QString::fromLatin1(QUrl::toPercentEncoding(auth.clientSecret));
        hop.headers.append({QByteArrayLiteral("Authorization"), basicCredentials(id, secret)});
    }
    hop.headers.append({QByteArrayLiteral("Content-Type"), QByteArrayLiteral("application/x-www-form-urlencoded")});
    hop.headers.append({QByteArrayLiteral("Accept"), QByteArrayLiteral("application/json")});
    hop.body = form.toString(QUrl::FullyEncoded).toUtf8();
    return hop;
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
            return Tr::tr("the token URL \"%1\" is not an http or https URL").arg(auth.tokenUrl);
    }
    if (auth.kind == AuthSpec::Kind::OAuth2AuthorizationCode || auth.kind == AuthSpec::Kind::GoogleServiceAccount)
        return Tr::tr("%1 is not supported by the executor").arg(AuthSpec::kindTitle(auth.kind));
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
    const qint64 now = m_clock.nowNs();
    if (cached != m_tokens.cend() && (cached->renewNs < 0 || now < cached->renewNs)) {
        state.accessToken = cached->accessToken;
        state.tokenFromCache = true;
        return std::nullopt;
    }
    QString refreshToken = auth.refreshToken;
    if (cached != m_tokens.cend() && !cached->refreshToken.isEmpty())
        refreshToken = cached->refreshToken; // rotated by the server
    state.tokenHop = true;
    return oauthTokenHop(auth, refreshToken);
}

QString RequestAuth::takeToken(
    const AuthSpec &auth, RequestAuthState &state, int status, const HeaderList &headers, const QByteArray &body)
{
    Q_UNUSED(headers)
    state.tokenHop = false;
    const QJsonObject answer = QJsonDocument::fromJson(body).object();
    if (status < 200 || status > 299) {
        const QString error = answer.value(QStringLiteral("error")).toString();
        const QString description = answer.value(QStringLiteral("error_description")).toString();
        if (error.isEmpty())
            return Tr::tr("the token endpoint answered %1").arg(status);
        return description.isEmpty()
            ? Tr::tr("the token endpoint answered %1: %2").arg(status).arg(error)
            : Tr::tr("the token endpoint answered %1: %2 (%3)").arg(status).arg(error, description);
    }
    const QString token = answer.value(QStringLiteral("access_token")).toString();
    if (token.isEmpty())
        return Tr::tr("the token endpoint's answer holds no access_token");
    CachedToken cached;
    cached.accessToken = token.toUtf8();
    cached.tokenType = answer.value(QStringLiteral("token_type")).toString(QStringLiteral("Bearer")).toUtf8();
    const qint64 now = m_clock.nowNs();
    const double lifetime = answer.value(QStringLiteral("expires_in")).toDouble(-1.0);
    if (lifetime > 0) {
        const auto lifeNs = static_cast<qint64>(std::min(lifetime, 1e9) * 1e9);
        cached.expiresNs = now + lifeNs;
        cached.renewNs = cached.expiresNs - std::min(renewMarginNs, lifeNs / 10);
    }
    cached.refreshToken = answer.value(QStringLiteral("refresh_token")).toString();
    if (state.tokenKey.isEmpty())
        state.tokenKey = keyOf(auth);
    m_tokens.insert(state.tokenKey, cached);
    state.accessToken = cached.accessToken;
    state.tokenFromCache = false;
    return {};
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
        hop.headers.append({QByteArrayLiteral("Authorization"), "Bearer " + state.accessToken});
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
    m_tokens.remove(state.tokenKey);
    state.refreshedAfterRejection = true;
    return true;
}

} // namespace RetryLab::Core
