#include "app/docgen/commandhelp.h"
#include "app/docgen/manpage.h"
#include "app/docgen/shellcompletion.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QSaveFile>
#include <QSet>
#include <QTextStream>

#include <cstdio>

// retrylab-docgen: the manual pages and the shell completions of both programs,
// made at build time from what each program's --help says (the option tables of
// its commands), so that an option or a command added there appears in both.
// Not installed; CMake runs it after building the programs (app/docgen/CMakeLists.txt).

namespace {

using namespace RetryLab::DocGen;

QTextStream &err()
{
    static QTextStream stream(stderr);
    return stream;
}

// The help of `program` (with `arguments`), in English and with the home folder as
// "~": the default paths it names are then those of whoever reads the page.
std::optional<QString> helpOf(const QString &program, const QStringList &arguments)
{
    QProcess process;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    for (const QString &name : {QStringLiteral("XDG_DATA_HOME"), QStringLiteral("XDG_CONFIG_HOME"),
             QStringLiteral("XDG_CACHE_HOME"), QStringLiteral("XDG_STATE_HOME"), QStringLiteral("LANGUAGE")})
        environment.remove(name);
    environment.insert(QStringLiteral("HOME"), QStringLiteral("~"));
    environment.insert(QStringLiteral("LC_ALL"), QStringLiteral("C.UTF-8"));
    environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    process.setProcessEnvironment(environment);
    process.start(program, arguments);
    if (!process.waitForFinished(60000) || process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) {
        err() << "retrylab-docgen: " << program << ' ' << arguments.join(QLatin1Char(' '))
              << " failed: " << QString::fromLocal8Bit(process.readAllStandardError()) << process.errorString()
              << Qt::endl;
        return std::nullopt;
    }
    return QString::fromUtf8(process.readAllStandardOutput());
}

bool writeFile(const QString &path, const QString &text)
{
    QDir().mkpath(QFileInfo(path).path());
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(text.toUtf8()) < 0 || !file.commit()) {
        err() << "retrylab-docgen: cannot write " << path << ": " << file.errorString() << Qt::endl;
        return false;
    }
    return true;
}

// "RetryLab: see and test ..." -> the NAME line of the page.
QString summaryOf(const CommandHelp &help)
{
    QString first = help.description.value(0).section(QLatin1Char('\n'), 0, 0).trimmed();
    if (first.endsWith(QLatin1Char('.')))
        first.chop(1);
    return first;
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Writes OUT/man/PROGRAM/*.1 and OUT/completion/{bash,zsh,fish}/ from the --help of each program."));
    const QCommandLineOption out(
        QStringLiteral("out"), QStringLiteral("The folder to write to."), QStringLiteral("DIR"));
    const QCommandLineOption program(QStringLiteral("program"),
        QStringLiteral("A program and its binary; a command's page is written for the first that has it."),
        QStringLiteral("NAME=PATH"));
    const QCommandLineOption version(
        QStringLiteral("version"), QStringLiteral("RetryLab's version."), QStringLiteral("V"));
    const QCommandLineOption presets(
        QStringLiteral("presets"), QStringLiteral("The policy presets, comma-separated."), QStringLiteral("IDS"));
    parser.addHelpOption();
    parser.addOptions({out, program, version, presets});
    parser.process(app);
    if (!parser.isSet(out) || parser.values(program).isEmpty()) {
        err() << "retrylab-docgen: --out and --program are needed" << Qt::endl;
        return 2;
    }
    const QDir outDir(parser.value(out));
    // What an earlier build wrote for a command that is gone must not be installed.
    QDir(outDir.filePath(QStringLiteral("man"))).removeRecursively();
    QDir(outDir.filePath(QStringLiteral("completion"))).removeRecursively();
    const QString versionText = parser.value(version);

    QStringList programNames;
    for (const QString &entry : parser.values(program))
        programNames.append(entry.section(QLatin1Char('='), 0, 0));

    QSet<QString> pagesWritten;
    for (const QString &entry : parser.values(program)) {
        const QString name = entry.section(QLatin1Char('='), 0, 0);
        const QString binary = entry.section(QLatin1Char('='), 1);
        const auto topText = helpOf(binary, {QStringLiteral("--help")});
        if (!topText)
            return 1;
        ProgramHelp help;
        help.program = name;
        help.version = versionText;
        help.top = CommandHelp::parse(*topText, name);
        help.presets = parser.value(presets).split(QLatin1Char(','), Qt::SkipEmptyParts);
        if (help.top.commands.isEmpty()) {
            err() << "retrylab-docgen: " << binary << " --help lists no command" << Qt::endl;
            return 1;
        }

        ManPageInfo topInfo;
        topInfo.name = name;
        topInfo.summary = summaryOf(help.top);
        topInfo.version = QStringLiteral("RetryLab ") + versionText;
        for (const QString &other : std::as_const(programNames)) {
            if (other != name)
                topInfo.seeAlso.append(other);
        }
        for (const ItemHelp &command : std::as_const(help.top.commands)) {
            const QString page = QStringLiteral("retrylab-") + command.name;
            topInfo.commandPages.append(page);
            const auto text = helpOf(binary, {command.name, QStringLiteral("--help")});
            if (!text)
                return 1;
            const CommandHelp commandHelp = CommandHelp::parse(*text, name);
            help.commands.append({command.name, commandHelp});
            if (pagesWritten.contains(page))
                continue;
            pagesWritten.insert(page);
            ManPageInfo info;
            info.name = page;
            info.summary = command.description;
            info.version = topInfo.version;
            info.seeAlso = programNames;
            if (!writeFile(
                    outDir.filePath(QStringLiteral("man/%1/%2.1").arg(name, page)), ManPage::write(commandHelp, info)))
                return 1;
        }
        if (!writeFile(outDir.filePath(QStringLiteral("man/%1/%1.1").arg(name)), ManPage::write(help.top, topInfo)))
            return 1;

        const ShellCompletion completion(help);
        if (!writeFile(outDir.filePath(QStringLiteral("completion/bash/") + name), completion.bash())
            || !writeFile(outDir.filePath(QStringLiteral("completion/zsh/_") + name), completion.zsh())
            || !writeFile(outDir.filePath(QStringLiteral("completion/fish/%1.fish").arg(name)), completion.fish()))
            return 1;
    }
    return 0;
}
