#include "ui/session/run/stringpool.h"

namespace RetryLab::Ui {

quint32 StringPool::intern(const QString &text)
{
    if (text.isEmpty())
        return 0;
    if (m_lastId != 0 && text == m_lastText)
        return m_lastId;
    auto it = m_ids.constFind(text);
    if (it == m_ids.cend()) {
        const auto id = static_cast<quint32>(m_strings.size());
        m_strings.append(text);
        it = m_ids.insert(text, id);
    }
    m_lastText = text;
    m_lastId = it.value();
    return m_lastId;
}

void StringPool::clear()
{
    m_strings = {QString()};
    m_ids.clear();
    m_lastText.clear();
    m_lastId = 0;
}

} // namespace RetryLab::Ui
