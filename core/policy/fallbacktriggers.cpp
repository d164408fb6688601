#include "core/policy/fallbacktriggers.h"
#include "core/util/coretr.h"

#include <QRegularExpression>

namespace RetryLab::Core::FallbackTriggers {

namespace {

// "503" -> 503, "5xx" -> 5 with `wholeClass`; nullopt for anything else.
std::optional<int> statusOfTrigger(const QString &entry, bool *wholeClass)
{
    if (entry.size() != 3)
        return std::nullopt;
    const QChar first = entry.at(0);
    if (first != QLatin1Char('4') && first != QLatin1Char('5'))
        return std::nullopt;
    if (entry.mid(1) == QLatin1String("xx")) {
        *wholeClass = true;
        return first.digitValue();
    }
    if (!entry.at(1).isDigit() || !entry.at(2).isDigit())
        return std::nullopt;
    *wholeClass = false;
    return entry.toInt();
}

bool isTrigger(const QString &entry)
{
    bool wholeClass = false;
    return statusOfTrigger(entry, &wholeClass) || networkFaultClassFromName(entry);
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
        bool wholeClass = false;
        if (const auto status = statusOfTrigger(entry, &wholeClass)) {
            if (c.httpStatus && (wholeClass ? *c.httpStatus / 100 == *status : *c.httpStatus == *status))
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
