#pragma once

#include <QList>
#include <QString>
#include <QStringList>

// Reads the .cpp files of a source tree for where each class's member functions
// are defined, and checks the three file rules of HACKING.md ("Files and classes").
namespace FileStructure {

/// One out-of-line function definition at namespace level, as written.
struct Definition
{
    QStringList enclosing; ///< the named namespaces around it, outermost first
    QStringList qualifier; ///< "Core::Foo" in `void Core::Foo::bar() {`, template arguments dropped
    QString name; ///< "bar", "~Foo", "operator=="
    int line = 0;
    bool fileLocal = false; ///< inside an anonymous namespace
};

/// What one file declares and defines at namespace level.
struct FileScan
{
    QList<Definition> definitions; ///< member and free function definitions with a body
    QList<QStringList> namespaces; ///< every named namespace path opened, "RetryLab", "Core"
    QList<QStringList> classes; ///< classes defined here (`class X {`), with their namespaces
};

/// Scans C++ text with a brace-depth walk that reads only namespace-level
/// statements: function bodies, class bodies and initialisers are skipped, so
/// calls such as `return Foo::error(...)` are never taken for definitions.
FileScan scan(const QString &text);

/// True when the first lines of the file, before any code (#include lines and
/// blank lines do not count as code), hold a `//` comment with at least one
/// full sentence that is not a licence line.
bool hasOpeningSentence(const QString &text);

enum class Kind {
    SplitClass, ///< a class has member functions defined in two or more .cpp files
    FileName, ///< a .cpp is not named after the class whose members it defines
    LongFile, ///< a .cpp over the line limit whose opening comment does not say why
};

struct Violation
{
    Kind kind;
    QString subject; ///< the class ("RetryLab::Core::Foo") or the file ("core/a/foo.cpp")
    QString message;
};

struct Report
{
    QList<Violation> violations;
    int files = 0; ///< .cpp files read
    int classes = 0; ///< classes with out-of-line member definitions
};

/// The line count above which a .cpp must say in its opening comment why it is one job.
constexpr int longFileLines = 700;

/// Checks every .cpp under root/{core,ui,app}; headers are read for their namespaces.
Report check(const QString &root);

} // namespace FileStructure
