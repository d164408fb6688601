#pragma once

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QPointer>

#include <functional>

class QNetworkAccessManager;
class QObject;

namespace RetryLab::Core {

/// The QNetworkAccessManagers RetryExecutor sends through, and how many
/// attempts each carries. Qt opens at most six HTTP/1.1 connections per host
/// per manager and queues the rest inside the manager, where nobody can see or
/// time them; the pool adds a manager instead whenever every one is busy.
///
/// Managers come in groups, one per transport (PreparedTransport::managerKey()):
/// a proxy is a manager's setting, not a request's, and Qt reuses a manager's
/// open connections by host, port and proxy only, whatever TLS configuration a
/// later request carries. The default group (empty key) starts with the shared
/// manager; every other group has managers of its own, configured when they are
/// made. Groups idle for long are freed once there are many (maxIdleGroups).
class ManagerPool final
{
public:
    /// Qt's limit of connections per host and manager.
    static constexpr int connectionsPerManager = 6;
    /// Groups other than the default one kept while idle; beyond that, idle
    /// groups (no attempt on any of their managers) are freed when a new one is made.
    static constexpr int maxIdleGroups = 8;

    /// Configures a new manager of a group (its proxy).
    using Configure = std::function<void(QNetworkAccessManager &)>;

    /// Told of every manager the pool hands out, once, before its first attempt.
    using Added = std::function<void(QNetworkAccessManager &)>;

    /// `shared` is not owned (held by QPointer) and must not be null; extra
    /// managers are children of `owner` and copy what can be copied of the
    /// shared one's configuration. `added` hears of `shared` at once, and of
    /// each extra manager when it is made.
    ManagerPool(QNetworkAccessManager *shared, QObject *owner, Added added = {});

    /// The least busy manager of the default group, counting one more attempt
    /// on it; a new one when every manager has all its connections busy.
    QNetworkAccessManager *acquire();
    /// The same within the group `group` (empty: the default group); a new
    /// manager of the group copies the shared one's configuration, then
    /// `configure` gives it the group's own.
    QNetworkAccessManager *acquire(const QByteArray &group, const Configure &configure);
    /// The attempt acquire() counted on `manager` is over (null: nothing to do).
    void release(QNetworkAccessManager *manager);
    /// `manager` is being destroyed: forget it and its count. Only its address
    /// is used: the QNetworkAccessManager part of the object is already gone.
    void forget(const void *manager);

    /// Managers alive now, the default group first (the shared one first while it lives).
    QList<QNetworkAccessManager *> managers() const;
    /// Managers alive now in one group.
    QList<QNetworkAccessManager *> managers(const QByteArray &group) const;
    /// Groups with managers now, the default one included while it has any.
    int groupCount() const;
    /// Attempts counted on `manager` now.
    int load(QNetworkAccessManager *manager) const;

private:
    struct Entry
    {
        QPointer<QNetworkAccessManager> manager;
        const void *address = nullptr; ///< the manager's, to find its entry (release(), forget())
        int load = 0; ///< attempts counted on it
    };
    // A few dozen managers at most: scanning them costs less than hashing.
    using Group = QList<Entry>;

    Group *groupOf(const QByteArray &key);
    const Group *groupOf(const QByteArray &key) const;
    Entry *entryOf(const void *manager);
    const Entry *entryOf(const void *manager) const;
    void pruneIdleGroups();

    QObject *m_owner;
    Added m_added;
    QPointer<QNetworkAccessManager> m_shared;
    Group m_default; ///< the default group (empty key), first among all
    QHash<QByteArray, Group> m_groups; ///< the other groups
    QList<QByteArray> m_groupOrder; ///< keys of m_groups in the order they were made
};

} // namespace RetryLab::Core
