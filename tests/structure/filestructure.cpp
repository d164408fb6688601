#include "filestructure.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QMap>
#include <QRegularExpression>
#include <QSet>

#include <algorithm>
#include <optional>

namespace FileStructure {

namespace {

bool isIdentifierChar(QChar c)
{
    return c.isLetterOrNumber() || c == QLatin1Char('_');
}

// The text with comments, string and character literals and preprocessor lines
// replaced by spaces, newlines kept: what is left is code, at the same offsets
// and on the same lines. Braces in a string or a comment then count for nothing.
QString codeOnly(const QString &text)
{
    QString out = text;
    const qsizetype n = text.size();
    const auto blank = [&out](qsizetype from, qsizetype to) {
        for (qsizetype k = from; k < to; ++k) {
            if (out.at(k) != QLatin1Char('\n'))
                out[k] = QLatin1Char(' ');
        }
    };
    const auto endOfLine = [&text, n](qsizetype from) {
        const qsizetype end = text.indexOf(QLatin1Char('\n'), from);
        return end < 0 ? n : end;
    };
    // The end of a quoted literal starting at `from` (its opening quote), past the closing quote.
    const auto endOfQuoted = [&text, n](qsizetype from, QChar quote) {
        qsizetype j = from + 1;
        while (j < n && text.at(j) != quote && text.at(j) != QLatin1Char('\n'))
            j += text.at(j) == QLatin1Char('\\') ? 2 : 1;
        return std::min(j + 1, n);
    };

    bool lineStart = true;
    qsizetype i = 0;
    while (i < n) {
        const QChar c = text.at(i);
        const QChar next = i + 1 < n ? text.at(i + 1) : QChar();
        if (c == QLatin1Char('\n')) {
            lineStart = true;
            ++i;
            continue;
        }
        if (lineStart && c.isSpace()) {
            ++i;
            continue;
        }
        if (lineStart && c == QLatin1Char('#')) {
            qsizetype j = endOfLine(i);
            while (j < n && j > 0 && text.at(j - 1) == QLatin1Char('\\'))
                j = endOfLine(j + 1);
            blank(i, j);
            i = j;
            continue;
        }
        lineStart = false;
        if (c == QLatin1Char('/') && next == QLatin1Char('/')) {
            const qsizetype j = endOfLine(i);
            blank(i, j);
            i = j;
        } else if (c == QLatin1Char('/') && next == QLatin1Char('*')) {
            const qsizetype close = text.indexOf(QLatin1String("*/"), i + 2);
            const qsizetype j = close < 0 ? n : close + 2;
            blank(i, j);
            i = j;
        } else if (c == QLatin1Char('"')) {
            qsizetype prefixStart = i;
            while (prefixStart > 0 && isIdentifierChar(text.at(prefixStart - 1)))
                --prefixStart;
            const QString prefix = text.mid(prefixStart, i - prefixStart);
            qsizetype j = 0;
            if (prefix.endsWith(QLatin1Char('R'))) { // R"delim( ... )delim"
                const qsizetype open = text.indexOf(QLatin1Char('('), i);
                const QString closing
                    = QLatin1Char(')') + text.mid(i + 1, open < 0 ? 0 : open - i - 1) + QLatin1Char('"');
                const qsizetype close = open < 0 ? -1 : text.indexOf(closing, open);
                j = close < 0 ? n : close + closing.size();
            } else {
                j = endOfQuoted(i, c);
            }
            blank(i, j);
            i = j;
        } else if (c == QLatin1Char('\'')) {
            // A digit separator (900'000, 0xFF'FF) when the token it is in starts with a digit.
            qsizetype tokenStart = i;
            while (tokenStart > 0
                && (isIdentifierChar(text.at(tokenStart - 1)) || text.at(tokenStart - 1) == QLatin1Char('\'')))
                --tokenStart;
            if (tokenStart < i && text.at(tokenStart).isDigit()) {
                ++i;
                continue;
            }
            const qsizetype j = endOfQuoted(i, c);
            blank(i, j);
            i = j;
        } else {
            ++i;
        }
    }
    return out;
}

// Words before a `(` that are not the name of a function being defined.
bool isKeyword(const QString &word)
{
    static const QSet<QString> keywords{QStringLiteral("decltype"), QStringLiteral("alignas"),
        QStringLiteral("noexcept"), QStringLiteral("sizeof"), QStringLiteral("alignof"), QStringLiteral("requires"),
        QStringLiteral("static_assert"), QStringLiteral("__attribute__"), QStringLiteral("throw"),
        QStringLiteral("void"), QStringLiteral("int"), QStringLiteral("bool"), QStringLiteral("char"),
        QStringLiteral("double"), QStringLiteral("float"), QStringLiteral("long"), QStringLiteral("short"),
        QStringLiteral("unsigned"), QStringLiteral("signed"), QStringLiteral("auto"), QStringLiteral("return"),
        QStringLiteral("if"), QStringLiteral("while"), QStringLiteral("for"), QStringLiteral("switch")};
    return keywords.contains(word);
}

// The qualified name that ends right before `pos` (the `(` of a parameter list):
// its components, outermost first, template arguments dropped, with the offset
// where it starts. "Core::Foo::~Foo" -> {"Core", "Foo", "~Foo"}.
struct Name
{
    QStringList components;
    qsizetype start = 0;
};

Name nameBefore(const QString &s, qsizetype pos)
{
    static const QString operatorChars = QStringLiteral("+-*/%^&|~!=<>[],()");
    const auto skipSpaces = [&s](qsizetype j) {
        while (j >= 0 && s.at(j).isSpace())
            --j;
        return j;
    };
    const auto wordEndingAt = [&s](qsizetype j) {
        qsizetype start = j;
        while (start >= 0 && isIdentifierChar(s.at(start)))
            --start;
        return s.mid(start + 1, j - start);
    };

    Name name;
    qsizetype j = skipSpaces(pos - 1);
    if (j < 0)
        return {};
    QString last;
    if (operatorChars.contains(s.at(j))) {
        // operator==, operator<<, operator[]: symbols, then the keyword
        qsizetype k = j;
        while (k >= 0 && (operatorChars.contains(s.at(k)) || s.at(k).isSpace()))
            --k;
        if (k < 0 || wordEndingAt(k) != QLatin1String("operator"))
            return {};
        last = QStringLiteral("operator") + s.mid(k + 1, j - k).simplified().remove(QLatin1Char(' '));
        j = k - 8;
    } else if (isIdentifierChar(s.at(j))) {
        last = wordEndingAt(j);
        j -= last.size();
        const qsizetype before = skipSpaces(j);
        if (before >= 0 && wordEndingAt(before) == QLatin1String("operator")) { // operator bool
            last = QStringLiteral("operator ") + last;
            j = before - 8;
        } else if (isKeyword(last)) {
            return {};
        }
    } else {
        return {};
    }
    if (j >= 0 && s.at(j) == QLatin1Char('~')) {
        last.prepend(QLatin1Char('~'));
        --j;
    }
    name.components.prepend(last);
    name.start = j + 1;
    // Qualifiers: `Foo<T>::`, `Core::`, and a leading `::` for the global namespace.
    for (;;) {
        qsizetype k = skipSpaces(j);
        if (k < 1 || s.at(k) != QLatin1Char(':') || s.at(k - 1) != QLatin1Char(':'))
            break;
        k = skipSpaces(k - 2);
        if (k >= 0 && s.at(k) == QLatin1Char('>')) {
            int depth = 0;
            while (k >= 0) {
                if (s.at(k) == QLatin1Char('>'))
                    ++depth;
                else if (s.at(k) == QLatin1Char('<') && --depth == 0)
                    break;
                --k;
            }
            k = skipSpaces(k - 1);
        }
        if (k < 0 || !isIdentifierChar(s.at(k))) {
            name.components.prepend(QString()); // ::name
            name.start = k + 1;
            break;
        }
        const QString word = wordEndingAt(k);
        name.components.prepend(word);
        j = k - word.size();
        name.start = j + 1;
    }
    return name;
}

// The function a namespace-level statement ending in `{` defines, if it defines one:
// the name before the first parameter list, unless an `=` before that name makes the
// statement a variable (`const auto x = Foo::make(`, a lambda).
std::optional<Name> definedFunction(const QString &statement)
{
    const QString trimmed = statement.trimmed();
    if (trimmed.startsWith(QLatin1Char(',')) || trimmed.startsWith(QLatin1Char(':')))
        return {}; // the rest of a constructor's initialiser list after a brace initialiser
    int depth = 0;
    for (qsizetype i = 0; i < statement.size(); ++i) {
        const QChar c = statement.at(i);
        if (c == QLatin1Char('(')) {
            if (depth == 0) {
                const Name name = nameBefore(statement, i);
                if (!name.components.isEmpty()) {
                    if (statement.left(name.start).contains(QLatin1Char('=')))
                        return {};
                    return name;
                }
            }
            ++depth;
        } else if (c == QLatin1Char(')')) {
            --depth;
        }
    }
    return {};
}

struct Scope
{
    qsizetype components = 0; ///< names it adds to the namespace path
    bool anonymous = false;
};

QString readFile(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(file.readAll());
}

bool isLicenceLine(const QString &line)
{
    static const QRegularExpression licence(
        QStringLiteral(R"(SPDX|copyright|licen[cs]e|\(c\))"), QRegularExpression::CaseInsensitiveOption);
    return licence.match(line).hasMatch();
}

} // namespace

FileScan scan(const QString &text)
{
    static const QRegularExpression namespaceOpening(
        QStringLiteral(R"((?:^|[\s)])(?:inline\s+)?namespace\s*([\w:\s]*)$)"));
    static const QRegularExpression externBlock(QStringLiteral(R"(^\s*extern\s*$)"));
    static const QRegularExpression classOpening(
        QStringLiteral(R"(^\s*(?:template\s*<[^{]*>\s*)?(?:class|struct|union)\s+(?:\[\[[^\]]*\]\]\s*)?(\w+))"));
    static const QRegularExpression enumOpening(QStringLiteral(R"(^\s*enum\b)"));
    static const QRegularExpression macroCall(QStringLiteral(R"(^\s*[A-Z][A-Z0-9_]+\s*\()"));

    const QString code = codeOnly(text);
    FileScan result;
    QList<Scope> scopes;
    QStringList path; // named namespaces only
    int anonymous = 0; // anonymous namespaces we are in
    int otherDepth = 0; // braces of a body or an initialiser we are in
    bool clearAfterBody = false; // false for a brace initialiser inside a statement's parentheses
    int parenDepth = 0;
    QString statement;
    int statementLine = 0;
    int line = 1;

    for (const QChar c : code) {
        if (c == QLatin1Char('\n'))
            ++line;
        if (otherDepth > 0) {
            if (c == QLatin1Char('{')) {
                ++otherDepth;
            } else if (c == QLatin1Char('}') && --otherDepth == 0) {
                if (clearAfterBody)
                    statement.clear();
                else
                    statement += QLatin1String("{}");
            }
            continue;
        }
        if (c == QLatin1Char('{')) {
            if (parenDepth > 0) {
                otherDepth = 1;
                clearAfterBody = false;
                continue;
            }
            const auto ns = namespaceOpening.match(statement);
            if (ns.hasMatch()) {
                const QStringList names = ns.captured(1)
                                              .simplified()
                                              .remove(QLatin1Char(' '))
                                              .split(QStringLiteral("::"), Qt::SkipEmptyParts);
                scopes.append(Scope{names.size(), names.isEmpty()});
                if (names.isEmpty())
                    ++anonymous;
                path += names;
                if (anonymous == 0) {
                    for (qsizetype k = 1; k <= path.size(); ++k)
                        result.namespaces.append(path.mid(0, k));
                }
                statement.clear();
                continue;
            }
            if (externBlock.match(statement).hasMatch()) { // extern "C" {, its string blanked
                scopes.append(Scope{});
                statement.clear();
                continue;
            }
            const auto cls = classOpening.match(statement);
            if (cls.hasMatch() && !statement.contains(QLatin1Char('('))) {
                if (anonymous == 0)
                    result.classes.append(path + QStringList{cls.captured(1)});
            } else if (!enumOpening.match(statement).hasMatch()) {
                if (const auto name = definedFunction(statement)) {
                    Definition definition;
                    definition.enclosing = path;
                    definition.qualifier = name->components.mid(0, name->components.size() - 1);
                    definition.name = name->components.last();
                    definition.line = statementLine;
                    definition.fileLocal = anonymous > 0;
                    result.definitions.append(definition);
                }
            }
            otherDepth = 1;
            clearAfterBody = true;
            continue;
        }
        if (c == QLatin1Char('}')) {
            if (!scopes.isEmpty()) {
                const Scope scope = scopes.takeLast();
                path.resize(path.size() - scope.components);
                if (scope.anonymous)
                    --anonymous;
            }
            statement.clear();
            parenDepth = 0;
            continue;
        }
        if (c == QLatin1Char(';') && parenDepth == 0) {
            statement.clear();
            continue;
        }
        if (statement.isEmpty()) {
            if (c.isSpace())
                continue;
            statementLine = line;
        }
        statement += c;
        if (c == QLatin1Char('(') || c == QLatin1Char('[')) {
            ++parenDepth;
        } else if (c == QLatin1Char(')') || c == QLatin1Char(']')) {
            parenDepth = std::max(0, parenDepth - 1);
            // A macro that needs no semicolon (Q_LOGGING_CATEGORY(...)) is a statement of its own.
            if (parenDepth == 0 && c == QLatin1Char(')') && macroCall.match(statement).hasMatch())
                statement.clear();
        }
    }
    return result;
}

bool hasOpeningSentence(const QString &text)
{
    QStringList comment;
    for (const QString &raw : text.split(QLatin1Char('\n'))) {
        const QString line = raw.trimmed();
        if (line.isEmpty() || line.startsWith(QLatin1Char('#')))
            continue;
        if (!line.startsWith(QLatin1String("//")))
            break; // the first code
        QString words = line;
        while (words.startsWith(QLatin1Char('/')))
            words.remove(0, 1);
        if (!isLicenceLine(words))
            comment.append(words.trimmed());
    }
    // A sentence: a capital (or a `name`) first, a full stop last, six words or more.
    static const QRegularExpression sentenceEnd(QStringLiteral(R"((?<=[.!?])\s+)"));
    static const QRegularExpression word(QStringLiteral(R"(\w+)"));
    for (const QString &sentence : comment.join(QLatin1Char(' ')).split(sentenceEnd, Qt::SkipEmptyParts)) {
        const QString s = sentence.trimmed();
        if (s.isEmpty() || !(s.at(0).isUpper() || s.at(0) == QLatin1Char('`')))
            continue;
        if (!s.endsWith(QLatin1Char('.')) && !s.endsWith(QLatin1Char('!')) && !s.endsWith(QLatin1Char('?')))
            continue;
        qsizetype words = 0;
        for (auto it = word.globalMatch(s); it.hasNext(); it.next())
            ++words;
        if (words >= 6)
            return true;
    }
    return false;
}

Report check(const QString &root)
{
    const QDir rootDir(root);
    QStringList sources;
    QStringList headers;
    for (const char *top : {"core", "ui", "app"}) {
        QDirIterator it(rootDir.filePath(QLatin1String(top)), {QStringLiteral("*.h"), QStringLiteral("*.cpp")},
            QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString relative = rootDir.relativeFilePath(it.next());
            (relative.endsWith(QLatin1String(".cpp")) ? sources : headers).append(relative);
        }
    }
    std::sort(sources.begin(), sources.end());

    // Every namespace the tree opens, so that `Core::Foo` can be told from `Foo::bar`.
    QSet<QString> namespaces;
    QHash<QString, FileScan> scans;
    QHash<QString, QString> texts;
    for (const QString &file : headers + sources) {
        const QString text = readFile(rootDir.filePath(file));
        const FileScan fileScan = scan(text);
        for (const QStringList &ns : fileScan.namespaces)
            namespaces.insert(ns.join(QStringLiteral("::")));
        if (file.endsWith(QLatin1String(".cpp"))) {
            scans.insert(file, fileScan);
            texts.insert(file, text);
        }
    }
    const auto isNamespace
        = [&namespaces](const QStringList &names) { return namespaces.contains(names.join(QStringLiteral("::"))); };
    // The class a member definition belongs to, fully qualified, split into its
    // namespaces and its class path ({"RetryLab", "Core"}, {"Foo", "Private"});
    // no class path for a free function.
    const auto resolve = [&isNamespace](const Definition &definition) -> QPair<QStringList, QStringList> {
        QStringList base = definition.enclosing;
        QStringList qualifier = definition.qualifier;
        if (qualifier.isEmpty())
            return {base, {}};
        if (qualifier.first().isEmpty()) { // ::Foo::bar
            base.clear();
            qualifier.removeFirst();
        }
        // C++ looks the first qualifier up from the innermost namespace outwards.
        for (qsizetype k = base.size(); k >= 0; --k) {
            if (isNamespace(base.mid(0, k) + QStringList{qualifier.first()})) {
                base = base.mid(0, k);
                break;
            }
        }
        const QStringList full = base + qualifier;
        qsizetype k = full.size();
        while (k > 0 && !isNamespace(full.mid(0, k)))
            --k;
        return {full.mid(0, k), full.mid(k)};
    };

    Report report;
    report.files = int(sources.size());
    QMap<QString, QStringList> filesOfClass; // class -> .cpp files defining its members
    for (const QString &file : sources) {
        const FileScan &fileScan = scans[file];
        QSet<QString> localClasses;
        for (const QStringList &cls : fileScan.classes)
            localClasses.insert(cls.join(QStringLiteral("::")));
        QMap<QString, QString> mainClasses; // outermost class, qualified -> its own name
        QSet<QString> names; // lower case: the file may be named after any of them
        for (const Definition &definition : fileScan.definitions) {
            if (definition.fileLocal)
                continue;
            const auto [ns, cls] = resolve(definition);
            if (!ns.isEmpty())
                names.insert(ns.last().toLower());
            if (cls.isEmpty())
                continue;
            names.insert(cls.first().toLower());
            const QString qualified = (ns + cls).join(QStringLiteral("::"));
            QStringList &files = filesOfClass[qualified];
            if (!files.contains(file))
                files.append(file);
            const QString outermost = (ns + cls.mid(0, 1)).join(QStringLiteral("::"));
            if (!localClasses.contains(outermost))
                mainClasses.insert(outermost, cls.first());
        }

        // Rule 2: named after its class.
        const QFileInfo info(file);
        const bool exempt = info.fileName() == QLatin1String("main.cpp")
            || (info.path() == QLatin1String("app/cli") && info.fileName().startsWith(QLatin1String("cmd_")));
        if (!mainClasses.isEmpty() && !exempt && !names.contains(info.completeBaseName())) {
            const QStringList classes = mainClasses.values();
            report.violations.append({Kind::FileName, file,
                QStringLiteral("%1 defines members of %2, but is named after none of them or their namespaces (%3.cpp)")
                    .arg(file, classes.join(QStringLiteral(", ")), classes.first().toLower())});
        }

        // Rule 3: a long file says why it is one job.
        const QString &text = texts[file];
        const qsizetype lines = text.count(QLatin1Char('\n'));
        if (lines > longFileLines && !hasOpeningSentence(text)) {
            report.violations.append({Kind::LongFile, file,
                QStringLiteral("%1 has %2 lines, and its opening comment does not say why it is one job")
                    .arg(file)
                    .arg(lines)});
        }
    }

    // Rule 1: one class, one .cpp.
    report.classes = int(filesOfClass.size());
    for (auto it = filesOfClass.cbegin(); it != filesOfClass.cend(); ++it) {
        if (it.value().size() > 1) {
            report.violations.append({Kind::SplitClass, it.key(),
                QStringLiteral("%1 has member functions defined in %2")
                    .arg(it.key(), it.value().join(QStringLiteral(", ")))});
        }
    }
    return report;
}

} // namespace FileStructure
