#pragma once

#include <QList>
#include <QString>
#include <QStringList>

// Reads the #include lines of a source tree and checks them against the module
// graph the build declares (tests/structure/CMakeLists.txt writes it).
namespace IncludeGraph {

struct Module
{
    QString folder; ///< "core/policy"
    QStringList allowed; ///< folders of the modules it may include
    bool guiFree = true; ///< links no Qt Gui module
};

/// One line per module: its folder, then the folders it may include.
QList<Module> parseModules(const QString &text);

struct Report
{
    QStringList wrongWay; ///< includes of a module the including module may not use
    QStringList gui; ///< Qt Gui, Widgets or Charts headers in a GUI-free module
    QStringList cycles; ///< folder cycles, "a -> b -> a (a/x.h -> b/y.h, ...)"
    int files = 0;
    int folders = 0;
};

/// Checks every .h and .cpp under root/{core,ui,app}. `guiHeaders` are the file
/// names of the Qt Gui, Widgets and Charts headers (QColor, QWidget, ...).
/// Within ui/, a feature folder may not include another feature folder, and
/// ui/widgets no feature folder.
Report check(const QString &root, const QList<Module> &modules, const QStringList &guiHeaders);

/// The header names in Qt's QtGui, QtWidgets, QtCharts, QtOpenGL and QtOpenGLWidgets folders.
QStringList qtGuiHeaders();

} // namespace IncludeGraph
