#include "app/docgen/commandhelp.h"
#include "app/docgen/manpage.h"
#include "app/docgen/shellcompletion.h"

#include <QTest>

using namespace RetryLab::DocGen;

// What QCommandLineParser writes, read back (CommandHelp), and the two things made
// of it that need no program to check: roff escaping and what a value completes to.
// The texts below are in the layout Qt gives them (column, wrapping at 79).
class TestCommandHelp : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parse_commandHelp_readsUsageDescriptionOptionsArguments();
    void parse_wrappedDescription_joinsItsLines();
    void parse_wordCutAtTheLineEnd_joinsWithoutSpace();
    void parse_topLevel_readsTheCommandList();
    void parse_severalUsageForms_keepsEach();
    void parse_textAfterTheArguments_isTheEpilogue();
    void parse_optionListAfterTheArguments_isReadAsOptions();
    void escape_data();
    void escape();
    void valuesOf_data();
    void valuesOf();
    void positionalOf_actionWords();
};

namespace {

const QString monitorHelp = QStringLiteral(
    "Usage: retrylab monitor [options] FILE\n"
    "Runs the monitors of a monitors file until --duration ends or it is interrupted (Ctrl+C, SIGTERM),\n"
    "keeping every check and attempt in the history.\n"
    "\n"
    "Options:\n"
    "  -h, --help                    Show this help.\n"
    "  --db <FILE|URL>               Keep the history in this SQLite file, or in\n"
    "                                PostgreSQL at postgresql://USER@HOST:PORT/DB\n"
    "                                (shared by several agents). Default:\n"
    "                                /root/.local/share/RetryLab/retrylab/history.sql\n"
    "                                ite.\n"
    "  --metrics-listen <HOST:PORT>  Serve Prometheus metrics.\n"
    "  -q, --quiet                   Print only changes of state and incidents, no\n"
    "                                banner and no summary.\n"
    "\n"
    "Arguments:\n"
    "  FILE                          The monitors file (format retrylab-monitors).\n"
    "\n");

const QString topHelp
    = QStringLiteral("Usage: /build/bin/retrylab-cli [options]\n"
                     "RetryLab without a window: see and test how clients retry failed network requests.\n"
                     "\n"
                     "Commands:\n"
                     "  run           run a scenario file and check its expectations (exit 0, 1, 2)\n"
                     "  export-locust  write a Locust file\n"
                     "\n"
                     "Run 'retrylab-cli COMMAND --help' for a command's options.\n"
                     "\n"
                     "Options:\n"
                     "  -h, --help     Displays help on commandline options.\n"
                     "  -v, --version  Displays version information.\n");

} // namespace

void TestCommandHelp::parse_commandHelp_readsUsageDescriptionOptionsArguments()
{
    const CommandHelp help = CommandHelp::parse(monitorHelp, QStringLiteral("retrylab"));
    QCOMPARE(help.usage, QStringList{QStringLiteral("retrylab monitor [options] FILE")});
    QCOMPARE(help.description.size(), 1);
    QVERIFY(help.description.first().startsWith(QLatin1String("Runs the monitors")));
    QCOMPARE(help.options.size(), 4);
    QCOMPARE(help.options.at(0).names, (QStringList{QStringLiteral("-h"), QStringLiteral("--help")}));
    QCOMPARE(help.options.at(0).valueName, QString());
    QCOMPARE(help.options.at(1).names, QStringList{QStringLiteral("--db")});
    QCOMPARE(help.options.at(1).valueName, QStringLiteral("FILE|URL"));
    QCOMPARE(help.options.at(2).valueName, QStringLiteral("HOST:PORT"));
    QCOMPARE(help.arguments.size(), 1);
    QCOMPARE(help.arguments.first().name, QStringLiteral("FILE"));
    QCOMPARE(help.arguments.first().description, QStringLiteral("The monitors file (format retrylab-monitors)."));
    QVERIFY(help.option(QStringLiteral("--quiet")));
    QVERIFY(!help.option(QStringLiteral("--loud")));
    QVERIFY(help.epilogue.isEmpty());
}

void TestCommandHelp::parse_wrappedDescription_joinsItsLines()
{
    const CommandHelp help = CommandHelp::parse(monitorHelp, QStringLiteral("retrylab"));
    QCOMPARE(help.options.at(3).description,
        QStringLiteral("Print only changes of state and incidents, no banner and no summary."));
}

