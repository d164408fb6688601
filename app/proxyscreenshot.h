#pragma once

namespace RetryLab::App {

class ScreenshotContext;

/// The Proxy tab for `retrylab screenshot` (proxy.png): a fault proxy in front
/// of the embedded server (standing in for a real service) with three rules (a
/// flaky 503 with Retry-After, network latency, and dropped connections
/// switched off), a program of its own (a retry executor with its own
/// User-Agent and full jitter) sending logical requests through it, and the
/// lanes of what it did. A ScreenshotStep.
void saveProxyScreenshot(ScreenshotContext &context);

} // namespace RetryLab::App
