#include "core/auth/digestauth.h"

#include "core/util/coretr.h"

#include <QCryptographicHash>
#include <QRandomGenerator>

namespace RetryLab::Core {

namespace {

using DigestAlgorithm = DigestChallenge::Algorithm;

bool digestIsSession(DigestAlgorithm algorithm)
{
    return algorithm == DigestAlgorithm::Md5Sess || algorithm == DigestAlgorithm::Sha256Sess;
}

QByteArray digestQop(DigestChallenge::Qop qop)
{
    switch (qop) {
    case DigestChallenge::Qop::Auth:
        return QByteArrayLiteral("auth");
    case DigestChallenge::Qop::AuthInt:
        return QByteArrayLiteral("auth-int");
    case DigestChallenge::Qop::None:
        break;
    }
    return {};
}

// Whether a user name can stand in a quoted-string as it is.
bool digestIsPlainAscii(QByteArrayView text)
{
    for (const char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u >= 0x7F)
            return false;
    }
    return true;
}

// RFC 8187 ext-value: UTF-8'' and the bytes percent-encoded but attr-chars
// (the unreserved characters and !#$&+^`|).
QByteArray digestExtValue(QByteArrayView utf8)
{
    return QByteArrayLiteral("UTF-8''") + utf8.toByteArray().toPercentEncoding(QByteArrayLiteral("!#$&+^`|"));
}

QString digestSupportedList()
{
    return QStringLiteral("MD5, MD5-sess, SHA-256, SHA-256-sess");
}

} // namespace

QByteArray DigestAuth::algorithmName(Algorithm algorithm)
{
    switch (algorithm) {
    case Algorithm::Md5:
        return QByteArrayLiteral("MD5");
    case Algorithm::Md5Sess:
        return QByteArrayLiteral("MD5-sess");
    case Algorithm::Sha256:
        return QByteArrayLiteral("SHA-256");
    case Algorithm::Sha256Sess:
        return QByteArrayLiteral("SHA-256-sess");
    }
    return {};
}

std::optional<DigestAuth::Algorithm> DigestAuth::algorithmFromName(QByteArrayView name)
{
    for (const Algorithm algorithm : {Algorithm::Md5, Algorithm::Md5Sess, Algorithm::Sha256, Algorithm::Sha256Sess}) {
        if (name.compare(algorithmName(algorithm), Qt::CaseInsensitive) == 0)
            return algorithm;
    }
    return std::nullopt;
}

QByteArray DigestAuth::hash(Algorithm algorithm, QByteArrayView data)
{
    const bool md5 = algorithm == Algorithm::Md5 || algorithm == Algorithm::Md5Sess;
    return QCryptographicHash::hash(data, md5 ? QCryptographicHash::Md5 : QCryptographicHash::Sha256).toHex();
}

QByteArray DigestAuth::nonceCountText(quint32 nonceCount)
{
    return QByteArray::number(nonceCount, 16).rightJustified(8, '0');
}

QByteArray DigestAuth::requestTarget(const QUrl &url)
{
    QByteArray target = url.path(QUrl::FullyEncoded).toLatin1();
    if (target.isEmpty())
        target = QByteArrayLiteral("/");
    if (url.hasQuery())
        target += '?' + url.query(QUrl::FullyEncoded).toLatin1();
    return target;
}

QByteArray DigestAuth::randomCnonce()
{
    quint32 words[4];
    QRandomGenerator::system()->fillRange(words);
    return QByteArray(reinterpret_cast<const char *>(words), sizeof(words)).toHex();
}

Result<DigestChallenge> DigestAuth::fromChallenge(const AuthChallenge &challenge)
{
    using R = Result<DigestChallenge>;
    if (!challenge.isScheme("Digest"))
        return R::failure(
            Tr::tr("the %1 challenge is not a Digest challenge").arg(QString::fromLatin1(challenge.scheme)));
    DigestChallenge digest;
    if (const std::optional<QByteArray> name = challenge.param("algorithm")) {
        const std::optional<Algorithm> algorithm = algorithmFromName(*name);
        if (!algorithm)
            return R::failure(Tr::tr("the server asks for the Digest algorithm %1, which RetryLab does not support "
                                     "(it supports %2)")
                                  .arg(QString::fromLatin1(*name), digestSupportedList()));
        digest.algorithm = *algorithm;
        digest.algorithmGiven = true;
    }
    const std::optional<QByteArray> nonce = challenge.param("nonce");
    if (!nonce || nonce->isEmpty())
        return R::failure(Tr::tr("the Digest challenge has no nonce"));
    digest.nonce = *nonce;
    digest.realm = challenge.param("realm").value_or(QByteArray());
    digest.opaque = challenge.param("opaque");
    digest.domain = challenge.param("domain").value_or(QByteArray());
    digest.stale = challenge.param("stale").value_or(QByteArray()).compare("true", Qt::CaseInsensitive) == 0;
    digest.userhash = challenge.param("userhash").value_or(QByteArray()).compare("true", Qt::CaseInsensitive) == 0;
    digest.utf8 = challenge.param("charset").value_or(QByteArray()).compare("UTF-8", Qt::CaseInsensitive) == 0;
    if (const std::optional<QByteArray> qop = challenge.param("qop")) {
        bool auth = false;
        bool authInt = false;
        for (const QByteArray &option : qop->split(',')) {
            const QByteArray trimmed = option.trimmed().toLower();
            auth = auth || trimmed == "auth";
            authInt = authInt || trimmed == "auth-int";
        }
        if (!auth && !authInt)
            return R::failure(Tr::tr("the Digest challenge offers only qop \"%1\"; RetryLab answers auth and auth-int")
                                  .arg(QString::fromLatin1(*qop)));
        digest.qop = auth ? DigestChallenge::Qop::Auth : DigestChallenge::Qop::AuthInt;
    }
    return digest;
}

