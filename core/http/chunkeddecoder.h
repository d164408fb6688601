#pragma once

#include <QByteArrayView>
#include <QtGlobal>

namespace RetryLab::Core {

/// The framing of a chunked body (RFC 9112 section 7.1), read incrementally:
/// each chunk-size line, the chunk's data and the line end after it, up to the
/// last chunk (size 0). The trailer section after the last chunk is a header
/// section, read by the caller like its other headers.
///
/// It owns no buffer: it says how many of the bytes it is shown are framing and
/// how many are content, so that HttpRequestParser copies the content into the
/// request's body while HttpResponseStream passes every byte on as it was on the
/// wire. Like them it owns no socket and no timer; errors are kinds, worded by
/// the caller (a server answers a client, a proxy speaks of its upstream).
class ChunkedDecoder final
{
public:
    /// A chunk-size line is a few hex digits and rarely an extension; anything
    /// longer is an attack on the reader rather than a message.
    static constexpr qsizetype maxChunkLineBytes = 4096;
    /// 15 hex digits stay far below qint64 overflow; real chunks are much smaller.
    static constexpr int maxChunkSizeDigits = 15;

    /// How a chunk-size line is read.
    enum class Grammar {
        /// RFC 9112's: hex digits, optional white space, then nothing but a
        /// chunk extension (";" and field-value characters); a line with its end
        /// of at most maxChunkLineBytes. What a careful server accepts from a
        /// client (HttpRequestParser).
        Strict,
        /// The number before any ";", white space around it allowed, as
        /// QByteArrayView::toLongLong() reads base 16, of at most
        /// maxChunkSizeDigits characters; extensions are not looked at, and a
        /// line is too long only while its end has not arrived. What a proxy
        /// passes on from its upstream (HttpResponseStream).
        Tolerant,
    };

    enum class Error {
        None,
        LineTooLong, ///< a chunk-size line over maxChunkLineBytes
        TooManyDigits, ///< Strict: a size of more than maxChunkSizeDigits hex digits
        BadSize, ///< no chunk size where one must be, or not a number
        BadExtension, ///< Strict: a character a chunk extension cannot hold
        DataTooLong, ///< a chunk's data not followed by a line end: longer than its size said
        BareCarriageReturn, ///< a chunk's data followed by CR without LF
    };

    /// What the next bytes are.
    struct Step
    {
        enum class Kind {
            NeedMore, ///< the bytes shown end before the next piece does
            Size, ///< a chunk-size line, its end included: `size` bytes of data follow (0: the last chunk)
            Data, ///< chunk data
            DataEnd, ///< the line end after a chunk's data
            Failed, ///< error() says why; `consumed` is the size line it is in, if it is in a whole one
        };
        Kind kind = Kind::NeedMore;
        qsizetype consumed = 0; ///< bytes of the input this piece takes
        qint64 size = 0; ///< the chunk's size, for Size
        QByteArrayView line; ///< the chunk-size line without its end, for Size and for an error in one
    };

    explicit ChunkedDecoder(Grammar grammar) : m_grammar(grammar) { }

    /// Reads the next piece from `input`: the bytes the caller has not consumed
    /// yet, starting where the last piece ended (the caller consumes exactly
    /// `consumed` bytes of each). After the last chunk's size line the decoder
    /// is done (isDone()) until reset().
    Step next(QByteArrayView input);

    /// Starts on a new chunked body.
    void reset();

    bool isDone() const { return m_phase == Phase::Done; }
    Error error() const { return m_error; }

private:
    enum class Phase { Size, Data, DataEnd, Done, Failed };

    Step sizeLine(QByteArrayView input);
    Step fail(Error error, QByteArrayView line = {}, qsizetype consumed = 0);

    Grammar m_grammar;
    Phase m_phase = Phase::Size;
    qint64 m_remaining = 0; ///< data bytes of the chunk still to come
    qsizetype m_scanned = 0; ///< bytes of the size line already searched for its end
    Error m_error = Error::None;
};

} // namespace RetryLab::Core
