#pragma once

namespace RetryLab::App {

class ScreenshotContext;

/// The steps of `retrylab screenshot` on the Monitors tab, in the order the
/// script runs them; each is a ScreenshotStep.
namespace MonitorScreenshots {

/// Three days of made-up history (ScreenshotMonitors) written to the history the
/// window will open, then the same monitors given to the window, running against
/// the embedded server: each is checked at once, and the step waits for those
/// checks and for the table's figures.
void start(ScreenshotContext &context);
/// monitors.png: the table with its states, beat bars, availabilities and sparklines.
void saveMonitors(ScreenshotContext &context);
/// monitor-history.png: the featured monitor's history with its objective.
void saveHistory(ScreenshotContext &context);
/// incidents.png: every monitor's incidents, seen and hidden, one acknowledged.
void saveIncidents(ScreenshotContext &context);

} // namespace MonitorScreenshots

} // namespace RetryLab::App
