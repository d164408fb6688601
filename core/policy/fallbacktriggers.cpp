#include "core/policy/fallbacktriggers.h"

#include "core/http/httpstatuslist.h"
#include "core/util/coretr.h"

#include <QRegularExpression>

namespace RetryLab::Core::FallbackTriggers {

namespace {

// The statuses an entry names ("503", "5xx"), read as every status list is
// (HttpStatusList); nullopt when it names none or one that is not a failure.
std::optional<QSet<int>> statusesOf(const QString &entry)
{
    const Result<QSet<int>> statuses = HttpStatusList::parse(entry);
    if (!statuses || statuses->isEmpty())
        return std::nullopt;
    for (int status : *statuses) {
        if (status < 400 || status > 599)
            return std::nullopt;
    }
    return *statuses;
}

bool isTrigger(const QString &entry)
{
    return statusesOf(entry) || networkFaultClassFromName(entry);
}

} // namespace

Result<QString> normalizedEntry(const QString &entry)
{
    const QString e = entry.trimmed().toLower();
    if (!isTrigger(e))
        return Result<QString>::failure(
            Tr::tr("\"%1\" is not a fault that can lead to a fallback: %2").arg(entry, syntax()));
    return e;
}

Result<QStringList> normalized(const QStringList &entries)
{
    QStringList out;
    for (const QString &entry : entries) {
        auto e = normalizedEntry(entry);
        if (!e)
            return e.errorDetail();
        if (!out.contains(*e))
            out.append(*e);
    }
    return out;
}

Result<QStringList> fromJson(const QJsonArray &array)
{
    QStringList out;
    for (qsizetype i = 0; i < array.size(); ++i) {
        const QString path = QStringLiteral("[%1]").arg(i);
        if (!array.at(i).isString())
            return Result<QStringList>::failure(path, Tr::tr("expected a status, a class of them or a fault's name"));
        auto e = normalizedEntry(array.at(i).toString());
        if (!e)
            return e.errorDetail().under(path);
        if (!out.contains(*e))
            out.append(*e);
    }
    return out;
}

QJsonArray toJson(const QStringList &entries)
{
    return QJsonArray::fromStringList(entries);
}

QStringList split(const QString &text)
{
    static const QRegularExpression separators(QStringLiteral("[,\\s]+"));
    return text.split(separators, Qt::SkipEmptyParts);
}

QString match(const QStringList &entries, const Classification &c)
{
    if (c.decision == Classification::Decision::Success)
        return {};
    // The total deadline cut the attempt: for the list, a timeout like any other.
    const std::optional<NetworkFaultClass> fault
        = c.cause == QLatin1String("deadline") ? std::optional(NetworkFaultClass::Timeout) : c.networkFault;
    for (const QString &entry : entries) {
        if (const auto statuses = statusesOf(entry)) {
            if (c.httpStatus && statuses->contains(*c.httpStatus))
                return entry;
        } else if (fault && networkFaultClassFromName(entry) == fault) {
            return entry;
        }
    }
    return {};
}

QStringList faultNames()
{
    QStringList faults;
    for (NetworkFaultClass fault : allNetworkFaultClasses())
        faults.append(networkFaultClassName(fault));
    return faults;
}

QString syntax()
{
    return Tr::tr("give an HTTP status from 400 to 599 (\"503\"), a class of them (\"4xx\", \"5xx\"), or a "
                  "network fault: %1")
        .arg(faultNames().join(QStringLiteral(", ")));
}

} // namespace RetryLab::Core::FallbackTriggers
