#pragma once

#include <QtGlobal>

namespace RetryLab::Core {

/// The one wildcard walk of the program: does a pattern of `patternSize` elements
/// match a text of `textSize` elements, where `isStar(p)` says that pattern element p
/// matches any run of text elements (none included) and `matchesOne(p, t)` whether
/// element p, not a star, matches text element t. Iterative, with one backtrack
/// point: linear for patterns of stars and literals, and right for several stars (a
/// later one subsumes an earlier one's choices).
///
/// Its users give it their own elements: characters of a header glob (FaultRule),
/// the characters of one path segment and the segments of a path, where `**` is the
/// star (PathPattern).
template<typename IsStar, typename MatchesOne>
bool wildcardMatch(qsizetype patternSize, qsizetype textSize, IsStar isStar, MatchesOne matchesOne)
{
    qsizetype p = 0;
    qsizetype t = 0;
    qsizetype starP = -1;
    qsizetype starT = 0;
    while (t < textSize) {
        if (p < patternSize && !isStar(p) && matchesOne(p, t)) {
            ++p;
            ++t;
        } else if (p < patternSize && isStar(p)) {
            starP = p++;
            starT = t;
        } else if (starP >= 0) {
            p = starP + 1;
            t = ++starT;
        } else {
            return false;
        }
    }
    while (p < patternSize && isStar(p))
        ++p;
    return p == patternSize;
}

} // namespace RetryLab::Core
