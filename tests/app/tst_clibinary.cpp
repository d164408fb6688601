#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTest>

#include <csignal>

// retrylab-cli: the headless commands in a binary without Qt Gui, run here as on a
// machine without a display (no DISPLAY, no WAYLAND_DISPLAY, no QT_QPA_PLATFORM).
class TestCliBinary : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void ldd_listsNoGuiLibrary();
    void version_printsTheVersion();
    void help_listsTheHeadlessCommandsOnly();
    void noCommand_printsHelpAndExitsWithUsage();
    void unknownOrGuiCommand_exitsWithUsage_data();
    void unknownOrGuiCommand_exitsWithUsage();
    void run_builtInScenario_exitZero();
    void demo_quiet_printsTheComparison();
    void simulate_smallGrid_printsATable();
    void conformance_help_printsUsage();
    void serve_answersOnLoopback_thenStopsOnSigterm();

private:
    struct Outcome
    {
        int exitCode = -1;
        QString out;
        QString err;
    };
    static Outcome run(const QString &program, const QStringList &arguments, int timeoutMs = 60'000);
    static Outcome cli(const QStringList &arguments, int timeoutMs = 60'000)
    {
        return run(QStringLiteral(RETRYLAB_CLI_BINARY), arguments, timeoutMs);
    }
    static QProcessEnvironment withoutDisplay();
};

QProcessEnvironment TestCliBinary::withoutDisplay()
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char *name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
        env.remove(QLatin1String(name));
    return env;
}

TestCliBinary::Outcome TestCliBinary::run(const QString &program, const QStringList &arguments, int timeoutMs)
{
    QProcess process;
    process.setProcessEnvironment(withoutDisplay());
    process.start(program, arguments);
    Outcome outcome;
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished();
        outcome.err = QStringLiteral("did not finish: ") + process.errorString();
        return outcome;
    }
    outcome.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    outcome.out = QString::fromUtf8(process.readAllStandardOutput());
    outcome.err = QString::fromUtf8(process.readAllStandardError());
    return outcome;
}

void TestCliBinary::ldd_listsNoGuiLibrary()
{
    const Outcome cliLibraries = run(QStringLiteral("ldd"), {QStringLiteral(RETRYLAB_CLI_BINARY)});
    QCOMPARE(cliLibraries.exitCode, 0);
    QVERIFY2(cliLibraries.out.contains(QLatin1String("libQt6Core.so")), qPrintable(cliLibraries.out));
    QVERIFY2(cliLibraries.out.contains(QLatin1String("libQt6Network.so")), qPrintable(cliLibraries.out));
    for (const char *gui : {"libQt6Gui", "libQt6Widgets", "libQt6Charts", "libQt6OpenGL", "libGL", "libxcb"})
        QVERIFY2(!cliLibraries.out.contains(QLatin1String(gui)), qPrintable(QLatin1String(gui) + cliLibraries.out));

    // The same question asked of the window's binary says yes: the check can tell.
    const Outcome windowLibraries = run(QStringLiteral("ldd"), {QStringLiteral(RETRYLAB_BINARY)});
    QCOMPARE(windowLibraries.exitCode, 0);
    QVERIFY(windowLibraries.out.contains(QLatin1String("libQt6Gui")));
    QVERIFY(windowLibraries.out.contains(QLatin1String("libQt6Widgets")));
}

void TestCliBinary::version_printsTheVersion()
{
    const Outcome o = cli({QStringLiteral("--version")});
    QCOMPARE(o.exitCode, 0);
    QVERIFY2(
        QRegularExpression(QStringLiteral(R"(^retrylab \d+\.\d+\.\d+\n$)")).match(o.out).hasMatch(), qPrintable(o.out));
    QCOMPARE(o.out, run(QStringLiteral(RETRYLAB_BINARY), {QStringLiteral("--version")}).out);
}

void TestCliBinary::help_listsTheHeadlessCommandsOnly()
{
    const Outcome o = cli({QStringLiteral("--help")});
    QCOMPARE(o.exitCode, 0);
    for (const char *command : {"run", "demo", "conformance", "serve", "simulate"}) {
        QVERIFY2(o.out.contains(QRegularExpression(QStringLiteral("\\n  %1 ").arg(QLatin1String(command)))),
            qPrintable(o.out));
    }
    QVERIFY(!o.out.contains(QLatin1String("screenshot")));
    QVERIFY(!o.out.contains(QLatin1String("opens the window")));
    QVERIFY(o.out.contains(QLatin1String("retrylab-cli COMMAND --help")));
}

