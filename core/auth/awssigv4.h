#pragma once

#include "core/auth/authspec.h"
#include "core/http/httpheaders.h"
#include "core/util/result.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QDateTime>
#include <QUrl>

namespace RetryLab::Core {

/// A request as AWS Signature Version 4 signs it.
struct AwsSigV4Request
{
    QByteArray method = QByteArrayLiteral("GET");
    QUrl url;
    /// The headers the request is sent with. All of them are signed but
    /// User-Agent, Expect and X-Amzn-Trace-Id (which proxies and clients may
    /// change, as botocore leaves them out) and the ones signing replaces.
    HeaderList headers;
    QByteArray body;
    /// The payload's hash as signed: empty for the SHA-256 of `body` (or the
    /// value of an X-Amz-Content-SHA256 header in `headers`), the lower-case hex
    /// SHA-256 of a body computed elsewhere (one streamed from a file), or
    /// AwsSigV4::unsignedPayload.
    QByteArray payloadHash;
};

/// What signing gives: what to send, and how it was computed (for the
/// inspector and the tests).
struct AwsSigV4Signature
{
    /// The URL to send: its path and query percent-encoded exactly as they were
    /// signed. A presigned URL carries the X-Amz-* parameters and X-Amz-Signature.
    QUrl url;
    /// The headers to add to the request, each replacing any of the same name:
    /// X-Amz-Date, X-Amz-Security-Token (with a session token),
    /// X-Amz-Content-SHA256 (for S3, and for an unsigned payload) and
    /// Authorization. Empty for a presigned URL.
    HeaderList headers;
    QByteArray canonicalRequest;
    QByteArray stringToSign;
    QByteArray signedHeaders; ///< "host;x-amz-date"
    QByteArray credentialScope; ///< "20150830/us-east-1/iam/aws4_request"
    QByteArray payloadHash; ///< as it stands in the canonical request
    QByteArray signature; ///< hex HMAC-SHA256 of the string to sign
};

/// AWS Signature Version 4 (HMAC-SHA256): the Authorization header or a
/// presigned URL for one request, from AuthSpec's accessKeyId,
/// secretAccessKey, sessionToken, region and service. Pure: the time is given
/// (an attempt signs with its own), nothing is sent, nothing is kept, so the
/// executor signs every attempt afresh.
///
/// Canonical form, as AWS documents it and botocore computes it: the path
/// percent-encoded per segment (RFC 3986 unreserved characters kept), then,
/// except for S3, dot segments and empty segments removed and the result
/// encoded a second time; query parameters decoded, encoded again the same
/// way ('+' is a plus sign, not a space) and sorted by name, then value; header
/// names in lower case, values trimmed with inner white space collapsed,
/// repeated ones joined with commas; the host from the URL, with its port only
/// when it is not the scheme's default. Service "s3" signs the X-Amz-Content-SHA256
/// header S3 requires, and presigned S3 URLs carry UNSIGNED-PAYLOAD.
class AwsSigV4 final
{
public:
    static constexpr char algorithm[] = "AWS4-HMAC-SHA256";
    static constexpr char unsignedPayload[] = "UNSIGNED-PAYLOAD";
    /// The longest validity of a presigned URL AWS accepts: 7 days.
    static constexpr int maxExpiresSeconds = 7 * 24 * 3600;

    /// Headers (auth.presign false) or a presigned URL valid for
    /// auth.expiresSeconds (auth.presign true).
    static Result<AwsSigV4Signature> sign(const AwsSigV4Request &request, const AuthSpec &auth, const QDateTime &time);
    /// The headers to add: Authorization, X-Amz-Date, ...
    static Result<AwsSigV4Signature> signHeaders(
        const AwsSigV4Request &request, const AuthSpec &auth, const QDateTime &time);
    /// A presigned URL (query signing), valid for `expiresSeconds` from `time`.
    static Result<AwsSigV4Signature> presign(
        const AwsSigV4Request &request, const AuthSpec &auth, const QDateTime &time, int expiresSeconds);

    /// Whether `service` is signed the S3 way (single-encoded path, content hash header).
    static bool isS3(const QString &service);
    /// The path as sent: each segment decoded and encoded again, unreserved
    /// characters kept; "/" for an empty path.
    static QByteArray encodedPath(const QUrl &url);
    /// The path as signed (see the class comment).
    static QByteArray canonicalPath(const QUrl &url, bool s3);
    /// The query as signed: "a=1&b=2", each pair encoded again, sorted.
    static QByteArray canonicalQuery(const QUrl &url);
    /// RFC 3986 percent-encoding keeping only unreserved characters (and '/'
    /// when `keepSlash`), in upper-case hex.
    static QByteArray uriEncode(QByteArrayView bytes, bool keepSlash = false);
    /// kSigning: HMAC chain over the date, region, service and "aws4_request".
    static QByteArray signingKey(
        QByteArrayView secretAccessKey, QByteArrayView date, QByteArrayView region, QByteArrayView service);
    /// "20150830T123600Z"
    static QByteArray timestamp(const QDateTime &time);
};

} // namespace RetryLab::Core
