#include "app/docgen/commandhelp.h"
#include "tests/tools/requiredtool.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace RetryLab::DocGen;

// The completion scripts the build made from the programs' --help (app/docgen), driven
// by the shells themselves: bash's completion function called as bash calls it on Tab,
// and loaded by bash-completion from where the package installs it; fish's
// `complete -C`; zsh's parser. Files complete in a folder of the suite's own.
class TestShellCompletion : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void bash_offers_data();
    void bash_offers();
    void bash_offersEveryOptionOfEveryCommand();
    void bashCompletion_loadsTheScriptFromItsFolder();
    void fish_offers_data();
    void fish_offers();
    void zsh_readsTheScripts_andCompinitTiesThemToTheirPrograms();

private:
    QTemporaryDir m_dir; ///< the current folder of the shells: files to complete
    QStringList m_commands;
};

namespace {

const QString completionDir = QStringLiteral(RETRYLAB_GENERATED_DOCS "/completion");

struct ShellOutput
{
    int exitCode = -1;
    QStringList lines;
    QString err;
};

ShellOutput runShell(const QString &shell, const QStringList &arguments, const QString &folder)
{
    QProcess process;
    process.setWorkingDirectory(folder);
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("HOME"), folder);
    environment.insert(QStringLiteral("XDG_CONFIG_HOME"), folder + QStringLiteral("/config"));
    environment.insert(QStringLiteral("XDG_DATA_HOME"), folder + QStringLiteral("/data"));
    process.setProcessEnvironment(environment);
    process.start(shell, arguments);
    if (!process.waitForFinished(60000))
        return {};
    ShellOutput output;
    output.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    output.lines = QString::fromUtf8(process.readAllStandardOutput()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    output.err = QString::fromUtf8(process.readAllStandardError());
    return output;
}

// What bash's completion function puts in COMPREPLY for `line`, the cursor at its end,
// as bash sets the variables when Tab is pressed (COMP_WORDS split at blanks).
ShellOutput bashComplete(const QString &program, const QString &line, const QString &folder)
{
    QStringList words = line.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    if (line.endsWith(QLatin1Char(' ')))
        words.append(QString());
    QString array;
    for (const QString &word : std::as_const(words))
        array += QLatin1Char('\'') + word + QStringLiteral("' ");
    QString function = QLatin1Char('_') + program;
    function.replace(QLatin1Char('-'), QLatin1Char('_'));
    const QString script = QStringLiteral("source '%1/bash/%2' || exit 3\n"
                                          "COMP_WORDS=(%3); COMP_CWORD=%4; COMP_LINE='%5'; COMP_POINT=${#COMP_LINE}\n"
                                          "%6 '%2' \"${COMP_WORDS[COMP_CWORD]}\" \"${COMP_WORDS[COMP_CWORD-1]}\"\n"
                                          "printf '%s\\n' \"${COMPREPLY[@]}\"\n")
                               .arg(completionDir, program, array)
                               .arg(words.size() - 1)
                               .arg(line, function);
    return runShell(QStringLiteral("bash"), {QStringLiteral("--norc"), QStringLiteral("-c"), script}, folder);
}

bool toolMissing(const char *tool)
{
    return QStandardPaths::findExecutable(QString::fromLatin1(tool)).isEmpty();
}

} // namespace

void TestShellCompletion::initTestCase()
{
    QVERIFY(m_dir.isValid());
    const QDir dir(m_dir.path());
    for (const QString &name : {QStringLiteral("plan.json"), QStringLiteral("notes.txt"), QStringLiteral("run.har")}) {
        QFile file(dir.filePath(name));
        QVERIFY(file.open(QIODevice::WriteOnly));
    }
    QVERIFY(dir.mkdir(QStringLiteral("results")));

    QProcess process;
    process.start(QStringLiteral(RETRYLAB_CLI_BINARY), {QStringLiteral("--help")});
    QVERIFY(process.waitForFinished(60000));
    const CommandHelp top
        = CommandHelp::parse(QString::fromUtf8(process.readAllStandardOutput()), QStringLiteral("retrylab-cli"));
    for (const ItemHelp &command : top.commands)
        m_commands.append(command.name);
    QVERIFY(m_commands.contains(QStringLiteral("monitor")));
}

