#include "ui/policy/statusranges.h"
#include "ui/session/uitr.h"

#include <QCoreApplication>
#include <QList>
#include <QRegularExpression>

#include <algorithm>

namespace RetryLab::Ui::StatusRanges {

namespace {

constexpr int lowest = 100;
constexpr int highest = 599;

} // namespace

QString format(const QSet<int> &statuses)
{
    QList<int> sorted(statuses.cbegin(), statuses.cend());
    std::sort(sorted.begin(), sorted.end());

    QStringList parts;
    for (qsizetype i = 0; i < sorted.size();) {
        qsizetype end = i;
        while (end + 1 < sorted.size() && sorted.at(end + 1) == sorted.at(end) + 1)
            ++end;
        if (end == i)
            parts.append(QString::number(sorted.at(i)));
        else if (end == i + 1)
            parts.append({QString::number(sorted.at(i)), QString::number(sorted.at(end))});
        else
            parts.append(QStringLiteral("%1-%2").arg(sorted.at(i)).arg(sorted.at(end)));
        i = end + 1;
    }
    return parts.join(QStringLiteral(", "));
}

Core::Result<QSet<int>> parse(const QString &text)
{
    static const QRegularExpression separators(QStringLiteral("[,;\\s]+"));
    static const QRegularExpression single(QStringLiteral("^(\\d{1,3})$"));
    static const QRegularExpression range(QStringLiteral("^(\\d{1,3})\\s*[-\\x{2013}]\\s*(\\d{1,3})$"));
    static const QRegularExpression klass(QStringLiteral("^([1-5])[xX][xX]$"));

    // Ranges may be written with spaces around the dash; join them before splitting.
    QString normalised = text;
    normalised.replace(QRegularExpression(QStringLiteral("\\s*([-\\x{2013}])\\s*")), QStringLiteral("\\1"));

    QSet<int> statuses;
    const QStringList tokens = normalised.split(separators, Qt::SkipEmptyParts);
    for (const QString &token : tokens) {
        int from = 0;
        int to = 0;
        if (const auto m = single.match(token); m.hasMatch()) {
            from = to = m.captured(1).toInt();
        } else if (const auto r = range.match(token); r.hasMatch()) {
            from = r.captured(1).toInt();
            to = r.captured(2).toInt();
            if (to < from)
                return Core::Result<QSet<int>>::failure(Tr::tr("\"%1\": the range ends before it starts.").arg(token));
        } else if (const auto k = klass.match(token); k.hasMatch()) {
            from = k.captured(1).toInt() * 100;
            to = from + 99;
        } else {
            return Core::Result<QSet<int>>::failure(
                Tr::tr("\"%1\" is not a status code, a range like 500-599 or a class like 5xx.").arg(token.left(40)));
        }
        if (from < lowest || to > highest)
            return Core::Result<QSet<int>>::failure(
                Tr::tr("\"%1\": HTTP status codes lie between %2 and %3.").arg(token).arg(lowest).arg(highest));
        for (int code = from; code <= to; ++code)
            statuses.insert(code);
    }
    return statuses;
}

} // namespace RetryLab::Ui::StatusRanges