void TestCommandHelp::parse_wordCutAtTheLineEnd_joinsWithoutSpace()
{
    // Qt cuts a word longer than the rest of the line where the line ends.
    const CommandHelp help = CommandHelp::parse(monitorHelp, QStringLiteral("retrylab"));
    QVERIFY2(help.options.at(1).description.endsWith(
                 QLatin1String("Default: /root/.local/share/RetryLab/retrylab/history.sqlite.")),
        qPrintable(help.options.at(1).description));
}

void TestCommandHelp::parse_topLevel_readsTheCommandList()
{
    const CommandHelp help = CommandHelp::parse(topHelp, QStringLiteral("retrylab-cli"));
    QCOMPARE(help.usage, QStringList{QStringLiteral("retrylab-cli [options]")});
    QCOMPARE(help.commands.size(), 2);
    QCOMPARE(help.commands.at(0).name, QStringLiteral("run"));
    QCOMPARE(help.commands.at(0).description,
        QStringLiteral("run a scenario file and check its expectations (exit 0, 1, 2)"));
    // A name longer than the column pushes its summary one space further.
    QCOMPARE(help.commands.at(1).name, QStringLiteral("export-locust"));
    QCOMPARE(help.commands.at(1).description, QStringLiteral("write a Locust file"));
    // The list is not left in the description.
    for (const QString &paragraph : help.description)
        QVERIFY2(!paragraph.contains(QLatin1String("export-locust")), qPrintable(paragraph));
    QCOMPARE(help.options.size(), 2);
    QCOMPARE(help.options.at(1).names, (QStringList{QStringLiteral("-v"), QStringLiteral("--version")}));
}

void TestCommandHelp::parse_severalUsageForms_keepsEach()
{
    const CommandHelp help = CommandHelp::parse(
        QStringLiteral("Usage: retrylab proxy --upstream URL [options]\n"
                       "       retrylab proxy --forward [options]\n"
                       "Runs an HTTP/1.1 reverse proxy.\n\nOptions:\n  -h, --help  Show this help.\n"),
        QStringLiteral("retrylab"));
    QCOMPARE(help.usage,
        (QStringList{QStringLiteral("retrylab proxy --upstream URL [options]"),
            QStringLiteral("retrylab proxy --forward [options]")}));
    QCOMPARE(help.description, QStringList{QStringLiteral("Runs an HTTP/1.1 reverse proxy.")});
}

void TestCommandHelp::parse_textAfterTheArguments_isTheEpilogue()
{
    const CommandHelp help = CommandHelp::parse(
        monitorHelp + QStringLiteral("Examples:\n  retrylab monitor m.json\n"), QStringLiteral("retrylab"));
    QCOMPARE(help.arguments.size(), 1);
    QCOMPARE(help.epilogue, QStringList{QStringLiteral("Examples:\n  retrylab monitor m.json")});
}

void TestCommandHelp::parse_optionListAfterTheArguments_isReadAsOptions()
{
    // retrylab request lists curl's options after its own, in its own layout.
    const CommandHelp help = CommandHelp::parse(monitorHelp
            + QStringLiteral("Request options, read as curl reads them:\n"
                             "  --url URL                       The URL (also accepted as the positional\n"
                             "                                  argument).\n"
                             "  -H, --header \"NAME: VALUE\"      A request header.\n"
                             "  -x, --proxy [SCHEME://][USER:PASSWORD@]HOST[:PORT]\n"
                             "                                  Proxy: http:// (the default).\n"
                             "  --http2                         HTTP/2 where the server offers it.\n"
                             "Other curl options are refused.\n"),
        QStringLiteral("retrylab"));
    QCOMPARE(help.options.size(), 8);
    const OptionHelp *url = help.option(QStringLiteral("--url"));
    QVERIFY(url);
    QCOMPARE(url->valueName, QStringLiteral("URL"));
    QCOMPARE(url->description, QStringLiteral("The URL (also accepted as the positional argument)."));
    QCOMPARE(url->section, QStringLiteral("Request options, read as curl reads them"));
    const OptionHelp *header = help.option(QStringLiteral("-H"));
    QVERIFY(header);
    QCOMPARE(header->names, (QStringList{QStringLiteral("-H"), QStringLiteral("--header")}));
    QCOMPARE(header->valueName, QStringLiteral("\"NAME: VALUE\""));
    const OptionHelp *proxy = help.option(QStringLiteral("--proxy"));
    QVERIFY(proxy);
    QCOMPARE(proxy->valueName, QStringLiteral("[SCHEME://][USER:PASSWORD@]HOST[:PORT]"));
    QCOMPARE(proxy->description, QStringLiteral("Proxy: http:// (the default)."));
    QVERIFY(help.option(QStringLiteral("--http2")));
    QVERIFY(help.option(QStringLiteral("--quiet"))->section.isEmpty());
    QCOMPARE(help.epilogue, QStringList{QStringLiteral("Other curl options are refused.")});
}

