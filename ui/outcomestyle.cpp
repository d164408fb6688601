#include "ui/outcomestyle.h"

#include <QPalette>

namespace RetryLab::Ui {

using Core::AttemptOutcome;
using Core::RequestOutcome;

QColor outcomeColor(AttemptOutcome outcome)
{
    switch (outcome) {
    case AttemptOutcome::Success:
        return QColor(0x2e, 0xa0, 0x43); // green
    case AttemptOutcome::Retried:
        return QColor(0xe3, 0x8f, 0x1c); // amber: failed, but the policy tries again
    case AttemptOutcome::Failed:
        return QColor(0xd7, 0x3a, 0x49); // red: the request ends here
    case AttemptOutcome::Cancelled:
        return QColor(0x8c, 0x8c, 0x8c); // grey
    case AttemptOutcome::InFlight:
        return QColor(0x3b, 0x82, 0xf6); // blue
    }
    return {};
}

QColor requestOutcomeColor(RequestOutcome outcome)
{
    switch (outcome) {
    case RequestOutcome::Succeeded:
        return outcomeColor(AttemptOutcome::Success);
    case RequestOutcome::AttemptsExhausted:
        return QColor(0xd7, 0x3a, 0x49);
    case RequestOutcome::GaveUp:
        return QColor(0xa8, 0x32, 0x8c); // magenta: not transient
    case RequestOutcome::DeadlineExceeded:
        return QColor(0xc2, 0x5e, 0x1f); // burnt orange
    case RequestOutcome::Cancelled:
        return outcomeColor(AttemptOutcome::Cancelled);
    case RequestOutcome::CircuitOpen:
        return QColor(0x6f, 0x5b, 0xd6); // violet
    case RequestOutcome::BudgetExhausted:
        return QColor(0x1f, 0x9e, 0xa8); // teal
    case RequestOutcome::InvalidRequest:
        return QColor(0x7a, 0x6a, 0x55); // brown-grey
    }
    return {};
}

bool isDarkPalette(const QPalette &palette)
{
    return palette.color(QPalette::Window).lightness() < palette.color(QPalette::WindowText).lightness();
}

} // namespace RetryLab::Ui
