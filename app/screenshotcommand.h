#pragma once

#include <QStringList>

namespace RetryLab::App {

/// `retrylab screenshot`: a short demo in the window, each tab saved as a PNG file.
int runScreenshot(const QStringList &arguments);

} // namespace RetryLab::App
