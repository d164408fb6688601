// Fuzzes the Retry-After parser and the HTTP-date parser: no crash, a usable
// value is finite and not negative, a date read is written back and read again
// to the same instant, and bounding never gives a negative or oversized wait.

#include "core/http/retryafter.h"
#include "fuzz/fuzzcheck.h"

#include <QByteArray>
#include <QDateTime>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

using namespace RetryLab::Core;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    // The header value, optionally followed by a NUL and the policy's bounds
    // (two doubles: the largest Retry-After honoured, the time left).
    QByteArray value(reinterpret_cast<const char *>(data), static_cast<qsizetype>(size));
    double bounds[2] = {-1.0, -1.0};
    if (const qsizetype nul = value.indexOf('\0'); nul >= 0) {
        if (value.size() - nul - 1 >= qsizetype(sizeof bounds))
            std::memcpy(bounds, value.constData() + nul + 1, sizeof bounds);
        value.truncate(nul);
    }
    const QDateTime now(QDate(2025, 3, 14), QTime(15, 9, 26), Qt::UTC);

    const RetryAfter parsed = parseRetryAfter(value, now);
    FUZZ_CHECK(!parsed.reason.isEmpty());
    if (parsed.isValid()) {
        FUZZ_CHECK(parsed.delayMs.has_value());
        FUZZ_CHECK(std::isfinite(*parsed.delayMs) && *parsed.delayMs >= 0.0);
    } else {
        FUZZ_CHECK(!parsed.delayMs.has_value());
    }

    const QDateTime date = parseHttpDate(value);
    if (date.isValid()) {
        FUZZ_CHECK(date.timeSpec() == Qt::UTC);
        const QByteArray written = formatHttpDate(date);
        const QDateTime again = parseHttpDate(written);
        FUZZ_CHECK(again.isValid());
        FUZZ_CHECK(again == date);
    }

    // Bounds as a policy would hold them: NaN and infinities are not policies.
    const double maxRetryAfterMs = std::isfinite(bounds[0]) ? bounds[0] : -1.0;
    const double remainingMs = std::isfinite(bounds[1]) ? bounds[1] : -1.0;
    const RetryAfterDecision decision = boundRetryAfter(parsed, maxRetryAfterMs, remainingMs);
    FUZZ_CHECK(std::isfinite(decision.delayMs));
    if (decision.action == RetryAfterDecision::Action::Wait) {
        FUZZ_CHECK(decision.delayMs >= 0.0);
        if (remainingMs >= 0.0)
            FUZZ_CHECK(decision.delayMs <= remainingMs);
        if (maxRetryAfterMs >= 0.0)
            FUZZ_CHECK(decision.delayMs <= maxRetryAfterMs);
    }
    if (!parsed.isValid())
        FUZZ_CHECK(decision.action == RetryAfterDecision::Action::Ignore);
    return 0;
}
