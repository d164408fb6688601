#pragma once

#include <QRegularExpression>
#include <QString>

namespace RetryLab::Testing {

/// The index into `text` of a place as the shell splitter and the curl importer
/// name it in words ("column 9", "line 2, column 6"), worked out here from the
/// words so that the offset an error carries can be checked against them; -1
/// for no place.
inline qsizetype indexOfPlace(const QString &text, const QString &place)
{
    static const QRegularExpression pattern(QStringLiteral("^(?:line (\\d+), )?column (\\d+)$"));
    const QRegularExpressionMatch match = pattern.match(place);
    if (!match.hasMatch())
        return -1;
    const int lineNumber = match.captured(1).isEmpty() ? 1 : match.captured(1).toInt();
    qsizetype start = 0;
    for (int n = 1; n < lineNumber; ++n)
        start = text.indexOf(QLatin1Char('\n'), start) + 1;
    return start + match.captured(2).toInt() - 1;
}

} // namespace RetryLab::Testing
