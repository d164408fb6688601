#include "core/faultserver/serverlog.h"

#include <QMutexLocker>

#include <algorithm>

namespace RetryLab::Core {

int ServerLog::capacity() const
{
    QMutexLocker lock(&m_mutex);
    return std::max(1, m_capacity);
}

void ServerLog::setCapacity(int capacity)
{
    QMutexLocker lock(&m_mutex);
    m_capacity = capacity;
}

ServerLogEntry ServerLog::append(ServerLogEntry entry)
{
    QMutexLocker lock(&m_mutex);
    entry.sequence = ++m_sequence;
    m_entries.push_back(std::move(entry));
    while (m_entries.size() > static_cast<size_t>(std::max(1, m_capacity)))
        m_entries.pop_front();
    return m_entries.back();
}

QList<ServerLogEntry> ServerLog::entries() const
{
    QMutexLocker lock(&m_mutex);
    return QList<ServerLogEntry>(m_entries.cbegin(), m_entries.cend());
}

QList<ServerLogEntry> ServerLog::since(quint64 since, qint64 limit) const
{
    QMutexLocker lock(&m_mutex);
    qint64 skip = 0;
    for (const ServerLogEntry &e : m_entries) {
        if (e.sequence > since)
            ++skip;
    }
    skip = std::max<qint64>(0, skip - limit);
    QList<ServerLogEntry> out;
    for (const ServerLogEntry &e : m_entries) {
        if (e.sequence <= since)
            continue;
        if (skip > 0) {
            --skip;
            continue;
        }
        out.append(e);
    }
    return out;
}

quint64 ServerLog::appendedCount() const
{
    QMutexLocker lock(&m_mutex);
    return m_sequence;
}

void ServerLog::clear()
{
    QMutexLocker lock(&m_mutex);
    m_entries.clear();
}

} // namespace RetryLab::Core
