#include "core/http/ratelimitheaders.h"

#include "core/util/coretr.h"
#include "core/util/durationtext.h"

#include <QByteArrayList>

#include <cmath>

namespace RetryLab::Core {

namespace {

// From these sizes on, a reset is a point in time rather than a number of seconds:
// 10^9 seconds is 2001, and nobody waits 31 years for a quota.
constexpr double epochSecondsFrom = 1e9;
constexpr double epochMillisecondsFrom = 1e12;
// A reset further away than a day is not a rate limit a client waits for.
constexpr double maxResetMs = 24.0 * 3600.0 * 1000.0;

// One member of a structured-field list or dictionary (RFC 8941, the subset these
// fields use): a bare item (token, "string" or number), then ;key=value parameters.
struct Member
{
    QByteArray key; ///< a dictionary member's key; empty in a list
    QByteArray item;
    QList<QPair<QByteArray, QByteArray>> parameters;

    std::optional<QByteArray> parameter(QByteArrayView name) const
    {
        for (const auto &[parameterKey, value] : parameters) {
            if (parameterKey == name)
                return value;
        }
        return std::nullopt;
    }
};

QByteArray unquoted(QByteArray text)
{
    text = text.trimmed();
    if (text.size() >= 2 && text.startsWith('"') && text.endsWith('"'))
        return text.mid(1, text.size() - 2);
    return text;
}

// Splits at `separator` outside double quotes.
QByteArrayList splitOutsideQuotes(const QByteArray &text, char separator)
{
    QByteArrayList parts;
    QByteArray current;
    bool quoted = false;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const char c = text.at(i);
        if (c == '"' && (i == 0 || text.at(i - 1) != '\\'))
            quoted = !quoted;
        if (c == separator && !quoted) {
            parts.append(current.trimmed());
            current.clear();
            continue;
        }
        current.append(c);
    }
    parts.append(current.trimmed());
    return parts;
}

QList<Member> members(const QByteArray &value)
{
    QList<Member> list;
    for (const QByteArray &part : splitOutsideQuotes(value, ',')) {
        if (part.isEmpty())
            continue;
        const QByteArrayList pieces = splitOutsideQuotes(part, ';');
        Member member;
        const QByteArray &head = pieces.constFirst();
        const qsizetype equals = head.indexOf('=');
        if (equals > 0 && !head.startsWith('"')) {
            member.key = head.left(equals).trimmed().toLower();
            member.item = unquoted(head.mid(equals + 1));
        } else {
            member.item = unquoted(head);
        }
        for (qsizetype i = 1; i < pieces.size(); ++i) {
            const qsizetype eq = pieces.at(i).indexOf('=');
            if (eq < 0)
                member.parameters.append({pieces.at(i).trimmed().toLower(), QByteArray("?1")});
            else
                member.parameters.append(
                    {pieces.at(i).left(eq).trimmed().toLower(), unquoted(pieces.at(i).mid(eq + 1))});
        }
        list.append(member);
    }
    return list;
}

// A non-negative whole number, or why not (the header named).
std::optional<qint64> count(const QByteArray &text, const QString &header, QStringList &problems)
{
    bool ok = false;
    const qint64 value = text.trimmed().toLongLong(&ok);
    if (ok && value >= 0)
        return value;
    problems.append(
        Tr::tr("%1: \"%2\" is not a whole number of 0 or more").arg(header, QString::fromLatin1(text.left(40))));
    return std::nullopt;
}

// A reset value: seconds from now, or a Unix time in seconds or milliseconds.
std::optional<double> resetOf(const QByteArray &text, const QDateTime &now, const QString &header, bool mayBeTime,
    QString *reading, QStringList &problems)
{
    bool ok = false;
    const double value = text.trimmed().toDouble(&ok);
    if (!ok || !std::isfinite(value) || value < 0) {
        problems.append(Tr::tr("%1: \"%2\" is not a number of seconds or a Unix time")
                            .arg(header, QString::fromLatin1(text.left(40))));
        return std::nullopt;
    }
    double ms = value * 1000.0;
    *reading = Tr::tr("seconds from now");
    if (mayBeTime && value >= epochSecondsFrom) {
        const double atMs = value >= epochMillisecondsFrom ? value : value * 1000.0;
        *reading
            = value >= epochMillisecondsFrom ? Tr::tr("a Unix time in milliseconds") : Tr::tr("a Unix time in seconds");
        ms = std::max(0.0, atMs - double(now.toMSecsSinceEpoch()));
    }
    if (ms > maxResetMs) {
        problems.append(Tr::tr("%1: a reset %2 away (read as %3) is not a rate limit a client waits for")
                            .arg(header, DurationText::format(ms), *reading));
        return std::nullopt;
    }
    return ms;
}

void readIetfStructured(const QByteArray &value, const QDateTime &now, RateLimitHeaders &out)
{
    const QString header = QStringLiteral("RateLimit");
    const QList<Member> list = members(value);
    if (list.isEmpty()) {
        out.problems.append(Tr::tr("RateLimit: empty"));
        return;
    }
    // The draft's dictionary form: limit=100, remaining=50, reset=30.
    if (!list.constFirst().key.isEmpty()) {
        for (const Member &member : list) {
            if (member.key == "limit")
                out.limit = count(member.item, header, out.problems);
            else if (member.key == "remaining")
                out.remaining = count(member.item, header, out.problems);
            else if (member.key == "reset")
                out.resetMs = resetOf(member.item, now, header, false, &out.resetReading, out.problems);
        }
        return;
    }
    // The current form: "policy";r=remaining;t=seconds to the reset. The first policy counts.
    const Member &first = list.constFirst();
    out.policyName = QString::fromUtf8(first.item);
    if (const auto r = first.parameter("r"))
        out.remaining = count(*r, header, out.problems);
    if (const auto t = first.parameter("t"))
        out.resetMs = resetOf(*t, now, header, false, &out.resetReading, out.problems);
}

void readIetfPolicy(const QByteArray &value, RateLimitHeaders &out)
{
    const QString header = QStringLiteral("RateLimit-Policy");
    const QList<Member> list = members(value);
    if (list.isEmpty())
        return;
    const Member &first = list.constFirst();
    bool numeric = false;
    const qint64 number = first.item.toLongLong(&numeric);
    if (numeric && number >= 0 && !out.limit) // the earlier form: 100;w=60
        out.limit = number;
    else if (!numeric && out.policyName.isEmpty())
        out.policyName = QString::fromUtf8(first.item);
    if (const auto q = first.parameter("q"))
        out.limit = count(*q, header, out.problems);
    if (const auto w = first.parameter("w"))
        out.windowSeconds = count(*w, header, out.problems);
}

} // namespace

