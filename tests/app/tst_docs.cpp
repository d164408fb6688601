#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>

// The documentation (README.md, HACKING.md, bench/README.md, docs/*.md) against the tree
// and the built binaries: every relative link reaches a file, and an anchor a heading of
// it; every page is linked from the README; every `retrylab COMMAND` or
// `retrylab-cli COMMAND` written in code is a command the binary lists in its --help.
// Pages that moved or commands that were renamed leave no dead end in the guide.

namespace {

struct Link
{
    int line = 0;
    QString target;
};

struct Mention
{
    int line = 0;
    QString program; ///< retrylab or retrylab-cli
    QString command;
};

/// What one Markdown page holds that the checks need.
struct Page
{
    QList<Link> links;
    QList<Mention> mentions; ///< in fenced or indented code, and in inline code
    QSet<QString> anchors;
};

/// GitHub's anchor of a heading: its text as shown, lower case, spaces to '-', every
/// character but letters, digits, marks, '-' and '_' dropped (github-slugger).
QString githubAnchor(const QString &heading)
{
    QString text = heading;
    // The text as shown: [label](target) shows the label; `, * and the closing #s do not show.
    text.replace(QRegularExpression(QStringLiteral(R"(\[([^\]]*)\]\([^)]*\))")), QStringLiteral("\\1"));
    text.remove(QRegularExpression(QStringLiteral(R"(\s+#+\s*$)")));
    text.remove(QLatin1Char('`'));
    text.remove(QLatin1Char('*'));
    QString anchor;
    for (const QChar c : text.trimmed().toLower()) {
        if (c == QLatin1Char(' '))
            anchor += QLatin1Char('-');
        else if (c.isLetterOrNumber() || c.isMark() || c == QLatin1Char('-')
            || c.category() == QChar::Punctuation_Connector)
            anchor += c;
    }
    return anchor;
}

/// Replaces every inline code span of `text` by spaces (so that links inside code are not
/// links) and returns the spans with their offsets.
QList<std::pair<qsizetype, QString>> takeCodeSpans(QString &text)
{
    QList<std::pair<qsizetype, QString>> spans;
    qsizetype i = 0;
    while (i < text.size()) {
        if (text.at(i) != QLatin1Char('`')) {
            ++i;
            continue;
        }
        qsizetype ticks = 0;
        while (i + ticks < text.size() && text.at(i + ticks) == QLatin1Char('`'))
            ++ticks;
        const QString fence(ticks, QLatin1Char('`'));
        qsizetype close = text.indexOf(fence, i + ticks);
        // The closing run must be exactly as long as the opening one.
        while (close >= 0 && close + ticks < text.size() && text.at(close + ticks) == QLatin1Char('`'))
            close = text.indexOf(fence, close + ticks + 1);
        if (close < 0) {
            i += ticks; // a lone run of backticks is text
            continue;
        }
        spans.append({i, text.mid(i + ticks, close - i - ticks)});
        for (qsizetype j = i; j < close + ticks; ++j) {
            if (text.at(j) != QLatin1Char('\n'))
                text[j] = QLatin1Char(' ');
        }
        i = close + ticks;
    }
    return spans;
}

int lineAt(const QString &block, qsizetype offset, int firstLine)
{
    return firstLine + int(QStringView(block).left(offset).count(QLatin1Char('\n')));
}

void addMentions(const QString &code, int line, QList<Mention> &mentions)
{
    // The program as a word of its own (a path before it is fine: ./build/bin/retrylab),
    // then a lower-case word: placeholders (COMMAND) and options (--help) are not commands.
    static const QRegularExpression pattern(QStringLiteral(R"((?<![\w.-])(retrylab(?:-cli)?)[ \t]+([a-z][a-z0-9-]*))"));
    for (const auto &match : pattern.globalMatch(code))
        mentions.append({line, match.captured(1), match.captured(2)});
}

Page scan(const QString &markdown)
{
    Page page;
    static const QRegularExpression fenceLine(QStringLiteral(R"(^ {0,3}(```|~~~))"));
    static const QRegularExpression headingLine(QStringLiteral(R"(^ {0,3}#{1,6}[ \t]+(.*)$)"));
    static const QRegularExpression referenceLine(QStringLiteral(R"(^ {0,3}\[[^\]]+\]:[ \t]+(\S+))"));
    // (Not a raw string: moc misreads one that holds a quote.)
    static const QRegularExpression inlineLink(QStringLiteral("\\]\\(([^)\\s]+)(?:[ \t]+\"[^\"]*\")?\\)"));
    QHash<QString, int> seenAnchors;

    const QStringList lines = markdown.split(QLatin1Char('\n'));
    QString block; // consecutive lines of text, for the links and code spans in them
    int blockLine = 0;
    auto endBlock = [&] {
        if (block.isEmpty())
            return;
        const auto spans = takeCodeSpans(block);
        for (const auto &[offset, code] : spans)
            addMentions(QString(code).replace(QLatin1Char('\n'), QLatin1Char(' ')), lineAt(block, offset, blockLine),
                page.mentions);
        for (const auto &match : inlineLink.globalMatch(block))
            page.links.append({lineAt(block, match.capturedStart(), blockLine), match.captured(1)});
        block.clear();
    };

    QString fence;
    bool previousBlank = true;
    bool inIndentedCode = false;
    for (int i = 0; i < lines.size(); ++i) {
        const QString &line = lines.at(i);
        const int number = i + 1;
        if (!fence.isEmpty()) {
            if (line.trimmed().startsWith(fence))
                fence.clear();
            else
                addMentions(line, number, page.mentions);
            continue;
        }
        if (const auto match = fenceLine.match(line); match.hasMatch()) {
            endBlock();
            fence = match.captured(1);
            previousBlank = false;
            continue;
        }
        const bool blank = line.trimmed().isEmpty();
        // An indented code block starts after a blank line (a list item's continuation
        // is indented too, but follows its item without one).
        const bool indented = line.startsWith(QLatin1String("    ")) || line.startsWith(QLatin1Char('\t'));
        inIndentedCode = indented && (previousBlank || inIndentedCode) && !blank;
        previousBlank = blank;
        if (inIndentedCode) {
            endBlock();
            addMentions(line, number, page.mentions);
            continue;
        }
        if (blank) {
            endBlock();
            continue;
        }
        if (const auto match = headingLine.match(line); match.hasMatch()) {
            endBlock();
            const QString base = githubAnchor(match.captured(1));
            const int seen = seenAnchors.value(base, 0);
            seenAnchors.insert(base, seen + 1);
            page.anchors.insert(seen == 0 ? base : base + QLatin1Char('-') + QString::number(seen));
        }
        if (const auto match = referenceLine.match(line); match.hasMatch())
            page.links.append({number, match.captured(1)});
        if (block.isEmpty())
            blockLine = number;
        else
            block += QLatin1Char('\n');
        block += line;
    }
    endBlock();
    return page;
}

QString readText(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

bool isExternal(const QString &target)
{
    static const QRegularExpression scheme(QStringLiteral(R"(^[A-Za-z][A-Za-z0-9+.-]*:)"));
    return scheme.match(target).hasMatch();
}

/// The commands `program --help` lists under "Commands:".
QSet<QString> commandsOf(const QString &program, QString *error)
{
    QProcess process;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    for (const char *name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
        environment.remove(QLatin1String(name)); // --help must need no display
    process.setProcessEnvironment(environment);
    process.start(program, {QStringLiteral("--help")});
    if (!process.waitForFinished(60'000) || process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) {
        *error = program + QLatin1String(" --help failed: ") + process.errorString()
            + QString::fromUtf8(process.readAllStandardError());
        return {};
    }
    QSet<QString> commands;
    static const QRegularExpression commandLine(QStringLiteral(R"(^  ([a-z][a-z0-9-]*)  )"));
    bool inCommands = false;
    for (const QString &line : QString::fromUtf8(process.readAllStandardOutput()).split(QLatin1Char('\n'))) {
        if (line.endsWith(QLatin1String("Commands:"))) {
            inCommands = true;
        } else if (inCommands) {
            const auto match = commandLine.match(line);
            if (!match.hasMatch())
                break;
            commands.insert(match.captured(1));
        }
    }
    if (commands.isEmpty())
        *error = program + QLatin1String(" --help lists no commands");
    return commands;
}

} // namespace

class TestDocs final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void anchor_followsGitHubRules_data();
    void anchor_followsGitHubRules();
    void scan_findsLinksAnchorsAndCommandsOutsideProse();
    void pages_areFound();
    void link_resolves_data();
    void link_resolves();
    void page_isLinkedFromReadme_data();
    void page_isLinkedFromReadme();
    void command_isKnownToTheBinary_data();
    void command_isKnownToTheBinary();

private:
    /// Why `target`, written in `fromPage`, leads nowhere; empty when it resolves.
    QString brokenBecause(const QString &fromPage, const QString &target);
    const Page &page(const QString &relativePath);

    QDir m_root{QStringLiteral(RETRYLAB_SOURCE_DIR)};
    QStringList m_pages; ///< relative to the root: README.md first
    QHash<QString, Page> m_scanned;
    QHash<QString, QSet<QString>> m_commands; ///< by program name
};

void TestDocs::initTestCase()
{
    m_pages = {QStringLiteral("README.md"), QStringLiteral("HACKING.md"), QStringLiteral("bench/README.md")};
    const QStringList docs
        = QDir(m_root.filePath(QStringLiteral("docs"))).entryList({QStringLiteral("*.md")}, QDir::Files, QDir::Name);
    for (const QString &name : docs)
        m_pages.append(QStringLiteral("docs/") + name);

    const std::pair<const char *, const char *> binaries[]{
        {"retrylab", RETRYLAB_BINARY}, {"retrylab-cli", RETRYLAB_CLI_BINARY}};
    for (const auto &[program, binary] : binaries) {
        QString error;
        m_commands.insert(QLatin1String(program), commandsOf(QString::fromLocal8Bit(binary), &error));
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }
    // The window's binary has the command that needs a GUI; the headless one has not.
    QVERIFY(m_commands.value(QStringLiteral("retrylab")).contains(QStringLiteral("screenshot")));
    QVERIFY(!m_commands.value(QStringLiteral("retrylab-cli")).contains(QStringLiteral("screenshot")));
    QVERIFY(m_commands.value(QStringLiteral("retrylab-cli")).contains(QStringLiteral("export-locust")));
}

void TestDocs::anchor_followsGitHubRules_data()
{
    QTest::addColumn<QString>("heading");
    QTest::addColumn<QString>("anchor");
    QTest::addRow("words") << "The retry executor"
                           << "the-retry-executor";
    QTest::addRow("punctuation dropped") << "Robustness: sanitizers, fuzzing, leaks, soak"
                                         << "robustness-sanitizers-fuzzing-leaks-soak";
    QTest::addRow("dots and parentheses") << "What each connection fault looks like to a client (Qt 6.4)"
                                          << "what-each-connection-fault-looks-like-to-a-client-qt-64";
    QTest::addRow("every space a hyphen") << "Breaker & budget"
                                          << "breaker--budget";
    QTest::addRow("code and emphasis") << "The `retrylab serve` *command*"
                                       << "the-retrylab-serve-command";
    QTest::addRow("underscore and hyphen kept") << "tst_docs and look-ups"
                                                << "tst_docs-and-look-ups";
    QTest::addRow("link shows its label") << "See [the proxy](proxy.md)"
                                          << "see-the-proxy";
    QTest::addRow("closing hashes") << "Presets ##"
                                    << "presets";
    QTest::addRow("letters beyond ASCII") << "Größe × 2"
                                          << "größe--2";
}

void TestDocs::anchor_followsGitHubRules()
{
    QFETCH(QString, heading);
    QFETCH(QString, anchor);
    QCOMPARE(githubAnchor(heading), anchor);
}

void TestDocs::scan_findsLinksAnchorsAndCommandsOutsideProse()
{
    const Page page = scan(QStringLiteral("# Title\n"
                                          "\n"
                                          "See [a](b.md#c) and `[not](a-link.md)`; `retrylab run x` and\n"
                                          "`retrylab-cli\nserve` across a line. retrylab nosuch in prose.\n"
                                          "\n"
                                          "```sh\n"
                                          "$ ./build/bin/retrylab simulate --help   # [not](a-link.md)\n"
                                          "retrylab --help; retrylab COMMAND; retrylab-observation\n"
                                          "```\n"
                                          "\n"
                                          "    retrylab demo\n"
                                          "\n"
                                          "## Title\n"
                                          "![pic](shots/x.png \"a title\")\n"
                                          "[ref]: ../HACKING.md#layout\n"));
    QStringList links;
    for (const Link &link : page.links)
        links.append(QString::number(link.line) + QLatin1Char(' ') + link.target);
    links.sort();
    QCOMPARE(links,
        (QStringList{
            QStringLiteral("15 shots/x.png"), QStringLiteral("16 ../HACKING.md#layout"), QStringLiteral("3 b.md#c")}));
    QStringList mentions;
    for (const Mention &mention : page.mentions)
        mentions.append(
            QString::number(mention.line) + QLatin1Char(' ') + mention.program + QLatin1Char(' ') + mention.command);
    QCOMPARE(mentions,
        (QStringList{QStringLiteral("3 retrylab run"), QStringLiteral("4 retrylab-cli serve"),
            QStringLiteral("8 retrylab simulate"), QStringLiteral("12 retrylab demo")}));
    QCOMPARE(page.anchors, (QSet<QString>{QStringLiteral("title"), QStringLiteral("title-1")}));

    // And what a page with a dead end gets told.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("docs")));
    QFile guide(dir.filePath(QStringLiteral("docs/guide.md")));
    QVERIFY(guide.open(QIODevice::WriteOnly));
    guide.write("# Guide\n\n## Its part\n");
    guide.close();
    const QDir saved = m_root;
    m_root = QDir(dir.path());
    m_scanned.clear();
    QCOMPARE(brokenBecause(QStringLiteral("README.md"), QStringLiteral("docs/guide.md#its-part")), QString());
    QCOMPARE(brokenBecause(QStringLiteral("docs/guide.md"), QStringLiteral("#guide")), QString());
    QCOMPARE(brokenBecause(QStringLiteral("README.md"), QStringLiteral("docs/guide.md#its_part")),
        QStringLiteral("docs/guide.md has no heading with the anchor #its_part"));
    QCOMPARE(brokenBecause(QStringLiteral("README.md"), QStringLiteral("docs/gone.md")),
        QStringLiteral("docs/gone.md does not exist"));
    QCOMPARE(brokenBecause(QStringLiteral("docs/guide.md"), QStringLiteral("../docs/../../outside.md")),
        QStringLiteral("../outside.md leaves the source tree"));
    m_root = saved;
    m_scanned.clear();
}

void TestDocs::pages_areFound()
{
    // The data below would be empty, and every check pass, if the pages were not where
    // this suite looks.
    QVERIFY2(m_pages.size() >= 10, qPrintable(m_pages.join(QLatin1Char(' '))));
    for (const QString &path : std::as_const(m_pages))
        QVERIFY2(!page(path).anchors.isEmpty(), qPrintable(path + QLatin1String(" has no heading")));
    QVERIFY(page(QStringLiteral("README.md")).links.size() >= m_pages.size() - 1);
    qsizetype mentions = 0;
    for (const QString &path : std::as_const(m_pages))
        mentions += page(path).mentions.size();
    QVERIFY2(mentions >= 20, qPrintable(QString::number(mentions))); // the guide names commands all over
}

const Page &TestDocs::page(const QString &relativePath)
{
    auto found = m_scanned.find(relativePath);
    if (found == m_scanned.end())
        found = m_scanned.insert(relativePath, scan(readText(m_root.filePath(relativePath))));
    return *found;
}

QString TestDocs::brokenBecause(const QString &fromPage, const QString &target)
{
    const qsizetype hash = target.indexOf(QLatin1Char('#'));
    const QString path = QUrl::fromPercentEncoding(target.left(hash).toUtf8());
    const QString anchor = hash < 0 ? QString() : target.mid(hash + 1);
    const QString resolved
        = path.isEmpty() ? fromPage : QDir::cleanPath(QFileInfo(fromPage).path() + QLatin1Char('/') + path);
    if (resolved.startsWith(QLatin1String("../")) || QDir::isAbsolutePath(resolved))
        return resolved + QLatin1String(" leaves the source tree");
    if (!QFileInfo::exists(m_root.filePath(resolved)))
        return resolved + QLatin1String(" does not exist");
    if (anchor.isEmpty())
        return {};
    if (!resolved.endsWith(QLatin1String(".md")))
        return resolved + QLatin1String(" is not a Markdown page: it has no anchors");
    if (!page(resolved).anchors.contains(anchor))
        return resolved + QLatin1String(" has no heading with the anchor #") + anchor;
    return {};
}

void TestDocs::link_resolves_data()
{
    QTest::addColumn<QString>("from");
    QTest::addColumn<QString>("target");
    QSet<QString> tags;
    for (const QString &path : std::as_const(m_pages)) {
        for (const Link &link : page(path).links) {
            if (isExternal(link.target))
                continue;
            const QString tag = path + QLatin1Char(':') + QString::number(link.line) + QLatin1Char(' ') + link.target;
            if (!tags.contains(tag)) {
                tags.insert(tag);
                QTest::newRow(qPrintable(tag)) << path << link.target;
            }
        }
    }
}

void TestDocs::link_resolves()
{
    QFETCH(QString, from);
    QFETCH(QString, target);
    const QString reason = brokenBecause(from, target);
    QVERIFY2(reason.isEmpty(), qPrintable(reason));
}

void TestDocs::page_isLinkedFromReadme_data()
{
    QTest::addColumn<QString>("path");
    for (const QString &path : std::as_const(m_pages)) {
        if (path != QLatin1String("README.md"))
            QTest::newRow(qPrintable(path)) << path;
    }
}

void TestDocs::page_isLinkedFromReadme()
{
    QFETCH(QString, path);
    for (const Link &link : page(QStringLiteral("README.md")).links) {
        const QString linked
            = QDir::cleanPath(QUrl::fromPercentEncoding(link.target.section(QLatin1Char('#'), 0, 0).toUtf8()));
        if (linked == path)
            return;
    }
    QFAIL(qPrintable(
        QLatin1String("README.md does not link ") + path + QLatin1String(": the map of the docs misses it")));
}

void TestDocs::command_isKnownToTheBinary_data()
{
    QTest::addColumn<QString>("program");
    QTest::addColumn<QString>("command");
    QSet<QString> tags;
    for (const QString &path : std::as_const(m_pages)) {
        for (const Mention &mention : page(path).mentions) {
            const QString tag = path + QLatin1Char(':') + QString::number(mention.line) + QLatin1Char(' ')
                + mention.program + QLatin1Char(' ') + mention.command;
            if (!tags.contains(tag)) {
                tags.insert(tag);
                QTest::newRow(qPrintable(tag)) << mention.program << mention.command;
            }
        }
    }
}

void TestDocs::command_isKnownToTheBinary()
{
    QFETCH(QString, program);
    QFETCH(QString, command);
    const QSet<QString> known = m_commands.value(program);
    QStringList listed(known.cbegin(), known.cend());
    listed.sort();
    QVERIFY2(known.contains(command),
        qPrintable(program + QLatin1String(" has no command \"") + command + QLatin1String("\"; it has: ")
            + listed.join(QLatin1String(", "))));
}

QTEST_GUILESS_MAIN(TestDocs)
#include "tst_docs.moc"
