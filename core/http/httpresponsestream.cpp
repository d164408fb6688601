#include "core/http/httpresponsestream.h"
#include "core/http/fieldname.h"
#include "core/http/httpheaders.h"
#include "core/http/rawbytes.h"

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

/// The same bytes, the lengths first: QByteArray's operator== takes a call into Qt before memcmp().
bool sameBytes(QByteArrayView a, QByteArrayView b)
{
    return a.size() == b.size() && (a.isEmpty() || std::memcmp(a.data(), b.data(), size_t(a.size())) == 0);
}

/// `text` without white space at either end, the bytes QByteArrayView::trimmed() drops, in place.
QByteArrayView trimmedSpace(QByteArrayView text)
{
    const auto space = [](char c) { return c == ' ' || (c >= '\t' && c <= '\r'); };
    qsizetype from = 0;
    qsizetype to = text.size();
    while (from < to && space(text[from]))
        ++from;
    while (to > from && space(text[to - 1]))
        --to;
    return text.sliced(from, to - from);
}

/// The number a run of one to eighteen digits says (isDigits()): it cannot overflow, and
/// QByteArrayView::toLongLong() would go through strtoll() for it.
qint64 digitsValue(QByteArrayView digits)
{
    qint64 value = 0;
    for (const char c : digits)
        value = value * 10 + (c - '0');
    return value;
}

/// Empties `bytes`, keeping a small buffer's room for what comes next instead of freeing it
/// and allocating it again (a large one is freed: an idle connection holds little).
void emptyKeepingRoom(QByteArray &bytes)
{
    constexpr qsizetype keptRoom = 16 * 1024;
    if (bytes.capacity() > keptRoom)
        bytes.clear();
    else
        bytes.resize(0);
}

} // namespace

