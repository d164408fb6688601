#pragma once

#include <QString>
#include <QStringList>

#include <functional>

class QWidget;

namespace RetryLab::Ui {
class MainWindow;
} // namespace RetryLab::Ui

namespace RetryLab::App {

/// The Proxy tab for `retrylab screenshot` (proxy.png): a fault proxy in front
/// of the embedded server (standing in for a real service) with three rules (a
/// flaky 503 with Retry-After, network latency, and dropped connections
/// switched off), a program of its own (a retry executor with its own
/// User-Agent and full jitter) sending logical requests through it, and the
/// lanes of what it did. `save` writes one picture; `settle` lets the event
/// loop run for some ms. Returns the problems met, each one sentence.
QStringList saveProxyScreenshot(Ui::MainWindow &window, const std::function<void(QWidget *, const QString &)> &save,
    const std::function<void(int)> &settle);

} // namespace RetryLab::App
