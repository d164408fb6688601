#pragma once

#include <QPalette>

namespace RetryLab::Ui {

/// What a desktop in dark mode hands the application: used by `retrylab
/// screenshot --dark` and the developer programs to show the window in dark mode
/// where the platform offers none (offscreen, Xvfb).
QPalette darkPalette();

} // namespace RetryLab::Ui
