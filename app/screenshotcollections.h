#pragma once

#include <QString>

namespace RetryLab::App {

/// The collections and environments the screenshots show: a small API in
/// folders, each request with its policy, and a "Local" environment whose
/// {{base}} is the embedded server. Written to `dataDirectory`, never to the
/// user's own folder.
namespace ScreenshotCollections {

/// Returns the problem, or an empty string when the files were written.
QString write(const QString &dataDirectory);

} // namespace ScreenshotCollections

} // namespace RetryLab::App