void TestShellCompletion::bash_offers_data()
{
    QTest::addColumn<QString>("program");
    QTest::addColumn<QString>("line");
    QTest::addColumn<QStringList>("offered");
    QTest::addColumn<QStringList>("notOffered");
    const auto list = [](std::initializer_list<const char *> items) {
        QStringList result;
        for (const char *item : items)
            result.append(QString::fromLatin1(item));
        return result;
    };
    QTest::addRow("a command") << "retrylab-cli"
                               << "retrylab-cli mon" << list({"monitor"}) << list({"run", "history"});
    QTest::addRow("the top level's options") << "retrylab-cli"
                                             << "retrylab-cli --v" << list({"--version"}) << list({"run"});
    QTest::addRow("the window's files beside its commands")
        << "retrylab"
        << "retrylab " << list({"screenshot", "run", "plan.json", "results"}) << list({"--seed"});
    QTest::addRow("the window's own command") << "retrylab"
                                              << "retrylab scr" << list({"screenshot"}) << list({"serve"});
    QTest::addRow("a command's options") << "retrylab-cli"
                                         << "retrylab-cli monitor --d" << list({"--db", "--duration"})
                                         << list({"--quiet", "--agent"});
    QTest::addRow("preset names") << "retrylab-cli"
                                  << "retrylab-cli run --policy aws-" << list({"aws-standard", "aws-adaptive"})
                                  << list({"polly-default"});
    QTest::addRow("a policy file beside the presets")
        << "retrylab-cli"
        << "retrylab-cli compare --policy pl" << list({"plan.json"}) << list({});
    QTest::addRow("a file by its extension")
        << "retrylab-cli"
        << "retrylab-cli run --har " << list({"run.har", "results"}) << list({"plan.json", "notes.txt"});
    QTest::addRow("a monitors file is JSON")
        << "retrylab-cli"
        << "retrylab-cli monitor " << list({"plan.json", "results"}) << list({"notes.txt", "run.har"});
    QTest::addRow("a value that is no file")
        << "retrylab-cli"
        << "retrylab-cli run --seed " << list({}) << list({"plan.json", "--quiet"});
    QTest::addRow("an action") << "retrylab-cli"
                               << "retrylab-cli policy " << list({"export", "check"}) << list({});
}

void TestShellCompletion::bash_offers()
{
    QFETCH(QString, program);
    QFETCH(QString, line);
    QFETCH(QStringList, offered);
    QFETCH(QStringList, notOffered);
    if (toolMissing("bash"))
        RETRYLAB_MISSING_TOOL("bash is missing (Debian package bash)");
    const ShellOutput output = bashComplete(program, line, m_dir.path());
    QCOMPARE(output.exitCode, 0);
    QVERIFY2(output.err.isEmpty(), qPrintable(output.err));
    const QString shown = output.lines.join(QLatin1Char(' '));
    for (const QString &word : std::as_const(offered))
        QVERIFY2(output.lines.contains(word), qPrintable(word + QStringLiteral(" not in: ") + shown));
    for (const QString &word : std::as_const(notOffered))
        QVERIFY2(!output.lines.contains(word), qPrintable(word + QStringLiteral(" in: ") + shown));
    if (offered.isEmpty())
        QVERIFY2(output.lines.isEmpty(), qPrintable(shown));
}

void TestShellCompletion::bash_offersEveryOptionOfEveryCommand()
{
    if (toolMissing("bash"))
        RETRYLAB_MISSING_TOOL("bash is missing (Debian package bash)");
    for (const QString &command : std::as_const(m_commands)) {
        QProcess process;
        process.start(QStringLiteral(RETRYLAB_CLI_BINARY), {command, QStringLiteral("--help")});
        QVERIFY(process.waitForFinished(60000));
        const CommandHelp help
            = CommandHelp::parse(QString::fromUtf8(process.readAllStandardOutput()), QStringLiteral("retrylab-cli"));
        QVERIFY2(!help.options.isEmpty(), qPrintable(command));
        const ShellOutput output = bashComplete(
            QStringLiteral("retrylab-cli"), QStringLiteral("retrylab-cli %1 -").arg(command), m_dir.path());
        for (const OptionHelp &option : help.options) {
            for (const QString &name : option.names)
                QVERIFY2(output.lines.contains(name), qPrintable(command + QLatin1Char(' ') + name));
        }
    }
}

