#pragma once

namespace RetryLab::App {

class ScreenshotContext;

/// The Clients tab for `retrylab screenshot` (clients.png): observation on,
/// two programs of their own (two retry executors with their own User-Agent
/// and policy: full jitter, and a constant delay without jitter) sending
/// logical requests to a path of the embedded server under the "503 three
/// times" plan, the first client selected with its verdicts. A ScreenshotStep.
void saveClientsScreenshot(ScreenshotContext &context);

} // namespace RetryLab::App