void TestCommandHelp::escape_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("roff");
    QTest::addRow("an option's dashes are minus signs")
        << QStringLiteral("use --db or -q") << QStringLiteral("use \\-\\-db or \\-q");
    QTest::addRow("a hyphen inside a word stays") << QStringLiteral("per-minute") << QStringLiteral("per-minute");
    QTest::addRow("backslash") << QStringLiteral("C:\\dir") << QStringLiteral("C:\\edir");
    QTest::addRow("a line starting with a dot")
        << QStringLiteral(".json files\n'quoted'") << QStringLiteral("\\&.json files\n\\&'quoted'");
    QTest::addRow("beyond ASCII") << QStringLiteral("2^n \u00d7 base \u2014 done")
                                  << QStringLiteral("2^n \\[u00D7] base \\[u2014] done");
}

void TestCommandHelp::escape()
{
    QFETCH(QString, text);
    QFETCH(QString, roff);
    QCOMPARE(ManPage::escape(text), roff);
}

void TestCommandHelp::valuesOf_data()
{
    QTest::addColumn<QString>("valueName");
    QTest::addColumn<QString>("description");
    QTest::addColumn<int>("kind");
    QTest::addColumn<QStringList>("extensions");
    QTest::addColumn<bool>("presets");
    QTest::addRow("a number") << QStringLiteral("N") << QString() << int(CompletedValues::Nothing) << QStringList()
                              << false;
    QTest::addRow("an extension") << QStringLiteral("F.har") << QString() << int(CompletedValues::Files)
                                  << QStringList{QStringLiteral("har")} << false;
    QTest::addRow("a preset or a policy file")
        << QStringLiteral("PRESET|FILE") << QString() << int(CompletedValues::Files)
        << QStringList{QStringLiteral("json")} << true;
    QTest::addRow("a file the description calls JSON")
        << QStringLiteral("FILE") << QStringLiteral("The monitors file (format retrylab-monitors).")
        << int(CompletedValues::Files) << QStringList{QStringLiteral("json")} << false;
    QTest::addRow("any file") << QStringLiteral("FILE") << QStringLiteral("A CSV file.") << int(CompletedValues::Files)
                              << QStringList() << false;
    QTest::addRow("a folder") << QStringLiteral("DIR") << QString() << int(CompletedValues::Directories)
                              << QStringList() << false;
    QTest::addRow("a scenario or any collection") << QStringLiteral("SCENARIO.json|COLLECTION") << QString()
                                                  << int(CompletedValues::Files) << QStringList() << false;
}

void TestCommandHelp::valuesOf()
{
    QFETCH(QString, valueName);
    QFETCH(QString, description);
    QFETCH(int, kind);
    QFETCH(QStringList, extensions);
    QFETCH(bool, presets);
    const CompletedValues values = ShellCompletion::valuesOf(valueName, description);
    QCOMPARE(int(values.kind), kind);
    QCOMPARE(values.extensions, extensions);
    QCOMPARE(values.presets, presets);
}

void TestCommandHelp::positionalOf_actionWords()
{
    const CommandHelp help = CommandHelp::parse(
        QStringLiteral("Usage: retrylab policy export --format FORMAT [--preset ID | FILE] [options]\n"
                       "       retrylab policy check [--preset ID | FILE] [--clients N]\n"
                       "Exports or checks.\n\nOptions:\n  -h, --help  Show this help.\n"),
        QStringLiteral("retrylab"));
    const CompletedValues values = ShellCompletion::positionalOf(QStringLiteral("policy"), help);
    QCOMPARE(values.words, (QStringList{QStringLiteral("export"), QStringLiteral("check")}));
}

QTEST_GUILESS_MAIN(TestCommandHelp)
#include "tst_commandhelp.moc"
