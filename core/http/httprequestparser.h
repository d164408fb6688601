#pragma once

#include "core/http/chunkeddecoder.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QPair>
#include <QString>

#include <optional>

namespace RetryLab::Core {

/// One HTTP/1.x request as read from the wire.
struct HttpRequest
{
    QByteArray method;
    QByteArray target; ///< the request-target exactly as sent
    QByteArray path; ///< target without query, still percent-encoded; "/x" for absolute-form "http://h/x"
    QByteArray query; ///< the part after '?', without it; empty when there is none
    int minorVersion = 1; ///< HTTP/1.<minorVersion>
    QList<QPair<QByteArray, QByteArray>> headers; ///< in order, names as sent, values trimmed
    QByteArray body; ///< decoded (chunked framing removed)
    bool chunked = false;
    /// Whether the connection may carry another request after this one.
    bool keepAlive = true;
    qsizetype headerBytes = 0; ///< request line + header section, line endings included

    /// The first header of that name (case-insensitive).
    std::optional<QByteArray> header(QByteArrayView name) const;
    /// All values of that name joined by ", " (RFC 9110 section 5.3).
    QByteArray combinedHeader(QByteArrayView name) const;
};

/// An incremental, pure HTTP/1.1 request parser: bytes go in, whole requests
/// come out. It owns no socket and no timer, so that it can be fed a byte at a
/// time, tested at every split point, and fuzzed.
///
/// It reads Content-Length and chunked bodies, keeps bytes that follow a
/// request for the next one (pipelining), and refuses what a careful server
/// refuses: malformed syntax (400), CONNECT unless asked for (405), a header section over the limit (431), a
/// request line over its limit (414), a body over its limit (413), transfer
/// codings other than chunked (501) and HTTP versions other than 1.0 and 1.1
/// (505). Both Content-Length and Transfer-Encoding is refused (400), because
/// the disagreement is how requests are smuggled past proxies.
///
/// After an error the parser stays in the error state: the connection cannot
/// be trusted to be in sync any more and must be closed after the answer.
class HttpRequestParser final
{
public:
    struct Limits
    {
        qsizetype maxHeaderBytes = 64 * 1024; ///< request line + header fields (+ trailers)
        qsizetype maxRequestLineBytes = 8 * 1024;
        qsizetype maxBodyBytes = 8 * 1024 * 1024;
        int maxHeaderFields = 200;
        /// CONNECT host:port (authority-form) is taken, as a forward proxy takes it;
        /// otherwise it is refused with 405, as a server that opens no tunnels does.
        bool acceptConnect = false;
    };

    enum class Status {
        NeedMore, ///< no complete request buffered yet
        Complete, ///< request() holds a request; call next() for a pipelined one
        Error, ///< errorStatus() and errorString() say what was wrong
    };

    HttpRequestParser() = default;
    explicit HttpRequestParser(const Limits &limits) : m_limits(limits) { }

    /// Appends bytes and parses as far as they allow. When a request was
    /// already complete, parsing continues with the next one.
    Status feed(QByteArrayView bytes);
    /// Parses the next request from bytes already buffered (pipelining).
    Status next() { return feed({}); }

    Status status() const { return m_status; }
    /// The request of the last Complete; valid until the next feed()/next().
    const HttpRequest &request() const { return m_request; }
    HttpRequest takeRequest();
    /// The bytes received after the last complete request, taken out of the
    /// parser: what a client sent into a CONNECT tunnel before it was open.
    QByteArray takeBuffered();

    /// 400, 413, 414, 431, 501 or 505 after an Error; 0 otherwise.
    int errorStatus() const { return m_errorStatus; }
    QString errorString() const { return m_errorString; }

    /// True once the header section of a request with "Expect: 100-continue"
    /// is read and its body is still outstanding. The server answers
    /// "100 Continue" and calls acknowledgeContinue().
    bool expectsContinue() const { return m_expectContinue && !m_continueAcknowledged; }
    void acknowledgeContinue() { m_continueAcknowledged = true; }

    /// True while part of a request (but not a whole one) is buffered.
    bool isPartial() const;
    /// True once the header section of a request is read and its body (or
    /// chunked body and trailers) is still arriving.
    bool isReadingBody() const;
    /// Bytes received but not yet consumed by a complete request.
    qsizetype bufferedBytes() const { return m_buffer.size() - m_pos; }
    /// Memory the parser holds for requests: bytes not consumed yet and the
    /// body of the request being read.
    qsizetype heldBytes() const { return m_buffer.size() + m_request.body.size(); }
    const Limits &limits() const { return m_limits; }

    /// Forgets everything, including an error.
    void reset();

private:
    enum class Phase { Start, Headers, Body, Chunked, Trailers, Done, Failed };
    enum class LineResult { Taken, NeedMore, OverLimit };

    Status fail(int status, QString message);
    Status parse();
    bool takeLine(QByteArrayView *line, qsizetype limit, bool *overLimit);
    /// The next line of the header section or the trailers, within what is
    /// left of maxHeaderBytes for the section.
    LineResult takeBoundedLine(QByteArrayView *line);
    /// Consumes `bytes` buffered bytes.
    void advance(qsizetype bytes);
    /// Moves `bytes` buffered bytes into the body.
    void moveToBody(qsizetype bytes);
    /// Moves up to m_remaining buffered bytes of a Content-Length body into the
    /// body; true once none remain.
    bool consumeBody();
    /// Reads chunks into the body; Complete once the last chunk's size line is read.
    Status readChunks();
    /// The chunk decoder's error as the answer to the client.
    Status failChunk(QByteArrayView line);
    Status parseRequestLine(QByteArrayView line);
    Status parseHeaderLine(QByteArrayView line, bool trailer);
    Status finishHeaders();
    void beginRequest();

    Limits m_limits;
    Phase m_phase = Phase::Start;
    Status m_status = Status::NeedMore;
    QByteArray m_buffer;
    qsizetype m_pos = 0; ///< first byte not consumed yet
    qsizetype m_scan = 0; ///< where the search for the next line feed resumes
    qsizetype m_sectionBytes = 0; ///< bytes of the header section (or trailers) so far
    qint64 m_remaining = 0; ///< Content-Length body bytes still to read
    bool m_expectContinue = false;
    bool m_continueAcknowledged = false;
    ChunkedDecoder m_chunks{ChunkedDecoder::Grammar::Strict};
    HttpRequest m_request;
    int m_errorStatus = 0;
    QString m_errorString;
};

} // namespace RetryLab::Core
