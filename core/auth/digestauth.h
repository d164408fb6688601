#pragma once

#include "core/auth/authchallenge.h"
#include "core/util/result.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QString>
#include <QUrl>

#include <optional>

namespace RetryLab::Core {

/// A server's Digest challenge (RFC 7616), read from its WWW-Authenticate fields.
struct DigestChallenge
{
    enum class Algorithm { Md5, Md5Sess, Sha256, Sha256Sess };
    /// The quality of protection the answer uses: "auth" when the server offers
    /// it, else "auth-int" (the body hashed too), else none (RFC 2069's form).
    enum class Qop { None, Auth, AuthInt };

    QByteArray realm;
    QByteArray nonce;
    std::optional<QByteArray> opaque;
    QByteArray domain;
    Algorithm algorithm = Algorithm::Md5;
    /// Whether the challenge named its algorithm; the answer names it only then.
    bool algorithmGiven = false;
    Qop qop = Qop::None;
    /// The nonce was stale: the credentials were right, answer the new nonce.
    bool stale = false;
    /// The user name goes hashed with the realm (userhash=true).
    bool userhash = false;
    /// charset=UTF-8: the user name may be sent as username*.
    bool utf8 = false;

    friend bool operator==(const DigestChallenge &, const DigestChallenge &) = default;
};

/// HTTP Digest access authentication (RFC 7616): MD5, MD5-sess, SHA-256 and
/// SHA-256-sess, qop auth and auth-int, opaque, stale and userhash. Pure
/// functions over a challenge; DigestSession keeps the nonce count between
/// requests.
class DigestAuth final
{
public:
    using Algorithm = DigestChallenge::Algorithm;

    /// The Digest challenge to answer among all of `wwwAuthenticate` (every
    /// WWW-Authenticate field of a 401, each possibly with several challenges):
    /// the first Digest challenge with an algorithm RetryLab supports, as RFC
    /// 7616 asks servers to list the preferred one first. Fails with a sentence
    /// when there is none: no Digest challenge (naming the schemes offered), an
    /// algorithm it does not support (naming it), no nonce, or only a qop it
    /// does not know.
    static Result<DigestChallenge> challenge(const QList<QByteArray> &wwwAuthenticate);
    /// The same for one challenge already parsed.
    static Result<DigestChallenge> fromChallenge(const AuthChallenge &challenge);

    /// "MD5", "MD5-sess", "SHA-256", "SHA-256-sess"
    static QByteArray algorithmName(Algorithm algorithm);
    /// The algorithm of a name, compared case-insensitively; nullopt for one
    /// not supported (SHA-512-256 among them: Qt has no SHA-512/256).
    static std::optional<Algorithm> algorithmFromName(QByteArrayView name);
    /// H(data) in lower-case hex with the algorithm's hash.
    static QByteArray hash(Algorithm algorithm, QByteArrayView data);

    /// The request-digest ("response") of RFC 7616 section 3.4.1.
    static QByteArray response(const DigestChallenge &challenge, QByteArrayView username, QByteArrayView password,
        QByteArrayView method, QByteArrayView requestTarget, QByteArrayView cnonce, quint32 nonceCount,
        QByteArrayView body = {});
    /// The Authorization field's value answering `challenge`: `Digest
    /// username="...", realm="...", uri="...", ...`. `requestTarget` is the
    /// request line's target ("/dir/index.html?x=1"); `body` counts only for
    /// qop=auth-int. Fails when the user name cannot be sent (characters
    /// beyond ASCII without charset=UTF-8 or userhash, control characters).
    static Result<QByteArray> authorization(const DigestChallenge &challenge, const QString &username,
        const QString &password, QByteArrayView method, QByteArrayView requestTarget, QByteArrayView cnonce,
        quint32 nonceCount, QByteArrayView body = {});

    /// The request target a URL is sent with, as the uri parameter repeats it:
    /// the path and query, percent-encoded ("/dir/index.html?x=1").
    static QByteArray requestTarget(const QUrl &url);
    /// A client nonce: 16 random bytes from the system's source, in hex.
    static QByteArray randomCnonce();
    /// "00000001"
    static QByteArray nonceCountText(quint32 nonceCount);
};

} // namespace RetryLab::Core
