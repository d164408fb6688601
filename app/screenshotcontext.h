#pragma once

#include "ui/mainwindow.h"

#include <QDir>
#include <QList>
#include <QSize>
#include <QString>

#include <functional>

class QTextStream;
class QWidget;

namespace RetryLab::App {

/// What the steps of `retrylab screenshot` share: the window (its parts found by
/// object name, as any script outside it finds them), the folder the pictures go
/// to, a scratch folder for the files a step writes and reads back, and the
/// count of what failed.
class ScreenshotContext final
{
public:
    /// `output` gets the path of each picture written, `errors` what went wrong.
    ScreenshotContext(Ui::MainWindow &window, QSize size, const QDir &pictures, const QDir &scratch,
        QTextStream &output, QTextStream &errors);

    Ui::MainWindow &window() const { return m_window; }
    /// The window's part with this object name. The names are the window's own
    /// (MainWindow), so a missing one is a mistake in this program: it stops.
    template<typename T>
    T *part(const char *name) const
    {
        T *found = m_window.findChild<T *>(QLatin1String(name));
        if (!found)
            missingPart(T::staticMetaObject.className(), name);
        return found;
    }
    /// The size the window was given (--size, in the window's own units: divided by the
    /// device pixel ratio, so that the pictures have the size asked for).
    QSize size() const { return m_size; }
    QString scratchPath(const QString &file) const { return m_scratch.filePath(file); }
    /// The size asked for in pixels, as the manifest names it (size() may have lost a pixel to
    /// the scale factor).
    void setPixelSize(QSize pixels) { m_pixelSize = pixels; }

    /// Writes a picture of `widget` to `file` in the pictures' folder and says where.
    void save(QWidget *widget, const QString &file);
    /// Lets the event loop run for `ms` milliseconds (drawing, the demo's requests).
    static void settle(int ms);
    /// Runs the event loop until `done` or the deadline; false on the deadline.
    static bool waitFor(const std::function<bool()> &done, int timeoutMs);

    /// Writes manifest.json beside the pictures: per picture its file, and the size and the
    /// minimum size of the window it shows, in the pixels of the picture. The problem, or
    /// an empty string.
    QString writeManifest() const;

    /// Says `problem`, and the command fails once every step has run.
    void fail(const QString &problem);
    /// Says `problem` only: the pictures are still what they should show.
    void warn(const QString &problem);
    int failures() const { return m_failures; }

private:
    [[noreturn]] static void missingPart(const char *type, const char *name);

    Ui::MainWindow &m_window;
    QSize m_size;
    QDir m_pictures;
    QDir m_scratch;
    QTextStream &m_output;
    QTextStream &m_errors;
    int m_failures = 0;
    struct Shot
    {
        QString file;
        QSize window;
        QSize minimum;
    };
    QList<Shot> m_shots;
    QSize m_pixelSize;
};

} // namespace RetryLab::App
