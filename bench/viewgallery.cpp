// Shows the run views (timeline, error log, statistics) on a real run: the fault
// server on loopback with a script per request, a ThreadedExecutor, and a RunSession.
// For looking at the views by eye and for taking their pictures under Xvfb.
//
// Usage: viewgallery [--dark] [--requests N] [--again SECONDS] [--synthetic N] [--out DIR] [--hold SECONDS] [--tab
// NAME]
//   --out DIR       save timeline-live.png (mid-run) and timeline.png, errorlog.png,
//                   statistics.png (after the run) there
//   --hold SECONDS  keep the window open that long after the run (to capture it from outside)
//   --tab NAME      the tab on top while holding: timeline, log, statistics
//   --synthetic N   instead of a live run, load N synthetic requests (large-data look)
//   --again SECONDS after the run, idle that long, then send the same requests again
//                   (a second run: the timeline draws the idle time narrow)

#include "core/executor/threadedexecutor.h"
#include "core/faultserver/faultserver.h"
#include "core/http/retryheaders.h"
#include "tests/ui/session/sessionfixtures.h"
#include "ui/run/errorlogview.h"
#include "ui/run/statisticsview.h"
#include "ui/run/timelineview.h"
#include "ui/session/run/runsession.h"
#include "ui/widgets/darkpalette.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QLoggingCategory>
#include <QPalette>
#include <QStyleFactory>
#include <QTabWidget>
#include <QTimer>
#include <QToolTip>

Q_LOGGING_CATEGORY(lcGallery, "retrylab.bench.gallery", QtInfoMsg)

using namespace RetryLab;

