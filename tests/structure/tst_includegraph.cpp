#include "includegraph.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace IncludeGraph;

class TestIncludeGraph : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void moduleGraph_isReadFromTheBuild();
    void tree_hasNoFolderCycle();
    void tree_everyIncludeGoesTheAllowedWay();
    void guiFreeModules_includeNoGuiHeader();

    void checker_findsACycle();
    void checker_findsAWrongWayInclude();
    void checker_findsAGuiHeaderInCore();
    void checker_findsOneFeatureFolderIncludingAnother();

private:
    static Report checkTree();
    static void writeFile(const QDir &root, const QString &path, const QByteArray &text);
};

Report TestIncludeGraph::checkTree()
{
    QFile graph(QStringLiteral(RETRYLAB_MODULE_GRAPH));
    if (!graph.open(QIODevice::ReadOnly))
        return {};
    return check(QStringLiteral(RETRYLAB_SOURCE_DIR), parseModules(QString::fromUtf8(graph.readAll())), qtGuiHeaders());
}

void TestIncludeGraph::writeFile(const QDir &root, const QString &path, const QByteArray &text)
{
    QVERIFY(root.mkpath(QFileInfo(path).path()));
    QFile file(root.filePath(path));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(text);
}

void TestIncludeGraph::moduleGraph_isReadFromTheBuild()
{
    QFile graph(QStringLiteral(RETRYLAB_MODULE_GRAPH));
    QVERIFY2(graph.open(QIODevice::ReadOnly), qPrintable(graph.fileName()));
    const QList<Module> modules = parseModules(QString::fromUtf8(graph.readAll()));
    QStringList folders;
    for (const Module &module : modules)
        folders.append(module.folder);
    for (const char *expected : {"core/util", "core/http", "core/policy", "core/record", "core/executor",
             "core/faultserver", "core/export", "core/herd", "core/scenario", "core/collections", "core/grouping",
             "core/assertions", "core/proxy", "ui/session", "ui", "app/cli"})
        QVERIFY2(folders.contains(QLatin1String(expected)), expected);
    // Spot checks of the arrows the build declares.
    for (const Module &module : modules) {
        if (module.folder == QLatin1String("core/faultserver"))
            QVERIFY(!module.allowed.contains(QStringLiteral("core/policy")));
        if (module.folder == QLatin1String("core/util"))
            QVERIFY(module.allowed.isEmpty());
        if (module.folder == QLatin1String("app/cli")) {
            QVERIFY(!module.allowed.contains(QStringLiteral("ui"))
                && !module.allowed.contains(QStringLiteral("ui/session")));
            // retrylab request sends saved requests of collections.
            QVERIFY(module.allowed.contains(QStringLiteral("core/collections")));
        }
        // Saved requests become executor requests, and nothing more: no server,
        // no other file format, no window.
        if (module.folder == QLatin1String("core/collections")) {
            QVERIFY(module.allowed.contains(QStringLiteral("core/executor")));
            for (const char *other : {"core/faultserver", "core/import", "core/export", "core/scenario", "ui/session"})
                QVERIFY2(!module.allowed.contains(QLatin1String(other)), other);
        }
        // Import reads other tools' formats into requests; it never sends them.
        if (module.folder == QLatin1String("core/import")) {
            QVERIFY(!module.allowed.contains(QStringLiteral("core/executor")));
            QVERIFY(!module.allowed.contains(QStringLiteral("core/collections")));
        }
        if (module.folder == QLatin1String("ui/session"))
            QVERIFY(module.allowed.contains(QStringLiteral("core/collections")));
        // The proxy needs the log entry and socket tricks (http) and the grouper (grouping):
        // not the fault server, which would bring OpenSSL's libcrypto with it.
        if (module.folder == QLatin1String("core/proxy")) {
            QVERIFY(module.allowed.contains(QStringLiteral("core/grouping")));
            QVERIFY(!module.allowed.contains(QStringLiteral("core/faultserver")));
            QVERIFY(!module.allowed.contains(QStringLiteral("core/observe")));
        }
        if (module.folder == QLatin1String("core/grouping"))
            QCOMPARE(module.allowed, QStringList{QStringLiteral("core/util")});
        // Assertions are values about an answer: they never send a request themselves,
        // and monitors share their evaluation.
        if (module.folder == QLatin1String("core/assertions")) {
            QVERIFY(module.allowed.contains(QStringLiteral("core/record")));
            for (const char *other : {"core/executor", "core/collections", "core/monitor", "ui/session"})
                QVERIFY2(!module.allowed.contains(QLatin1String(other)), other);
        }
        if (module.folder == QLatin1String("core/monitor"))
            QVERIFY(module.allowed.contains(QStringLiteral("core/assertions")));
        // Scenario requests expand {server} and {id} with the collections' request templates.
        if (module.folder == QLatin1String("core/scenario"))
            QVERIFY(module.allowed.contains(QStringLiteral("core/collections")));
    }
}

