#include "ui/widgets/outcomestyle.h"

#include <QPalette>

#include <algorithm>
#include <cmath>

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

QColor fallbackColor()
{
    return QColor(0x1d, 0x3f, 0x8c); // deep indigo: apart from every outcome's colour
}

QColor hedgeWinnerColor()
{
    return QColor(0x11, 0x18, 0x27); // near black: an outline that reads on every outcome's colour
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

double relativeLuminance(const QColor &colour)
{
    const auto linear = [](float channel) {
        const double c = channel;
        return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
    };
    const QColor rgb = colour.toRgb();
    return 0.2126 * linear(rgb.redF()) + 0.7152 * linear(rgb.greenF()) + 0.0722 * linear(rgb.blueF());
}

double contrastRatio(const QColor &a, const QColor &b)
{
    const double la = relativeLuminance(a);
    const double lb = relativeLuminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

QColor readableOn(const QColor &colour, const QColor &background, double minRatio)
{
    if (contrastRatio(colour, background) >= minRatio)
        return colour;
    // Towards white on a dark background, towards black on a light one; in small steps
    // so that the hue stays recognisable. Black or white always reach at least 4.5.
    const bool lighten = relativeLuminance(background) < 0.18;
    const QColor target = lighten ? QColor(Qt::white) : QColor(Qt::black);
    QColor out = colour.toRgb();
    for (int step = 1; step <= 20 && contrastRatio(out, background) < minRatio; ++step) {
        const float t = static_cast<float>(step) / 20.0F;
        const QColor rgb = colour.toRgb();
        out = QColor::fromRgbF(rgb.redF() + (target.redF() - rgb.redF()) * t,
            rgb.greenF() + (target.greenF() - rgb.greenF()) * t, rgb.blueF() + (target.blueF() - rgb.blueF()) * t,
            rgb.alphaF());
    }
    return out;
}

QColor withAlpha(QColor colour, int alpha)
{
    colour.setAlpha(alpha);
    return colour;
}

} // namespace RetryLab::Ui
