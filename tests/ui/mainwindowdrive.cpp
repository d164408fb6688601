// Opens the main window as a new user sees it (fresh settings in test mode) and
// presses Send after a moment, for looking at the whole window under Xvfb in a light
// or a dark palette. Not a test: it runs until --quit-after seconds have passed.
//   mainwindow_drive [--dark] [--send-after MS] [--quit-after S] [--tab N] [--size WxH]
//                    [--method M] [--url TEMPLATE] [--details N]
#include "ui/mainwindow.h"
#include "ui/requestcomposer.h"

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

namespace {

QPalette darkPalette()
{
    QPalette p;
    const QColor text(0xe6, 0xe6, 0xe6);
    p.setColor(QPalette::Window, QColor(0x2b, 0x2d, 0x31));
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, QColor(0x1e, 0x1f, 0x22));
    p.setColor(QPalette::AlternateBase, QColor(0x26, 0x28, 0x2c));
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, QColor(0x35, 0x37, 0x3c));
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::ToolTipBase, QColor(0x35, 0x37, 0x3c));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, QColor(0x9a, 0x9a, 0x9a));
    p.setColor(QPalette::Highlight, QColor(0x3b, 0x82, 0xf6));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(0x6a, 0xa8, 0xff));
    p.setColor(QPalette::Light, QColor(0x45, 0x48, 0x4e));
    p.setColor(QPalette::Midlight, QColor(0x3a, 0x3c, 0x41));
    p.setColor(QPalette::Mid, QColor(0x55, 0x58, 0x5e));
    p.setColor(QPalette::Dark, QColor(0x18, 0x19, 0x1b));
    for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, QColor(0x80, 0x80, 0x80));
    return p;
}

} // namespace

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
    parser.addOptions({dark, sendAfter, quitAfter, tab, size, method, url, details});
    parser.process(app);

    // A new user: no saved settings.
    QFile::remove(QSettings().fileName());
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    if (parser.isSet(dark))
        QApplication::setPalette(darkPalette());

    Ui::MainWindow window;
    const QStringList wh = parser.value(size).split(QLatin1Char('x'));
    window.resize(wh.value(0).toInt(), wh.value(1).toInt());
    window.move(0, 0);
    window.tabs()->setCurrentIndex(parser.value(tab).toInt());
    Ui::RequestDraft draft = window.composer()->draft();
    if (parser.isSet(method))
        draft.method = parser.value(method);
    if (parser.isSet(url))
        draft.urlTemplate = parser.value(url);
    window.composer()->setDraft(draft);
    if (auto *detailTabs = window.composer()->findChild<QTabWidget *>(QStringLiteral("details")))
        detailTabs->setCurrentIndex(parser.value(details).toInt());
    window.show();
    QTimer::singleShot(
        parser.value(sendAfter).toInt(), &window, [&window] { window.composer()->sendAction()->trigger(); });
    QTimer::singleShot(parser.value(quitAfter).toInt() * 1000, &window, &QWidget::close);
    return app.exec();
}
