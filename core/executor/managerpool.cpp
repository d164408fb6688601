#include "core/executor/managerpool.h"

#include <QNetworkAccessManager>
#include <QNetworkProxy>

#include <algorithm>
#include <limits>

namespace RetryLab::Core {

ManagerPool::ManagerPool(QNetworkAccessManager *shared, QObject *owner) : m_owner(owner), m_shared(shared)
{
    m_groups.insert(QByteArray(), Group{m_shared});
    m_groupOrder.append(QByteArray());
}

QNetworkAccessManager *ManagerPool::acquire()
{
    return acquire(QByteArray(), Configure());
}

QNetworkAccessManager *ManagerPool::acquire(const QByteArray &group, const Configure &configure)
{
    if (!m_groups.contains(group)) {
        pruneIdleGroups();
        m_groups.insert(group, Group());
        m_groupOrder.append(group);
    }
    Group &managers = m_groups[group];
    managers.removeIf([](const QPointer<QNetworkAccessManager> &m) { return m.isNull(); });
    QNetworkAccessManager *best = nullptr;
    int bestLoad = std::numeric_limits<int>::max();
    for (QNetworkAccessManager *manager : std::as_const(managers)) {
        const int managerLoad = m_load.value(manager);
        if (managerLoad < bestLoad) {
            best = manager;
            bestLoad = managerLoad;
        }
    }
    if (bestLoad >= connectionsPerManager) {
        // Every manager has all its connections busy: add one rather than let
        // the attempt wait invisibly inside Qt.
        // It copies what can be copied of the shared manager's configuration;
        // cookie jars, caches and proxy factories belong to one manager only.
        auto *extra = new QNetworkAccessManager(m_owner);
        if (m_shared) {
            extra->setProxy(m_shared->proxy());
            extra->setRedirectPolicy(m_shared->redirectPolicy());
            extra->setTransferTimeout(m_shared->transferTimeout());
            extra->setStrictTransportSecurityEnabled(m_shared->isStrictTransportSecurityEnabled());
        }
        if (configure)
            configure(*extra);
        managers.append(extra);
        best = extra;
    }
    ++m_load[best];
    return best;
}

void ManagerPool::pruneIdleGroups()
{
    if (m_groups.size() - 1 < maxIdleGroups)
        return;
    for (auto it = m_groupOrder.begin(); it != m_groupOrder.end();) {
        const QByteArray key = *it;
        if (key.isEmpty()) {
            ++it;
            continue;
        }
        Group &managers = m_groups[key];
        const bool idle = std::all_of(managers.cbegin(), managers.cend(),
            [this](const QPointer<QNetworkAccessManager> &m) { return !m || m_load.value(m) == 0; });
        if (!idle) {
            ++it;
            continue;
        }
        for (const QPointer<QNetworkAccessManager> &manager : std::as_const(managers)) {
            if (!manager)
                continue;
            m_load.remove(manager.data());
            // Later: a reply it made may still wait for its own deleteLater().
            manager->deleteLater();
        }
        m_groups.remove(key);
        it = m_groupOrder.erase(it);
    }
}

void ManagerPool::release(QNetworkAccessManager *manager)
{
    if (manager)
        --m_load[manager];
}

void ManagerPool::forget(const void *manager)
{
    for (Group &managers : m_groups)
        managers.removeIf([](const QPointer<QNetworkAccessManager> &m) { return m.isNull(); });
    // Compared as void pointers: even a cast to the destroyed type would be undefined.
    m_load.removeIf([manager](const auto &entry) { return static_cast<const void *>(entry.key()) == manager; });
}

QList<QNetworkAccessManager *> ManagerPool::managers() const
{
    QList<QNetworkAccessManager *> alive;
    for (const QByteArray &key : m_groupOrder)
        alive += managers(key);
    return alive;
}

QList<QNetworkAccessManager *> ManagerPool::managers(const QByteArray &group) const
{
    QList<QNetworkAccessManager *> alive;
    for (const QPointer<QNetworkAccessManager> &manager : m_groups.value(group)) {
        if (manager)
            alive.append(manager);
    }
    return alive;
}

int ManagerPool::groupCount() const
{
    int count = 0;
    for (const Group &managers : m_groups) {
        if (std::any_of(managers.cbegin(), managers.cend(), [](const auto &m) { return !m.isNull(); }))
            ++count;
    }
    return count;
}

} // namespace RetryLab::Core
