#pragma once

#include <QByteArray>
#include <QCommandLineOption>
#include <QList>
#include <QStringList>

#include <optional>

class QCommandLineParser;

namespace RetryLab::Ui {
class MainWindow;
} // namespace RetryLab::Ui

namespace RetryLab::App {

/// What `retrylab [--new-request | --open-run | --monitors] [FILE...]` asks of the
/// window: the desktop entry's actions and the files a file manager opens. It is
/// carried to a window already running as one line of JSON (SingleInstance).
struct WindowRequest
{
    QStringList files; ///< absolute paths
    QStringList actions; ///< "new-request", "open-run", "monitors"

    /// The window's own options, by their action's name.
    static QList<QCommandLineOption> options();
    /// The request of a parsed command line; relative file names made absolute
    /// against the current folder, where the caller stands.
    static WindowRequest fromParser(const QCommandLineParser &parser);

    QByteArray toJson() const;
    static std::optional<WindowRequest> fromJson(const QByteArray &json);

    /// Does it: each action, then each file opened where it belongs (a file that
    /// cannot be opened says why in a dialog that does not block the window).
    /// With RETRYLAB_OPEN_LOG=FILE, each action and each file's outcome is appended
    /// there as a line ("action<TAB>NAME", "KIND<TAB>PATH" or "error<TAB>PATH<TAB>why"),
    /// which the suites read.
    void applyTo(Ui::MainWindow &window) const;
};

} // namespace RetryLab::App
