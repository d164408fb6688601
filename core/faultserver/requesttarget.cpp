#include "core/faultserver/requesttarget.h"

#include "core/http/httprequestparser.h"
#include "core/util/coretr.h"

#include <QByteArray>
#include <QRegularExpression>
#include <QVarLengthArray>

#include <cmath>

namespace RetryLab::Core {

RequestTarget::RequestTarget(const HttpRequest &request)
    : m_path(
        QString::fromUtf8(request.path.contains('%') ? QByteArray::fromPercentEncoding(request.path) : request.path))
{
    // As split('/'), then without the first and the last part when they are empty (a
    // path's leading and trailing slash); by hand, as split() costs more than the rest.
    const QStringView path(m_path);
    QVarLengthArray<QStringView, 8> parts;
    for (qsizetype start = 0;;) {
        const qsizetype slash = path.indexOf(QLatin1Char('/'), start);
        parts.append(slash < 0 ? path.sliced(start) : path.sliced(start, slash - start));
        if (slash < 0)
            break;
        start = slash + 1;
    }
    qsizetype first = 0;
    qsizetype last = parts.size();
    if (first < last && parts[first].isEmpty())
        ++first;
    if (first < last && parts[last - 1].isEmpty())
        --last;
    m_segments.reserve(last - first);
    for (qsizetype i = first; i < last; ++i)
        m_segments.append(parts[i].toString());

    if (request.query.isEmpty())
        return;
    for (const QByteArray &part : request.query.split('&')) {
        if (part.isEmpty())
            continue;
        const qsizetype eq = part.indexOf('=');
        const QByteArray key = eq < 0 ? part : part.left(eq);
        const QByteArray value = eq < 0 ? QByteArray() : part.mid(eq + 1);
        m_query.append({QString::fromUtf8(QByteArray::fromPercentEncoding(key)),
            QString::fromUtf8(QByteArray::fromPercentEncoding(value))});
    }
}

std::optional<QString> RequestTarget::query(QLatin1StringView name) const
{
    for (const auto &[key, value] : m_query) {
        if (key == name)
            return value;
    }
    return std::nullopt;
}

Result<qint64> RequestTarget::integer(const char *name, qint64 lo, qint64 hi, qint64 fallback) const
{
    return readInteger(query(QLatin1StringView(name)), name, lo, hi, fallback);
}

Result<double> RequestTarget::real(const char *name, double lo, double hi, bool openLow, double fallback) const
{
    return readReal(query(QLatin1StringView(name)), name, lo, hi, openLow, fallback);
}

Result<qint64> RequestTarget::readInteger(
    const std::optional<QString> &text, const char *what, qint64 lo, qint64 hi, qint64 fallback)
{
    if (!text)
        return fallback;
    const QString t = text->trimmed();
    bool ok = !t.isEmpty() && t.size() <= 18;
    for (QChar c : t)
        ok = ok && c >= QLatin1Char('0') && c <= QLatin1Char('9');
    const qint64 value = ok ? t.toLongLong(&ok) : 0;
    if (!ok || value < lo || value > hi) {
        return Result<qint64>::failure(Tr::tr("%1 must be a whole number from %2 to %3 (got \"%4\")")
                                           .arg(Tr::tr(what))
                                           .arg(lo)
                                           .arg(hi)
                                           .arg(shortened(*text, 40)));
    }
    return value;
}

Result<double> RequestTarget::readReal(
    const std::optional<QString> &text, const char *what, double lo, double hi, bool openLow, double fallback)
{
    if (!text)
        return fallback;
    bool ok = false;
    const double value = text->trimmed().toDouble(&ok);
    if (!ok || !std::isfinite(value) || value < lo || (openLow && value <= lo) || value > hi) {
        return Result<double>::failure((openLow ? Tr::tr("%1 must be a number above %2 and at most %3 (got \"%4\")")
                                                : Tr::tr("%1 must be a number from %2 to %3 (got \"%4\")"))
                                           .arg(Tr::tr(what))
                                           .arg(lo)
                                           .arg(hi)
                                           .arg(shortened(*text, 40)));
    }
    return value;
}

bool RequestTarget::isResourceName(const QString &name)
{
    static const QRegularExpression pattern(QStringLiteral("^[A-Za-z0-9._~-]{1,128}$"));
    return pattern.match(name).hasMatch();
}

QString RequestTarget::shortened(const QString &text, qsizetype max)
{
    return text.size() <= max ? text : text.left(max) + QStringLiteral("...");
}

} // namespace RetryLab::Core
