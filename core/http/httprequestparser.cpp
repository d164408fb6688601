#include "core/http/httprequestparser.h"

#include "core/http/fieldname.h"
#include "core/http/httpheaders.h"
#include "core/http/rawbytes.h"
#include "core/util/coretr.h"

#include <QCoreApplication>

#include <cstring>

namespace RetryLab::Core {

namespace {

/// The method as a QByteArray: the common ones shared, not allocated per request.
QByteArray knownMethod(QByteArrayView method)
{
    static const QByteArray common[]
        = {QByteArrayLiteral("GET"), QByteArrayLiteral("POST"), QByteArrayLiteral("PUT"), QByteArrayLiteral("DELETE"),
            QByteArrayLiteral("HEAD"), QByteArrayLiteral("PATCH"), QByteArrayLiteral("OPTIONS")};
    for (const QByteArray &known : common) {
        if (method == known)
            return known;
    }
    return method.toByteArray();
}

/// A header name as a QByteArray: the common ones, as clients spell them, shared rather than
/// allocated for every request (the names are kept as sent, so only the same bytes match).
QByteArray knownHeaderName(QByteArrayView name)
{
    static const QByteArray common[] = {QByteArrayLiteral("Host"), QByteArrayLiteral("User-Agent"),
        QByteArrayLiteral("Accept"), QByteArrayLiteral("Accept-Encoding"), QByteArrayLiteral("Accept-Language"),
        QByteArrayLiteral("Connection"), QByteArrayLiteral("Content-Type"), QByteArrayLiteral("Content-Length"),
        QByteArrayLiteral("Authorization"), QByteArrayLiteral("host"), QByteArrayLiteral("user-agent"),
        QByteArrayLiteral("accept"), QByteArrayLiteral("accept-encoding"), QByteArrayLiteral("connection"),
        QByteArrayLiteral("content-type"), QByteArrayLiteral("content-length")};
    for (const QByteArray &known : common) {
        if (known.size() == name.size() && std::memcmp(known.constData(), name.data(), size_t(name.size())) == 0)
            return known;
    }
    return name.toByteArray();
}

bool isOws(char c)
{
    return c == ' ' || c == '\t';
}

QByteArrayView trimmedOws(QByteArrayView text)
{
    while (!text.isEmpty() && isOws(text.front()))
        text = text.sliced(1);
    while (!text.isEmpty() && isOws(text.back()))
        text.chop(1);
    return text;
}

QString printable(QByteArrayView text, qsizetype max = 40)
{
    QString out;
    for (qsizetype i = 0; i < text.size() && i < max; ++i) {
        const auto u = static_cast<unsigned char>(text[i]);
        if (u >= 0x20 && u < 0x7f)
            out += QLatin1Char(static_cast<char>(u));
        else
            out += QStringLiteral("\\x%1").arg(u, 2, 16, QLatin1Char('0'));
    }
    if (text.size() > max)
        out += QStringLiteral("...");
    return out;
}

// Splits a comma-separated header list into trimmed, non-empty elements.
QList<QByteArrayView> listElements(QByteArrayView value)
{
    QList<QByteArrayView> out;
    qsizetype start = 0;
    for (qsizetype i = 0; i <= value.size(); ++i) {
        if (i == value.size() || value[i] == ',') {
            const QByteArrayView element = trimmedOws(value.sliced(start, i - start));
            if (!element.isEmpty())
                out.append(element);
            start = i + 1;
        }
    }
    return out;
}

} // namespace

std::optional<QByteArray> HttpRequest::header(QByteArrayView name) const
{
    for (const auto &[key, value] : headers) {
        if (key.compare(name, Qt::CaseInsensitive) == 0)
            return value;
    }
    return std::nullopt;
}

QByteArray HttpRequest::combinedHeader(QByteArrayView name) const
{
    QByteArray out;
    for (const auto &[key, value] : headers) {
        if (key.compare(name, Qt::CaseInsensitive) != 0)
            continue;
        if (!out.isEmpty())
            out += ", ";
        out += value;
    }
    return out;
}

HttpRequest HttpRequestParser::takeRequest()
{
    return std::exchange(m_request, HttpRequest{});
}

QByteArray HttpRequestParser::takeBuffered()
{
    QByteArray rest = m_buffer.mid(m_pos);
    m_buffer.clear();
    m_pos = 0;
    m_scan = 0;
    return rest;
}

bool HttpRequestParser::isReadingBody() const
{
    switch (m_phase) {
    case Phase::Body:
    case Phase::Chunked:
    case Phase::Trailers:
        return true;
    default:
        return false;
    }
}

bool HttpRequestParser::isPartial() const
{
    switch (m_phase) {
    case Phase::Failed:
        return false;
    case Phase::Start:
    case Phase::Done:
        return bufferedBytes() > 0;
    default:
        return true;
    }
}

void HttpRequestParser::reset()
{
    m_buffer.clear();
    m_pos = 0;
    m_scan = 0;
    m_errorStatus = 0;
    m_errorString.clear();
    beginRequest();
}

void HttpRequestParser::beginRequest()
{
    if (m_pos > 0) {
        m_buffer.remove(0, m_pos);
        m_scan = std::max<qsizetype>(0, m_scan - m_pos);
        m_pos = 0;
    }
    m_phase = Phase::Start;
    m_status = Status::NeedMore;
    m_sectionBytes = 0;
    m_remaining = 0;
    m_expectContinue = false;
    m_continueAcknowledged = false;
    m_chunks.reset();
    m_request = HttpRequest{};
}

HttpRequestParser::Status HttpRequestParser::fail(int status, QString message)
{
    m_phase = Phase::Failed;
    m_status = Status::Error;
    m_errorStatus = status;
    m_errorString = std::move(message);
    return m_status;
}

HttpRequestParser::Status HttpRequestParser::feed(QByteArrayView bytes)
{
    if (m_phase == Phase::Failed)
        return Status::Error;
    if (m_phase == Phase::Done)
        beginRequest();
    if (!bytes.isEmpty())
        appendBytes(m_buffer, bytes);
    m_status = parse();
    return m_status;
}

bool HttpRequestParser::takeLine(QByteArrayView *line, qsizetype limit, bool *overLimit)
{
    *overLimit = false;
    const qsizetype from = std::max(m_scan, m_pos);
    const qsizetype lf = indexOfByte(m_buffer, '\n', from);
    if (lf < 0) {
        m_scan = m_buffer.size();
        *overLimit = m_buffer.size() - m_pos > limit;
        return false;
    }
    const qsizetype length = lf + 1 - m_pos;
    if (length > limit) {
        *overLimit = true;
        return false;
    }
    qsizetype end = lf;
    if (end > m_pos && m_buffer.at(end - 1) == '\r')
        --end;
    *line = QByteArrayView(m_buffer.constData() + m_pos, end - m_pos);
    m_pos = lf + 1;
    m_scan = m_pos;
    m_sectionBytes += length;
    return true;
}

HttpRequestParser::LineResult HttpRequestParser::takeBoundedLine(QByteArrayView *line)
{
    bool over = false;
    const qsizetype left = m_limits.maxHeaderBytes - m_sectionBytes;
    if (left < 0 || !takeLine(line, left, &over))
        return left < 0 || over ? LineResult::OverLimit : LineResult::NeedMore;
    return LineResult::Taken;
}

void HttpRequestParser::advance(qsizetype bytes)
{
    m_pos += bytes;
    m_scan = m_pos;
}

void HttpRequestParser::moveToBody(qsizetype bytes)
{
    constexpr qsizetype compactBytes = 64 * 1024;
    if (bytes <= 0)
        return;
    appendBytes(m_request.body, QByteArrayView(m_buffer.constData() + m_pos, bytes));
    advance(bytes);
    // A body moves into the request as it arrives: what it came in leaves the
    // buffer, so that an upload is held once, not twice (8 MiB, not 16).
    if (m_pos >= compactBytes) {
        m_buffer.remove(0, m_pos);
        m_scan -= m_pos;
        m_pos = 0;
    }
}

bool HttpRequestParser::consumeBody()
{
    const qint64 take = std::min<qint64>(m_buffer.size() - m_pos, m_remaining);
    moveToBody(qsizetype(take));
    m_remaining -= take;
    return m_remaining == 0;
}

HttpRequestParser::Status HttpRequestParser::readChunks()
{
    using Kind = ChunkedDecoder::Step::Kind;
    for (;;) {
        const ChunkedDecoder::Step step = m_chunks.next(QByteArrayView(m_buffer).sliced(m_pos));
        switch (step.kind) {
        case Kind::NeedMore:
            return Status::NeedMore;
        case Kind::Failed:
            advance(step.consumed); // a whole size line is read even when refused
            return failChunk(step.line);
        case Kind::Size:
            advance(step.consumed);
            if (step.size > m_limits.maxBodyBytes - m_request.body.size())
                return fail(413, Tr::tr("the request body is larger than %1 bytes").arg(m_limits.maxBodyBytes));
            if (step.size == 0)
                return Status::Complete;
            break;
        case Kind::Data:
            moveToBody(step.consumed);
            break;
        case Kind::DataEnd:
            advance(step.consumed);
            break;
        }
    }
}

HttpRequestParser::Status HttpRequestParser::failChunk(QByteArrayView line)
{
    using Error = ChunkedDecoder::Error;
    switch (m_chunks.error()) {
    case Error::LineTooLong:
        return fail(400, Tr::tr("a chunk-size line is longer than %1 bytes").arg(ChunkedDecoder::maxChunkLineBytes));
    case Error::TooManyDigits:
        return fail(413, Tr::tr("a chunk size has more than %1 hex digits").arg(ChunkedDecoder::maxChunkSizeDigits));
    case Error::BadExtension:
        return fail(400, Tr::tr("invalid character in a chunk extension"));
    case Error::BareCarriageReturn:
        return fail(400, Tr::tr("chunk data is not followed by CRLF"));
    case Error::DataTooLong:
        return fail(400, Tr::tr("chunk data is longer than its announced size"));
    case Error::BadSize:
    case Error::None:
        break;
    }
    return fail(400, Tr::tr("invalid chunk size \"%1\"").arg(printable(line)));
}

HttpRequestParser::Status HttpRequestParser::parse()
{
    for (;;) {
        switch (m_phase) {
        case Phase::Start: {
            QByteArrayView line;
            bool over = false;
            // A request line plus its line ending; empty lines before it are tolerated (RFC 9112 section 2.2).
            if (!takeLine(&line, m_limits.maxRequestLineBytes + 2, &over)) {
                if (over)
                    return fail(
                        414, Tr::tr("the request line is longer than %1 bytes").arg(m_limits.maxRequestLineBytes));
                return Status::NeedMore;
            }
            if (line.isEmpty()) {
                if (m_sectionBytes > m_limits.maxHeaderBytes)
                    return fail(431, Tr::tr("too many empty lines before the request line"));
                continue;
            }
            if (const Status s = parseRequestLine(line); s == Status::Error)
                return s;
            m_phase = Phase::Headers;
            break;
        }
        case Phase::Headers: {
            QByteArrayView line;
            if (const LineResult taken = takeBoundedLine(&line); taken != LineResult::Taken) {
                if (taken == LineResult::OverLimit)
                    return fail(
                        431, Tr::tr("the request header section is larger than %1 bytes").arg(m_limits.maxHeaderBytes));
                return Status::NeedMore;
            }
            if (line.isEmpty()) {
                m_request.headerBytes = m_sectionBytes;
                if (const Status s = finishHeaders(); s == Status::Error)
                    return s;
                break;
            }
            if (const Status s = parseHeaderLine(line, false); s == Status::Error)
                return s;
            break;
        }
        case Phase::Body:
            if (!consumeBody())
                return Status::NeedMore;
            m_phase = Phase::Done;
            break;
        case Phase::Chunked:
            if (const Status s = readChunks(); s != Status::Complete)
                return s;
            // The last chunk: trailers follow, a header section of their own
            // (chunk framing does not count against the header limit).
            m_sectionBytes = 0;
            m_phase = Phase::Trailers;
            break;
        case Phase::Trailers: {
            QByteArrayView line;
            if (const LineResult taken = takeBoundedLine(&line); taken != LineResult::Taken) {
                if (taken == LineResult::OverLimit)
                    return fail(
                        431, Tr::tr("the trailer section is larger than %1 bytes").arg(m_limits.maxHeaderBytes));
                return Status::NeedMore;
            }
            if (line.isEmpty()) {
                m_phase = Phase::Done;
                break;
            }
            if (const Status s = parseHeaderLine(line, true); s == Status::Error)
                return s;
            break;
        }
        case Phase::Done:
            return Status::Complete;
        case Phase::Failed:
            return Status::Error;
        }
    }
}

HttpRequestParser::Status HttpRequestParser::parseRequestLine(QByteArrayView line)
{
    const qsizetype firstSpace = indexOfByte(line, ' ');
    const qsizetype lastSpace = lastIndexOfByte(line, ' ');
    if (firstSpace <= 0 || lastSpace == firstSpace)
        return fail(400, Tr::tr("malformed request line \"%1\"").arg(printable(line)));
    const QByteArrayView method = line.first(firstSpace);
    const QByteArrayView target = line.sliced(firstSpace + 1, lastSpace - firstSpace - 1);
    const QByteArrayView version = line.sliced(lastSpace + 1);

    if (!isToken(method))
        return fail(400, Tr::tr("invalid method \"%1\"").arg(printable(method)));
    if (target.isEmpty())
        return fail(400, Tr::tr("malformed request line \"%1\"").arg(printable(line)));
    for (char c : target) {
        const auto u = static_cast<unsigned char>(c);
        if (u <= 0x20 || u >= 0x7f)
            return fail(400, Tr::tr("invalid character in the request target \"%1\"").arg(printable(target)));
        if (c == '#')
            return fail(400, Tr::tr("a request target cannot contain a fragment (\"#\")"));
    }

    // "HTTP/" DIGIT "." DIGIT
    if (version.size() != 8 || !version.startsWith("HTTP/") || version[6] != '.' || version[5] < '0' || version[5] > '9'
        || version[7] < '0' || version[7] > '9')
        return fail(400, Tr::tr("invalid HTTP version \"%1\"").arg(printable(version)));
    if (version[5] != '1')
        return fail(505, Tr::tr("HTTP version %1 is not supported; use HTTP/1.1").arg(printable(version.sliced(5))));
    m_request.minorVersion = std::min(version[7] - '0', 1);

    QByteArrayView pathAndQuery;
    if (method == "CONNECT") {
        if (!m_limits.acceptConnect)
            return fail(405, Tr::tr("CONNECT is for a forward proxy; this server opens no tunnels"));
        // authority-form, as a client asks a forward proxy for a tunnel: host:port, nothing else.
        const qsizetype colon = target.lastIndexOf(':');
        bool portOk = false;
        const uint port = colon > 0 ? target.sliced(colon + 1).toUInt(&portOk) : 0;
        if (!portOk || port == 0 || port > 65535 || target.contains('/') || target.contains('@'))
            return fail(400, Tr::tr("CONNECT needs host:port as its target (got \"%1\")").arg(printable(target)));
        pathAndQuery = "/";
    } else if (target.front() == '/') {
        pathAndQuery = target;
    } else if (target == "*") {
        if (method != "OPTIONS")
            return fail(400, Tr::tr("the target \"*\" is only allowed with OPTIONS"));
        pathAndQuery = target;
    } else {
        // absolute-form, as sent to proxies: keep only the path and the query.
        const qsizetype schemeEnd = target.indexOf("://");
        QByteArray scheme = target.first(std::max<qsizetype>(schemeEnd, 0)).toByteArray().toLower();
        if (schemeEnd <= 0 || (scheme != "http" && scheme != "https"))
            return fail(
                400, Tr::tr("the request target \"%1\" is neither a path nor an http URL").arg(printable(target)));
        const QByteArrayView afterAuthority = target.sliced(schemeEnd + 3);
        const qsizetype slash = afterAuthority.indexOf('/');
        const qsizetype question = afterAuthority.indexOf('?');
        if (slash >= 0 && (question < 0 || slash < question))
            pathAndQuery = afterAuthority.sliced(slash);
        else if (question >= 0)
            pathAndQuery = afterAuthority.sliced(question);
        else
            pathAndQuery = {};
    }

    m_request.method = knownMethod(method);
    m_request.target = target.toByteArray();
    const qsizetype question = indexOfByte(pathAndQuery, '?');
    const QByteArrayView pathPart = question >= 0 ? pathAndQuery.first(question) : pathAndQuery;
    if (pathPart.isEmpty())
        m_request.path = "/";
    else if (pathPart.data() == target.data() && pathPart.size() == target.size())
        m_request.path = m_request.target; // "/x" as sent: one array for both
    else
        m_request.path = pathPart.toByteArray();
    m_request.query = question >= 0 ? pathAndQuery.sliced(question + 1).toByteArray() : QByteArray();
    return Status::NeedMore;
}

HttpRequestParser::Status HttpRequestParser::parseHeaderLine(QByteArrayView line, bool trailer)
{
    if (isOws(line.front()))
        return fail(400, Tr::tr("obsolete line folding in a header field is not accepted"));
    const qsizetype colon = indexOfByte(line, ':');
    if (colon < 0)
        return fail(400, Tr::tr("header line without a colon: \"%1\"").arg(printable(line)));
    const QByteArrayView name = line.first(colon);
    if (!isToken(name))
        return fail(400, Tr::tr("invalid header field name \"%1\"").arg(printable(name)));
    const QByteArrayView value = trimmedOws(line.sliced(colon + 1));
    for (char c : value) {
        if (!isFieldValueChar(c))
            return fail(400, Tr::tr("invalid character in the value of header \"%1\"").arg(printable(name)));
    }
    if (trailer)
        return Status::NeedMore; // validated, but trailers carry nothing the server uses
    if (m_request.headers.size() >= m_limits.maxHeaderFields)
        return fail(431, Tr::tr("more than %1 header fields").arg(m_limits.maxHeaderFields));
    if (m_request.headers.isEmpty())
        m_request.headers.reserve(16); // one allocation for the usual dozen fields, not one per growth
    m_request.headers.append({knownHeaderName(name), value.toByteArray()});
    return Status::NeedMore;
}

HttpRequestParser::Status HttpRequestParser::finishHeaders()
{
    HttpRequest &r = m_request;

    int hosts = 0;
    bool sawContentLength = false;
    bool sawTransferEncoding = false;
    qint64 contentLength = -1;
    QList<QByteArray> codings;
    bool closeToken = false;
    bool keepAliveToken = false;
    for (const auto &[name, value] : std::as_const(r.headers)) {
        if (sameFieldName(name, "Host")) {
            ++hosts;
        } else if (sameFieldName(name, "Content-Length")) {
            sawContentLength = true;
            const QList<QByteArrayView> elements = listElements(value);
            if (elements.isEmpty())
                return fail(400, Tr::tr("empty Content-Length"));
            for (QByteArrayView element : elements) {
                if (element.size() > 18)
                    return fail(413, Tr::tr("the request body is larger than %1 bytes").arg(m_limits.maxBodyBytes));
                qint64 length = 0;
                for (char c : element) {
                    if (c < '0' || c > '9')
                        return fail(400, Tr::tr("invalid Content-Length \"%1\"").arg(printable(value)));
                    length = length * 10 + (c - '0');
                }
                if (contentLength >= 0 && length != contentLength)
                    return fail(400, Tr::tr("conflicting Content-Length values"));
                contentLength = length;
            }
        } else if (sameFieldName(name, "Transfer-Encoding")) {
            sawTransferEncoding = true;
            for (QByteArrayView element : listElements(value))
                codings.append(element.toByteArray().toLower());
        } else if (sameFieldName(name, "Connection")) {
            for (QByteArrayView element : listElements(value)) {
                if (sameFieldName(element, "close"))
                    closeToken = true;
                else if (sameFieldName(element, "keep-alive"))
                    keepAliveToken = true;
            }
        } else if (sameFieldName(name, "Expect")) {
            if (sameFieldName(value, "100-continue"))
                m_expectContinue = true;
        }
    }

    if (r.minorVersion >= 1 && hosts != 1)
        return fail(
            400, hosts == 0 ? Tr::tr("an HTTP/1.1 request needs a Host header") : Tr::tr("more than one Host header"));
    if (hosts > 1)
        return fail(400, Tr::tr("more than one Host header"));

    r.keepAlive = r.minorVersion >= 1 ? !closeToken : (keepAliveToken && !closeToken);

    if (sawTransferEncoding) {
        if (r.minorVersion == 0)
            return fail(400, Tr::tr("Transfer-Encoding in an HTTP/1.0 request"));
        if (sawContentLength)
            return fail(400, Tr::tr("both Content-Length and Transfer-Encoding: the body length is ambiguous"));
        if (codings.isEmpty())
            return fail(400, Tr::tr("empty Transfer-Encoding"));
        for (const QByteArray &coding : std::as_const(codings)) {
            if (coding != "chunked")
                return fail(501,
                    Tr::tr("transfer coding \"%1\" is not supported (only chunked)").arg(QString::fromLatin1(coding)));
        }
        if (codings.size() > 1)
            return fail(400, Tr::tr("chunked is applied more than once"));
        r.chunked = true;
        m_phase = Phase::Chunked;
    } else if (contentLength > 0) {
        if (contentLength > m_limits.maxBodyBytes)
            return fail(413,
                Tr::tr("the request body of %1 bytes is larger than %2 bytes")
                    .arg(contentLength)
                    .arg(m_limits.maxBodyBytes));
        m_remaining = contentLength;
        m_phase = Phase::Body;
    } else {
        m_phase = Phase::Done;
    }
    if (m_phase == Phase::Done)
        m_expectContinue = false;
    return Status::NeedMore;
}

} // namespace RetryLab::Core
