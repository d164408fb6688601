#include <QDir>
#include <QFile>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

// `retrylab FILE...` as a file manager runs it: the real binary, a fresh user, the
// offscreen platform. Each kind of file opens where it belongs (the window says so in
// RETRYLAB_OPEN_LOG), and a second `retrylab FILE` or `retrylab --monitors` hands its
// request to the window already open and exits, instead of opening another window with
// a second embedded server.
class TestWindowFiles : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanup();
    void eachKind_opensWhereItBelongs();
    void secondInstance_handsItsFileToTheOpenWindow();
    void nameThatIsNeitherCommandNorFile_isAnUnknownCommand();

private:
    QProcessEnvironment environment() const;
    std::unique_ptr<QProcess> startWindow(const QStringList &arguments);
    QStringList logLines() const;
    QString writeFile(const QString &name, const QByteArray &bytes);

    QTemporaryDir m_home;
    QString m_log;
    QString m_report;
    std::unique_ptr<QProcess> m_window;
};

void TestWindowFiles::initTestCase()
{
    QVERIFY(m_home.isValid());
    m_log = m_home.filePath(QStringLiteral("opened.log"));
    // A report as retrylab run writes it.
    m_report = m_home.filePath(QStringLiteral("run.json"));
    QProcess run;
    run.start(QStringLiteral(RETRYLAB_CLI_BINARY),
        {QStringLiteral("run"), QStringLiteral(":/scenarios/flaky-service.json"), QStringLiteral("-q"),
            QStringLiteral("--report"), m_report});
    QVERIFY(run.waitForFinished(120'000));
    QVERIFY2(QFile::exists(m_report), run.readAllStandardError().constData());
}

void TestWindowFiles::cleanup()
{
    if (m_window) {
        m_window->kill();
        m_window->waitForFinished();
        m_window.reset();
    }
    QFile::remove(m_log);
}

QProcessEnvironment TestWindowFiles::environment() const
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    env.insert(QStringLiteral("HOME"), m_home.path());
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), m_home.filePath(QStringLiteral("config")));
    env.insert(QStringLiteral("XDG_DATA_HOME"), m_home.filePath(QStringLiteral("data")));
    env.insert(QStringLiteral("RETRYLAB_OPEN_LOG"), m_log);
    return env;
}

std::unique_ptr<QProcess> TestWindowFiles::startWindow(const QStringList &arguments)
{
    auto process = std::make_unique<QProcess>();
    process->setProcessEnvironment(environment());
    process->setWorkingDirectory(m_home.path());
    process->setProcessChannelMode(QProcess::ForwardedErrorChannel);
    process->start(QStringLiteral(RETRYLAB_BINARY), arguments);
    return process;
}

QStringList TestWindowFiles::logLines() const
{
    QFile file(m_log);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

QString TestWindowFiles::writeFile(const QString &name, const QByteArray &bytes)
{
    QFile file(m_home.filePath(name));
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size())
        return {};
    return file.fileName();
}

void TestWindowFiles::eachKind_opensWhereItBelongs()
{
    const QString scenario = QStringLiteral(RETRYLAB_SOURCE_DIR "/resources/scenarios/flaky-service.json");
    const QString policy = QStringLiteral(RETRYLAB_SOURCE_DIR "/resources/presets/aws-standard.json");
    const QString collection
        = writeFile(QStringLiteral("shop.json"), R"({"formatVersion": 1, "items": [], "name": "Shop"})");
    const QString monitors = writeFile(QStringLiteral("watch.json"),
        R"({"format": "retrylab-monitors", "version": 1,
            "monitors": [{"name": "health", "url": "http://127.0.0.1:9/health", "intervalMs": 60000, "policy": "none"}]})");
    const QString observation = writeFile(
        QStringLiteral("observed.json"), R"({"clients": [], "format": "retrylab-observation", "version": 1})");
    QVERIFY(!collection.isEmpty() && !monitors.isEmpty() && !observation.isEmpty());

    // The report by a name relative to the folder the window starts in.
    m_window = startWindow({QStringLiteral("run.json"), scenario, collection, monitors, policy, observation});
    QTRY_COMPARE_WITH_TIMEOUT(logLines().size(), 6, 60'000);
    const QStringList lines = logLines();
    QCOMPARE(lines.at(0), QStringLiteral("Report\t") + m_report);
    QCOMPARE(lines.at(1), QStringLiteral("Scenario\t") + scenario);
    QCOMPARE(lines.at(2), QStringLiteral("Collection\t") + collection);
    QCOMPARE(lines.at(3), QStringLiteral("Monitors\t") + monitors);
    QCOMPARE(lines.at(4), QStringLiteral("Policy\t") + policy);
    QVERIFY2(lines.at(5).startsWith(QStringLiteral("error\t") + observation + QLatin1Char('\t'))
            && lines.at(5).contains(QLatin1String("observation report")),
        qPrintable(lines.at(5)));
    QCOMPARE(m_window->state(), QProcess::Running);
}

void TestWindowFiles::secondInstance_handsItsFileToTheOpenWindow()
{
    m_window = startWindow({m_report});
    QTRY_COMPARE_WITH_TIMEOUT(logLines().size(), 1, 60'000);

    // The second one hands over and exits at once; the first opens its file.
    const QString policy = QStringLiteral(RETRYLAB_SOURCE_DIR "/resources/presets/iam.json");
    auto second = startWindow({QStringLiteral("--monitors"), policy});
    QVERIFY(second->waitForFinished(30'000));
    QCOMPARE(second->exitStatus(), QProcess::NormalExit);
    QCOMPARE(second->exitCode(), 0);
    QTRY_COMPARE_WITH_TIMEOUT(logLines().size(), 3, 30'000);
    QCOMPARE(logLines().mid(1), (QStringList{QStringLiteral("action\tmonitors"), QStringLiteral("Policy\t") + policy}));
    QCOMPARE(m_window->state(), QProcess::Running);

    // A window killed leaves its socket behind: the next one still opens, and listens.
    m_window->kill();
    m_window->waitForFinished();
    QFile::remove(m_log);
    m_window = startWindow({policy});
    QTRY_COMPARE_WITH_TIMEOUT(logLines().size(), 1, 60'000);
    auto third = startWindow({m_report});
    QVERIFY(third->waitForFinished(30'000));
    QCOMPARE(third->exitCode(), 0);
    QTRY_COMPARE_WITH_TIMEOUT(logLines().size(), 2, 30'000);
    QCOMPARE(logLines().at(1), QStringLiteral("Report\t") + m_report);
}

void TestWindowFiles::nameThatIsNeitherCommandNorFile_isAnUnknownCommand()
{
    QProcess process;
    process.setProcessEnvironment(environment());
    process.setWorkingDirectory(m_home.path());
    process.start(QStringLiteral(RETRYLAB_BINARY), {QStringLiteral("no-such-file.json")});
    QVERIFY(process.waitForFinished(30'000));
    QCOMPARE(process.exitCode(), 2);
    QVERIFY(process.readAllStandardError().contains("unknown command"));
}

QTEST_GUILESS_MAIN(TestWindowFiles)
#include "tst_windowfiles.moc"
