#include "core/http/chunkeddecoder.h"

#include "core/http/httpheaders.h"

#include <algorithm>

namespace RetryLab::Core {

namespace {

int hexValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

} // namespace

void ChunkedDecoder::reset()
{
    m_phase = Phase::Size;
    m_remaining = 0;
    m_scanned = 0;
    m_error = Error::None;
}

ChunkedDecoder::Step ChunkedDecoder::fail(Error error, QByteArrayView line, qsizetype consumed)
{
    m_phase = Phase::Failed;
    m_error = error;
    return {Step::Kind::Failed, consumed, 0, line};
}

ChunkedDecoder::Step ChunkedDecoder::next(QByteArrayView input)
{
    switch (m_phase) {
    case Phase::Size:
        return sizeLine(input);
    case Phase::Data: {
        if (input.isEmpty())
            return {};
        const qsizetype take = qsizetype(std::min<qint64>(m_remaining, input.size()));
        m_remaining -= take;
        if (m_remaining == 0)
            m_phase = Phase::DataEnd;
        return {Step::Kind::Data, take, 0, {}};
    }
    case Phase::DataEnd: {
        if (input.isEmpty())
            return {};
        qsizetype take = 0;
        if (input.front() == '\n') {
            take = 1;
        } else if (input.front() == '\r') {
            if (input.size() < 2)
                return {};
            if (input[1] != '\n')
                return fail(Error::BareCarriageReturn);
            take = 2;
        } else {
            return fail(Error::DataTooLong);
        }
        m_phase = Phase::Size;
        return {Step::Kind::DataEnd, take, 0, {}};
    }
    case Phase::Done:
        return {};
    case Phase::Failed:
        return {Step::Kind::Failed, 0, 0, {}};
    }
    return {};
}

ChunkedDecoder::Step ChunkedDecoder::sizeLine(QByteArrayView input)
{
    // Searching on from where the last call stopped keeps a line that arrives a
    // byte at a time linear.
    const qsizetype lf = input.sliced(std::min(m_scanned, input.size())).indexOf('\n');
    if (lf < 0) {
        m_scanned = input.size();
        if (input.size() > maxChunkLineBytes)
            return fail(Error::LineTooLong);
        return {};
    }
    const qsizetype end = std::min(m_scanned, input.size()) + lf;
    const qsizetype consumed = end + 1;
    m_scanned = 0;
    QByteArrayView line = input.first(end);
    if (line.endsWith('\r'))
        line.chop(1);

    qint64 size = 0;
    if (m_grammar == Grammar::Strict) {
        if (consumed > maxChunkLineBytes)
            return fail(Error::LineTooLong, line);
        qsizetype i = 0;
        while (i < line.size() && hexValue(line[i]) >= 0) {
            if (i >= maxChunkSizeDigits)
                return fail(Error::TooManyDigits, line, consumed);
            size = size * 16 + hexValue(line[i]);
            ++i;
        }
        if (i == 0)
            return fail(Error::BadSize, line, consumed);
        QByteArrayView rest = line.sliced(i);
        while (!rest.isEmpty() && (rest.front() == ' ' || rest.front() == '\t'))
            rest = rest.sliced(1);
        if (!rest.isEmpty() && rest.front() != ';')
            return fail(Error::BadSize, line, consumed);
        for (char c : rest) {
            if (!isFieldValueChar(c))
                return fail(Error::BadExtension, line, consumed);
        }
    } else {
        QByteArrayView digits = line;
        if (const qsizetype semicolon = digits.indexOf(';'); semicolon >= 0)
            digits = digits.first(semicolon);
        digits = digits.trimmed();
        bool ok = !digits.isEmpty() && digits.size() <= maxChunkSizeDigits;
        size = ok ? digits.toLongLong(&ok, 16) : 0;
        if (!ok || size < 0)
            return fail(Error::BadSize, line, consumed);
    }

    if (size == 0) {
        m_phase = Phase::Done;
    } else {
        m_remaining = size;
        m_phase = Phase::Data;
    }
    return {Step::Kind::Size, consumed, size, line};
}

} // namespace RetryLab::Core