void HttpResponseStream::reset()
{
    // Field by field rather than a fresh stream assigned: the proxy resets its stream for
    // every exchange, and its buffers keep their room (emptyKeepingRoom()). Every member
    // of the class is here.
    m_requestMethod = QByteArrayLiteral("GET");
    m_phase = Phase::Head;
    m_status = Status::NeedMore;
    emptyKeepingRoom(m_buffer);
    m_pos = 0;
    m_previousHeaders = std::move(m_head.headers); // see parseHead()
    // A reason phrase is checked as it is read: one refused is not taken as checked.
    m_previousReason = m_headDone ? std::move(m_head.reason) : QByteArray();
    m_head = Head{};
    m_headDone = false;
    m_framing = Framing::None;
    m_length = 0;
    m_remaining = 0;
    m_chunks = ChunkedDecoder(ChunkedDecoder::Grammar::Tolerant);
    emptyKeepingRoom(m_body);
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
    emptyKeepingRoom(m_body); // the body of every read goes in here
    m_payload.clear();
    if (m_phase == Phase::Failed)
        return m_status;
    // Drop what was consumed before growing the buffer again.
    if (m_pos > 0 && (m_pos >= m_buffer.size() || m_pos > 64 * 1024)) {
        m_buffer.remove(0, m_pos);
        m_pos = 0;
    }
    appendBytes(m_buffer, bytes);
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
    appendBytes(m_body, QByteArrayView(m_buffer.constData() + m_pos, count));
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
    // that one was, checked then. The last head's list is written over in place, its
    // room and its equal fields kept, rather than copied into a new one.
    HeaderList headers = std::exchange(m_previousHeaders, {});
    const QByteArray previousReason = std::exchange(m_previousReason, {});
    m_head = Head{};
    m_head.raw = head.toByteArray();
    if (headers.isEmpty())
        headers.reserve(16); // one allocation for the usual dozen fields
    qsizetype count = 0; // of the fields read, those in `headers` from the start
    // What was read so far becomes the head's fields, also when it is refused.
    const auto failHead = [this, &headers, &count](QString message) {
        headers.resize(count);
        m_head.headers = std::move(headers);
        return fail(std::move(message));
    };
    qsizetype pos = 0;
    bool first = true;
    while (pos < head.size()) {
        qsizetype end = indexOfByte(head, '\n', pos);
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
                return failHead(Tr::tr("the upstream's status line is not HTTP/1.x: \"%1\"")
                                    .arg(QString::fromLatin1(clip(line, 80))));
            const char minor = line.at(7);
            if (minor != '0' && minor != '1')
                return failHead(Tr::tr("the upstream answered HTTP/1.%1, which is not read").arg(QLatin1Char(minor)));
            m_head.minorVersion = minor - '0';
            const QByteArrayView code = line.sliced(9, 3);
            if (!isDigits(code) || (line.size() > 12 && line.at(12) != ' '))
                return failHead(Tr::tr("the upstream's status code is not three digits: \"%1\"")
                                    .arg(QString::fromLatin1(clip(line, 80))));
            m_head.status = int(digitsValue(code));
            if (m_head.status < 100)
                return failHead(Tr::tr("the upstream's status %1 is below 100").arg(m_head.status));
            const QByteArrayView reason = line.size() > 13 ? line.sliced(13) : QByteArrayView();
            if (!reason.isEmpty() && sameBytes(reason, previousReason)) {
                m_head.reason = previousReason; // checked when it came before
                continue;
            }
            m_head.reason = reason.toByteArray();
            // A bare CR or a NUL would be read otherwise by the next hop (RFC 9110 section 5.5).
            if (const QString problem = fieldValueProblem(m_head.reason); !problem.isEmpty())
                return failHead(Tr::tr("the upstream's reason phrase: %1").arg(problem));
            continue;
        }
        if (line.front() == ' ' || line.front() == '\t')
            return failHead(Tr::tr("the upstream folded a header line, which HTTP/1.1 no longer allows"));
        const qsizetype colon = indexOfByte(line, ':', 0);
        if (colon <= 0)
            return failHead(Tr::tr("the upstream sent a header line without a name: \"%1\"")
                                .arg(QString::fromLatin1(clip(line, 80))));
        const QByteArrayView name = line.first(colon);
        if (name.back() == ' ' || name.back() == '\t')
            return failHead(Tr::tr("the upstream sent white space before a header's colon"));
        if (count >= m_limits.maxHeaderFields)
            return failHead(Tr::tr("the upstream sent more than %1 header fields").arg(m_limits.maxHeaderFields));
        const QByteArrayView value = trimmedSpace(line.sliced(colon + 1));
        const bool sameName = count < headers.size() && sameBytes(headers.at(count).first, name);
        if (sameName && sameBytes(headers.at(count).second, value)) {
            ++count;
            continue;
        }
        if (const QString problem = tokenProblem(name); !problem.isEmpty())
            return failHead(Tr::tr("the upstream sent a header name that is no token: %1").arg(problem));
        // RFC 9110 section 5.5: a CR, LF or NUL in a value must be refused or replaced. Passed on,
        // a bare CR makes the client read other headers (a Set-Cookie of the upstream's choosing)
        // or another body length than the proxy did.
        if (const QString problem = fieldValueProblem(value); !problem.isEmpty()) {
            return failHead(Tr::tr("the upstream's %1 header: %2").arg(QString::fromLatin1(clip(name, 40)), problem));
        }
        if (sameName)
            headers[count].second = value.toByteArray(); // the name is the one there: only the value is new
        else if (count < headers.size())
            headers[count] = {name.toByteArray(), value.toByteArray()};
        else
            headers.append({name.toByteArray(), value.toByteArray()});
        ++count;
    }
    headers.resize(count);
    m_head.headers = std::move(headers);
    if (first)
        return fail(Tr::tr("the upstream sent an empty response head"));

    // The framing (RFC 9112 section 6.3).
    const bool noBody = QByteArrayView(m_requestMethod) == "HEAD" || (m_head.status >= 100 && m_head.status < 200)
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
            const qint64 n = digitsValue(value);
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
