#include "core/record/attemptrecord.h"

#include <QMetaEnum>

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

QString networkErrorName(QNetworkReply::NetworkError error)
{
    const char *key = QMetaEnum::fromType<QNetworkReply::NetworkError>().valueToKey(error);
    return key ? QString::fromLatin1(key) : QString::number(int(error));
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

qint64 AttemptRecord::lastExchangeStartNs() const
{
    for (auto it = redirects.crbegin(); it != redirects.crend(); ++it) {
        if (it->followed && it->finishedNs >= 0)
            return it->finishedNs;
    }
    return startNs;
}

QByteArray RedirectHop::nextMethod() const
{
    const bool toGet = (status == 303 && method != "HEAD") || ((status == 301 || status == 302) && method == "POST");
    return toGet ? QByteArrayLiteral("GET") : method;
}

} // namespace RetryLab::Core
