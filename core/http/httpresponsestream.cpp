#include "core/http/httpresponsestream.h"
#include "core/http/fieldname.h"
#include "core/http/httpheaders.h"

#include "core/util/coretr.h"

#include <cstring>
#include <utility>

namespace RetryLab::Core {

namespace {

constexpr qsizetype maxTrailerBytes = 64 * 1024;

/// The first `n` bytes of `text` at most, for messages.
QByteArray clip(QByteArrayView text, qsizetype n)
{
    return text.first(std::min(n, text.size())).toByteArray();
}

/// Where the head that starts at `from` ends: the first "\r\n\r\n", or a bare "\n\n"
/// before it; the position of the empty line's start and the one after it, or -1 twice.
/// Found from line feed to line feed with memchr: QByteArray::indexOf() of a four-byte
/// needle hashed every byte, 2,000 instructions for a small answer.
std::pair<qsizetype, qsizetype> headEnd(const QByteArray &buffer, qsizetype from)
{
    const char *data = buffer.constData();
    const qsizetype size = buffer.size();
    for (qsizetype i = from; i < size;) {
        const void *found = std::memchr(data + i, '\n', size_t(size - i));
        if (!found)
            break;
        i = static_cast<const char *>(found) - data;
        if (i + 1 < size && data[i + 1] == '\n')
            return {i, i + 2};
        if (i - 1 >= from && data[i - 1] == '\r' && i + 2 < size && data[i + 1] == '\r' && data[i + 2] == '\n')
            return {i - 1, i + 3};
        ++i;
    }
    return {-1, -1};
}

} // namespace

void HttpResponseStream::reset()
{
    // Field by field rather than a fresh stream assigned: the proxy resets its stream for
    // every exchange, and small buffers keep their room for the next answer instead of
    // being freed and allocated again (large ones are freed: an idle connection holds
    // little). Every member of the class is here.
    constexpr qsizetype keptRoom = 16 * 1024;
    const auto empty = [](QByteArray &bytes) {
        if (bytes.capacity() > keptRoom)
            bytes.clear();
        else
            bytes.resize(0);
    };
    m_requestMethod = QByteArrayLiteral("GET");
    m_phase = Phase::Head;
    m_status = Status::NeedMore;
    empty(m_buffer);
    m_pos = 0;
    m_previousHeaders = std::move(m_head.headers); // see parseHead()
    m_head = Head{};
    m_headDone = false;
    m_framing = Framing::None;
    m_length = 0;
    m_remaining = 0;
    m_chunks = ChunkedDecoder(ChunkedDecoder::Grammar::Tolerant);
    empty(m_body);
    m_bodyTotal = 0;
    m_payload.clear();
    m_payloadTotal = 0;
    m_trailerBytes = 0;
    m_truncated = false;
    m_error.clear();
}

HttpResponseStream::Status HttpResponseStream::fail(QString message)
{
    m_phase = Phase::Failed;
    m_status = Status::Error;
    m_error = std::move(message);
    return m_status;
}

HttpResponseStream::Status HttpResponseStream::feed(QByteArrayView bytes)
{
    m_body.clear();
    m_payload.clear();
    if (m_phase == Phase::Failed)
        return m_status;
    // Drop what was consumed before growing the buffer again.
    if (m_pos > 0 && (m_pos >= m_buffer.size() || m_pos > 64 * 1024)) {
        m_buffer.remove(0, m_pos);
        m_pos = 0;
    }
    m_buffer.append(bytes.data(), bytes.size());
    if (m_phase == Phase::Done)
        return m_status; // next() reads on
    return run();
}

HttpResponseStream::Status HttpResponseStream::next()
{
    if (m_phase == Phase::Failed)
        return m_status;
    const QByteArray method = m_requestMethod;
    QByteArray buffer = m_buffer.mid(m_pos);
    const Limits limits = m_limits;
    *this = HttpResponseStream(limits);
    m_requestMethod = method;
    m_buffer = std::move(buffer);
    return run();
}

HttpResponseStream::Status HttpResponseStream::finish()
{
    m_body.clear();
    m_payload.clear();
    if (m_phase == Phase::Failed || m_phase == Phase::Done)
        return m_status;
    if (m_phase == Phase::Head && bufferedBytes() == 0)
        return m_status; // closed between messages: nothing was cut
    if (m_phase == Phase::Body && m_framing == Framing::UntilClose) {
        m_phase = Phase::Done;
        m_status = Status::Complete;
        return m_status;
    }
    m_truncated = true;
    return fail(m_headDone ? Tr::tr("the upstream closed the connection after %1 of the body's bytes, before the "
                                    "response ended")
                                 .arg(m_bodyTotal)
                           : Tr::tr("the upstream closed the connection in the middle of the response's headers"));
}

void HttpResponseStream::take(qsizetype count, bool payload)
{
    if (payload && count > 0) {
        m_payload.append({m_body.size(), count, m_payloadTotal});
        m_payloadTotal += count;
    }
    m_body.append(m_buffer.constData() + m_pos, count);
    m_pos += count;
    m_bodyTotal += count;
}

bool HttpResponseStream::takeLine(QByteArrayView *line)
{
    const qsizetype end = m_buffer.indexOf('\n', m_pos);
    if (end < 0)
        return false;
    qsizetype length = end - m_pos;
    if (length > 0 && m_buffer.at(end - 1) == '\r')
        --length;
    *line = QByteArrayView(m_buffer.constData() + m_pos, length);
    return true;
}

HttpResponseStream::Status HttpResponseStream::failChunk(QByteArrayView line)
{
    switch (m_chunks.error()) {
    case ChunkedDecoder::Error::LineTooLong:
        return fail(
            Tr::tr("the upstream's chunk-size line is longer than %1 bytes").arg(ChunkedDecoder::maxChunkLineBytes));
    case ChunkedDecoder::Error::DataTooLong:
    case ChunkedDecoder::Error::BareCarriageReturn:
        return fail(Tr::tr("the upstream's chunk did not end where its size said"));
    case ChunkedDecoder::Error::TooManyDigits:
    case ChunkedDecoder::Error::BadSize:
    case ChunkedDecoder::Error::BadExtension:
    case ChunkedDecoder::Error::None:
        break;
    }
    return fail(Tr::tr("the upstream sent a bad chunk size: \"%1\"").arg(QString::fromLatin1(clip(line, 40))));
}

HttpResponseStream::Status HttpResponseStream::parseHead(QByteArrayView head)
{
    // The answers on one connection repeat most of their fields (Server, Content-Type,
    // Connection): a field equal to the one at its place in the last head is taken as
    // that one was, checked then, instead of checked and copied into two new arrays.
    const HeaderList previous = std::exchange(m_previousHeaders, {});
    m_head = Head{};
    m_head.raw = head.toByteArray();
    m_head.headers.reserve(16); // one allocation for the usual dozen fields
    qsizetype pos = 0;
    bool first = true;
    while (pos < head.size()) {
        qsizetype end = head.indexOf('\n', pos);
        if (end < 0)
            end = head.size();
        QByteArrayView line = head.sliced(pos, end - pos);
        if (line.endsWith('\r'))
            line.chop(1);
        pos = end + 1;
        if (line.isEmpty())
            break;
        if (first) {
            first = false;
            // HTTP/1.1 200 OK
            if (!line.startsWith("HTTP/1.") || line.size() < 12 || line.at(8) != ' ')
                return fail(Tr::tr("the upstream's status line is not HTTP/1.x: \"%1\"")
                                .arg(QString::fromLatin1(clip(line, 80))));
            const char minor = line.at(7);
            if (minor != '0' && minor != '1')
                return fail(Tr::tr("the upstream answered HTTP/1.%1, which is not read").arg(QLatin1Char(minor)));
            m_head.minorVersion = minor - '0';
            const QByteArrayView code = line.sliced(9, 3);
            if (!isDigits(code) || (line.size() > 12 && line.at(12) != ' '))
                return fail(Tr::tr("the upstream's status code is not three digits: \"%1\"")
                                .arg(QString::fromLatin1(clip(line, 80))));
            m_head.status = code.toInt();
            if (m_head.status < 100)
                return fail(Tr::tr("the upstream's status %1 is below 100").arg(m_head.status));
            m_head.reason = line.size() > 13 ? line.sliced(13).toByteArray() : QByteArray();
            // A bare CR or a NUL would be read otherwise by the next hop (RFC 9110 section 5.5).
            if (const QString problem = fieldValueProblem(m_head.reason); !problem.isEmpty())
                return fail(Tr::tr("the upstream's reason phrase: %1").arg(problem));
            continue;
        }
        if (line.front() == ' ' || line.front() == '\t')
            return fail(Tr::tr("the upstream folded a header line, which HTTP/1.1 no longer allows"));
        const qsizetype colon = line.indexOf(':');
        if (colon <= 0)
            return fail(Tr::tr("the upstream sent a header line without a name: \"%1\"")
                            .arg(QString::fromLatin1(clip(line, 80))));
        const QByteArrayView name = line.first(colon);
        if (name.back() == ' ' || name.back() == '\t')
            return fail(Tr::tr("the upstream sent white space before a header's colon"));
        if (m_head.headers.size() >= m_limits.maxHeaderFields)
            return fail(Tr::tr("the upstream sent more than %1 header fields").arg(m_limits.maxHeaderFields));
        if (const qsizetype at = m_head.headers.size(); at < previous.size() && previous[at].first == name) {
            const QByteArrayView value = line.sliced(colon + 1).trimmed();
            if (previous[at].second == value) {
                m_head.headers.append(previous[at]);
                continue;
            }
        }
        if (const QString problem = tokenProblem(name); !problem.isEmpty())
            return fail(Tr::tr("the upstream sent a header name that is no token: %1").arg(problem));
        // RFC 9110 section 5.5: a CR, LF or NUL in a value must be refused or replaced. Passed on,
        // a bare CR makes the client read other headers (a Set-Cookie of the upstream's choosing)
        // or another body length than the proxy did.
        const QByteArrayView value = line.sliced(colon + 1).trimmed();
        if (const QString problem = fieldValueProblem(value); !problem.isEmpty()) {
            return fail(Tr::tr("the upstream's %1 header: %2").arg(QString::fromLatin1(clip(name, 40)), problem));
        }
        m_head.headers.append({name.toByteArray(), value.toByteArray()});
    }
    if (first)
        return fail(Tr::tr("the upstream sent an empty response head"));

    // The framing (RFC 9112 section 6.3).
    const bool noBody = m_requestMethod == "HEAD" || (m_head.status >= 100 && m_head.status < 200)
        || m_head.status == 204 || m_head.status == 304;
    std::optional<QByteArray> transferEncoding;
    std::optional<qint64> length;
    for (const auto &[name, value] : m_head.headers) {
        if (sameFieldName(name, "Transfer-Encoding")) {
            transferEncoding = transferEncoding ? *transferEncoding + ", " + value : value;
        } else if (sameFieldName(name, "Content-Length")) {
            if (!isDigits(value) || value.size() > 18)
                return fail(Tr::tr("the upstream's Content-Length is not a number: \"%1\"")
                                .arg(QString::fromLatin1(value.left(40))));
            const qint64 n = value.toLongLong();
            if (length && *length != n)
                return fail(Tr::tr("the upstream sent two different Content-Length values"));
            length = n;
        }
    }
    if (noBody) {
        m_framing = Framing::None;
    } else if (transferEncoding) {
        if (length)
            return fail(Tr::tr("the upstream sent both Content-Length and Transfer-Encoding"));
        const QByteArray last = transferEncoding->split(',').constLast().trimmed().toLower();
        m_framing = last == "chunked" ? Framing::Chunked : Framing::UntilClose;
    } else if (length) {
        m_framing = Framing::Length;
        m_length = *length;
        m_remaining = *length;
    } else {
        m_framing = Framing::UntilClose;
    }
    m_headDone = true;
    return Status::NeedMore;
}

HttpResponseStream::Status HttpResponseStream::run()
{
    for (;;) {
        switch (m_phase) {
        case Phase::Head: {
            const auto [end, after] = headEnd(m_buffer, m_pos);
            if (end < 0) {
                if (bufferedBytes() > m_limits.maxHeadBytes)
                    return fail(
                        Tr::tr("the upstream's response head is longer than %1 bytes").arg(m_limits.maxHeadBytes));
                return m_status = Status::NeedMore;
            }
            if (after - m_pos > m_limits.maxHeadBytes)
                return fail(Tr::tr("the upstream's response head is longer than %1 bytes").arg(m_limits.maxHeadBytes));
            const QByteArrayView head(m_buffer.constData() + m_pos, after - m_pos);
            if (parseHead(head) == Status::Error)
                return m_status;
            m_pos = after;
            switch (m_framing) {
            case Framing::None:
                m_phase = Phase::Done;
                break;
            case Framing::Length:
                m_phase = m_remaining == 0 ? Phase::Done : Phase::Body;
                break;
            case Framing::Chunked:
                m_phase = Phase::Chunked;
                break;
            case Framing::UntilClose:
                m_phase = Phase::Body;
                break;
            }
            break;
        }
        case Phase::Body: {
            const qsizetype available = bufferedBytes();
            if (m_framing == Framing::UntilClose) {
                take(available, true);
                return m_status = Status::NeedMore;
            }
            const qsizetype n = qsizetype(std::min<qint64>(m_remaining, available));
            take(n, true);
            m_remaining -= n;
            if (m_remaining > 0)
                return m_status = Status::NeedMore;
            m_phase = Phase::Done;
            break;
        }
        case Phase::Chunked: {
            const ChunkedDecoder::Step step = m_chunks.next(QByteArrayView(m_buffer).sliced(m_pos));
            switch (step.kind) {
            case ChunkedDecoder::Step::Kind::NeedMore:
                return m_status = Status::NeedMore;
            case ChunkedDecoder::Step::Kind::Failed:
                return failChunk(step.line);
            case ChunkedDecoder::Step::Kind::Data:
                take(step.consumed, true);
                break;
            case ChunkedDecoder::Step::Kind::Size:
            case ChunkedDecoder::Step::Kind::DataEnd:
                take(step.consumed); // framing, passed on as it came
                break;
            }
            if (m_chunks.isDone())
                m_phase = Phase::Trailers;
            break;
        }
        case Phase::Trailers: {
            QByteArrayView line;
            if (!takeLine(&line)) {
                if (bufferedBytes() + m_trailerBytes > maxTrailerBytes)
                    return fail(Tr::tr("the upstream's trailers are longer than %1 bytes").arg(maxTrailerBytes));
                return m_status = Status::NeedMore;
            }
            const qsizetype consumed = m_buffer.indexOf('\n', m_pos) + 1 - m_pos;
            m_trailerBytes += consumed;
            if (m_trailerBytes > maxTrailerBytes)
                return fail(Tr::tr("the upstream's trailers are longer than %1 bytes").arg(maxTrailerBytes));
            take(consumed);
            if (line.isEmpty())
                m_phase = Phase::Done;
            break;
        }
        case Phase::Done:
            return m_status = Status::Complete;
        case Phase::Failed:
            return m_status;
        }
    }
}

} // namespace RetryLab::Core
