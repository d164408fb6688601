#include "core/history/historylocation.h"

#include "core/util/coretr.h"

#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>
#include <QUrl>
#include <QUrlQuery>

namespace RetryLab::Core {

QString HistoryLocation::defaultDatabase()
{
    const QString folder = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    return QDir(folder.isEmpty() ? QDir::homePath() : folder).filePath(QStringLiteral("history.sqlite"));
}

Result<HistoryLocation> HistoryLocation::parse(const QString &database)
{
    const QString text = database.trimmed();
    if (text.isEmpty())
        return Result<HistoryLocation>::failure(Tr::tr("no history database was named"));
    HistoryLocation location;
    const bool postgres = text.startsWith(QLatin1String("postgresql://"), Qt::CaseInsensitive)
        || text.startsWith(QLatin1String("postgres://"), Qt::CaseInsensitive);
    if (!postgres) {
        location.kind = Kind::Sqlite;
        location.path = QFileInfo(text).absoluteFilePath();
        return location;
    }
    const QUrl url(text, QUrl::StrictMode);
    // Not url.toString(): the message must not repeat a password.
    if (!url.isValid())
        return Result<HistoryLocation>::failure(
            Tr::tr("the PostgreSQL URL is not valid (postgresql://USER@HOST:PORT/DATABASE): %1")
                .arg(url.errorString().remove(url.password())));
    location.kind = Kind::Postgres;
    location.host = url.host();
    location.port = url.port(5432);
    location.user = url.userName();
    location.password = url.password();
    location.databaseName = url.path().mid(1);
    const QUrlQuery query(url);
    location.socketDirectory = query.queryItemValue(QStringLiteral("host"), QUrl::FullyDecoded);
    if (location.host.isEmpty() && location.socketDirectory.isEmpty())
        return Result<HistoryLocation>::failure(
            Tr::tr("the PostgreSQL URL names no host (postgresql://USER@HOST:PORT/DATABASE)"));
    if (location.databaseName.isEmpty() || location.databaseName.contains(QLatin1Char('/')))
        return Result<HistoryLocation>::failure(
            Tr::tr("the PostgreSQL URL names no database (postgresql://USER@HOST:PORT/DATABASE)"));
    if (!location.socketDirectory.isEmpty() && !location.socketDirectory.startsWith(QLatin1Char('/')))
        return Result<HistoryLocation>::failure(
            Tr::tr("the PostgreSQL URL's host= must be an absolute socket folder, not %1")
                .arg(location.socketDirectory));
    return location;
}

QString HistoryLocation::server() const
{
    if (!socketDirectory.isEmpty())
        return Tr::tr("the socket in %1 (port %2)").arg(QDir::toNativeSeparators(socketDirectory)).arg(port);
    return QStringLiteral("%1:%2").arg(host).arg(port);
}

QString HistoryLocation::describe() const
{
    if (kind == Kind::Sqlite)
        return QDir::toNativeSeparators(path);
    return Tr::tr("PostgreSQL database %1 at %2").arg(databaseName, server());
}

} // namespace RetryLab::Core
