#include "app/cli/texttable.h"

#include <algorithm>

namespace RetryLab::Cli {

void TextTable::setRightAligned(int column, bool right)
{
    m_rightAligned.removeAll(column);
    if (right)
        m_rightAligned.append(column);
}

QString TextTable::formatRow(const QStringList &cells, const QList<qsizetype> &widths) const
{
    QString line;
    for (qsizetype c = 0; c < widths.size(); ++c) {
        const QString cell = cells.value(c);
        if (c > 0)
            line += QStringLiteral("  ");
        line += m_rightAligned.contains(static_cast<int>(c)) ? cell.rightJustified(widths[c])
                                                             : cell.leftJustified(widths[c]);
    }
    while (line.endsWith(QLatin1Char(' ')))
        line.chop(1);
    return line;
}

QStringList TextTable::lines(const QString &indent) const
{
    qsizetype columns = m_header.size();
    for (const QStringList &row : m_rows)
        columns = std::max(columns, row.size());
    QList<qsizetype> widths(columns, 0);
    for (qsizetype c = 0; c < columns; ++c) {
        widths[c] = m_header.value(c).size();
        for (const QStringList &row : m_rows)
            widths[c] = std::max(widths[c], row.value(c).size());
    }
    qsizetype total = 0;
    for (qsizetype w : widths)
        total += w;
    total += 2 * std::max<qsizetype>(0, columns - 1);

    QStringList out{indent + formatRow(m_header, widths), indent + QString(total, QLatin1Char('-'))};
    for (const QStringList &row : m_rows)
        out.append(indent + formatRow(row, widths));
    return out;
}

} // namespace RetryLab::Cli
