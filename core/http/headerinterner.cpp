#include "core/http/headerinterner.h"

#include <algorithm>

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
    for (auto &[name, value] : headers) {
        name = intern(name);
        value = intern(value);
    }
}

void HeaderInterner::internRepeating(HeaderList &headers)
{
    // A server answering the same way again (the Date changes once a second)
    // gives the same list: share the last one whole, without touching the pairs.
    if (headers.size() == m_last.size() && std::equal(headers.cbegin(), headers.cend(), m_last.cbegin())) {
        headers = m_last;
        return;
    }
    // Comparing with the header at the same place in the list before costs less than a lookup in the table.
    for (qsizetype i = 0; i < headers.size(); ++i) {
        auto &[name, value] = headers[i];
        const bool placed = i < m_last.size();
        name = placed && name == m_last.at(i).first ? m_last.at(i).first : intern(name);
        value = placed && value == m_last.at(i).second ? m_last.at(i).second : intern(value);
    }
    m_last = headers;
}

} // namespace RetryLab::Core
