#pragma once

#include <QList>
#include <QString>
#include <QStringList>

namespace RetryLab::Cli {

/// A table for the terminal: columns as wide as their widest cell, separated
/// by two spaces, numbers right-aligned where asked.
class TextTable final
{
public:
    explicit TextTable(const QStringList &header) : m_header(header) { }

    void setRightAligned(int column, bool right = true);
    void addRow(const QStringList &cells) { m_rows.append(cells); }
    /// The header, a rule of dashes, then the rows; trailing spaces trimmed.
    QStringList lines(const QString &indent = {}) const;

private:
    QString formatRow(const QStringList &cells, const QList<qsizetype> &widths) const;

    QStringList m_header;
    QList<QStringList> m_rows;
    QList<int> m_rightAligned;
};

} // namespace RetryLab::Cli
