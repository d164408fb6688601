#include "core/metrics/prometheustext.h"

#include <QLocale>

#include <cmath>

namespace RetryLab::Core::PrometheusText {

namespace {

bool isAsciiLetter(QChar c)
{
    return (c >= QLatin1Char('a') && c <= QLatin1Char('z')) || (c >= QLatin1Char('A') && c <= QLatin1Char('Z'));
}

bool isAsciiDigit(QChar c)
{
    return c >= QLatin1Char('0') && c <= QLatin1Char('9');
}

} // namespace

QByteArray number(double value)
{
    if (std::isnan(value))
        return QByteArrayLiteral("NaN");
    if (std::isinf(value))
        return value > 0 ? QByteArrayLiteral("+Inf") : QByteArrayLiteral("-Inf");
    // Counters and timestamps are whole numbers: written in full they read as
    // people expect ("1798761600", not "1.7987616e+09"); 2^53 is where a double
    // stops holding every whole number.
    constexpr double exactWhole = 9007199254740992.0;
    if (std::trunc(value) == value && std::fabs(value) < exactWhole)
        return QByteArray::number(qint64(value));
    return QByteArray::number(value, 'g', QLocale::FloatingPointShortest);
}

QByteArray labelValue(QStringView value)
{
    const QByteArray utf8 = value.toUtf8();
    QByteArray out;
    out.reserve(utf8.size() + 2);
    for (const char c : utf8) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '"')
            out += "\\\"";
        else if (c == '\n')
            out += "\\n";
        else
            out += c;
    }
    return out;
}

QByteArray help(QStringView text)
{
    const QByteArray utf8 = text.toUtf8();
    QByteArray out;
    out.reserve(utf8.size());
    for (const char c : utf8) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '\n')
            out += "\\n";
        else
            out += c;
    }
    return out;
}

bool isMetricName(QStringView name)
{
    if (name.isEmpty())
        return false;
    for (qsizetype i = 0; i < name.size(); ++i) {
        const QChar c = name.at(i);
        const bool ok
            = isAsciiLetter(c) || c == QLatin1Char('_') || c == QLatin1Char(':') || (i > 0 && isAsciiDigit(c));
        if (!ok)
            return false;
    }
    return true;
}

bool isLabelName(QStringView name)
{
    if (name.isEmpty() || name.startsWith(QLatin1String("__")))
        return false;
    for (qsizetype i = 0; i < name.size(); ++i) {
        const QChar c = name.at(i);
        if (!(isAsciiLetter(c) || c == QLatin1Char('_') || (i > 0 && isAsciiDigit(c))))
            return false;
    }
    return true;
}

} // namespace RetryLab::Core::PrometheusText