void TestShellCompletion::bashCompletion_loadsTheScriptFromItsFolder()
{
    // bash-completion looks for a command's script in XDG_DATA_DIRS/bash-completion/completions,
    // where the package puts it (/usr/share).
    const QString loader = QStringLiteral("/usr/share/bash-completion/bash_completion");
    if (!QFile::exists(loader))
        RETRYLAB_MISSING_TOOL("bash-completion is missing (Debian package bash-completion)");
    const QString share = m_dir.filePath(QStringLiteral("share"));
    QVERIFY(QDir().mkpath(share + QStringLiteral("/bash-completion/completions")));
    QVERIFY(QFile::copy(completionDir + QStringLiteral("/bash/retrylab-cli"),
        share + QStringLiteral("/bash-completion/completions/retrylab-cli")));
    const QString script = QStringLiteral("export XDG_DATA_DIRS='%1'\nsource %2\n"
                                          "__load_completion retrylab-cli || exit 4\ncomplete -p retrylab-cli\n")
                               .arg(share, loader);
    const ShellOutput output
        = runShell(QStringLiteral("bash"), {QStringLiteral("--norc"), QStringLiteral("-c"), script}, m_dir.path());
    QCOMPARE(output.exitCode, 0);
    QCOMPARE(output.lines, QStringList{QStringLiteral("complete -F _retrylab_cli retrylab-cli")});
}

void TestShellCompletion::fish_offers_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<QString>("offered");
    QTest::addColumn<QString>("notOffered");
    QTest::addRow("a command") << "retrylab-cli mon"
                               << "monitor"
                               << "run";
    QTest::addRow("a command's options") << "retrylab-cli monitor --d"
                                         << "--db"
                                         << "--quiet";
    QTest::addRow("preset names") << "retrylab-cli run --policy aws-"
                                  << "aws-standard"
                                  << "polly-default";
    // fish lists the files of the extension first, then the others (__fish_complete_suffix).
    QTest::addRow("a file by its extension, first") << "retrylab-cli run --har "
                                                    << "run.har"
                                                    << "";
}

void TestShellCompletion::fish_offers()
{
    QFETCH(QString, line);
    QFETCH(QString, offered);
    QFETCH(QString, notOffered);
    if (toolMissing("fish"))
        RETRYLAB_MISSING_TOOL("fish is missing (Debian package fish)");
    const QString script
        = QStringLiteral("source '%1/fish/retrylab-cli.fish'; or exit 3\ncomplete -C'%2'\n").arg(completionDir, line);
    const ShellOutput output
        = runShell(QStringLiteral("fish"), {QStringLiteral("--no-config"), QStringLiteral("-c"), script}, m_dir.path());
    QCOMPARE(output.exitCode, 0);
    QVERIFY2(output.err.isEmpty(), qPrintable(output.err));
    QStringList words;
    for (const QString &shown : output.lines)
        words.append(shown.section(QLatin1Char('\t'), 0, 0));
    QVERIFY2(words.contains(offered), qPrintable(output.lines.join(QLatin1Char('\n'))));
    if (notOffered.isEmpty())
        QCOMPARE(words.value(0), offered);
    else
        QVERIFY2(!words.contains(notOffered), qPrintable(output.lines.join(QLatin1Char('\n'))));
}

void TestShellCompletion::zsh_readsTheScripts_andCompinitTiesThemToTheirPrograms()
{
    if (toolMissing("zsh"))
        RETRYLAB_MISSING_TOOL("zsh is missing (Debian package zsh)");
    for (const QString &name : {QStringLiteral("_retrylab"), QStringLiteral("_retrylab-cli")}) {
        const QString path = completionDir + QStringLiteral("/zsh/") + name;
        QFile file(path);
        QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(path));
        // compinit finds a function by its first line.
        QVERIFY(file.readLine().startsWith("#compdef retrylab"));
        const ShellOutput output = runShell(QStringLiteral("zsh"), {QStringLiteral("-n"), path}, m_dir.path());
        QCOMPARE(output.exitCode, 0);
        QVERIFY2(output.err.isEmpty(), qPrintable(output.err));
    }
    // compinit, given the folder in fpath as /usr/share/zsh/vendor-completions is, ties
    // each function to its program.
    const QString script = QStringLiteral("fpath=('%1/zsh' $fpath)\nautoload -U compinit\n"
                                          "compinit -u -d '%2/zcompdump'\n"
                                          "print -r -- $_comps[retrylab] $_comps[retrylab-cli]\n")
                               .arg(completionDir, m_dir.path());
    const ShellOutput output
        = runShell(QStringLiteral("zsh"), {QStringLiteral("-f"), QStringLiteral("-c"), script}, m_dir.path());
    QCOMPARE(output.exitCode, 0);
    QCOMPARE(output.lines, QStringList{QStringLiteral("_retrylab _retrylab-cli")});
}

QTEST_GUILESS_MAIN(TestShellCompletion)
#include "tst_shellcompletion.moc"
