#pragma once

// The main window's parts and controllers for the suites and programs that drive
// the whole window, found as any script outside the window finds them: by the
// object names MainWindow gives them. A name that is not there stops the program
// (the window and its callers disagree), rather than failing later on a null pointer.

#include "core/executor/threadedexecutor.h"
#include "ui/collections/collectionsidebar.h"
#include "ui/conformance/conformanceview.h"
#include "ui/exportcontroller.h"
#include "ui/herd/simulatorview.h"
#include "ui/importcontroller.h"
#include "ui/mainwindow.h"
#include "ui/observe/clientsview.h"
#include "ui/openedrun.h"
#include "ui/policy/policypanel.h"
#include "ui/policyactions.h"
#include "ui/presentationcontroller.h"
#include "ui/proxy/proxyview.h"
#include "ui/request/requestcomposer.h"
#include "ui/run/attemptinspector.h"
#include "ui/run/errorlogview.h"
#include "ui/run/statisticsview.h"
#include "ui/run/timelineview.h"
#include "ui/runactions.h"
#include "ui/server/serverview.h"
#include "ui/session/hosting/observation.h"
#include "ui/session/request/requestrunner.h"
#include "ui/session/run/runsession.h"
#include "ui/session/settings/settings.h"
#include "ui/transportcontroller.h"
#include "ui/widgets/insecurebanner.h"
#include "ui/widgets/messagebar.h"

#include <QAction>
#include <QDockWidget>
#include <QTabWidget>

template<typename T>
T *windowPart(const QObject &window, const char *name)
{
    T *found = window.findChild<T *>(QLatin1String(name));
    if (!found)
        qFatal("the window has no %s named \"%s\"", T::staticMetaObject.className(), name);
    return found;
}

// The window's state and what runs the requests.
inline RetryLab::Ui::Settings *settingsOf(const QObject &w)
{
    return windowPart<RetryLab::Ui::Settings>(w, "settings");
}
inline RetryLab::Core::ThreadedExecutor *executorOf(const QObject &w)
{
    return windowPart<RetryLab::Core::ThreadedExecutor>(w, "executor");
}
inline RetryLab::Ui::RunSession *sessionOf(const QObject &w)
{
    return windowPart<RetryLab::Ui::RunSession>(w, "session");
}
inline RetryLab::Ui::RequestRunner *runnerOf(const QObject &w)
{
    return windowPart<RetryLab::Ui::RequestRunner>(w, "runner");
}
inline RetryLab::Ui::Observation *observationOf(const QObject &w)
{
    return windowPart<RetryLab::Ui::Observation>(w, "observation");
}

// The docks and what they hold.
inline QDockWidget *policyDockOf(const QObject &w)
{
    return windowPart<QDockWidget>(w, "policyDock");
}
inline QDockWidget *requestDockOf(const QObject &w)
{
    return windowPart<QDockWidget>(w, "requestDock");
}
inline QDockWidget *inspectorDockOf(const QObject &w)
{
    return windowPart<QDockWidget>(w, "inspectorDock");
}
inline QDockWidget *collectionsDockOf(const QObject &w)
{
    return windowPart<QDockWidget>(w, "collectionsDock");
}
inline RetryLab::Ui::PolicyPanel *policyPanelOf(const QObject &w)
{
    return windowPart<RetryLab::Ui::PolicyPanel>(w, "policyPanel");
}
inline RetryLab::Ui::RequestComposer *composerOf(const QObject &w)
{
    return windowPart<RetryLab::Ui::RequestComposer>(w, "composer");
}
inline RetryLab::Ui::AttemptInspector *inspectorOf(const QObject &w)
{
    return windowPart<RetryLab::Ui::AttemptInspector>(w, "attemptInspector");
}
inline RetryLab::Ui::CollectionSidebar *collectionsOf(const QObject &w)
{
    return windowPart<RetryLab::Ui::CollectionSidebar>(w, "collections");
}

