#include "app/screenshotcontext.h"

#include "app/apptr.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QEventLoop>
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
    const QString path = m_pictures.filePath(file);
    if (widget->grab().save(path))
        m_output << QDir::toNativeSeparators(path) << Qt::endl;
    else
        fail(Tr::tr("could not write %1").arg(QDir::toNativeSeparators(path)));
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
