#include "core/http/httpstatuslist.h"

#include <QStringList>

#include <algorithm>

namespace RetryLab::Core::HttpStatusList {

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

} // namespace RetryLab::Core::HttpStatusList