namespace {

// The scripts of the live run, one per request in turn, for the embedded fault
// server: 503 twice then 200; 200; 429 with Retry-After: 1 then 200; a dropped
// connection twice then 200; 500 always; silent past the attempt timeout once, then 200.
const QList<QStringList> &galleryScripts()
{
    static const QList<QStringList> scripts{
        {QStringLiteral("return-503*2"), QStringLiteral("pass")},
        {QStringLiteral("pass")},
        {QStringLiteral("return-429-after-1s"), QStringLiteral("pass")},
        {QStringLiteral("reset*2"), QStringLiteral("pass")},
        {QStringLiteral("return-500*100")},
        {QStringLiteral("delay-2000ms"), QStringLiteral("pass")},
    };
    return scripts;
}

bool save(QWidget *widget, const QString &dir, const QString &name)
{
    const QString path = QDir(dir).filePath(name);
    const bool ok = widget->grab().save(path);
    qCInfo(lcGallery).noquote() << (ok ? "saved" : "could not save") << path;
    return ok;
}

} // namespace

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOption({QStringLiteral("dark"), QStringLiteral("Use a dark palette.")});
    parser.addOption({QStringLiteral("requests"), QStringLiteral("Requests in the live run (default 48)."),
        QStringLiteral("n"), QStringLiteral("48")});
    parser.addOption(
        {QStringLiteral("synthetic"), QStringLiteral("Load N synthetic requests instead."), QStringLiteral("n")});
    parser.addOption({QStringLiteral("out"), QStringLiteral("Save PNGs into this folder."), QStringLiteral("dir")});
    parser.addOption({QStringLiteral("hold"), QStringLiteral("Seconds to stay open after the run."),
        QStringLiteral("seconds"), QStringLiteral("0")});
    parser.addOption({QStringLiteral("again"), QStringLiteral("Idle this long after the run, then run again."),
        QStringLiteral("seconds"), QStringLiteral("0")});
    parser.addOption({QStringLiteral("tab"), QStringLiteral("Tab on top: timeline, log, statistics."),
        QStringLiteral("name"), QStringLiteral("timeline")});
    parser.process(app);

    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    if (parser.isSet(QStringLiteral("dark")))
        QApplication::setPalette(Ui::darkPalette());

    Ui::RunSession session;
    QTabWidget window;
    auto *timeline = new Ui::TimelineView;
    auto *log = new Ui::ErrorLogView;
    auto *statistics = new Ui::StatisticsView;
    timeline->setSession(&session);
    log->setSession(&session);
    statistics->setSession(&session);
    window.addTab(timeline, QStringLiteral("Timeline"));
    window.addTab(log, QStringLiteral("Error log"));
    window.addTab(statistics, QStringLiteral("Statistics"));
    window.setWindowTitle(QStringLiteral("RetryLab views"));
    window.resize(1500, 900);
    window.move(40, 40);
    window.show();

    const QString out = parser.value(QStringLiteral("out"));
    if (!out.isEmpty())
        QDir().mkpath(out);
    const int hold = parser.value(QStringLiteral("hold")).toInt();
    const QString tab = parser.value(QStringLiteral("tab"));
    const auto finish = [&] {
        statistics->refresh();
        if (!out.isEmpty()) {
            for (int i = 0; i < window.count(); ++i) {
                window.setCurrentIndex(i);
                QCoreApplication::processEvents();
                save(window.currentWidget(), out,
                    QStringList{QStringLiteral("timeline.png"), QStringLiteral("errorlog.png"),
                        QStringLiteral("statistics.png")}
                        .at(i));
            }
        }
        window.setCurrentIndex(tab == QLatin1String("log") ? 1 : (tab == QLatin1String("statistics") ? 2 : 0));
        if (tab == QLatin1String("timeline") && session.attemptRowCount() > 0) {
            // Put a tooltip up over a retried attempt, as a person hovering would see it.
            for (qsizetype row = 0; row < session.attemptRowCount(); ++row) {
                if (session.attemptRow(row).outcome != Core::AttemptOutcome::Retried)
                    continue;
                const QRectF bar = timeline->attemptRect(row);
                if (bar.isEmpty())
                    continue;
                const QPoint at = bar.center().toPoint();
                QToolTip::showText(timeline->viewport()->mapToGlobal(at), timeline->toolTipFor(timeline->hitAt(at)),
                    timeline->viewport());
                break;
            }
        }
        QTimer::singleShot(hold * 1000, &app, &QCoreApplication::quit);
    };

    if (parser.isSet(QStringLiteral("synthetic"))) {
        Fixtures::syntheticRun(session, parser.value(QStringLiteral("synthetic")).toLongLong(), 11, 20.0);
        session.flush();
        QTimer::singleShot(300, &app, finish);
        return app.exec();
    }

    Core::FaultServer server;
    if (!server.listen()) {
        qCCritical(lcGallery) << "cannot listen on 127.0.0.1:" << server.errorString();
        return 1;
    }
    Core::ThreadedExecutor executor;
    Core::BackoffPolicy policy;
    policy.name = QStringLiteral("Gallery");
    policy.algorithm = Core::BackoffAlgorithm::EqualJitter;
    policy.baseDelayMs = 150;
    policy.multiplier = 2;
    policy.maxBackoffMs = 1500;
    policy.maxAttempts = 4;
    policy.attemptTimeoutMs = 700;
    executor.setPolicy(policy);
    executor.setSeed(7);
    executor.setConcurrencyLimit(8);
    session.attach(&executor);

    const int requests = parser.value(QStringLiteral("requests")).toInt();
    const int again = parser.value(QStringLiteral("again")).toInt();
    int round = 1;
    int submitted = 0;
    QTimer feeder;
    feeder.setInterval(60);
    QObject::connect(&feeder, &QTimer::timeout, &app, [&] {
        ++submitted;
        Core::RequestSpec spec;
        // Answers take 15-135 ms, unless the script says otherwise.
        spec.url = QUrl(server.baseUrl().toString() + QStringLiteral("/delay/135?dist=uniform&min=15"));
        const auto script = server.createTest(galleryScripts().at(submitted % galleryScripts().size()));
        if (script)
            spec.headers.append({QByteArray(Core::RetryHeaders::testId), script->toLatin1()});
        spec.label = QStringLiteral("flaky %1/%2").arg(submitted).arg(requests * round);
        session.submit(spec);
        if (submitted >= requests * round)
            feeder.stop();
    });
    feeder.start();
    if (!out.isEmpty()) {
        QTimer::singleShot(1800, &app, [&] {
            session.flush();
            QCoreApplication::processEvents();
            save(timeline, out, QStringLiteral("timeline-live.png"));
        });
    }
    QObject::connect(&executor, &Core::ThreadedExecutor::idle, &app, [&] {
        if (submitted < requests * round || feeder.isActive())
            return;
        if (round == 1 && again > 0) {
            ++round;
            QTimer::singleShot(again * 1000, &feeder, [&feeder] { feeder.start(); });
            return;
        }
        QTimer::singleShot(400, &app, finish);
    });
    return app.exec();
}
