#pragma once

#include <QHash>
#include <QList>
#include <QString>

namespace RetryLab::Ui {

/// Stores each distinct string once and hands out a 32-bit id for it, so that a
/// million rows that say "http-503" hold four bytes each instead of a QString.
/// Id 0 is always the empty string.
class StringPool final
{
public:
    StringPool() { clear(); }

    quint32 intern(const QString &text);
    const QString &at(quint32 id) const
    {
        return id < quint32(m_strings.size()) ? m_strings.at(id) : m_strings.first();
    }
    qsizetype size() const { return m_strings.size(); }
    void clear();

private:
    QList<QString> m_strings;
    QHash<QString, quint32> m_ids;
    // Records arrive in runs that repeat the same strings; the last hit skips the hash.
    QString m_lastText;
    quint32 m_lastId = 0;
};

} // namespace RetryLab::Ui
