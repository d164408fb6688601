#pragma once

#include "core/http/chunkeddecoder.h"
#include "core/http/httpheaders.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QString>

namespace RetryLab::Core {

/// An incremental HTTP/1.1 response reader for a proxy: it finds the status
/// line and headers, then follows the body's framing (Content-Length,
/// chunked, or until the connection closes) without keeping the body, so that
/// a response of any size passes through in the pieces it arrives in. Like
/// HttpRequestParser it owns no socket and no timer.
///
/// feed() hands back, in order, the bytes of the current message that were
/// consumed: headComplete() tells when the head was read (head() then holds it,
/// and those bytes are not part of the body), body() the body bytes exactly as
/// they were on the wire (chunk framing included), and messageComplete() when
/// the message has ended; the bytes after it stay buffered for the next one
/// (next()). A response to HEAD, and 1xx, 204 and 304 responses, have no body.
/// Errors (a malformed status line or header, a bad chunk size, both
/// Content-Length and Transfer-Encoding, a head over its limit) leave the
/// reader in the error state: the upstream connection must be closed.
class HttpResponseStream final
{
public:
    struct Head
    {
        int minorVersion = 1;
        int status = 0;
        QByteArray reason;
        HeaderList headers; ///< in order, names as sent, values trimmed
        QByteArray raw; ///< the head exactly as received, CRLF CRLF included
    };

    enum class Framing {
        None, ///< no body: HEAD, 1xx, 204, 304
        Length, ///< Content-Length bytes
        Chunked, ///< chunked transfer coding, up to the last chunk and its trailers
        UntilClose, ///< the body ends when the connection closes
    };

    enum class Status {
        NeedMore, ///< the message is not complete yet (body() may hold bytes)
        Complete, ///< the message ended; next() starts on the following one
        Error,
    };

    struct Limits
    {
        qsizetype maxHeadBytes = 64 * 1024;
        int maxHeaderFields = 200;
    };

    HttpResponseStream() = default;
    explicit HttpResponseStream(const Limits &limits) : m_limits(limits) { }

    /// The method of the request this response answers (HEAD has no body).
    void setRequestMethod(const QByteArray &method) { m_requestMethod = method; }

    /// Appends bytes and reads as far as they allow. body() is replaced by the
    /// body bytes consumed by this call.
    Status feed(QByteArrayView bytes);
    /// The upstream closed its side: completes an UntilClose body; an error
    /// for a message cut short (isTruncated() then says so).
    Status finish();
    /// Starts on the next message with the bytes still buffered.
    Status next();

    Status status() const { return m_status; }
    bool headComplete() const { return m_headDone; }
    const Head &head() const { return m_head; }
    Framing framing() const { return m_framing; }
    /// Content-Length of a Length body; -1 otherwise.
    qint64 contentLength() const { return m_framing == Framing::Length ? m_length : -1; }
    /// Body bytes consumed by the last feed() (or finish()), as on the wire.
    const QByteArray &body() const { return m_body; }
    /// Where in body() the content is, without the chunk framing: a piece
    /// starts at `at` in body(), is `length` long, and is the content's bytes
    /// from `offset` on. For Length and UntilClose bodies one piece is all of body().
    struct Piece
    {
        qsizetype at = 0;
        qsizetype length = 0;
        qint64 offset = 0;
    };
    const QList<Piece> &payload() const { return m_payload; }
    /// Body bytes of the current message so far, framing included.
    qint64 bodyBytes() const { return m_bodyTotal; }
    /// The message ended before its framing said it would (finish() on a partial body).
    bool isTruncated() const { return m_truncated; }
    QString errorString() const { return m_error; }
    /// Bytes received and not yet consumed (after a Complete, the next message's).
    qsizetype bufferedBytes() const { return m_buffer.size() - m_pos; }

    /// Forgets everything, the error too.
    void reset();

private:
    enum class Phase { Head, Body, Chunked, Trailers, Done, Failed };

    Status run();
    Status fail(QString message);
    /// The chunk decoder's error, in the words of a proxy about its upstream.
    Status failChunk(QByteArrayView line);
    Status parseHead(QByteArrayView head);
    bool takeLine(QByteArrayView *line);
    void take(qsizetype count, bool payload = false);

    Limits m_limits;
    QByteArray m_requestMethod = "GET";
    Phase m_phase = Phase::Head;
    Status m_status = Status::NeedMore;
    QByteArray m_buffer;
    qsizetype m_pos = 0;
    Head m_head;
    HeaderList m_previousHeaders; ///< the last answer's fields, kept by reset() for parseHead()
    QByteArray m_previousReason; ///< the same for its reason phrase
    bool m_headDone = false;
    Framing m_framing = Framing::None;
    qint64 m_length = 0;
    qint64 m_remaining = 0; ///< of a Length body
    ChunkedDecoder m_chunks{ChunkedDecoder::Grammar::Tolerant};
    QByteArray m_body;
    qint64 m_bodyTotal = 0;
    QList<Piece> m_payload;
    qint64 m_payloadTotal = 0;
    qsizetype m_trailerBytes = 0;
    bool m_truncated = false;
    QString m_error;
};

} // namespace RetryLab::Core
