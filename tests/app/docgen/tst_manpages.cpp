#include "app/docgen/commandhelp.h"
#include "tests/tools/requiredtool.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTest>

using namespace RetryLab::DocGen;

// The manual pages the build made from the programs' --help (app/docgen): one per
// program and per command, each holding every option its command's help lists, and
// each formatted by groff -ww and man --warnings without a single warning.
class TestManPages : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void everyCommand_hasItsPage();
    void everyOption_isInItsCommandsPage_data();
    void everyOption_isInItsCommandsPage();
    void groff_formatsEachPage_withoutWarnings_data();
    void groff_formatsEachPage_withoutWarnings();
    void man_showsThePage_withoutWarnings_data();
    void man_showsThePage_withoutWarnings();
    void defaultPaths_nameTheReadersHome();

private:
    QStringList m_commands; ///< what retrylab-cli --help lists
};

namespace {

const QString manDir = QStringLiteral(RETRYLAB_GENERATED_DOCS "/man");

struct Output
{
    int exitCode = -1;
    QString out;
    QString err;
};

Output runProgram(const QString &program, const QStringList &arguments, const QProcessEnvironment &environment = {})
{
    QProcess process;
    if (!environment.isEmpty())
        process.setProcessEnvironment(environment);
    process.start(program, arguments);
    if (!process.waitForFinished(60000))
        return {};
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
        QString::fromUtf8(process.readAllStandardOutput()), QString::fromUtf8(process.readAllStandardError())};
}

QStringList allPages()
{
    QStringList pages;
    for (const QString &program : {QStringLiteral("retrylab-cli"), QStringLiteral("retrylab")}) {
        const QDir dir(manDir + QLatin1Char('/') + program);
        for (const QString &name : dir.entryList({QStringLiteral("*.1")}, QDir::Files))
            pages.append(dir.filePath(name));
    }
    return pages;
}

QString readText(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

} // namespace

void TestManPages::initTestCase()
{
    const Output top = runProgram(QStringLiteral(RETRYLAB_CLI_BINARY), {QStringLiteral("--help")});
    QCOMPARE(top.exitCode, 0);
    for (const ItemHelp &command : CommandHelp::parse(top.out, QStringLiteral("retrylab-cli")).commands)
        m_commands.append(command.name);
    QVERIFY2(m_commands.size() >= 10, qPrintable(top.out));
}

void TestManPages::everyCommand_hasItsPage()
{
    QVERIFY(QFile::exists(manDir + QStringLiteral("/retrylab-cli/retrylab-cli.1")));
    QVERIFY(QFile::exists(manDir + QStringLiteral("/retrylab/retrylab.1")));
    QVERIFY(QFile::exists(manDir + QStringLiteral("/retrylab/retrylab-screenshot.1")));
    for (const QString &command : std::as_const(m_commands)) {
        const QString page = manDir + QStringLiteral("/retrylab-cli/retrylab-%1.1").arg(command);
        QVERIFY2(QFile::exists(page), qPrintable(page));
        QVERIFY2(QFile::exists(page + QStringLiteral(".gz")), qPrintable(page + QStringLiteral(".gz")));
        // The top page points at it.
        QVERIFY(readText(manDir + QStringLiteral("/retrylab-cli/retrylab-cli.1"))
                    .contains(QStringLiteral("\\fBretrylab\\-%1\\fR(1)")
                                  .arg(QString(command).replace(QLatin1Char('-'), QStringLiteral("\\-")))));
    }
}

void TestManPages::everyOption_isInItsCommandsPage_data()
{
    QTest::addColumn<QString>("command");
    for (const QString &command : std::as_const(m_commands))
        QTest::addRow("%s", qPrintable(command)) << command;
}

