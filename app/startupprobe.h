#pragma once

#include <QObject>
#include <QString>

#include <optional>

class QWidget;

namespace RetryLab::App {

/// Measures how long the window takes to start, for scripts/bench.sh: with
/// RETRYLAB_STARTUP_REPORT=FILE set, `retrylab` writes to FILE, as JSON, the
/// milliseconds from its launch to main(), to the application, to the window built
/// with its embedded server listening, and to the window's first paint, then quits.
/// The launch is RETRYLAB_STARTUP_T0_NS (the launcher's CLOCK_MONOTONIC, in ns,
/// taken just before it started the program); without it, the start of main().
class StartupProbe final : public QObject
{
    Q_OBJECT

public:
    /// Null when RETRYLAB_STARTUP_REPORT is not set.
    static StartupProbe *fromEnvironment(QObject *parent);

    /// Call first thing in main(), before the probe exists (it is made after the application).
    static void markMain();

    void markApplication();
    /// The window is built; `serverReady` says whether its embedded server listens.
    void markWindowBuilt(bool serverReady, const QString &serverError);
    /// Watches `window` for its first paint; then writes the report and quits.
    void watchFirstPaint(QWidget *window);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    explicit StartupProbe(const QString &reportFile, QObject *parent);
    double sinceLaunchMs() const;
    void finish();

    QString m_reportFile;
    qint64 m_launchNs = 0; ///< RETRYLAB_STARTUP_T0_NS, or the start of main()
    double m_mainMs = 0.0;
    double m_applicationMs = 0.0;
    double m_windowMs = 0.0;
    std::optional<double> m_paintMs;
    bool m_serverReady = false;
    QString m_serverError;
    QWidget *m_window = nullptr;
};

} // namespace RetryLab::App
