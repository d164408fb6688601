#include "core/history/historyconnection.h"

#include "core/util/coretr.h"

#include <QAtomicInteger>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLoggingCategory>
#include <QSqlError>
#include <QSqlQuery>
#include <QStringList>

namespace {
Q_LOGGING_CATEGORY(lcHistoryConnection, "retrylab.core.history.connection")
} // namespace

namespace RetryLab::Core {

namespace {

QAtomicInteger<quint64> connectionCounter;

// The 16 bytes every SQLite 3 database file starts with.
constexpr char sqliteMagic[] = "SQLite format 3";

QString native(const QString &path)
{
    return QDir::toNativeSeparators(path);
}

QString refusedDamaged(const QString &path, const QString &detail)
{
    return Tr::tr("%1 is damaged (%2); it was left as it is: move it aside, or name another file")
        .arg(native(path), detail);
}

} // namespace

HistoryConnection::HistoryConnection(const HistoryLocation &location, Role role, const Settings &settings)
    : m_location(location), m_role(role), m_settings(settings),
      m_dialect(location.isPostgres() ? SqlDialect::Kind::Postgres : SqlDialect::Kind::Sqlite),
      m_name(QStringLiteral("retrylab-history-%1").arg(connectionCounter.fetchAndAddRelaxed(1)))
{ }

HistoryConnection::~HistoryConnection()
{
    {
        QSqlDatabase db = QSqlDatabase::database(m_name, false);
        if (db.isOpen())
            db.close();
    }
    QSqlDatabase::removeDatabase(m_name);
}

Result<std::unique_ptr<HistoryConnection>> HistoryConnection::open(
    const HistoryLocation &location, Role role, const Settings &settings)
{
    const QString driver = location.isPostgres() ? QStringLiteral("QPSQL") : QStringLiteral("QSQLITE");
    if (!QSqlDatabase::isDriverAvailable(driver))
        return Result<std::unique_ptr<HistoryConnection>>::failure(
            Tr::tr("the Qt SQL driver %1 is not installed (Debian: %2)")
                .arg(driver,
                    location.isPostgres() ? QStringLiteral("libqt6sql6-psql") : QStringLiteral("libqt6sql6-sqlite")));
    std::unique_ptr<HistoryConnection> connection(new HistoryConnection(location, role, settings));
    if (Result<void> checked = connection->checkFileBeforeOpening(); !checked)
        return checked.errorDetail();
    const bool existed = !location.isPostgres() && QFileInfo(location.path).size() > 0;
    QSqlDatabase::addDatabase(driver, connection->m_name);
    if (Result<void> connected = connection->connect(); !connected)
        return connected.errorDetail();
    if (!location.isPostgres()) {
        if (Result<void> prepared = connection->prepareSqlite(existed); !prepared)
            return prepared.errorDetail();
    }
    return connection;
}

Result<void> HistoryConnection::checkFileBeforeOpening() const
{
    if (m_location.isPostgres())
        return {};
    const QString &path = m_location.path;
    const QFileInfo info(path);
    if (!info.dir().exists())
        return Result<void>::failure(Tr::tr("the folder %1 does not exist").arg(native(info.absolutePath())));
    if (!info.exists()) {
        if (m_role == Role::Reader)
            return Result<void>::failure(Tr::tr("there is no history at %1").arg(native(path)));
        return {};
    }
    if (info.isDir())
        return Result<void>::failure(Tr::tr("%1 is a folder, not a history file").arg(native(path)));
    if (info.size() == 0)
        return {};
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return Result<void>::failure(Tr::tr("%1 cannot be read: %2").arg(native(path), file.errorString()));
    const QByteArray head = file.read(sizeof sqliteMagic);
    if (head != QByteArray(sqliteMagic, sizeof sqliteMagic))
        return Result<void>::failure(
            Tr::tr("%1 is not a SQLite database; it was left as it is: name another file").arg(native(path)));
    return {};
}

Result<void> HistoryConnection::connect()
{
    QSqlDatabase db = QSqlDatabase::database(m_name, false);
    if (m_location.isPostgres()) {
        db.setHostName(m_location.socketDirectory.isEmpty() ? m_location.host : m_location.socketDirectory);
        db.setPort(m_location.port);
        db.setUserName(m_location.user);
        db.setPassword(m_location.password);
        db.setDatabaseName(m_location.databaseName);
        db.setConnectOptions(QStringLiteral("connect_timeout=10"));
    } else {
        db.setDatabaseName(m_location.path);
        db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=%1").arg(m_settings.busyTimeoutMs));
    }
    if (db.open()) {
        if (m_location.isPostgres()) {
            // CREATE ... IF NOT EXISTS and friends say NOTICE on stderr; only trouble should.
            QSqlQuery quiet(db);
            quiet.exec(QStringLiteral("SET client_min_messages TO WARNING"));
        }
        return {};
    }
    QString why = db.lastError().databaseText().simplified();
    if (why.isEmpty())
        why = db.lastError().text().simplified();
    if (!m_location.password.isEmpty())
        why.replace(m_location.password, QStringLiteral("***"));
    if (m_location.isPostgres()) {
        const QString user = m_location.user.isEmpty() ? Tr::tr("the system user") : m_location.user;
        return Result<void>::failure(Tr::tr("cannot connect to PostgreSQL at %1 (database %2, user %3): %4")
                                         .arg(m_location.server(), m_location.databaseName, user, why));
    }
    return Result<void>::failure(Tr::tr("%1 cannot be opened: %2").arg(native(m_location.path), why));
}

Result<void> HistoryConnection::prepareSqlite(bool existed)
{
    QSqlDatabase db = database();
    QSqlQuery query(db);
    const QString &path = m_location.path;
    // Reading the schema is the first thing that touches the pages: a file that
    // starts like a database and is not one fails here.
    if (!query.exec(QStringLiteral("SELECT count(*) FROM sqlite_master")))
        return Result<void>::failure(refusedDamaged(path, query.lastError().databaseText()));
    if (m_role == Role::Writer && existed && m_settings.quickCheck) {
        if (!query.exec(QStringLiteral("PRAGMA quick_check(5)")))
            return Result<void>::failure(refusedDamaged(path, query.lastError().databaseText()));
        QStringList problems;
        while (query.next())
            problems.append(query.value(0).toString());
        if (problems != QStringList{QStringLiteral("ok")})
            return Result<void>::failure(refusedDamaged(
                path, QStringLiteral("PRAGMA quick_check: ") + problems.join(QStringLiteral("; ")).simplified()));
    }
    QStringList pragmas{QStringLiteral("PRAGMA busy_timeout=%1").arg(m_settings.busyTimeoutMs)};
    if (m_role == Role::Writer) {
        if (!query.exec(QStringLiteral("PRAGMA journal_mode=WAL")) || !query.next()
            || query.value(0).toString().compare(QLatin1String("wal"), Qt::CaseInsensitive) != 0)
            return Result<void>::failure(
                Tr::tr("%1 cannot be switched to WAL mode: %2").arg(native(path), query.lastError().databaseText()));
        // In WAL mode NORMAL loses nothing committed when the process dies; only a
        // power cut may lose the last transactions, never the file.
        pragmas << QStringLiteral("PRAGMA synchronous=NORMAL");
        if (m_settings.maxPages > 0)
            pragmas << QStringLiteral("PRAGMA max_page_count=%1").arg(m_settings.maxPages);
    } else {
        // Readers scan months of checks: map the file instead of copying pages
        // through read(), and keep more of it.
        pragmas << QStringLiteral("PRAGMA query_only=1") << QStringLiteral("PRAGMA mmap_size=1073741824")
                << QStringLiteral("PRAGMA cache_size=-65536");
    }
    for (const QString &pragma : std::as_const(pragmas)) {
        if (!query.exec(pragma)) {
            qCWarning(lcHistoryConnection) << pragma << "failed:" << query.lastError().text();
            return Result<void>::failure(
                Tr::tr("%1: %2 failed: %3").arg(native(path), pragma, query.lastError().databaseText()));
        }
    }
    return {};
}

QSqlDatabase HistoryConnection::database() const
{
    return QSqlDatabase::database(m_name, false);
}

bool HistoryConnection::isOpen() const
{
    return database().isOpen();
}

void HistoryConnection::close()
{
    QSqlDatabase db = database();
    db.close();
}

Result<void> HistoryConnection::reopen()
{
    close();
    if (Result<void> connected = connect(); !connected)
        return connected;
    if (!m_location.isPostgres())
        return prepareSqlite(false);
    return {};
}

} // namespace RetryLab::Core
