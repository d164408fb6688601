// Suites that need a third-party tool (curl, nginx, node, Python packages,
// Locust, ...) cannot pass by skipping where every tool is installed: under CI
// and ./scripts/test.sh a missing one fails and names its package
// (tests/tools/requiredtool.h). Checked here both ways: the macro's behaviour,
// run in a child process, and the test sources, none of which skips a missing
// tool on its own.

#include "tests/tools/requiredtool.h"
#include <QDirIterator>
#include <QProcess>
#include <QRegularExpression>
#include <QTest>

class TestRequiredTools : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void missingTool_failsUnderCi_skipsElsewhere_data();
    void missingTool_failsUnderCi_skipsElsewhere();
    void noSuiteSkipsAMissingToolOnItsOwn();
    // Run only in the child process (RETRYLAB_REQUIREDTOOLS_CHILD=1).
    void child_missesATool();
};

void TestRequiredTools::missingTool_failsUnderCi_skipsElsewhere_data()
{
    QTest::addColumn<QString>("ci");
    QTest::addColumn<QString>("require");
    QTest::addColumn<bool>("fails");
    QTest::addRow("CI=true") << "true"
                             << "" << true;
    QTest::addRow("scripts/test.sh") << ""
                                     << "1" << true;
    QTest::addRow("a developer's machine") << ""
                                           << "" << false;
    QTest::addRow("CI=false") << "false"
                              << "0" << false;
}

void TestRequiredTools::missingTool_failsUnderCi_skipsElsewhere()
{
    QFETCH(QString, ci);
    QFETCH(QString, require);
    QFETCH(bool, fails);
    QProcess child;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("RETRYLAB_REQUIREDTOOLS_CHILD"), QStringLiteral("1"));
    env.insert(QStringLiteral("CI"), ci);
    env.insert(QStringLiteral("RETRYLAB_REQUIRE_TOOLS"), require);
    child.setProcessEnvironment(env);
    child.setProcessChannelMode(QProcess::MergedChannels);
    child.start(QCoreApplication::applicationFilePath(), {QStringLiteral("child_missesATool")});
    QVERIFY(child.waitForFinished(30'000));
    const QByteArray out = child.readAll();
    QCOMPARE(child.exitCode() != 0, fails);
    QVERIFY2(out.contains(fails ? "FAIL!" : "SKIP"), out.constData());
    QVERIFY2(out.contains("install the Debian package example-tool"), out.constData());
}

void TestRequiredTools::noSuiteSkipsAMissingToolOnItsOwn()
{
    // A QSKIP whose message speaks of installing something is a missing tool
    // skipped past the rule: it must go through RETRYLAB_MISSING_TOOL.
    static const QRegularExpression bareSkip(QStringLiteral(R"((QSKIP|qSkip)\s*\(\s*"[^"]*(install|deps\.sh))"));
    QStringList offenders;
    QDirIterator it(QStringLiteral(RETRYLAB_SOURCE_DIR "/tests"), {QStringLiteral("*.cpp"), QStringLiteral("*.h")},
        QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(file.readAll());
        if (text.contains(bareSkip))
            offenders.append(path);
    }
    QVERIFY2(offenders.isEmpty(), qPrintable(offenders.join(QLatin1Char('\n'))));
}

void TestRequiredTools::child_missesATool()
{
    if (qEnvironmentVariable("RETRYLAB_REQUIREDTOOLS_CHILD") != QLatin1String("1"))
        return; // only meaningful in the child the tests above start
    RETRYLAB_MISSING_TOOL("example-tool is not installed: install the Debian package example-tool");
}

QTEST_GUILESS_MAIN(TestRequiredTools)
#include "tst_requiredtools.moc"