QString RateLimitHeaders::styleName(Style style)
{
    switch (style) {
    case Style::None:
        return Tr::tr("none");
    case Style::Ietf:
        return QStringLiteral("RateLimit");
    case Style::IetfSeparate:
        return QStringLiteral("RateLimit-Limit/-Remaining/-Reset");
    case Style::XRateLimit:
        return QStringLiteral("X-RateLimit-*");
    }
    return {};
}

QString RateLimitHeaders::describe() const
{
    if (!isPresent())
        return Tr::tr("no rate-limit fields");
    QStringList parts;
    if (remaining && limit)
        parts.append(Tr::tr("%1 of %2 left").arg(*remaining).arg(*limit));
    else if (remaining)
        parts.append(Tr::tr("%1 left").arg(*remaining));
    else if (limit)
        parts.append(Tr::tr("a quota of %1").arg(*limit));
    if (resetMs)
        parts.append(Tr::tr("resets in %1").arg(DurationText::format(*resetMs)));
    if (windowSeconds)
        parts.append(Tr::tr("window %1").arg(DurationText::format(double(*windowSeconds) * 1000.0)));
    if (parts.isEmpty())
        parts.append(Tr::tr("nothing usable"));
    return Tr::tr("%1 (%2)").arg(parts.join(QStringLiteral(", ")), styleName(style));
}

RateLimitHeaders RateLimitHeaders::parse(const HeaderList &headers, const QDateTime &now)
{
    RateLimitHeaders out;
    const auto rateLimit = headerValue(headers, "RateLimit");
    const auto policy = headerValue(headers, "RateLimit-Policy");
    if (rateLimit || policy) {
        out.style = Style::Ietf;
        if (rateLimit)
            readIetfStructured(*rateLimit, now, out);
        if (policy)
            readIetfPolicy(*policy, out);
        return out;
    }
    struct Separate
    {
        Style style;
        const char *limit;
        const char *remaining;
        const char *reset;
        bool resetMayBeTime;
    };
    // The draft's early fields give seconds only; the X- ones are also Unix times.
    for (const Separate &names :
        {Separate{Style::IetfSeparate, "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", false},
            Separate{Style::XRateLimit, "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", true}}) {
        const auto limit = headerValue(headers, names.limit);
        const auto remaining = headerValue(headers, names.remaining);
        const auto reset = headerValue(headers, names.reset);
        if (!limit && !remaining && !reset)
            continue;
        out.style = names.style;
        if (limit)
            out.limit = count(*limit, QLatin1String(names.limit), out.problems);
        if (remaining)
            out.remaining = count(*remaining, QLatin1String(names.remaining), out.problems);
        if (reset) {
            out.resetMs = resetOf(
                *reset, now, QLatin1String(names.reset), names.resetMayBeTime, &out.resetReading, out.problems);
        }
        return out;
    }
    return out;
}

} // namespace RetryLab::Core
