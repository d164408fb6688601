#pragma once

namespace RetryLab::App {

class ScreenshotContext;

/// The steps of `retrylab screenshot` on the window itself and its dialogs, in
/// the order the script runs them (see runScreenshot()); each is a ScreenshotStep.
namespace WindowScreenshots {

/// The window at the size asked for, the Collections dock closed, the policy dock a third wide.
void arrange(ScreenshotContext &context);
/// The demo run against the embedded server (retries, failures for good, a
/// fallback, a scripted scenario, a batch), a herd simulation and the
/// conformance matrix.
void runDemo(ScreenshotContext &context);
/// The request a person sees after pressing Send on the defaults, the server
/// scenario in place, the views drawn up to date: what the pictures after it show.
void showRequest(ScreenshotContext &context);
/// timeline.png … simulator.png, one per tab, and policy.png (the dock).
void saveTabs(ScreenshotContext &context);
/// inspector.png: a failed attempt with a JSON body, as after a click on its bar.
void saveInspector(ScreenshotContext &context);
/// inspector-window.png: the window in its usual layout at the size asked for, an attempt
/// clicked: where the inspector goes when the screen has no room beside the tabs.
void saveInspectorInLayout(ScreenshotContext &context);
/// batch-live.png: a batch running, more lanes than the timeline has room for.
void saveLiveBatch(ScreenshotContext &context);
/// connection.png: HTTPS to the embedded server, its CA trusted, certificate errors ignored.
void saveConnection(ScreenshotContext &context);
void saveAuth(ScreenshotContext &context);
void saveBody(ScreenshotContext &context);
/// readmodifywrite.png: a read-modify-write of an IAM policy.
void saveReadModifyWrite(ScreenshotContext &context);
/// collections.png: the sidebar with a request loaded from it.
void saveCollections(ScreenshotContext &context);
/// The Collection run dock after a run of the Shop API from the Collections dock.
void saveCollectionRun(ScreenshotContext &context);
/// preferences.png: Tools > Preferences.
void savePreferences(ScreenshotContext &context);
/// presentation.png: View > Presentation.
void savePresentation(ScreenshotContext &context);
/// layers.png: Policy > Layer calculator, three presets stacked.
void saveLayers(ScreenshotContext &context);
/// compare.png: Policy > Compare policies on one short outage.
void saveCompare(ScreenshotContext &context);
/// compare-hedging.png: the same, gRPC's hedging against its retry policy on slow first answers.
void saveCompareHedging(ScreenshotContext &context);
/// policy-export.png: Policy > Export…, the policy as an Envoy route with what Envoy cannot express.
void savePolicyExport(ScreenshotContext &context);
/// operation.png: a long-running operation polled until done, each poll a lane of its own.
void saveOperation(ScreenshotContext &context);
/// conformance-storage.png: Google's Cloud Storage retry cases, played.
void saveStorageCases(ScreenshotContext &context);

} // namespace WindowScreenshots

} // namespace RetryLab::App
