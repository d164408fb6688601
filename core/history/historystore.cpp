#include "core/history/historystore.h"

#include "core/history/checkwriter.h"
#include "core/history/historyconnection.h"
#include "core/history/historyinterner.h"
#include "core/history/historyretention.h"
#include "core/history/historyschema.h"
#include "core/history/incidentrecorder.h"
#include "core/util/coretr.h"

#include <QDir>
#include <QFileInfo>
#include <QLockFile>
#include <QLoggingCategory>
#include <QSqlError>
#include <QSqlQuery>
#include <QSysInfo>

namespace {
Q_LOGGING_CATEGORY(lcHistoryStore, "retrylab.core.history.store")
} // namespace

namespace RetryLab::Core {

namespace {

// SQLite's default page size: the cap on the file is a number of pages.
constexpr qint64 sqlitePageBytes = 4096;

Result<std::unique_ptr<QLockFile>> lockSqliteFile(const QString &path)
{
    auto lock = std::make_unique<QLockFile>(path + QStringLiteral(".lock"));
    // A live writer's lock never goes stale by age: a monitor holds it for months.
    // A lock whose process is gone (killed, crashed) is taken over at once.
    lock->setStaleLockTime(0);
    if (lock->tryLock(0))
        return lock;
    if (lock->error() == QLockFile::LockFailedError) {
        qint64 pid = 0;
        QString host;
        QString application;
        lock->getLockInfo(&pid, &host, &application);
        return Result<std::unique_ptr<QLockFile>>::failure(
            Tr::tr("%1 is being written by another RetryLab (process %2 on %3; lock file %4): one store writes a "
                   "SQLite history at a time")
                .arg(QDir::toNativeSeparators(path))
                .arg(pid)
                .arg(host, QDir::toNativeSeparators(path + QStringLiteral(".lock"))));
    }
    return Result<std::unique_ptr<QLockFile>>::failure(
        Tr::tr("the lock file %1 cannot be created").arg(QDir::toNativeSeparators(path + QStringLiteral(".lock"))));
}

} // namespace

Result<std::unique_ptr<HistoryStore>> HistoryStore::open(
    const QString &database, const QString &agent, const Options &options)
{
    const Result<HistoryLocation> location = HistoryLocation::parse(database);
    if (!location)
        return location.errorDetail();
    std::unique_ptr<HistoryStore> store(new HistoryStore);
    store->m_agent = agent.isEmpty() ? QSysInfo::machineHostName() : agent;
    store->m_options = options;
    if (!location->isPostgres()) {
        const QFileInfo info(location->path);
        if (!info.dir().exists())
            return Result<std::unique_ptr<HistoryStore>>::failure(
                Tr::tr("the folder %1 does not exist").arg(QDir::toNativeSeparators(info.absolutePath())));
        auto lock = lockSqliteFile(location->path);
        if (!lock)
            return lock.errorDetail();
        store->m_lock = std::move(lock).value();
    }
    HistoryConnection::Settings settings;
    settings.busyTimeoutMs = options.busyTimeoutMs;
    settings.quickCheck = options.quickCheck;
    settings.maxPages
        = options.maxDatabaseBytes > 0 ? std::max<qint64>(1, options.maxDatabaseBytes / sqlitePageBytes) : 0;
    auto connection = HistoryConnection::open(*location, HistoryConnection::Role::Writer, settings);
    if (!connection)
        return connection.errorDetail();
    store->m_connection = std::move(connection).value();
    if (Result<void> prepared = HistorySchema::prepareForWriting(
            store->m_connection->database(), store->m_connection->dialect(), location->describe());
        !prepared)
        return prepared.errorDetail();
    store->m_interner = std::make_unique<HistoryInterner>(store->m_connection->database());
    store->m_incidents = std::make_unique<IncidentRecorder>();
    qCDebug(lcHistoryStore) << "writing" << location->describe() << "as agent" << store->m_agent;
    return store;
}

HistoryStore::~HistoryStore()
{
    if (m_connection && backlog() > 0 && !flush())
        qCWarning(lcHistoryStore) << "closing with" << backlog() << "checks and events unwritten:" << m_warning;
}

QString HistoryStore::where() const
{
    return m_connection->location().describe();
}

void HistoryStore::append(const StoredCheck &check)
{
    if (m_options.maxBacklogChecks > 0 && m_checks.size() >= static_cast<size_t>(m_options.maxBacklogChecks)) {
        m_checks.pop_front();
        ++m_droppedChecks;
    }
    m_checks.push_back(check);
    StoredCheck &queued = m_checks.back();
    if (queued.agent.isEmpty())
        queued.agent = m_agent;
    // The queue may hold a long outage's worth of checks: keep only what is stored.
    for (StoredAttempt &attempt : queued.attempts) {
        if (attempt.success)
            attempt.failureBody.clear();
        else if (attempt.failureBody.size() > HistoryLimits::failureBodyBytes)
            attempt.failureBody.truncate(HistoryLimits::failureBodyBytes);
    }
}

void HistoryStore::append(const StateEvent &event)
{
    if (m_options.maxBacklogChecks > 0 && m_events.size() >= static_cast<size_t>(m_options.maxBacklogChecks)) {
        m_events.pop_front();
        ++m_droppedEvents;
    }
    m_events.push_back(event);
    if (m_events.back().agent.isEmpty())
        m_events.back().agent = m_agent;
}

int HistoryStore::backlog() const
{
    return static_cast<int>(m_checks.size() + m_events.size());
}

QString HistoryStore::unwritten(const QString &why) const
{
    return Tr::tr(
        "the history %1 cannot be written (%2); %n check(s) and event(s) are kept to try again", nullptr, backlog())
        .arg(where(), why);
}

bool HistoryStore::ensureConnected()
{
    if (m_connection->isOpen())
        return true;
    if (Result<void> reopened = m_connection->reopen(); !reopened) {
        failed(unwritten(reopened.error()));
        return false;
    }
    qCInfo(lcHistoryStore) << "connected again to" << where();
    return true;
}

void HistoryStore::failed(const QString &message)
{
    m_warning = message;
    qCWarning(lcHistoryStore) << m_warning;
    if (m_connection->dialect().isPostgres()) {
        // The server may be gone: connect anew at the next try.
        m_connection->close();
    }
}

bool HistoryStore::flush()
{
    if (m_checks.empty() && m_events.empty())
        return true;
    if (!ensureConnected())
        return false;
    const QSqlDatabase db = m_connection->database();
    QString why;
    {
        QSqlQuery begin(db);
        if (!begin.exec(m_connection->dialect().beginWrite())) {
            why = begin.lastError().databaseText().simplified();
        } else {
            CheckWriter writer(db, m_connection->dialect(), *m_interner);
            IncidentRecorder::Batch incidents(*m_incidents, db, m_connection->dialect(), *m_interner);
            bool written = writer.prepare();
            if (written && !incidents.prepare()) {
                written = false;
                why = incidents.lastError();
            }
            for (auto it = m_checks.cbegin(); written && it != m_checks.cend(); ++it) {
                written = writer.write(*it);
                if (written) {
                    const CheckWriter::Written at = writer.lastWritten();
                    written = incidents.add(at.series, at.startMs, *it);
                    if (!written)
                        why = incidents.lastError();
                }
            }
            for (auto it = m_events.cbegin(); written && it != m_events.cend(); ++it)
                written = writer.write(*it);
            written = written && writer.finish();
            if (!written) {
                if (why.isEmpty())
                    why = writer.lastError();
            } else if (QSqlQuery commit(db); !commit.exec(QStringLiteral("COMMIT"))) {
                why = commit.lastError().databaseText().simplified();
            } else {
                incidents.commit();
            }
        }
        if (why.isEmpty()) {
            m_checks.clear();
            m_events.clear();
            m_warning.clear();
            return true;
        }
        if (db.isOpen())
            QSqlQuery(db).exec(QStringLiteral("ROLLBACK"));
    }
    // Ids the rolled-back transaction added are gone with it.
    m_interner->forget();
    failed(unwritten(why.isEmpty() ? Tr::tr("unknown database error") : why));
    return false;
}

bool HistoryStore::applyRetention(qint64 nowMs)
{
    if (!ensureConnected())
        return false;
    HistoryRetention retention(m_connection->database(), m_connection->dialect());
    if (Result<void> applied
        = retention.apply(nowMs, m_options.rawRetentionDays, HistoryLimits::aggregateRetentionDays);
        !applied) {
        m_interner->forget();
        failed(Tr::tr("the history %1: %2").arg(where(), applied.error()));
        return false;
    }
    return true;
}

qint64 HistoryStore::databaseBytes() const
{
    if (!m_connection->isOpen())
        return -1;
    QSqlQuery query(m_connection->database());
    if (!query.exec(m_connection->dialect().sizeQuery()) || !query.next())
        return -1;
    return query.value(0).toLongLong();
}

} // namespace RetryLab::Core