void TestCliBinary::noCommand_printsHelpAndExitsWithUsage()
{
    const Outcome o = cli({});
    QCOMPARE(o.exitCode, 2);
    QVERIFY(o.out.isEmpty());
    QVERIFY2(o.err.contains(QLatin1String("Commands:")), qPrintable(o.err));
}

void TestCliBinary::unknownOrGuiCommand_exitsWithUsage_data()
{
    QTest::addColumn<QString>("command");
    QTest::addRow("unknown") << QStringLiteral("frobnicate");
    QTest::addRow("screenshot needs the window") << QStringLiteral("screenshot");
}

void TestCliBinary::unknownOrGuiCommand_exitsWithUsage()
{
    QFETCH(QString, command);
    const Outcome o = cli({command});
    QCOMPARE(o.exitCode, 2);
    QVERIFY2(o.err.contains(QStringLiteral("retrylab-cli: unknown command \"%1\"").arg(command)), qPrintable(o.err));
}

void TestCliBinary::run_builtInScenario_exitZero()
{
    const Outcome o = cli({QStringLiteral("run"), QStringLiteral(":/scenarios/flaky-service.json")});
    QVERIFY2(o.exitCode == 0, qPrintable(o.out + o.err));
    QVERIFY(o.out.contains(QLatin1String("5 of 5 expectations hold")));
}

void TestCliBinary::demo_quiet_printsTheComparison()
{
    const Outcome o = cli({QStringLiteral("demo"), QStringLiteral("-q")}, 30'000);
    QVERIFY2(o.exitCode == 0, qPrintable(o.out + o.err));
    QVERIFY2(o.out.contains(QLatin1String("jitter")), qPrintable(o.out));
}

void TestCliBinary::simulate_smallGrid_printsATable()
{
    const Outcome o = cli({QStringLiteral("simulate"), QStringLiteral("--clients"), QStringLiteral("20"),
        QStringLiteral("--runs"), QStringLiteral("2"), QStringLiteral("--quiet")});
    QVERIFY2(o.exitCode == 0, qPrintable(o.out + o.err));
    QVERIFY2(o.out.contains(QLatin1String("full-jitter")), qPrintable(o.out));
}

void TestCliBinary::conformance_help_printsUsage()
{
    const Outcome o = cli({QStringLiteral("conformance"), QStringLiteral("--help")});
    QCOMPARE(o.exitCode, 0);
    QVERIFY(o.out.startsWith(QLatin1String("Usage: retrylab conformance")));
}

void TestCliBinary::serve_answersOnLoopback_thenStopsOnSigterm()
{
    QProcess process;
    process.setProcessEnvironment(withoutDisplay());
    process.start(QStringLiteral(RETRYLAB_CLI_BINARY), {QStringLiteral("serve"), QStringLiteral("--quiet")});
    QVERIFY(process.waitForStarted(10'000));
    static const QRegularExpression listening(QStringLiteral("(http://127\\.0\\.0\\.1:\\d+)"));
    QByteArray output;
    QRegularExpressionMatch match;
    QTRY_VERIFY_WITH_TIMEOUT((output += process.readAllStandardOutput(),
                                 match = listening.match(QString::fromLocal8Bit(output)), match.hasMatch()),
        10'000);

    QNetworkAccessManager manager;
    QNetworkReply *reply = manager.get(QNetworkRequest(QUrl(match.captured(1) + QStringLiteral("/status/503"))));
    QSignalSpy finished(reply, &QNetworkReply::finished);
    QVERIFY(finished.wait(10'000));
    QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 503);
    reply->deleteLater();

    ::kill(pid_t(process.processId()), SIGTERM);
    QVERIFY(process.waitForFinished(10'000));
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QCOMPARE(process.exitCode(), 0);
}

QTEST_GUILESS_MAIN(TestCliBinary)
#include "tst_clibinary.moc"
