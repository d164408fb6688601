// Shows the policy panel in a real window, to look at it (and take screenshots
// under Xvfb) in a light or a dark palette. Not a test: it runs until closed.
//   policypanel_window [--dark] [--preset ID] [--tab N] [--size WxH] [--invalid]
#include "core/policy/policyjson.h"
#include "ui/policy/policyeditor.h"
#include "ui/policy/policypanel.h"
#include "ui/session/settings/settings.h"
#include "ui/widgets/darkpalette.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QPalette>
#include <QStandardPaths>
#include <QStyleFactory>
#include <QTabWidget>

using namespace RetryLab;

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("RetryLab"));
    QCoreApplication::setApplicationName(QStringLiteral("policypanel_window"));

    QCommandLineParser parser;
    parser.addHelpOption();
    const QCommandLineOption dark(QStringLiteral("dark"), QStringLiteral("Use a dark palette."));
    const QCommandLineOption preset(
        QStringLiteral("preset"), QStringLiteral("Load a built-in preset."), QStringLiteral("id"));
    const QCommandLineOption tab(QStringLiteral("tab"), QStringLiteral("Show editor tab N."), QStringLiteral("n"));
    const QCommandLineOption size(
        QStringLiteral("size"), QStringLiteral("Window size."), QStringLiteral("WxH"), QStringLiteral("1500x950"));
    const QCommandLineOption invalid(QStringLiteral("invalid"), QStringLiteral("Show a policy with errors."));
    parser.addOptions({dark, preset, tab, size, invalid});
    parser.process(app);

    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    if (parser.isSet(dark))
        QApplication::setPalette(Ui::darkPalette());

    Ui::Settings settings;
    Ui::PolicyPanel panel(&settings);
    panel.setWindowTitle(QStringLiteral("RetryLab policy panel"));
    if (parser.isSet(preset))
        panel.editor()->presetBar()->loadBuiltInPreset(parser.value(preset));
    if (parser.isSet(invalid)) {
        auto policy = panel.policy();
        policy.baseDelayMs = -5;
        policy.maxAttempts = 0;
        policy.classification.retryNonIdempotent = true;
        panel.setPolicy(policy);
    }
    if (parser.isSet(tab)) {
        if (auto *tabs = panel.editor()->findChild<QTabWidget *>())
            tabs->setCurrentIndex(parser.value(tab).toInt());
    }
    const QStringList wh = parser.value(size).split(QLatin1Char('x'));
    panel.resize(wh.value(0).toInt(), wh.value(1).toInt());
    panel.move(0, 0);
    panel.show();
    return app.exec();
}
