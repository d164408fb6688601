#include "app/startupprobe.h"

#include <QCoreApplication>
#include <QEvent>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTimer>
#include <QWidget>

#include <chrono>
#include <cstdio>

namespace RetryLab::App {

namespace {

qint64 monotonicNs()
{
    // steady_clock is CLOCK_MONOTONIC on Linux, the launcher's clock too.
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

qint64 g_mainNs = 0;

} // namespace

void StartupProbe::markMain()
{
    g_mainNs = monotonicNs();
}

StartupProbe *StartupProbe::fromEnvironment(QObject *parent)
{
    const QString file = qEnvironmentVariable("RETRYLAB_STARTUP_REPORT");
    if (file.isEmpty())
        return nullptr;
    return new StartupProbe(file, parent);
}

StartupProbe::StartupProbe(const QString &reportFile, QObject *parent) : QObject(parent), m_reportFile(reportFile)
{
    bool ok = false;
    const qint64 given = qgetenv("RETRYLAB_STARTUP_T0_NS").toLongLong(&ok);
    m_launchNs = ok && given > 0 ? given : g_mainNs;
    m_mainMs = static_cast<double>(g_mainNs - m_launchNs) / 1e6;
}

double StartupProbe::sinceLaunchMs() const
{
    return static_cast<double>(monotonicNs() - m_launchNs) / 1e6;
}

void StartupProbe::markApplication()
{
    m_applicationMs = sinceLaunchMs();
}

void StartupProbe::markWindowBuilt(bool serverReady, const QString &serverError)
{
    m_windowMs = sinceLaunchMs();
    m_serverReady = serverReady;
    m_serverError = serverError;
}

void StartupProbe::watchFirstPaint(QWidget *window)
{
    m_window = window;
    window->installEventFilter(this);
}

bool StartupProbe::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_window && event->type() == QEvent::Paint && !m_paintMs) {
        m_paintMs = -1.0; // set when the paint, and its flush to the screen, are done
        QTimer::singleShot(0, this, [this] {
            m_paintMs = sinceLaunchMs();
            finish();
        });
    }
    return QObject::eventFilter(watched, event);
}

void StartupProbe::finish()
{
    const QJsonObject report{
        {QStringLiteral("main_ms"), m_mainMs},
        {QStringLiteral("application_ms"), m_applicationMs},
        {QStringLiteral("window_and_server_ms"), m_windowMs},
        {QStringLiteral("first_paint_ms"), m_paintMs.value_or(-1.0)},
        {QStringLiteral("server_ready"), m_serverReady},
        {QStringLiteral("server_error"), m_serverError},
        {QStringLiteral("platform"), qEnvironmentVariable("QT_QPA_PLATFORM")},
    };
    QFile file(m_reportFile);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(QJsonDocument(report).toJson()) < 0) {
        std::fprintf(stderr, "retrylab: cannot write the startup report %s: %s\n", qPrintable(m_reportFile),
            qPrintable(file.errorString()));
        QCoreApplication::exit(1);
        return;
    }
    QCoreApplication::exit(0);
}

} // namespace RetryLab::App
