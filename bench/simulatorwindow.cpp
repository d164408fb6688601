// Shows the Herd simulator tab in a real window running one grid, to look at it
// (and take screenshots under Xvfb): by default a million clients reconnecting at
// once to a server that serves 100,000 a second. Not a test.
//   simulator_window [--clients N] [--strategies LIST] [--model M] [--size WxH]
//                    [--screenshot FILE] (saves the window once the run is done, and quits)
#include "bench/millionclients.h"
#include "core/herd/herdparameters.h"
#include "ui/herd/simulatorview.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QPixmap>
#include <QStandardPaths>
#include <QStyleFactory>
#include <QTimer>

#include <cstdio>

using namespace RetryLab;
using namespace RetryLab::Core;

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("RetryLab"));
    QCoreApplication::setApplicationName(QStringLiteral("simulator_window"));

    QCommandLineParser parser;
    parser.addHelpOption();
    const QCommandLineOption clients(
        QStringLiteral("clients"), QStringLiteral("Client counts."), QStringLiteral("spec"), QStringLiteral("1000000"));
    const QCommandLineOption strategies(QStringLiteral("strategies"), QStringLiteral("Strategies."),
        QStringLiteral("list"), QStringLiteral("full-jitter,equal-jitter,decorrelated-jitter"));
    const QCommandLineOption model(QStringLiteral("model"), QStringLiteral("capacity or outage."),
        QStringLiteral("name"), QStringLiteral("capacity"));
    const QCommandLineOption size(
        QStringLiteral("size"), QStringLiteral("Window size."), QStringLiteral("WxH"), QStringLiteral("1500x950"));
    const QCommandLineOption screenshot(QStringLiteral("screenshot"),
        QStringLiteral("Save the window to this PNG once the run is done, and quit."), QStringLiteral("file"));
    parser.addOptions({clients, strategies, model, size, screenshot});
    parser.process(app);
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));

    const auto counts = parseClientCounts(parser.value(clients));
    const auto chosen = parseStrategies(parser.value(strategies));
    if (!counts || !chosen) {
        std::fprintf(stderr, "%s\n", qPrintable(!counts ? counts.error() : chosen.error()));
        return 2;
    }
    // The benchmark's million clients (bench/millionclients.h), with these counts and strategies.
    HerdParameters p
        = Bench::millionClients(herdModelFromName(parser.value(model)).value_or(HerdModel::CapacityLimited));
    p.clientCounts = *counts;
    p.strategies = *chosen;

    Ui::SimulatorView view;
    view.setWindowTitle(QStringLiteral("RetryLab herd simulator"));
    const QStringList wh = parser.value(size).split(QLatin1Char('x'));
    view.resize(wh.value(0).toInt(), wh.value(1).toInt());
    view.move(0, 0);
    view.setParameters(p);
    view.show();
    if (parser.isSet(screenshot)) {
        const QString file = parser.value(screenshot);
        QObject::connect(&view, &Ui::SimulatorView::finished, &view, [&view, file] {
            // One more turn of the event loop, so that the charts are drawn.
            QTimer::singleShot(200, &view, [&view, file] {
                const bool saved = view.grab().save(file);
                QCoreApplication::exit(saved ? 0 : 1);
            });
        });
        QObject::connect(&view, &Ui::SimulatorView::failed, &view, [](const QString &message) {
            std::fprintf(stderr, "%s\n", qPrintable(message));
            QCoreApplication::exit(1);
        });
    }
    QTimer::singleShot(0, &view, [&view] { view.start(); });
    return app.exec();
}
