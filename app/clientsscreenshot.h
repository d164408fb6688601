#pragma once

#include <QString>
#include <QStringList>

#include <functional>

class QWidget;

namespace RetryLab::Ui {
class MainWindow;
} // namespace RetryLab::Ui

namespace RetryLab::App {

/// The Clients tab for `retrylab screenshot` (clients.png): observation on,
/// two programs of their own (two retry executors with their own User-Agent
/// and policy: full jitter, and a constant delay without jitter) sending
/// logical requests to a path of the embedded server under the "503 three
/// times" plan, the first client selected with its verdicts.
/// `save` writes one picture; `settle` lets the event loop run for some ms.
/// Returns the problems met, each one sentence.
QStringList saveClientsScreenshot(Ui::MainWindow &window, const std::function<void(QWidget *, const QString &)> &save,
    const std::function<void(int)> &settle);

} // namespace RetryLab::App
