// Opens the main window as a new user sees it (fresh settings in test mode) and
// presses Send after a moment, for looking at the whole window under Xvfb in a light
// or a dark palette. Not a test: it runs until --quit-after seconds have passed.
//   mainwindow_drive [--dark] [--send-after MS] [--quit-after S] [--tab N] [--size WxH]
//                    [--method M] [--url TEMPLATE] [--details N] [--replay-after MS]
//                    [--grab-after MS --grab FILE]
#include "tests/ui/windowparts.h"
#include "ui/mainwindow.h"
#include "ui/request/requestcomposer.h"
#include "ui/widgets/darkpalette.h"

#include <QAction>
#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFile>
#include <QPalette>
#include <QSettings>
#include <QStandardPaths>
#include <QStyleFactory>
#include <QTabWidget>
#include <QTimer>

using namespace RetryLab;

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("RetryLab"));
    QCoreApplication::setApplicationName(QStringLiteral("mainwindow_drive"));

    QCommandLineParser parser;
    parser.addHelpOption();
    const QCommandLineOption dark(QStringLiteral("dark"), QStringLiteral("Use a dark palette."));
    const QCommandLineOption sendAfter(QStringLiteral("send-after"), QStringLiteral("Press Send after MS."),
        QStringLiteral("ms"), QStringLiteral("1000"));
    const QCommandLineOption quitAfter(QStringLiteral("quit-after"), QStringLiteral("Quit after S seconds."),
        QStringLiteral("s"), QStringLiteral("20"));
    const QCommandLineOption tab(
        QStringLiteral("tab"), QStringLiteral("Show tab N."), QStringLiteral("n"), QStringLiteral("0"));
    const QCommandLineOption size(
        QStringLiteral("size"), QStringLiteral("Window size."), QStringLiteral("WxH"), QStringLiteral("1440x900"));
    const QCommandLineOption method(QStringLiteral("method"), QStringLiteral("Method to type."), QStringLiteral("m"));
    const QCommandLineOption url(QStringLiteral("url"), QStringLiteral("URL to type."), QStringLiteral("url"));
    const QCommandLineOption details(
        QStringLiteral("details"), QStringLiteral("Request details tab N."), QStringLiteral("n"), QStringLiteral("0"));
    const QCommandLineOption replayAfter(
        QStringLiteral("replay-after"), QStringLiteral("View > Replay the Run after MS."), QStringLiteral("ms"));
    const QCommandLineOption grabAfter(
        QStringLiteral("grab-after"), QStringLiteral("Save the window after MS."), QStringLiteral("ms"));
    const QCommandLineOption grab(
        QStringLiteral("grab"), QStringLiteral("Where --grab-after saves."), QStringLiteral("file"));
    parser.addOptions({dark, sendAfter, quitAfter, tab, size, method, url, details, replayAfter, grabAfter, grab});
    parser.process(app);

    // A new user: no saved settings.
    QFile::remove(QSettings().fileName());
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    if (parser.isSet(dark))
        QApplication::setPalette(Ui::darkPalette());

    Ui::MainWindow window;
    const QStringList wh = parser.value(size).split(QLatin1Char('x'));
    window.resize(wh.value(0).toInt(), wh.value(1).toInt());
    window.move(0, 0);
    tabsOf(window)->setCurrentIndex(parser.value(tab).toInt());
    Core::RequestDraft draft = composerOf(window)->draft();
    if (parser.isSet(method))
        draft.method = parser.value(method);
    if (parser.isSet(url))
        draft.urlTemplate = parser.value(url);
    composerOf(window)->setDraft(draft);
    if (auto *detailTabs = composerOf(window)->findChild<QTabWidget *>(QStringLiteral("details")))
        detailTabs->setCurrentIndex(parser.value(details).toInt());
    window.show();
    QTimer::singleShot(
        parser.value(sendAfter).toInt(), &window, [&window] { composerOf(window)->sendAction()->trigger(); });
    if (parser.isSet(replayAfter))
        QTimer::singleShot(
            parser.value(replayAfter).toInt(), &window, [&window] { presentationOf(window)->replayRun(); });
    if (parser.isSet(grabAfter) && parser.isSet(grab)) {
        QTimer::singleShot(parser.value(grabAfter).toInt(), &window,
            [&window, file = parser.value(grab)] { window.grab().save(file); });
    }
    QTimer::singleShot(parser.value(quitAfter).toInt() * 1000, &window, &QWidget::close);
    return app.exec();
}