Result<DigestChallenge> DigestAuth::challenge(const QList<QByteArray> &wwwAuthenticate)
{
    using R = Result<DigestChallenge>;
    const Result<QList<AuthChallenge>> parsed = AuthChallenge::parse(wwwAuthenticate);
    if (!parsed)
        return parsed.errorDetail();
    QStringList schemes;
    std::optional<Error> firstError;
    for (const AuthChallenge &candidate : *parsed) {
        if (!candidate.isScheme("Digest")) {
            schemes.append(QString::fromLatin1(candidate.scheme));
            continue;
        }
        const R digest = fromChallenge(candidate);
        if (digest)
            return digest;
        if (!firstError)
            firstError = digest.errorDetail();
    }
    if (firstError)
        return *firstError;
    if (schemes.isEmpty())
        return R::failure(Tr::tr("the server sent no authentication challenge (no WWW-Authenticate field)"));
    schemes.removeDuplicates();
    return R::failure(Tr::tr("the server offers no Digest challenge, only %1").arg(schemes.join(QStringLiteral(", "))));
}

QByteArray DigestAuth::response(const DigestChallenge &challenge, QByteArrayView username, QByteArrayView password,
    QByteArrayView method, QByteArrayView requestTarget, QByteArrayView cnonce, quint32 nonceCount, QByteArrayView body)
{
    const Algorithm algorithm = challenge.algorithm;
    QByteArray a1 = username.toByteArray() + ':' + challenge.realm + ':' + password.toByteArray();
    if (digestIsSession(algorithm))
        a1 = hash(algorithm, a1) + ':' + challenge.nonce + ':' + cnonce.toByteArray();
    QByteArray a2 = method.toByteArray() + ':' + requestTarget.toByteArray();
    if (challenge.qop == DigestChallenge::Qop::AuthInt)
        a2 += ':' + hash(algorithm, body);
    const QByteArray ha1 = hash(algorithm, a1);
    const QByteArray ha2 = hash(algorithm, a2);
    if (challenge.qop == DigestChallenge::Qop::None)
        return hash(algorithm, QByteArray(ha1 + ':' + challenge.nonce + ':' + ha2));
    return hash(algorithm,
        QByteArray(ha1 + ':' + challenge.nonce + ':' + nonceCountText(nonceCount) + ':' + cnonce.toByteArray() + ':'
            + digestQop(challenge.qop) + ':' + ha2));
}

Result<QByteArray> DigestAuth::authorization(const DigestChallenge &challenge, const QString &username,
    const QString &password, QByteArrayView method, QByteArrayView requestTarget, QByteArrayView cnonce,
    quint32 nonceCount, QByteArrayView body)
{
    using R = Result<QByteArray>;
    const QByteArray user = username.toUtf8();
    if (!digestIsPlainAscii(requestTarget))
        return R::failure(Tr::tr("the request target has a byte that cannot be sent in a Digest uri parameter"));
    if (challenge.qop != DigestChallenge::Qop::None && (cnonce.isEmpty() || !digestIsPlainAscii(cnonce)))
        return R::failure(Tr::tr("the Digest client nonce is empty or not printable ASCII"));
    QByteArray field = QByteArrayLiteral("Digest ");
    if (challenge.userhash)
        field
            += "username=" + AuthChallenge::quoted(hash(challenge.algorithm, QByteArray(user + ':' + challenge.realm)));
    else if (digestIsPlainAscii(user))
        field += "username=" + AuthChallenge::quoted(user);
    else if (challenge.utf8)
        field += "username*=" + digestExtValue(user);
    else
        return R::failure(Tr::tr("the user name has characters beyond ASCII, and the server's Digest challenge "
                                 "allows them neither with charset=UTF-8 nor with userhash"));
    field += ", realm=" + AuthChallenge::quoted(challenge.realm);
    field += ", uri=" + AuthChallenge::quoted(requestTarget);
    if (challenge.algorithmGiven)
        field += ", algorithm=" + algorithmName(challenge.algorithm);
    field += ", nonce=" + AuthChallenge::quoted(challenge.nonce);
    if (challenge.qop != DigestChallenge::Qop::None) {
        field += ", nc=" + nonceCountText(nonceCount);
        field += ", cnonce=" + AuthChallenge::quoted(cnonce);
        field += ", qop=" + digestQop(challenge.qop);
    }
    field += ", response="
        + AuthChallenge::quoted(
            response(challenge, user, password.toUtf8(), method, requestTarget, cnonce, nonceCount, body));
    if (challenge.opaque)
        field += ", opaque=" + AuthChallenge::quoted(*challenge.opaque);
    if (challenge.userhash)
        field += ", userhash=true";
    return field;
}

} // namespace RetryLab::Core
