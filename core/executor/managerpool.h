#pragma once

#include <QHash>
#include <QList>
#include <QPointer>

class QNetworkAccessManager;
class QObject;

namespace RetryLab::Core {

/// The QNetworkAccessManagers RetryExecutor sends through, and how many
/// attempts each carries. Qt opens at most six HTTP/1.1 connections per host
/// per manager and queues the rest inside the manager, where nobody can see or
/// time them; the pool adds a manager instead whenever every one is busy.
class ManagerPool final
{
public:
    /// Qt's limit of connections per host and manager.
    static constexpr int connectionsPerManager = 6;

    /// `shared` is not owned (held by QPointer) and must not be null; extra
    /// managers are children of `owner` and copy what can be copied of the
    /// shared one's configuration.
    ManagerPool(QNetworkAccessManager *shared, QObject *owner);

    /// The least busy manager, counting one more attempt on it; a new one when
    /// every manager has all its connections busy.
    QNetworkAccessManager *acquire();
    /// The attempt acquire() counted on `manager` is over (null: nothing to do).
    void release(QNetworkAccessManager *manager);
    /// `manager` is being destroyed: forget it and its count. Only its address
    /// is used: the QNetworkAccessManager part of the object is already gone.
    void forget(const void *manager);

    /// Managers alive now, the shared one first while it lives.
    QList<QNetworkAccessManager *> managers() const;
    /// Attempts counted on `manager` now.
    int load(QNetworkAccessManager *manager) const { return m_load.value(manager); }

private:
    QObject *m_owner;
    QPointer<QNetworkAccessManager> m_shared;
    QList<QPointer<QNetworkAccessManager>> m_managers;
    QHash<QNetworkAccessManager *, int> m_load;
};

} // namespace RetryLab::Core
