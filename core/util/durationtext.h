#pragma once

#include <QString>

namespace RetryLab::Core {

/// A duration in milliseconds as text for people: the one place that decides
/// where milliseconds become seconds, minutes and hours, and how many digits
/// each shows. Output meant for another program (a gRPC duration, curl's
/// seconds, JUnit's time attribute) is not display text and does not come
/// from here.
namespace DurationText {

/// The units of a duration in milliseconds, for the formatter and for axes that step by them.
inline constexpr double msPerSecond = 1000.0;
inline constexpr double msPerMinute = 60.0 * msPerSecond;
inline constexpr double msPerHour = 60.0 * msPerMinute;
inline constexpr double msPerDay = 24.0 * msPerHour;

enum class Style {
    /// A measured or computed duration, to three significant digits below a
    /// minute and in whole units above: "0.25 ms", "850 ms", "1.5 s", "12.3 s",
    /// "2 min 5 s", "3 h 20 min", "5 days 4 h", "31.7 years". The unit changes
    /// where the rounded number would reach the next one, so 999.6 ms is "1 s"
    /// and 59.99 s is "1 min".
    Compact,
    /// A value a person typed, with every digit kept, in the unit it was typed
    /// in, and read for them when milliseconds alone hide the size:
    /// "250 ms", "0.125 ms", "90000 ms (1 min 30 s)".
    Exact,
};

/// `ms` as text in `style`. Negative durations carry a minus sign; infinity is
/// "∞" and NaN, which is no duration, is "—".
QString format(double ms, Style style = Style::Compact);

} // namespace DurationText

} // namespace RetryLab::Core