void TestManPages::everyOption_isInItsCommandsPage()
{
    QFETCH(QString, command);
    const Output help = runProgram(QStringLiteral(RETRYLAB_CLI_BINARY), {command, QStringLiteral("--help")});
    QCOMPARE(help.exitCode, 0);
    // The options as the help prints them, read without the generator's parser.
    static const QRegularExpression optionLine(
        QStringLiteral(R"(^  (?:-(\w), )?--([\w.-]*\w))"), QRegularExpression::MultilineOption);
    const QString page = readText(manDir + QStringLiteral("/retrylab-cli/retrylab-%1.1").arg(command));
    QVERIFY(!page.isEmpty());
    int count = 0;
    for (auto it = optionLine.globalMatch(help.out); it.hasNext();) {
        const auto match = it.next();
        const QString name = QStringLiteral("\\fB\\-\\-%1\\fR")
                                 .arg(match.captured(2).replace(QLatin1Char('-'), QStringLiteral("\\-")));
        QVERIFY2(page.contains(name), qPrintable(command + QStringLiteral(": no ") + name));
        ++count;
    }
    QVERIFY2(count >= 1, qPrintable(help.out));
    QVERIFY(page.contains(QLatin1String(".SH SYNOPSIS")));
    QVERIFY(page.contains(QLatin1String(".SH OPTIONS")));
}

void TestManPages::groff_formatsEachPage_withoutWarnings_data()
{
    QTest::addColumn<QString>("page");
    for (const QString &page : allPages())
        QTest::addRow("%s", qPrintable(QFileInfo(page).fileName())) << page;
}

void TestManPages::groff_formatsEachPage_withoutWarnings()
{
    QFETCH(QString, page);
    if (QStandardPaths::findExecutable(QStringLiteral("groff")).isEmpty())
        RETRYLAB_MISSING_TOOL("groff is missing (Debian package groff-base)");
    const Output output = runProgram(QStringLiteral("groff"),
        {QStringLiteral("-ww"), QStringLiteral("-b"), QStringLiteral("-z"), QStringLiteral("-man"),
            QStringLiteral("-Tutf8"), page});
    QCOMPARE(output.exitCode, 0);
    QVERIFY2(output.err.isEmpty(), qPrintable(output.err));
}

void TestManPages::man_showsThePage_withoutWarnings_data()
{
    groff_formatsEachPage_withoutWarnings_data();
}

void TestManPages::man_showsThePage_withoutWarnings()
{
    QFETCH(QString, page);
    if (QStandardPaths::findExecutable(QStringLiteral("man")).isEmpty())
        RETRYLAB_MISSING_TOOL("man is missing (Debian package man-db)");
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("MANWIDTH"), QStringLiteral("80"));
    environment.insert(QStringLiteral("LC_ALL"), QStringLiteral("C.UTF-8"));
    // The .gz as installed: man reads it as it would from /usr/share/man.
    const Output output = runProgram(QStringLiteral("man"),
        {QStringLiteral("--warnings"), QStringLiteral("-l"), page + QStringLiteral(".gz")}, environment);
    QCOMPARE(output.exitCode, 0);
    QVERIFY2(output.err.isEmpty(), qPrintable(output.err));
    const QString name = QFileInfo(page).completeBaseName();
    QVERIFY2(output.out.contains(QLatin1String("NAME")) && output.out.contains(name), qPrintable(output.out));
    QVERIFY(output.out.contains(QLatin1String("SYNOPSIS")));
}

void TestManPages::defaultPaths_nameTheReadersHome()
{
    // The build's own home folder must not end up in a page: the default history file
    // is written as ~/... for whoever reads it.
    // (Without the break points the page allows in long words.)
    const QString page
        = readText(manDir + QStringLiteral("/retrylab-cli/retrylab-monitor.1")).remove(QStringLiteral("\\:"));
    QVERIFY2(page.contains(QLatin1String("~/.local/share/RetryLab/retrylab/history.sqlite")), qPrintable(page));
    const QString home = QDir::homePath();
    for (const QString &path : allPages())
        QVERIFY2(!readText(path).contains(home + QLatin1Char('/')), qPrintable(path));
}

QTEST_GUILESS_MAIN(TestManPages)
#include "tst_manpages.moc"
