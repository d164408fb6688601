#include "core/http/headerinterner.h"

namespace RetryLab::Core {

HeaderInterner::HeaderInterner(qsizetype maxEntries, qsizetype maxBytes)
    : m_maxEntries(maxEntries), m_maxBytes(maxBytes)
{ }

QByteArray HeaderInterner::intern(const QByteArray &bytes)
{
    if (bytes.isEmpty())
        return bytes;
    if (const auto found = m_table.constFind(bytes); found != m_table.cend())
        return *found;
    if (m_table.size() < m_maxEntries && m_bytes + bytes.size() <= m_maxBytes) {
        // A copy of exactly its bytes: the array given may be a slice of a larger
        // buffer (a whole header section), which the table would keep alive.
        const QByteArray own(bytes.constData(), bytes.size());
        m_table.insert(own);
        m_bytes += own.size();
        return own;
    }
    return bytes;
}

void HeaderInterner::intern(HeaderList &headers)
{
    // Answers from one server mostly repeat the headers of the one before, in
    // order: comparing with those costs less than a lookup in the table.
    for (qsizetype i = 0; i < headers.size(); ++i) {
        auto &[name, value] = headers[i];
        if (i < m_last.size()) {
            const auto &[lastName, lastValue] = m_last.at(i);
            name = name == lastName ? lastName : intern(name);
            value = value == lastValue ? lastValue : intern(value);
        } else {
            name = intern(name);
            value = intern(value);
        }
    }
    m_last = headers;
}

} // namespace RetryLab::Core
