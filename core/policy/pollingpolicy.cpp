#include "core/policy/pollingpolicy.h"

#include "core/util/coretr.h"
#include "core/util/durationtext.h"
#include "core/util/jsonpointer.h"

#include <algorithm>
#include <cmath>

namespace RetryLab::Core {

namespace {

const QString googleLroId = QStringLiteral("google-lro");

// A duration is finite, not negative and below a week; `positive` refuses zero too.
Result<void> checkDuration(const QString &field, double value, bool positive)
{
    if (std::isnan(value))
        return Result<void>::failure(field, Tr::tr("not a number."));
    if (std::isinf(value))
        return Result<void>::failure(field, Tr::tr("must be finite."));
    if (value < 0.0) {
        return Result<void>::failure(
            field, Tr::tr("cannot be negative (got %1).").arg(DurationText::format(value, DurationText::Style::Exact)));
    }
    if (positive && value == 0.0)
        return Result<void>::failure(field, Tr::tr("must be greater than zero."));
    if (value > PollingPolicy::maxDurationMs) {
        return Result<void>::failure(field,
            Tr::tr("%1 is beyond the sensible limit of %2.")
                .arg(DurationText::format(value, DurationText::Style::Exact),
                    DurationText::format(PollingPolicy::maxDurationMs)));
    }
    return {};
}

Result<void> checkPointer(const QString &field, const QString &pointer, bool mayBeEmpty)
{
    if (pointer.isEmpty()) {
        if (mayBeEmpty)
            return {};
        return Result<void>::failure(field, Tr::tr("must name a member of the answer, such as \"/done\"."));
    }
    if (!JsonPointer::isValid(pointer)) {
        return Result<void>::failure(field,
            Tr::tr("\"%1\" is not a JSON pointer: it starts with \"/\", and \"~\" is written \"~0\", \"/\" in a "
                   "name \"~1\".")
                .arg(pointer));
    }
    return {};
}

} // namespace

double PollingPolicy::delayBeforePoll(int index) const
{
    // pow() overflows to infinity for a large index, which the cap then takes in.
    return std::min(initialDelayMs * std::pow(multiplier, std::max(index, 0)), maxDelayMs);
}

// The defaults of Google's client library generators for long-running operations
// (google.api.MethodSettings.LongRunning in google/api/client.proto): multiplier 1.5, at most
// 45 s between polls, a total timeout of 5 minutes. The first wait of 1 s is RetryLab's choice
// (the generators' default is 5 s), so that a short operation is seen done soon after it is.
std::optional<PollingPolicy> PollingPolicy::preset(const QString &id)
{
    if (id != googleLroId)
        return std::nullopt;
    PollingPolicy p;
    p.initialDelayMs = 1000.0;
    p.multiplier = 1.5;
    p.maxDelayMs = 45000.0;
    p.totalTimeoutMs = 300000.0;
    return p;
}

QStringList PollingPolicy::presetIds()
{
    return {googleLroId};
}

Result<void> validatePollingPolicy(const PollingPolicy &p)
{
    if (auto r = checkDuration(QStringLiteral("initialDelayMs"), p.initialDelayMs, true); !r)
        return r;
    if (std::isnan(p.multiplier) || std::isinf(p.multiplier))
        return Result<void>::failure(QStringLiteral("multiplier"), Tr::tr("the multiplier must be a finite number."));
    if (p.multiplier < 1.0 || p.multiplier > PollingPolicy::maxMultiplier) {
        return Result<void>::failure(QStringLiteral("multiplier"),
            Tr::tr("must lie between 1 and %1 (got %2): below 1 the polls would come ever faster.")
                .arg(PollingPolicy::maxMultiplier)
                .arg(p.multiplier));
    }
    if (auto r = checkDuration(QStringLiteral("maxDelayMs"), p.maxDelayMs, true); !r)
        return r;
    if (p.maxDelayMs < p.initialDelayMs) {
        return Result<void>::failure(QStringLiteral("maxDelayMs"),
            Tr::tr("the longest wait (%1) is shorter than the first (%2).")
                .arg(DurationText::format(p.maxDelayMs, DurationText::Style::Exact),
                    DurationText::format(p.initialDelayMs, DurationText::Style::Exact)));
    }
    if (auto r = checkDuration(QStringLiteral("totalTimeoutMs"), p.totalTimeoutMs, false); !r)
        return r;
    if (p.maxPolls < 0 || p.maxPolls > PollingPolicy::maxPollLimit) {
        return Result<void>::failure(QStringLiteral("maxPolls"),
            Tr::tr("must lie between 0 and %1 (got %2).").arg(PollingPolicy::maxPollLimit).arg(p.maxPolls));
    }
    if (p.totalTimeoutMs == 0.0 && p.maxPolls == 0) {
        return Result<void>::failure(QString(),
            Tr::tr("a polling policy without an end: set totalTimeoutMs, maxPolls or both, or an operation that "
                   "never finishes is polled forever."));
    }
    if (auto r = checkPointer(QStringLiteral("donePointer"), p.donePointer, false); !r)
        return r;
    return checkPointer(QStringLiteral("errorPointer"), p.errorPointer, true);
}

} // namespace RetryLab::Core
