#include "core/auth/awssigv4.h"

#include "core/util/coretr.h"

#include <QCryptographicHash>
#include <QMessageAuthenticationCode>
#include <QTimeZone>

#include <algorithm>
#include <map>

namespace RetryLab::Core {

namespace {

// One query parameter, decoded; `hasValue` keeps "?acl" apart from "?acl=" on the wire.
struct SigV4QueryPair
{
    QByteArray key;
    QByteArray value;
    bool hasValue = true;
};

// The names a presigned URL carries; a URL signed before has them removed first.
const QList<QByteArray> &sigv4PresignParameters()
{
    static const QList<QByteArray> names{"X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Date", "X-Amz-Expires",
        "X-Amz-SignedHeaders", "X-Amz-Security-Token", "X-Amz-Signature"};
    return names;
}

QList<SigV4QueryPair> sigv4QueryPairs(const QUrl &url)
{
    QList<SigV4QueryPair> pairs;
    const QByteArray query = url.query(QUrl::FullyEncoded).toLatin1();
    if (query.isEmpty())
        return pairs;
    for (const QByteArray &piece : query.split('&')) {
        if (piece.isEmpty())
            continue;
        const qsizetype equals = piece.indexOf('=');
        SigV4QueryPair pair;
        pair.key = QByteArray::fromPercentEncoding(equals < 0 ? piece : piece.left(equals));
        pair.value = equals < 0 ? QByteArray() : QByteArray::fromPercentEncoding(piece.mid(equals + 1));
        pair.hasValue = equals >= 0;
        pairs.append(pair);
    }
    return pairs;
}

QByteArray sigv4CanonicalQuery(const QList<SigV4QueryPair> &pairs)
{
    QList<QPair<QByteArray, QByteArray>> encoded;
    encoded.reserve(pairs.size());
    for (const SigV4QueryPair &pair : pairs)
        encoded.append({AwsSigV4::uriEncode(pair.key), AwsSigV4::uriEncode(pair.value)});
    std::sort(encoded.begin(), encoded.end());
    QByteArray text;
    for (const auto &[key, value] : std::as_const(encoded)) {
        if (!text.isEmpty())
            text += '&';
        text += key + '=' + value;
    }
    return text;
}

QByteArray sigv4WireQuery(const QList<SigV4QueryPair> &pairs)
{
    QByteArray text;
    for (const SigV4QueryPair &pair : pairs) {
        if (!text.isEmpty())
            text += '&';
        text += AwsSigV4::uriEncode(pair.key);
        if (pair.hasValue)
            text += '=' + AwsSigV4::uriEncode(pair.value);
    }
    return text;
}

// RFC 3986 5.2.4 on a path, and consecutive slashes merged, as AWS services
// other than S3 normalise the path before they sign it.
QByteArray sigv4RemoveDotSegments(const QByteArray &path)
{
    if (path.isEmpty())
        return QByteArrayLiteral("/");
    QList<QByteArray> kept;
    for (const QByteArray &segment : path.split('/')) {
        if (segment.isEmpty() || segment == ".")
            continue;
        if (segment == "..") {
            if (!kept.isEmpty())
                kept.removeLast();
            continue;
        }
        kept.append(segment);
    }
    QByteArray result = path.startsWith('/') ? QByteArrayLiteral("/") : QByteArray();
    result += kept.join('/');
    if (path.endsWith('/') && !kept.isEmpty())
        result += '/';
    return result;
}

bool sigv4IsWhitespace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

// Trimmed, with every run of white space inside made one space (AWS's Trimall).
QByteArray sigv4TrimAll(QByteArrayView value)
{
    QByteArray result;
    bool pendingSpace = false;
    for (const char c : value) {
        if (sigv4IsWhitespace(c)) {
            pendingSpace = !result.isEmpty();
            continue;
        }
        if (pendingSpace)
            result += ' ';
        pendingSpace = false;
        result += c;
    }
    return result;
}

QByteArray sigv4Hmac(QByteArrayView key, QByteArrayView message)
{
    return QMessageAuthenticationCode::hash(message.toByteArray(), key.toByteArray(), QCryptographicHash::Sha256);
}

QByteArray sigv4Sha256Hex(QByteArrayView data)
{
    return QCryptographicHash::hash(data, QCryptographicHash::Sha256).toHex();
}

bool sigv4IsHexSha256(QByteArrayView text)
{
    return text.size() == 64 && std::all_of(text.begin(), text.end(), [](char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
    });
}

QByteArray sigv4HostFromUrl(const QUrl &url)
{
    QByteArray host = url.host(QUrl::FullyEncoded).toLower().toLatin1();
    if (host.contains(':'))
        host = '[' + host + ']';
    const int defaultPort = url.scheme() == QLatin1String("https") ? 443 : 80;
    if (url.port() != -1 && url.port() != defaultPort)
        host += ':' + QByteArray::number(url.port());
    return host;
}

// Headers the signature leaves out whatever the request carries (botocore's
// list), and those signing writes itself.
bool sigv4LeftOut(const QByteArray &lowerName)
{
    return lowerName == "user-agent" || lowerName == "expect" || lowerName == "x-amzn-trace-id"
        || lowerName == "authorization";
}

// The credentials and time as signed, checked once for both kinds of signing.
struct SigV4Input
{
    QByteArray accessKeyId;
    QByteArray secret;
    QByteArray token;
    QByteArray region;
    QByteArray service;
    QByteArray timestamp;
    QByteArray date;
    bool s3 = false;
};

Result<SigV4Input> sigv4CheckInput(const AwsSigV4Request &request, const AuthSpec &auth, const QDateTime &time)
{
    const auto badName = [](const QString &text) {
        return std::any_of(text.begin(), text.end(),
            [](QChar c) { return c == QLatin1Char('/') || c.isSpace() || c.category() == QChar::Other_Control; });
    };
    if (auth.accessKeyId.isEmpty())
        return Result<SigV4Input>::failure(Tr::tr("the AWS access key ID is empty"));
    if (auth.secretAccessKey.isEmpty())
        return Result<SigV4Input>::failure(Tr::tr("the AWS secret access key is empty"));
    if (auth.region.isEmpty())
        return Result<SigV4Input>::failure(Tr::tr("the AWS region is empty (for example us-east-1)"));
    if (auth.service.isEmpty())
        return Result<SigV4Input>::failure(Tr::tr("the AWS service is empty (for example s3 or execute-api)"));
    if (badName(auth.region))
        return Result<SigV4Input>::failure(
            Tr::tr("the AWS region \"%1\" has a slash, white space or a control character").arg(auth.region));
    if (badName(auth.service))
        return Result<SigV4Input>::failure(
            Tr::tr("the AWS service \"%1\" has a slash, white space or a control character").arg(auth.service));
    if (badName(auth.accessKeyId))
        return Result<SigV4Input>::failure(
            Tr::tr("the AWS access key ID has a slash, white space or a control character"));
    if (!request.url.isValid())
        return Result<SigV4Input>::failure(Tr::tr("the URL is not valid: %1").arg(request.url.errorString()));
    if (request.url.scheme() != QLatin1String("http") && request.url.scheme() != QLatin1String("https"))
        return Result<SigV4Input>::failure(
            Tr::tr("the URL %1 is not an http or https URL").arg(request.url.toDisplayString()));
    if (request.url.host().isEmpty())
        return Result<SigV4Input>::failure(Tr::tr("the URL %1 has no host to sign").arg(request.url.toDisplayString()));
    if (!isToken(request.method))
        return Result<SigV4Input>::failure(Tr::tr("the method is not an HTTP token"));
    if (!time.isValid())
        return Result<SigV4Input>::failure(Tr::tr("the signing time is not valid"));
    if (!request.payloadHash.isEmpty() && request.payloadHash != AwsSigV4::unsignedPayload
        && !sigv4IsHexSha256(request.payloadHash))
        return Result<SigV4Input>::failure(
            Tr::tr("the payload hash is neither 64 lower-case hex digits (a SHA-256) nor UNSIGNED-PAYLOAD"));
    for (const auto &[name, value] : request.headers) {
        if (const QString problem = tokenProblem(name); !problem.isEmpty())
            return Result<SigV4Input>::failure(Tr::tr("a header name cannot be signed: %1").arg(problem));
    }
    SigV4Input input;
    input.accessKeyId = auth.accessKeyId.toUtf8();
    input.secret = auth.secretAccessKey.toUtf8();
    input.token = auth.sessionToken.toUtf8();
    input.region = auth.region.toUtf8();
    input.service = auth.service.toUtf8();
    input.timestamp = AwsSigV4::timestamp(time);
    input.date = input.timestamp.left(8);
    input.s3 = AwsSigV4::isS3(auth.service);
    return input;
}

// The headers signed, by lower-case name (sorted), with their values in order.
using SigV4HeaderMap = std::map<QByteArray, QList<QByteArray>>;

SigV4HeaderMap sigv4HeadersToSign(const HeaderList &headers, const QList<QByteArray> &replaced, const QUrl &url)
{
    SigV4HeaderMap map;
    for (const auto &[name, value] : headers) {
        const QByteArray lower = name.toLower();
        if (sigv4LeftOut(lower) || replaced.contains(lower))
            continue;
        map[lower].append(value);
    }
    if (map.find("host") == map.end())
        map["host"].append(sigv4HostFromUrl(url));
    return map;
}

QByteArray sigv4SignedHeaders(const SigV4HeaderMap &map)
{
    QByteArray names;
    for (const auto &entry : map) {
        if (!names.isEmpty())
            names += ';';
        names += entry.first;
    }
    return names;
}

QByteArray sigv4CanonicalHeaders(const SigV4HeaderMap &map)
{
    QByteArray text;
    for (const auto &[name, values] : map) {
        QList<QByteArray> trimmed;
        for (const QByteArray &value : values)
            trimmed.append(sigv4TrimAll(value));
        text += name + ':' + trimmed.join(',') + '\n';
    }
    return text;
}

// Fills in the canonical request, string to sign and signature of `signature`.
void sigv4Compute(AwsSigV4Signature &signature, const SigV4Input &input, const QByteArray &method,
    const QByteArray &canonicalPath, const QByteArray &canonicalQuery, const SigV4HeaderMap &headers)
{
    signature.signedHeaders = sigv4SignedHeaders(headers);
    signature.credentialScope = input.date + '/' + input.region + '/' + input.service + "/aws4_request";
    signature.canonicalRequest = method + '\n' + canonicalPath + '\n' + canonicalQuery + '\n'
        + sigv4CanonicalHeaders(headers) + '\n' + signature.signedHeaders + '\n' + signature.payloadHash;
    signature.stringToSign = QByteArray(AwsSigV4::algorithm) + '\n' + input.timestamp + '\n' + signature.credentialScope
        + '\n' + sigv4Sha256Hex(signature.canonicalRequest);
    const QByteArray key = AwsSigV4::signingKey(input.secret, input.date, input.region, input.service);
    signature.signature = sigv4Hmac(key, signature.stringToSign).toHex();
}

QUrl sigv4UrlWith(const QUrl &url, const QByteArray &path, const QByteArray &query)
{
    QUrl result = url;
    result.setPath(QString::fromLatin1(path), QUrl::TolerantMode);
    if (query.isEmpty())
        result.setQuery(QString());
    else
        result.setQuery(QString::fromLatin1(query), QUrl::TolerantMode);
    return result;
}

} // namespace

bool AwsSigV4::isS3(const QString &service)
{
    return service == QLatin1String("s3");
}

QByteArray AwsSigV4::uriEncode(QByteArrayView bytes, bool keepSlash)
{
    // Qt keeps exactly RFC 3986's unreserved characters and writes upper-case hex.
    return bytes.toByteArray().toPercentEncoding(keepSlash ? QByteArrayLiteral("/") : QByteArray());
}

QByteArray AwsSigV4::encodedPath(const QUrl &url)
{
    const QByteArray path = url.path(QUrl::FullyEncoded).toLatin1();
    if (path.isEmpty())
        return QByteArrayLiteral("/");
    QList<QByteArray> segments = path.split('/');
    for (QByteArray &segment : segments)
        segment = uriEncode(QByteArray::fromPercentEncoding(segment));
    return segments.join('/');
}

QByteArray AwsSigV4::canonicalPath(const QUrl &url, bool s3)
{
    const QByteArray path = encodedPath(url);
    if (s3)
        return path;
    return uriEncode(sigv4RemoveDotSegments(path), true);
}

QByteArray AwsSigV4::canonicalQuery(const QUrl &url)
{
    return sigv4CanonicalQuery(sigv4QueryPairs(url));
}

QByteArray AwsSigV4::signingKey(
    QByteArrayView secretAccessKey, QByteArrayView date, QByteArrayView region, QByteArrayView service)
{
    const QByteArray kDate = sigv4Hmac(QByteArray("AWS4" + secretAccessKey.toByteArray()), date);
    const QByteArray kRegion = sigv4Hmac(kDate, region);
    const QByteArray kService = sigv4Hmac(kRegion, service);
    return sigv4Hmac(kService, "aws4_request");
}

QByteArray AwsSigV4::timestamp(const QDateTime &time)
{
    return time.toTimeZone(QTimeZone::utc()).toString(QStringLiteral("yyyyMMdd'T'HHmmss'Z'")).toLatin1();
}

Result<AwsSigV4Signature> AwsSigV4::sign(const AwsSigV4Request &request, const AuthSpec &auth, const QDateTime &time)
{
    return auth.presign ? presign(request, auth, time, auth.expiresSeconds) : signHeaders(request, auth, time);
}

Result<AwsSigV4Signature> AwsSigV4::signHeaders(
    const AwsSigV4Request &request, const AuthSpec &auth, const QDateTime &time)
{
    const Result<SigV4Input> checked = sigv4CheckInput(request, auth, time);
    if (!checked)
        return checked.errorDetail();
    const SigV4Input &input = *checked;

    AwsSigV4Signature signature;
    const std::optional<QByteArray> givenHash = headerValue(request.headers, "x-amz-content-sha256");
    if (!request.payloadHash.isEmpty())
        signature.payloadHash = request.payloadHash;
    else if (givenHash)
        signature.payloadHash = sigv4TrimAll(*givenHash);
    else
        signature.payloadHash = sigv4Sha256Hex(request.body);
    // S3 requires the hash as a header; other services need it only when the
    // payload goes unsigned, as botocore sends it.
    const bool hashHeader = input.s3 || signature.payloadHash == unsignedPayload;

    QList<QByteArray> replaced{"x-amz-date"};
    signature.headers.append({"X-Amz-Date", input.timestamp});
    if (!input.token.isEmpty()) {
        replaced.append("x-amz-security-token");
        signature.headers.append({"X-Amz-Security-Token", input.token});
    }
    if (hashHeader) {
        replaced.append("x-amz-content-sha256");
        signature.headers.append({"X-Amz-Content-SHA256", signature.payloadHash});
    }
    SigV4HeaderMap headers = sigv4HeadersToSign(request.headers, replaced, request.url);
    for (const auto &[name, value] : std::as_const(signature.headers))
        headers[name.toLower()].append(value);

    const QList<SigV4QueryPair> pairs = sigv4QueryPairs(request.url);
    sigv4Compute(
        signature, input, request.method, canonicalPath(request.url, input.s3), sigv4CanonicalQuery(pairs), headers);
    signature.url = sigv4UrlWith(request.url, encodedPath(request.url), sigv4WireQuery(pairs));
    signature.headers.append({"Authorization",
        QByteArray(algorithm) + " Credential=" + input.accessKeyId + '/' + signature.credentialScope
            + ", SignedHeaders=" + signature.signedHeaders + ", Signature=" + signature.signature});
    return signature;
}

Result<AwsSigV4Signature> AwsSigV4::presign(
    const AwsSigV4Request &request, const AuthSpec &auth, const QDateTime &time, int expiresSeconds)
{
    const Result<SigV4Input> checked = sigv4CheckInput(request, auth, time);
    if (!checked)
        return checked.errorDetail();
    const SigV4Input &input = *checked;
    if (expiresSeconds < 1 || expiresSeconds > maxExpiresSeconds)
        return Result<AwsSigV4Signature>::failure(
            Tr::tr("a presigned URL must expire after 1 to %1 seconds (7 days), not %2")
                .arg(maxExpiresSeconds)
                .arg(expiresSeconds));

    AwsSigV4Signature signature;
    // S3 cannot know the body of a presigned request; other services sign it
    // as they do with headers (botocore's SigV4QueryAuth).
    if (!request.payloadHash.isEmpty())
        signature.payloadHash = request.payloadHash;
    else if (input.s3)
        signature.payloadHash = unsignedPayload;
    else
        signature.payloadHash = sigv4Sha256Hex(request.body);

    const SigV4HeaderMap headers = sigv4HeadersToSign(request.headers, {"x-amz-date"}, request.url);
    QList<SigV4QueryPair> pairs;
    for (const SigV4QueryPair &pair : sigv4QueryPairs(request.url)) {
        if (!sigv4PresignParameters().contains(pair.key))
            pairs.append(pair);
    }
    const auto add = [&pairs](const char *key, const QByteArray &value) {
        pairs.append(SigV4QueryPair{QByteArray(key), value, true});
    };
    add("X-Amz-Algorithm", algorithm);
    add("X-Amz-Credential",
        input.accessKeyId + '/' + input.date + '/' + input.region + '/' + input.service + "/aws4_request");
    add("X-Amz-Date", input.timestamp);
    add("X-Amz-Expires", QByteArray::number(expiresSeconds));
    add("X-Amz-SignedHeaders", sigv4SignedHeaders(headers));
    if (!input.token.isEmpty())
        add("X-Amz-Security-Token", input.token);

    sigv4Compute(
        signature, input, request.method, canonicalPath(request.url, input.s3), sigv4CanonicalQuery(pairs), headers);
    add("X-Amz-Signature", signature.signature);
    signature.url = sigv4UrlWith(request.url, encodedPath(request.url), sigv4WireQuery(pairs));
    return signature;
}

} // namespace RetryLab::Core
