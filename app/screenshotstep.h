#pragma once

namespace RetryLab::App {

class ScreenshotContext;

/// One step of `retrylab screenshot`'s script: a name for the log, and the
/// function that makes its pictures. A step says what went wrong through the
/// context (ScreenshotContext::fail()) and the script goes on with the next.
struct ScreenshotStep
{
    const char *name;
    void (*run)(ScreenshotContext &context);
};

} // namespace RetryLab::App
