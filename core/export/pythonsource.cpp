#include "core/export/pythonsource.h"

#include "core/util/coretr.h"

#include <QCoreApplication>
#include <QLocale>
#include <QLoggingCategory>

#include <algorithm>
#include <cmath>

namespace {
Q_LOGGING_CATEGORY(lcPythonSource, "retrylab.core.pythonsource")
} // namespace

namespace RetryLab::Core::PythonSource {

QString stringLiteral(const QString &text)
{
    QString out = QStringLiteral("'");
    for (const QChar c : text) {
        const char16_t u = c.unicode();
        if (c == QLatin1Char('\\') || c == QLatin1Char('\''))
            out += QLatin1Char('\\') + c;
        else if (u < 0x20 || u == 0x7f)
            out += QStringLiteral("\\x%1").arg(u, 2, 16, QLatin1Char('0'));
        else if (c.isSurrogate() || c.category() == QChar::Separator_Line || c.category() == QChar::Separator_Paragraph
            || (u >= 0x80 && u < 0xa0))
            out += QStringLiteral("\\u%1").arg(u, 4, 16, QLatin1Char('0'));
        else
            out += c;
    }
    out += QLatin1Char('\'');
    return out;
}

QString number(double value)
{
    if (!std::isfinite(value))
        return QStringLiteral("0");
    return QString::number(value, 'f', QLocale::FloatingPointShortest);
}

QString seconds(double milliseconds)
{
    // Microseconds are finer than any sleep Python keeps.
    return number(std::round(std::max(0.0, milliseconds) * 1000.0) / 1e6);
}

QString statusSet(QList<int> statuses)
{
    std::sort(statuses.begin(), statuses.end());
    statuses.erase(std::unique(statuses.begin(), statuses.end()), statuses.end());
    if (statuses.isEmpty())
        return QStringLiteral("set()");
    QStringList parts;
    for (qsizetype i = 0; i < statuses.size();) {
        qsizetype j = i;
        while (j + 1 < statuses.size() && statuses[j + 1] == statuses[j] + 1)
            ++j;
        if (j - i >= 4) {
            parts << QStringLiteral("*range(%1, %2)").arg(statuses[i]).arg(statuses[j] + 1);
        } else {
            for (qsizetype k = i; k <= j; ++k)
                parts << QString::number(statuses[k]);
        }
        i = j + 1;
    }
    return QLatin1Char('{') + parts.join(QStringLiteral(", ")) + QLatin1Char('}');
}

QString urlLine(const QString &url)
{
    return QStringLiteral("URL = sys.argv[1] if len(sys.argv) > 1 else %1\n").arg(stringLiteral(url));
}

QString requestsMain(const QString &call, const QString &exceptions)
{
    return QStringLiteral("\n\ndef main():\n"
                          "    try:\n"
                          "        response = %1\n"
                          "    except %2 as error:\n"
                          "        print(f'failed: {error!r}', file=sys.stderr)\n"
                          "        return 1\n"
                          "    print(response.status_code)\n"
                          "    return 0 if response.status_code < 400 else 1\n")
               .arg(call, exceptions)
        + mainGuard();
}

QString mainGuard()
{
    return QStringLiteral("\n\nif __name__ == '__main__':\n    sys.exit(main())\n");
}

QString comment(const QString &text)
{
    QString line;
    for (const QChar c : text)
        line += (c.unicode() < 0x20 || c.unicode() == 0x7f || c.category() == QChar::Separator_Line
                    || c.category() == QChar::Separator_Paragraph)
            ? QLatin1Char(' ')
            : c;
    return QStringLiteral("# ") + line.trimmed();
}

QList<int> sortedStatuses(const BackoffPolicy &policy)
{
    QList<int> statuses(
        policy.classification.retryableStatuses.cbegin(), policy.classification.retryableStatuses.cend());
    std::sort(statuses.begin(), statuses.end());
    return statuses;
}

bool givesUp(const BackoffPolicy &policy, NetworkFaultClass fault)
{
    return policy.classification.networkActions.value(fault, FaultAction::GiveUp) == FaultAction::GiveUp;
}

QStringList commonNotes(const BackoffPolicy &p, const QString &library)
{
    QStringList notes;
    const auto &c = p.classification;
    QStringList immediate;
    for (NetworkFaultClass fault : allNetworkFaultClasses()) {
        if (c.networkActions.value(fault, FaultAction::GiveUp) == FaultAction::RetryImmediately)
            immediate << networkFaultClassName(fault);
    }
    if (!immediate.isEmpty()) {
        notes.append(Tr::tr("%1 waits its backoff after every fault; the policy retries %2 at once.")
                         .arg(library, immediate.join(QStringLiteral(", "))));
    }
    if (!c.networkDelayFactors.isEmpty() || !c.statusDelayFactors.isEmpty()) {
        notes.append(Tr::tr("%1 waits the same backoff whatever the fault; the policy's per-fault delay factors "
                            "were not exported.")
                         .arg(library));
    }
    if (c.retryConflictAborted && !c.retryableStatuses.contains(409)) {
        notes.append(Tr::tr("409 ABORTED restarts a whole read-modify-write sequence in RetryLab; %1 cannot, so the "
                            "application must restart the sequence itself.")
                         .arg(library));
    }
    if (p.circuitBreaker.enabled)
        notes.append(Tr::tr("%1 has no circuit breaker; the breaker was not exported.").arg(library));
    qCDebug(lcPythonSource) << p.name << library << notes.size() << "common notes";
    return notes;
}

} // namespace RetryLab::Core::PythonSource
