#include "core/executor/managerpool.h"

#include <QNetworkAccessManager>
#include <QNetworkProxy>

#include <limits>

namespace RetryLab::Core {

ManagerPool::ManagerPool(QNetworkAccessManager *shared, QObject *owner) : m_owner(owner), m_shared(shared)
{
    m_managers.append(m_shared);
}

QNetworkAccessManager *ManagerPool::acquire()
{
    m_managers.removeIf([](const QPointer<QNetworkAccessManager> &m) { return m.isNull(); });
    QNetworkAccessManager *best = nullptr;
    int bestLoad = std::numeric_limits<int>::max();
    for (QNetworkAccessManager *manager : std::as_const(m_managers)) {
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
        m_managers.append(extra);
        best = extra;
    }
    ++m_load[best];
    return best;
}

void ManagerPool::release(QNetworkAccessManager *manager)
{
    if (manager)
        --m_load[manager];
}

void ManagerPool::forget(const void *manager)
{
    m_managers.removeIf([](const QPointer<QNetworkAccessManager> &m) { return m.isNull(); });
    // Compared as void pointers: even a cast to the destroyed type would be undefined.
    m_load.removeIf([manager](const auto &entry) { return static_cast<const void *>(entry.key()) == manager; });
}

QList<QNetworkAccessManager *> ManagerPool::managers() const
{
    QList<QNetworkAccessManager *> alive;
    for (const QPointer<QNetworkAccessManager> &manager : m_managers) {
        if (manager)
            alive.append(manager);
    }
    return alive;
}

} // namespace RetryLab::Core
