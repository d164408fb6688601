#pragma once

namespace RetryLab::App {

class ScreenshotContext;

/// The import dialogs and an opened run for `retrylab screenshot`, after the
/// demo run: import-curl.png, import-har.png (the demo run as HAR, picked
/// from), import-postman.png, openrun.png (the demo run's JSON report opened
/// read-only). The files they read are written to the scratch folder. A ScreenshotStep.
void saveImportScreenshots(ScreenshotContext &context);

} // namespace RetryLab::App
