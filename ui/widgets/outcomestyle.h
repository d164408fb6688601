#pragma once

#include "core/record/attemptrecord.h"
#include "core/record/runstatistics.h"

#include <QColor>

class QPalette;

namespace RetryLab::Ui {

/// The colours of outcomes, shared by the timeline, the log and the charts. They are
/// mid-tones that stay legible on a light and on a dark window background alike.
QColor outcomeColor(Core::AttemptOutcome outcome);
QColor requestOutcomeColor(Core::RequestOutcome outcome);
/// The mark of an attempt at a fallback endpoint (Core::RequestSpec::fallbackUrls): a
/// band along the top of its bar, over the outcome's colour, and its outline.
QColor fallbackColor();
/// The outline of the attempt whose answer a hedged request kept.
QColor hedgeWinnerColor();
/// Whether the palette is a dark one (the window darker than its text).
bool isDarkPalette(const QPalette &palette);
/// WCAG relative luminance (0 black .. 1 white).
double relativeLuminance(const QColor &colour);
/// WCAG contrast ratio of two colours (1 .. 21); alpha is ignored.
double contrastRatio(const QColor &a, const QColor &b);
/// `colour` with its hue kept, made lighter or darker (whichever the background
/// allows) until it reaches `minRatio` against `background`: a colour that carries
/// meaning stays readable on a light and on a dark palette.
QColor readableOn(const QColor &colour, const QColor &background, double minRatio = 3.0);
/// `colour` with its opacity set (0 .. 255).
QColor withAlpha(QColor colour, int alpha);

} // namespace RetryLab::Ui
