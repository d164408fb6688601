#pragma once

#include <QString>
#include <QStringList>

#include <functional>

class QWidget;

namespace RetryLab::Ui {
class MainWindow;
} // namespace RetryLab::Ui

namespace RetryLab::App {

/// The import dialogs and an opened run for `retrylab screenshot`, after the
/// demo run: import-curl.png, import-har.png (the demo run as HAR, picked
/// from), import-postman.png, openrun.png (the demo run's JSON report opened read-only).
/// `save` writes one picture; `settle` lets the event loop run for some ms.
/// Returns the problems met, each one sentence.
QStringList saveImportScreenshots(Ui::MainWindow &window, const QString &scratchDirectory,
    const std::function<void(QWidget *, const QString &)> &save, const std::function<void(int)> &settle);

} // namespace RetryLab::App