// The tabs.
inline QTabWidget *tabsOf(const QObject &w)
{
    return windowPart<QTabWidget>(w, "tabs");
}
inline RetryLab::Ui::TimelineView *timelineViewOf(const QObject &w)
{
    return windowPart<RetryLab::Ui::TimelineView>(w, "timeline");
}
inline RetryLab::Ui::ErrorLogView *errorLogViewOf(const QObject &w)
{
    return windowPart<RetryLab::Ui::ErrorLogView>(w, "errorLog");
}
inline RetryLab::Ui::StatisticsView *statisticsViewOf(const QObject &w)
{
    return windowPart<RetryLab::Ui::StatisticsView>(w, "statistics");
}
inline RetryLab::Ui::ServerView *serverViewOf(const QObject &w)
{
    return windowPart<RetryLab::Ui::ServerView>(w, "server");
}
inline RetryLab::Ui::ClientsView *clientsViewOf(const QObject &w)
{
    return windowPart<RetryLab::Ui::ClientsView>(w, "clientsView");
}
inline RetryLab::Ui::ProxyView *proxyViewOf(const QObject &w)
{
    return windowPart<RetryLab::Ui::ProxyView>(w, "proxy");
}
inline RetryLab::Ui::ConformanceView *conformanceViewOf(const QObject &w)
{
    return windowPart<RetryLab::Ui::ConformanceView>(w, "conformance");
}
inline RetryLab::Ui::SimulatorView *simulatorViewOf(const QObject &w)
{
    return windowPart<RetryLab::Ui::SimulatorView>(w, "simulator");
}

// Above the tabs.
inline RetryLab::Ui::MessageBar *messageBarOf(const QObject &w)
{
    return windowPart<RetryLab::Ui::MessageBar>(w, "messages");
}
/// The messages shown above the tabs, oldest first.
inline QStringList messagesOf(const QObject &w)
{
    return messageBarOf(w)->messages();
}
inline RetryLab::Ui::InsecureBanner *insecureBannerOf(const QObject &w)
{
    return windowPart<RetryLab::Ui::InsecureBanner>(w, "insecureBanner");
}

// The controllers of the menus, and the menus' actions by name.
inline RetryLab::Ui::RunActions *runActionsOf(const QObject &w)
{
    return windowPart<RetryLab::Ui::RunActions>(w, "runActions");
}
inline RetryLab::Ui::PolicyActions *policyActionsOf(const QObject &w)
{
    return windowPart<RetryLab::Ui::PolicyActions>(w, "policyActions");
}
inline RetryLab::Ui::PresentationController *presentationOf(const QObject &w)
{
    return windowPart<RetryLab::Ui::PresentationController>(w, "presentationController");
}
inline RetryLab::Ui::ExportController *exportsOf(const QObject &w)
{
    return windowPart<RetryLab::Ui::ExportController>(w, "exports");
}
inline RetryLab::Ui::ImportController *importsOf(const QObject &w)
{
    return windowPart<RetryLab::Ui::ImportController>(w, "imports");
}
inline RetryLab::Ui::OpenedRun *openedRunOf(const QObject &w)
{
    return windowPart<RetryLab::Ui::OpenedRun>(w, "openedRun");
}
inline RetryLab::Ui::TransportController *transportControllerOf(const QObject &w)
{
    return windowPart<RetryLab::Ui::TransportController>(w, "transport");
}
inline QAction *actionOf(const QObject &w, const char *name)
{
    return windowPart<QAction>(w, name);
}

/// File > Export run to `path` without a dialog, with the window's choice of
/// redaction (File > Redact credentials in exports).
inline RetryLab::Core::Result<qint64> exportRunOf(
    const QObject &w, const QString &path, RetryLab::Ui::ExportController::Format format, bool onlyVisibleRows = false)
{
    RetryLab::Core::ExportOptions options;
    options.redactCredentials = actionOf(w, "redactExports")->isChecked();
    return exportsOf(w)->exportRun(path, format, onlyVisibleRows, options);
}
