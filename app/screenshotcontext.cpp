#include "app/screenshotcontext.h"

#include "app/apptr.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QTextStream>
#include <QThread>
#include <QWidget>

namespace RetryLab::App {

ScreenshotContext::ScreenshotContext(Ui::MainWindow &window, QSize size, const QDir &pictures, const QDir &scratch,
    QTextStream &output, QTextStream &errors)
    : m_window(window), m_size(size), m_pictures(pictures), m_scratch(scratch), m_output(output), m_errors(errors)
{ }

void ScreenshotContext::missingPart(const char *type, const char *name)
{
    qFatal("retrylab screenshot: the window has no %s named \"%s\"", type, name);
}

void ScreenshotContext::save(QWidget *widget, const QString &file)
{
    // A dialog is no larger than the screen the pictures play, as a window manager keeps it.
    if (widget->isWindow() && widget != &m_window && widget->size() != widget->size().boundedTo(m_size)) {
        widget->resize(widget->size().boundedTo(m_size));
        settle(200);
    }
    const QString path = m_pictures.filePath(file);
    if (widget->grab().save(path))
        m_output << QDir::toNativeSeparators(path) << Qt::endl;
    else
        fail(Tr::tr("could not write %1").arg(QDir::toNativeSeparators(path)));
    // The window the picture shows, in the picture's pixels.
    const QWidget *window = widget->window();
    const qreal ratio = window->devicePixelRatioF();
    const auto pixels = [ratio](QSize size) { return (QSizeF(size) * ratio).toSize(); };
    m_shots.append({file, pixels(window->size()), pixels(window->minimumSizeHint().expandedTo(window->minimumSize()))});
}

QString ScreenshotContext::writeManifest() const
{
    const auto sizeJson = [](QSize size) { return QJsonArray{size.width(), size.height()}; };
    QJsonArray shots;
    for (const Shot &shot : m_shots) {
        shots.append(
            QJsonObject{{QStringLiteral("file"), shot.file}, {QStringLiteral("windowSize"), sizeJson(shot.window)},
                {QStringLiteral("minimumSize"), sizeJson(shot.minimum)}});
    }
    const qreal ratio = m_window.devicePixelRatioF();
    const QJsonObject manifest{{QStringLiteral("format"), QStringLiteral("retrylab-screenshots")},
        {QStringLiteral("size"), sizeJson(m_pixelSize.isValid() ? m_pixelSize : (QSizeF(m_size) * ratio).toSize())},
        {QStringLiteral("devicePixelRatio"), ratio}, {QStringLiteral("shots"), shots}};
    QSaveFile out(m_pictures.filePath(QStringLiteral("manifest.json")));
    if (!out.open(QIODevice::WriteOnly) || out.write(QJsonDocument(manifest).toJson()) < 0 || !out.commit())
        return Tr::tr("could not write %1: %2").arg(QDir::toNativeSeparators(out.fileName()), out.errorString());
    m_output << QDir::toNativeSeparators(out.fileName()) << Qt::endl;
    return {};
}

bool ScreenshotContext::waitFor(const std::function<bool()> &done, int timeoutMs)
{
    QDeadlineTimer deadline(timeoutMs);
    while (!done()) {
        if (deadline.hasExpired())
            return false;
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
        QThread::msleep(5);
    }
    return true;
}

void ScreenshotContext::settle(int ms)
{
    waitFor([] { return false; }, ms);
}

void ScreenshotContext::fail(const QString &problem)
{
    warn(problem);
    ++m_failures;
}

void ScreenshotContext::warn(const QString &problem)
{
    m_errors << Tr::tr("retrylab screenshot: %1").arg(problem) << Qt::endl;
}

} // namespace RetryLab::App
