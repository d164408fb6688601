#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QString>
#include <QStringView>

namespace RetryLab::Core {

/// The one pattern language for URL paths, wherever a path pattern is read
/// (endpoint policies, the fault proxy's path= rules, ...), in the shape people
/// know from gitignore and Ant globs:
///  - `*` any run of characters within one segment (never a `/`);
///  - `?` one character other than `/`;
///  - `**` as a whole segment: any number of segments, none included
///    (`/upload/**` matches `/upload`, `/upload/a` and `/upload/a/b/c`;
///    `/a/**/z` matches `/a/z` and `/a/b/c/z`);
///  - a pattern with no `/` at all is matched against the last segment only
///    (`*.json` matches `/v1/items/list.json`; `*` matches every path);
///  - an empty pattern matches every path.
/// A path is compared as it arrived, without its query and fragment; each of
/// its segments is percent-decoded on its own, so `%2F` stays inside its
/// segment and `%20` equals a space in the pattern (which may itself use `%XX`
/// for a literal character). One trailing `/` is not significant (`/a/` is `/a`).
/// Matching is case-sensitive, and linear in the path for patterns of one `**`.
class PathPattern
{
public:
    PathPattern() = default;
    explicit PathPattern(QStringView pattern);

    /// The pattern as given.
    QString pattern() const { return m_pattern; }
    bool isEmpty() const { return m_pattern.isEmpty(); }

    /// `path` is a request target's path, with or without query and fragment
    /// ("/upload/storage/v1/b/B/o?uploadType=resumable"), or a whole URL's path.
    bool matches(QStringView path) const;
    bool matches(QByteArrayView path) const;

private:
    struct Segment
    {
        bool globstar = false; ///< `**`
        /// The segment's glob after percent-decoding, with its wildcards kept
        /// apart in `wild` (one byte per character of `text`: '*', '?', or 0
        /// for a literal), so that a decoded `%2A` is a literal star.
        QString text;
        QByteArray wild;
    };
    static bool segmentMatches(const Segment &glob, QStringView segment);
    bool matchesSegments(const QList<QString> &segments) const;

    QString m_pattern;
    QList<Segment> m_segments;
    bool m_lastSegmentOnly = false;
};

} // namespace RetryLab::Core