void TestIncludeGraph::tree_hasNoFolderCycle()
{
    const Report report = checkTree();
    QVERIFY(report.files > 100);
    QVERIFY(report.folders > 15);
    QVERIFY2(report.cycles.isEmpty(), qPrintable(report.cycles.join(QLatin1Char('\n'))));
}

void TestIncludeGraph::tree_everyIncludeGoesTheAllowedWay()
{
    const Report report = checkTree();
    QVERIFY(report.files > 100);
    QVERIFY2(report.wrongWay.isEmpty(), qPrintable(report.wrongWay.join(QLatin1Char('\n'))));
}

void TestIncludeGraph::guiFreeModules_includeNoGuiHeader()
{
    QVERIFY(qtGuiHeaders().contains(QStringLiteral("QWidget")));
    QVERIFY(qtGuiHeaders().contains(QStringLiteral("QColor")));
    QVERIFY(!qtGuiHeaders().contains(QStringLiteral("QObject")));
    const Report report = checkTree();
    QVERIFY(report.files > 100);
    QVERIFY2(report.gui.isEmpty(), qPrintable(report.gui.join(QLatin1Char('\n'))));
}

void TestIncludeGraph::checker_findsACycle()
{
    QTemporaryDir dir;
    const QDir root(dir.path());
    writeFile(root, QStringLiteral("core/a/a.h"), "#include \"core/b/b.h\"\n");
    writeFile(root, QStringLiteral("core/b/b.h"), "#pragma once\n#include \"core/a/a.h\"\n");
    const Report report = check(dir.path(), parseModules(QStringLiteral("core/a\ncore/b\n")), {});
    QCOMPARE(report.cycles.size(), 1);
    QVERIFY2(report.cycles.first().startsWith(QLatin1String("core/a -> core/b -> core/a")),
        qPrintable(report.cycles.first()));
    QVERIFY(report.cycles.first().contains(QLatin1String("core/b/b.h -> core/a/a.h")));
}

void TestIncludeGraph::checker_findsAWrongWayInclude()
{
    QTemporaryDir dir;
    const QDir root(dir.path());
    writeFile(root, QStringLiteral("core/low/low.h"), "#include \"core/high/high.h\"\n");
    writeFile(root, QStringLiteral("core/high/high.h"), "#pragma once\n");
    writeFile(root, QStringLiteral("core/high/high.cpp"), "#include \"core/low/low.h\"\n#include \"high.h\"\n");
    const Report report = check(dir.path(), parseModules(QStringLiteral("core/low\ncore/high core/low\n")), {});
    QCOMPARE(report.wrongWay.size(), 1);
    QVERIFY2(report.wrongWay.first().startsWith(QLatin1String("core/low/low.h:1 includes core/high/high.h")),
        qPrintable(report.wrongWay.first()));
    QVERIFY(report.cycles.isEmpty() == false); // and low <-> high is a cycle
}

void TestIncludeGraph::checker_findsAGuiHeaderInCore()
{
    QTemporaryDir dir;
    const QDir root(dir.path());
    writeFile(
        root, QStringLiteral("core/a/a.cpp"), "#include <QObject>\n#include <QColor>\n#include <QtWidgets/QLabel>\n");
    writeFile(root, QStringLiteral("ui/view.cpp"), "#include <QColor>\n");
    const Report report
        = check(dir.path(), parseModules(QStringLiteral("core/a\nui core/a\n")), {QStringLiteral("QColor")});
    QCOMPARE(report.gui.size(), 2);
    QVERIFY(report.gui.at(0).startsWith(QLatin1String("core/a/a.cpp:2")));
    QVERIFY(report.gui.at(1).startsWith(QLatin1String("core/a/a.cpp:3")));
}

void TestIncludeGraph::checker_findsOneFeatureFolderIncludingAnother()
{
    QTemporaryDir dir;
    const QDir root(dir.path());
    writeFile(
        root, QStringLiteral("ui/run/view.h"), "#include \"ui/widgets/style.h\"\n#include \"ui/policy/editor.h\"\n");
    writeFile(root, QStringLiteral("ui/widgets/style.h"), "#pragma once\n");
    writeFile(root, QStringLiteral("ui/policy/editor.h"), "#pragma once\n");
    writeFile(root, QStringLiteral("ui/mainwindow.h"), "#include \"ui/run/view.h\"\n#include \"ui/policy/editor.h\"\n");
    const Report report = check(dir.path(), parseModules(QStringLiteral("ui\n")), {});
    QCOMPARE(report.wrongWay.size(), 1);
    QVERIFY2(report.wrongWay.first().startsWith(QLatin1String("ui/run/view.h:2 includes ui/policy/editor.h")),
        qPrintable(report.wrongWay.first()));
}

QTEST_GUILESS_MAIN(TestIncludeGraph)
#include "tst_includegraph.moc"
