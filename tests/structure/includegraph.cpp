#include "includegraph.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QLibraryInfo>
#include <QRegularExpression>
#include <QSet>

#include <algorithm>
#include <functional>

namespace IncludeGraph {

namespace {

struct Edge
{
    QString example; ///< "core/a/x.h -> core/b/y.h"
};

// The module a folder belongs to: the longest module folder that contains it.
// Folders of no module (app/ itself) belong to themselves and may include anything.
const Module *ownerOf(const QString &folder, const QList<Module> &modules)
{
    const Module *best = nullptr;
    for (const Module &module : modules) {
        const bool inside = folder == module.folder || folder.startsWith(module.folder + QLatin1Char('/'));
        if (inside && (!best || module.folder.size() > best->folder.size()))
            best = &module;
    }
    return best;
}

// "ui/run" -> "run"; "" for ui/ itself and for folders outside ui/.
QString uiFeature(const QString &folder)
{
    if (!folder.startsWith(QLatin1String("ui/")))
        return {};
    return folder.section(QLatin1Char('/'), 1, 1);
}

bool isSharedUiFolder(const QString &feature)
{
    return feature == QLatin1String("session") || feature == QLatin1String("widgets");
}

} // namespace

QList<Module> parseModules(const QString &text)
{
    QList<Module> modules;
    for (const QString &line : text.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
        const QStringList words = line.split(QLatin1Char(' '), Qt::SkipEmptyParts);
        if (words.isEmpty())
            continue;
        Module module;
        module.folder = words.first();
        module.allowed = words.mid(1);
        // The widget library is the only module that links Qt Gui.
        module.guiFree = module.folder != QLatin1String("ui");
        modules.append(module);
    }
    return modules;
}

QStringList qtGuiHeaders()
{
    QStringList names;
    const QString headers = QLibraryInfo::path(QLibraryInfo::HeadersPath);
    for (const char *module : {"QtGui", "QtWidgets", "QtCharts", "QtOpenGL", "QtOpenGLWidgets"}) {
        const QDir dir(headers + QLatin1Char('/') + QLatin1String(module));
        names += dir.entryList(QDir::Files);
        names.append(QLatin1String(module)); // <QtGui> itself
    }
    return names;
}

Report check(const QString &root, const QList<Module> &modules, const QStringList &guiHeaders)
{
    static const QRegularExpression includeLine(QStringLiteral(R"(^\s*#\s*include\s*([<"])([^">]+)[">])"));
    const QSet<QString> gui(guiHeaders.cbegin(), guiHeaders.cend());
    const QDir rootDir(root);

    QHash<QString, QString> folderOf; // relative file -> relative folder
    for (const char *top : {"core", "ui", "app"}) {
        QDirIterator it(rootDir.filePath(QLatin1String(top)), {QStringLiteral("*.h"), QStringLiteral("*.cpp")},
            QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString relative = rootDir.relativeFilePath(it.next());
            folderOf.insert(relative, QFileInfo(relative).path());
        }
    }

    Report report;
    report.files = int(folderOf.size());
    QHash<QString, QHash<QString, Edge>> edges; // folder -> folder -> first include seen
    QStringList files = folderOf.keys();
    std::sort(files.begin(), files.end());
    for (const QString &file : files) {
        const QString folder = folderOf.value(file);
        const Module *owner = ownerOf(folder, modules);
        QFile source(rootDir.filePath(file));
        if (!source.open(QIODevice::ReadOnly | QIODevice::Text))
            continue;
        int lineNumber = 0;
        while (!source.atEnd()) {
            const QString line = QString::fromUtf8(source.readLine());
            ++lineNumber;
            const auto match = includeLine.match(line);
            if (!match.hasMatch())
                continue;
            const QString where = QStringLiteral("%1:%2").arg(file).arg(lineNumber);
            const QString name = match.captured(2);
            if (match.captured(1) == QLatin1String("<")) {
                const QString base = name.section(QLatin1Char('/'), -1);
                const bool guiModulePath = name.startsWith(QLatin1String("QtGui/"))
                    || name.startsWith(QLatin1String("QtWidgets/")) || name.startsWith(QLatin1String("QtCharts/"));
                if (owner && owner->guiFree
                    && (gui.contains(name) || guiModulePath || (name == base && gui.contains(base))))
                    report.gui.append(QStringLiteral("%1 includes <%2>, but %3 links no Qt Gui module")
                                          .arg(where, name, owner->folder));
                continue;
            }
            QString target = QDir::cleanPath(name);
            if (!folderOf.contains(target))
                target = QDir::cleanPath(folder + QLatin1Char('/') + name);
            if (!folderOf.contains(target))
                continue; // a generated header (core/util/version.h) or one outside the three layers
            const QString targetFolder = folderOf.value(target);
            if (targetFolder == folder)
                continue;
            if (!edges[folder].contains(targetFolder))
                edges[folder].insert(targetFolder, Edge{file + QStringLiteral(" -> ") + target});

            const Module *targetOwner = ownerOf(targetFolder, modules);
            if (owner && targetOwner && owner != targetOwner && !owner->allowed.contains(targetOwner->folder)) {
                report.wrongWay.append(QStringLiteral("%1 includes %2: %3 may include only %4")
                                           .arg(where, target, owner->folder,
                                               owner->allowed.isEmpty() ? QStringLiteral("itself")
                                                                        : owner->allowed.join(QStringLiteral(", "))));
            }
            const QString fromFeature = uiFeature(folder);
            const QString toFeature = uiFeature(targetFolder);
            if (!fromFeature.isEmpty() && !toFeature.isEmpty() && fromFeature != toFeature
                && !isSharedUiFolder(toFeature) && fromFeature != QLatin1String("session")) {
                report.wrongWay.append(QStringLiteral("%1 includes %2: ui/%3 may include ui/session and ui/widgets, "
                                                      "not another feature folder")
                                           .arg(where, target, fromFeature));
            }
        }
    }

    // Cycles between folders, by depth-first search (white, grey, black).
    QStringList folders = QStringList(folderOf.cbegin(), folderOf.cend());
    folders.removeDuplicates();
    std::sort(folders.begin(), folders.end());
    report.folders = int(folders.size());
    QHash<QString, int> colour;
    QStringList stack;
    const std::function<void(const QString &)> visit = [&](const QString &node) {
        colour[node] = 1;
        stack.append(node);
        QStringList next = edges.value(node).keys();
        std::sort(next.begin(), next.end());
        for (const QString &to : next) {
            if (colour.value(to) == 1) {
                QStringList cycle = stack.mid(stack.indexOf(to));
                cycle.append(to);
                QStringList because;
                for (qsizetype i = 0; i + 1 < cycle.size(); ++i)
                    because.append(edges.value(cycle.at(i)).value(cycle.at(i + 1)).example);
                report.cycles.append(QStringLiteral("%1 (%2)").arg(
                    cycle.join(QStringLiteral(" -> ")), because.join(QStringLiteral("; "))));
            } else if (colour.value(to) == 0) {
                visit(to);
            }
        }
        stack.removeLast();
        colour[node] = 2;
    };
    for (const QString &folder : folders) {
        if (colour.value(folder) == 0)
            visit(folder);
    }
    return report;
}

} // namespace IncludeGraph
