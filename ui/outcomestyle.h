#pragma once

#include "core/attemptrecord.h"
#include "core/runstatistics.h"

#include <QColor>

class QPalette;

namespace RetryLab::Ui {

/// The colours of outcomes, shared by the timeline, the log and the charts. They are
/// mid-tones that stay legible on a light and on a dark window background alike.
QColor outcomeColor(Core::AttemptOutcome outcome);
QColor requestOutcomeColor(Core::RequestOutcome outcome);
/// Whether the palette is a dark one (the window darker than its text).
bool isDarkPalette(const QPalette &palette);

} // namespace RetryLab::Ui
