#include "core/record/attemptrecord.h"

#include <array>
#include <utility>

namespace RetryLab::Core {

namespace {
constexpr std::array<std::pair<RequestOutcome, const char *>, 8> outcomeNames{{
    {RequestOutcome::Succeeded, "succeeded"},
    {RequestOutcome::GaveUp, "gave-up"},
    {RequestOutcome::AttemptsExhausted, "attempts-exhausted"},
    {RequestOutcome::DeadlineExceeded, "deadline-exceeded"},
    {RequestOutcome::Cancelled, "cancelled"},
    {RequestOutcome::CircuitOpen, "circuit-open"},
    {RequestOutcome::BudgetExhausted, "budget-exhausted"},
    {RequestOutcome::InvalidRequest, "invalid-request"},
}};
} // namespace

QString attemptEndName(AttemptEnd end)
{
    switch (end) {
    case AttemptEnd::Response:
        return QStringLiteral("response");
    case AttemptEnd::NetworkError:
        return QStringLiteral("network-error");
    case AttemptEnd::AttemptTimeout:
        return QStringLiteral("attempt-timeout");
    case AttemptEnd::Deadline:
        return QStringLiteral("deadline");
    case AttemptEnd::Cancelled:
        return QStringLiteral("cancelled");
    }
    return {};
}

QString requestOutcomeName(RequestOutcome outcome)
{
    for (const auto &[value, name] : outcomeNames) {
        if (value == outcome)
            return QString::fromLatin1(name);
    }
    return {};
}

std::optional<RequestOutcome> requestOutcomeFromName(const QString &name)
{
    for (const auto &[value, n] : outcomeNames) {
        if (name == QLatin1String(n))
            return value;
    }
    return std::nullopt;
}

} // namespace RetryLab::Core
