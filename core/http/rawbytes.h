#pragma once

#include <QByteArray>
#include <QByteArrayView>

#include <cstring>

namespace RetryLab::Core {

/// Where the byte `c` first is in `text` from `from` (0 or more) on, or -1: memchr(), where
/// QByteArrayView::indexOf() of one byte takes Qt's general search, some forty instructions
/// more a call. The parsers look for every line's end, colon and space so.
inline qsizetype indexOfByte(QByteArrayView text, char c, qsizetype from = 0)
{
    if (from >= text.size())
        return -1;
    const void *found = std::memchr(text.data() + from, c, size_t(text.size() - from));
    return found ? static_cast<const char *>(found) - text.data() : -1;
}

/// Where the byte `c` last is in `text`, or -1 (a request line's last space is near its end).
inline qsizetype lastIndexOfByte(QByteArrayView text, char c)
{
    for (qsizetype at = text.size() - 1; at >= 0; --at) {
        if (text[at] == c)
            return at;
    }
    return -1;
}

/// Appends `bytes` (which must not lie in `to`) with one resize() and a memcpy():
/// QByteArray::append() takes insert(), a hundred instructions, whatever it appends.
inline void appendBytes(QByteArray &to, QByteArrayView bytes)
{
    if (bytes.isEmpty())
        return;
    const qsizetype at = to.size();
    to.resize(at + bytes.size());
    std::memcpy(to.data() + at, bytes.data(), size_t(bytes.size()));
}

} // namespace RetryLab::Core
