#include "core/executor/managerpool.h"

#include <QNetworkAccessManager>
#include <QNetworkProxy>

#include <algorithm>
#include <limits>
#include <utility>

namespace RetryLab::Core {

ManagerPool::ManagerPool(QNetworkAccessManager *shared, QObject *owner, Added added)
    : m_owner(owner), m_added(std::move(added)), m_shared(shared), m_default{Entry{shared, shared}}
{
    if (m_added && shared)
        m_added(*shared);
}

ManagerPool::Group *ManagerPool::groupOf(const QByteArray &key)
{
    if (key.isEmpty())
        return &m_default;
    const auto it = m_groups.find(key);
    return it == m_groups.end() ? nullptr : &*it;
}

const ManagerPool::Group *ManagerPool::groupOf(const QByteArray &key) const
{
    if (key.isEmpty())
        return &m_default;
    const auto it = m_groups.constFind(key);
    return it == m_groups.cend() ? nullptr : &*it;
}

QNetworkAccessManager *ManagerPool::acquire()
{
    return acquire(QByteArray(), Configure());
}

QNetworkAccessManager *ManagerPool::acquire(const QByteArray &group, const Configure &configure)
{
    Group *found = groupOf(group);
    if (!found) {
        pruneIdleGroups();
        found = &*m_groups.insert(group, Group());
        m_groupOrder.append(group);
    }
    Group &managers = *found;
    // The loads alone are scanned (a manager's QPointer is read only for the one
    // chosen): many hundreds of attempts in flight mean dozens of managers.
    const auto leastLoaded = [&managers]() -> Entry * {
        Entry *least = nullptr;
        for (Entry &entry : managers) {
            if (!least || entry.load < least->load) {
                least = &entry;
                if (least->load == 0)
                    break;
            }
        }
        return least;
    };
    Entry *best = leastLoaded();
    if (best && best->manager.isNull()) {
        // Destroyed without forget() (not by the executor): drop every such entry.
        managers.removeIf([](const Entry &e) { return e.manager.isNull(); });
        best = leastLoaded();
    }
    const int bestLoad = best ? best->load : std::numeric_limits<int>::max();
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
        if (m_added)
            m_added(*extra);
        managers.append(Entry{extra, extra});
        best = &managers.last();
    }
    ++best->load;
    return best->manager;
}

ManagerPool::Entry *ManagerPool::entryOf(const void *manager)
{
    return const_cast<Entry *>(std::as_const(*this).entryOf(manager));
}

const ManagerPool::Entry *ManagerPool::entryOf(const void *manager) const
{
    // The address kept beside the QPointer: the guard is read only on a match, and
    // an entry whose manager is gone (a new one may live at its address) is not it.
    const auto live = [manager](const Entry &entry) { return entry.address == manager && entry.manager; };
    for (const Entry &entry : m_default) {
        if (live(entry))
            return &entry;
    }
    for (const Group &managers : m_groups) {
        for (const Entry &entry : managers) {
            if (live(entry))
                return &entry;
        }
    }
    return nullptr;
}

void ManagerPool::pruneIdleGroups()
{
    if (m_groups.size() < maxIdleGroups)
        return;
    for (auto it = m_groupOrder.begin(); it != m_groupOrder.end();) {
        const QByteArray key = *it;
        Group &managers = m_groups[key];
        const bool idle
            = std::all_of(managers.cbegin(), managers.cend(), [](const Entry &e) { return !e.manager || e.load == 0; });
        if (!idle) {
            ++it;
            continue;
        }
        for (const Entry &entry : std::as_const(managers)) {
            // Later: a reply it made may still wait for its own deleteLater().
            if (entry.manager)
                entry.manager->deleteLater();
        }
        m_groups.remove(key);
        it = m_groupOrder.erase(it);
    }
}

void ManagerPool::release(QNetworkAccessManager *manager)
{
    if (!manager)
        return;
    if (Entry *entry = entryOf(manager); entry && entry->load > 0)
        --entry->load;
}

void ManagerPool::forget(const void *manager)
{
    // A QPointer to it is already null: its entry goes with the others that are.
    const auto gone = [manager](const Entry &e) { return e.manager.isNull() || e.address == manager; };
    m_default.removeIf(gone);
    for (Group &managers : m_groups)
        managers.removeIf(gone);
}

int ManagerPool::load(QNetworkAccessManager *manager) const
{
    const Entry *entry = manager ? entryOf(manager) : nullptr;
    return entry ? entry->load : 0;
}

QList<QNetworkAccessManager *> ManagerPool::managers() const
{
    QList<QNetworkAccessManager *> alive = managers(QByteArray());
    for (const QByteArray &key : m_groupOrder)
        alive += managers(key);
    return alive;
}

QList<QNetworkAccessManager *> ManagerPool::managers(const QByteArray &group) const
{
    QList<QNetworkAccessManager *> alive;
    if (const Group *managers = groupOf(group)) {
        for (const Entry &entry : *managers) {
            if (entry.manager)
                alive.append(entry.manager);
        }
    }
    return alive;
}

int ManagerPool::groupCount() const
{
    const auto anyAlive = [](const Group &managers) {
        return std::any_of(managers.cbegin(), managers.cend(), [](const Entry &e) { return !e.manager.isNull(); });
    };
    int count = anyAlive(m_default) ? 1 : 0;
    for (const Group &managers : m_groups) {
        if (anyAlive(managers))
            ++count;
    }
    return count;
}

} // namespace RetryLab::Core
