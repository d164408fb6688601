#include "core/http/retryafter.h"
#include "core/http/httpheaders.h"
#include "core/util/coretr.h"
#include "core/util/durationtext.h"

#include <QCoreApplication>
#include <QLocale>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

namespace RetryLab::Core {

namespace {

constexpr std::array<const char *, 12> monthNames{
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
constexpr std::array<const char *, 7> dayNames{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
constexpr std::array<const char *, 7> longDayNames{
    "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"};

int monthFromName(QByteArrayView name)
{
    for (std::size_t i = 0; i < monthNames.size(); ++i) {
        if (name == monthNames[i])
            return static_cast<int>(i) + 1;
    }
    return 0;
}

int toInt(QByteArrayView s)
{
    int v = 0;
    for (char c : s)
        v = v * 10 + (c - '0');
    return v;
}

bool validDayName(QByteArrayView name, bool longForm)
{
    if (longForm) {
        for (const char *d : longDayNames) {
            if (name == d)
                return true;
        }
        return false;
    }
    for (const char *d : dayNames) {
        if (name == d)
            return true;
    }
    return false;
}

// "08:49:37" -> QTime, invalid otherwise.
QTime parseClock(QByteArrayView s)
{
    if (s.size() != 8 || s[2] != ':' || s[5] != ':')
        return {};
    const auto h = s.sliced(0, 2), m = s.sliced(3, 2), sec = s.sliced(6, 2);
    if (!isDigits(h) || !isDigits(m) || !isDigits(sec))
        return {};
    return QTime(toInt(h), toInt(m), toInt(sec));
}

QDateTime makeUtc(int year, int month, int day, QTime time)
{
    const QDate date(year, month, day);
    if (!date.isValid() || !time.isValid())
        return {};
    return QDateTime(date, time, Qt::UTC);
}

QList<QByteArrayView> splitSpaces(QByteArrayView s)
{
    QList<QByteArrayView> parts;
    qsizetype i = 0;
    while (i < s.size()) {
        while (i < s.size() && s[i] == ' ')
            ++i;
        const qsizetype start = i;
        while (i < s.size() && s[i] != ' ')
            ++i;
        if (i > start)
            parts.append(s.sliced(start, i - start));
    }
    return parts;
}

} // namespace

QDateTime parseHttpDate(const QByteArray &raw)
{
    const QByteArray value = raw.trimmed();
    const auto parts = splitSpaces(value);

    // IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT"
    if (parts.size() == 6 && parts[0].size() == 4 && parts[0].endsWith(',') && validDayName(parts[0].chopped(1), false)
        && parts[1].size() == 2 && isDigits(parts[1]) && parts[3].size() == 4 && isDigits(parts[3])
        && parts[5] == "GMT") {
        const int month = monthFromName(parts[2]);
        if (month == 0)
            return {};
        return makeUtc(toInt(parts[3]), month, toInt(parts[1]), parseClock(parts[4]));
    }

    // RFC 850: "Sunday, 06-Nov-94 08:49:37 GMT"
    if (parts.size() == 4 && parts[0].endsWith(',') && validDayName(parts[0].chopped(1), true) && parts[3] == "GMT") {
        const auto d = parts[1];
        if (d.size() != 9 || d[2] != '-' || d[6] != '-')
            return {};
        const auto day = d.sliced(0, 2), year = d.sliced(7, 2);
        const int month = monthFromName(d.sliced(3, 3));
        if (!isDigits(day) || !isDigits(year) || month == 0)
            return {};
        // RFC 9110: a two-digit year that appears more than 50 years in the future is in the past century.
        int y = 2000 + toInt(year);
        if (y > QDate::currentDate().year() + 50)
            y -= 100;
        return makeUtc(y, month, toInt(day), parseClock(parts[2]));
    }

    // asctime: "Sun Nov  6 08:49:37 1994"
    if (parts.size() == 5 && validDayName(parts[0], false)) {
        const int month = monthFromName(parts[1]);
        if (month == 0 || parts[2].size() > 2 || !isDigits(parts[2]) || parts[4].size() != 4 || !isDigits(parts[4]))
            return {};
        return makeUtc(toInt(parts[4]), month, toInt(parts[2]), parseClock(parts[3]));
    }
    return {};
}

QByteArray formatHttpDate(const QDateTime &time)
{
    const QDateTime utc = time.toUTC();
    if (!utc.isValid())
        return {};
    const QDate d = utc.date();
    const QTime t = utc.time();
    // Servers write this once per response: plain formatting, no QString round trip.
    // IMF-fixdate has a four-digit year; "%04d" keeps years below 1000 readable by parseHttpDate().
    char text[48];
    const int length = std::snprintf(text, sizeof text, "%s, %02d %s %04d %02d:%02d:%02d GMT",
        dayNames[static_cast<std::size_t>(d.dayOfWeek() - 1)], d.day(),
        monthNames[static_cast<std::size_t>(d.month() - 1)], d.year(), t.hour(), t.minute(), t.second());
    return QByteArray(text, std::clamp(length, 0, int(sizeof text) - 1));
}

RetryAfter parseRetryAfter(const QByteArray &raw, const QDateTime &now)
{
    RetryAfter result;
    const QByteArray value = raw.trimmed();
    if (value.isEmpty()) {
        result.reason = Tr::tr("Retry-After is empty");
        return result;
    }
    if (value.startsWith('-') && isDigits(QByteArrayView(value).sliced(1))) {
        result.reason = Tr::tr("Retry-After %1 is negative; ignored").arg(QString::fromLatin1(value));
        return result;
    }
    if (isDigits(value)) {
        // Any number of digits is accepted; beyond 10 digits the value is far past
        // every sane bound anyway, so it saturates instead of overflowing.
        const double seconds = value.size() > 10 ? 1e10 : value.toDouble();
        result.kind = RetryAfter::Kind::DelaySeconds;
        result.delayMs = seconds * 1000.0;
        result.reason = Tr::tr("Retry-After asks for %1 s").arg(QString::fromLatin1(value));
        return result;
    }
    const QDateTime date = parseHttpDate(value);
    if (!date.isValid()) {
        result.reason = Tr::tr("Retry-After \"%1\" is neither delta-seconds nor an HTTP date; ignored")
                            .arg(QString::fromLatin1(value.left(64)));
        return result;
    }
    result.kind = RetryAfter::Kind::HttpDate;
    const qint64 diff = now.msecsTo(date);
    if (diff <= 0) {
        result.delayMs = 0.0;
        result.reason = Tr::tr("Retry-After date %1 is already past; retry now").arg(QString::fromLatin1(value));
    } else {
        result.delayMs = static_cast<double>(diff);
        result.reason = Tr::tr("Retry-After date %1 is %2 away")
                            .arg(QString::fromLatin1(value), DurationText::format(double(diff)));
    }
    return result;
}

RetryAfterDecision boundRetryAfter(const RetryAfter &retryAfter, double maxRetryAfterMs, double remainingMs)
{
    RetryAfterDecision decision;
    if (!retryAfter.isValid() || !retryAfter.delayMs) {
        decision.action = RetryAfterDecision::Action::Ignore;
        decision.reason = retryAfter.reason;
        return decision;
    }
    const double asked = *retryAfter.delayMs;
    // A server asking for more than the deadline leaves is a certain failure: stop now.
    if (remainingMs >= 0.0 && asked > remainingMs) {
        decision.action = RetryAfterDecision::Action::GiveUp;
        decision.delayMs = asked;
        decision.reason = Tr::tr("%1, beyond the %2 ms left before the deadline: giving up now")
                              .arg(retryAfter.reason)
                              .arg(std::floor(remainingMs));
        return decision;
    }
    decision.action = RetryAfterDecision::Action::Wait;
    if (maxRetryAfterMs >= 0.0 && asked > maxRetryAfterMs) {
        decision.delayMs = maxRetryAfterMs;
        decision.clamped = true;
        decision.reason = Tr::tr("%1, bounded to %2 ms").arg(retryAfter.reason).arg(maxRetryAfterMs);
    } else {
        decision.delayMs = asked;
        decision.reason = retryAfter.reason;
    }
    return decision;
}

} // namespace RetryLab::Core
