#include "core/http/httpstatuslist.h"

#include "core/util/coretr.h"

#include <QRegularExpression>
#include <QStringList>

#include <algorithm>

namespace RetryLab::Core::HttpStatusList {

namespace {

constexpr int lowest = 100;
constexpr int highest = 599;

} // namespace

QString format(QList<int> statuses)
{
    std::sort(statuses.begin(), statuses.end());
    statuses.erase(std::unique(statuses.begin(), statuses.end()), statuses.end());
    QStringList parts;
    for (qsizetype i = 0; i < statuses.size();) {
        qsizetype j = i;
        while (j + 1 < statuses.size() && statuses.at(j + 1) == statuses.at(j) + 1)
            ++j;
        if (j - i >= 2) {
            parts.append(QStringLiteral("%1-%2").arg(statuses.at(i)).arg(statuses.at(j)));
        } else {
            for (qsizetype k = i; k <= j; ++k)
                parts.append(QString::number(statuses.at(k)));
        }
        i = j + 1;
    }
    return parts.join(QStringLiteral(", "));
}

QString format(const QSet<int> &statuses)
{
    return format(QList<int>(statuses.cbegin(), statuses.cend()));
}

Result<QSet<int>> parse(const QString &text)
{
    using R = Result<QSet<int>>;
    static const QRegularExpression separators(QStringLiteral("[,;\\s]+"));
    static const QRegularExpression single(QStringLiteral("^(\\d{1,3})$"));
    static const QRegularExpression range(QStringLiteral("^(\\d{1,3})\\s*[-\\x{2013}]\\s*(\\d{1,3})$"));
    static const QRegularExpression klass(QStringLiteral("^([1-5])[xX][xX]$"));
    static const QRegularExpression spacedDash(QStringLiteral("\\s*([-\\x{2013}])\\s*"));

    // Ranges may be written with spaces around the dash; join them before splitting.
    QString normalised = text;
    normalised.replace(spacedDash, QStringLiteral("\\1"));

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
                return R::failure(Tr::tr("\"%1\": the range ends before it starts.").arg(token));
        } else if (const auto k = klass.match(token); k.hasMatch()) {
            from = k.captured(1).toInt() * 100;
            to = from + 99;
        } else {
            return R::failure(
                Tr::tr("\"%1\" is not a status code, a range like 500-599 or a class like 5xx.").arg(token.left(40)));
        }
        if (from < lowest || to > highest)
            return R::failure(
                Tr::tr("\"%1\": HTTP status codes lie between %2 and %3.").arg(token).arg(lowest).arg(highest));
        for (int code = from; code <= to; ++code)
            statuses.insert(code);
    }
    return statuses;
}

QString formatFactors(const QMap<int, double> &factors)
{
    QStringList parts;
    for (auto it = factors.cbegin(); it != factors.cend(); ++it)
        parts.append(QStringLiteral("%1=%2").arg(it.key()).arg(it.value()));
    return parts.join(QStringLiteral(", "));
}

Result<QMap<int, double>> parseFactors(const QString &text)
{
    using R = Result<QMap<int, double>>;
    static const QRegularExpression separators(QStringLiteral("[,;\\s]+"));
    static const QRegularExpression spacedSign(QStringLiteral("\\s*([=\\x{00d7}])\\s*"));
    static const QRegularExpression pair(QStringLiteral("^(\\d{1,3})[=\\x{00d7}]([0-9]*\\.?[0-9]+)$"));
    QString normalised = text;
    normalised.replace(spacedSign, QStringLiteral("\\1"));
    QMap<int, double> factors;
    for (const QString &token : normalised.split(separators, Qt::SkipEmptyParts)) {
        const auto m = pair.match(token);
        if (!m.hasMatch())
            return R::failure(Tr::tr("\"%1\" is not STATUS=FACTOR, like 429=2.").arg(token.left(40)));
        const int status = m.captured(1).toInt();
        if (status < lowest || status > highest)
            return R::failure(
                Tr::tr("\"%1\": HTTP status codes lie between %2 and %3.").arg(token).arg(lowest).arg(highest));
        if (factors.contains(status))
            return R::failure(Tr::tr("\"%1\": status %2 is given twice.").arg(token).arg(status));
        factors.insert(status, m.captured(2).toDouble());
    }
    return factors;
}

} // namespace RetryLab::Core::HttpStatusList
