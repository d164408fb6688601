#include "core/export/pythonsource.h"

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
    return SourceText::comment(QStringLiteral("# "), text);
}

QList<int> sortedStatuses(const BackoffPolicy &policy)
{
    return SourceText::sortedStatuses(policy);
}

bool givesUp(const BackoffPolicy &policy, NetworkFaultClass fault)
{
    return SourceText::givesUp(policy, fault);
}

QStringList commonNotes(const BackoffPolicy &p, const QString &library)
{
    qCDebug(lcPythonSource) << p.name << "notes for" << library;
    return SourceText::commonNotes(p, library, SourceText::Breaker::Absent);
}

} // namespace RetryLab::Core::PythonSource
