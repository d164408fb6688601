#include "core/http/pathpattern.h"

#include "core/util/wildcardmatch.h"

#include <cctype>

namespace RetryLab::Core {

namespace {

/// The path's segments, each percent-decoded on its own: without the query and
/// the fragment, the leading `/` and one trailing `/`.
QList<QString> pathSegments(QByteArrayView path)
{
    const qsizetype end = [&] {
        for (qsizetype i = 0; i < path.size(); ++i) {
            if (path[i] == '?' || path[i] == '#')
                return i;
        }
        return path.size();
    }();
    QByteArrayView rest = path.first(end);
    if (rest.startsWith('/'))
        rest = rest.sliced(1);
    if (rest.endsWith('/'))
        rest.chop(1);
    QList<QString> segments;
    if (rest.isEmpty())
        return segments; // the root
    qsizetype from = 0;
    for (;;) {
        const qsizetype slash = rest.indexOf('/', from);
        const QByteArrayView raw = rest.sliced(from, (slash < 0 ? rest.size() : slash) - from);
        segments.append(
            QString::fromUtf8(raw.contains('%') ? QByteArray::fromPercentEncoding(raw.toByteArray()) : raw));
        if (slash < 0)
            break;
        from = slash + 1;
    }
    return segments;
}

} // namespace

PathPattern::PathPattern(QStringView pattern) : m_pattern(pattern.toString())
{
    if (pattern.isEmpty())
        return;
    const QByteArray utf8 = pattern.toUtf8();
    QByteArrayView text = utf8;
    m_lastSegmentOnly = !text.contains('/');
    if (text.startsWith('/'))
        text = text.sliced(1);
    if (text.endsWith('/'))
        text.chop(1);
    if (text.isEmpty() && !m_lastSegmentOnly)
        return; // "/": the root only, no segments
    qsizetype from = 0;
    for (;;) {
        const qsizetype slash = text.indexOf('/', from);
        const QByteArrayView raw = text.sliced(from, (slash < 0 ? text.size() : slash) - from);
        Segment segment;
        if (raw == "**") {
            segment.globstar = true;
        } else {
            // Decoded bytes and wildcard marks side by side, then the bytes as text:
            // a wildcard is one ASCII byte, so the marks stay aligned with the characters.
            QByteArray bytes;
            QByteArray marks;
            for (qsizetype i = 0; i < raw.size(); ++i) {
                const char c = raw[i];
                if (c == '%' && i + 2 < raw.size() && std::isxdigit(static_cast<unsigned char>(raw[i + 1]))
                    && std::isxdigit(static_cast<unsigned char>(raw[i + 2]))) {
                    bytes.append(QByteArray::fromHex(raw.sliced(i + 1, 2).toByteArray()));
                    marks.append('\0');
                    i += 2;
                } else if (c == '*') {
                    if (!marks.endsWith('*')) { // "a**b" is "a*b" within a segment
                        bytes.append('*');
                        marks.append('*');
                    }
                } else if (c == '?') {
                    bytes.append('?');
                    marks.append('?');
                } else {
                    bytes.append(c);
                    marks.append('\0');
                }
            }
            // Characters outside ASCII take several bytes but one character (or two
            // UTF-16 units): rebuild the marks per UTF-16 unit of the decoded text.
            qsizetype b = 0;
            while (b < bytes.size()) {
                const uchar lead = static_cast<uchar>(bytes[b]);
                const int length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
                const QString unit = QString::fromUtf8(bytes.mid(b, length));
                segment.text.append(unit);
                for (qsizetype u = 0; u < unit.size(); ++u)
                    segment.wild.append(length == 1 ? marks[b] : '\0');
                b += length;
            }
        }
        m_segments.append(segment);
        if (slash < 0)
            break;
        from = slash + 1;
    }
}

bool PathPattern::matches(QStringView path) const
{
    if (m_pattern.isEmpty())
        return true;
    return matches(QByteArrayView(path.toUtf8()));
}

bool PathPattern::matches(QByteArrayView path) const
{
    if (m_pattern.isEmpty())
        return true;
    QList<QString> segments = pathSegments(path.isEmpty() ? QByteArrayView("/") : path);
    if (m_lastSegmentOnly) {
        if (m_segments.size() == 1 && m_segments.first().globstar)
            return true;
        return segmentMatches(m_segments.first(), segments.isEmpty() ? QString() : segments.last());
    }
    return matchesSegments(segments);
}

bool PathPattern::matchesSegments(const QList<QString> &segments) const
{
    // `**` is the star, a segment glob the single element.
    return wildcardMatch(
        m_segments.size(), segments.size(), [this](qsizetype p) { return m_segments[p].globstar; },
        [this, &segments](qsizetype p, qsizetype s) { return segmentMatches(m_segments[p], segments[s]); });
}

bool PathPattern::segmentMatches(const Segment &glob, QStringView segment)
{
    return wildcardMatch(
        glob.text.size(), segment.size(), [&glob](qsizetype g) { return glob.wild[g] == '*'; },
        [&glob, segment](qsizetype g, qsizetype t) { return glob.wild[g] == '?' || glob.text[g] == segment[t]; });
}

} // namespace RetryLab::Core
