// The window's monitors host against the real fault server and real SQLite
// files: the engine on its own thread, the list kept in a monitors file, the
// history read back through a HistoryReader while it is written.

#include "tests/ui/session/monitor/monitorfixtures.h"

#include "core/history/historyquery.h"
#include "core/history/historystore.h"
#include "core/monitor/monitorsfile.h"
#include "core/monitor/monitorsfilewriter.h"
#include "core/util/englishplurals.h"
#include "ui/session/hosting/embeddedserver.h"
#include "ui/session/monitor/historyreader.h"
#include "ui/session/monitor/monitorhost.h"

#include <QFile>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace RetryLab;
using namespace RetryLab::Core;
using RetryLab::Testing::askReader;
using RetryLab::Ui::HistoryReader;
using RetryLab::Ui::MonitorHost;

class TestMonitorHost : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void addMonitor_checksArriveAndAreReadableThroughTheReader();
    void downAndUpAgain_notifyInWordsForPeople();
    void pauseAndResume_stopAndRestartTheChecksAndAreSaved();
    void removeMonitor_endsItsChecks();
    void replaceMonitor_renamed_runsUnderTheNewName();
    void savedMonitors_loadInANewHost();
    void serverMonitor_savedAndLoaded_checksTheServerSet();
    void brokenMonitorsFile_isReportedAndNeverOverwritten();
    void importFile_withAClash_addsASuffix();
    void switchDatabase_missingFolder_failsAndKeepsWritingTheOld();
    void switchDatabase_works_newChecksGoToTheNewHistory();
    void shutdown_flushesEveryCheckAndReleasesTheHistory();

private:
    Monitor monitor(const QByteArray &entry) const { return Testing::monitorOf(m_server.baseUrl(), entry); }
    Monitor ticker(const QString &name, int intervalMs = 100) const;
    static qsizetype countOf(const QSignalSpy &checks, const QString &name);
    static qsizetype stored(HistoryReader &reader, const QString &monitor);
    static void openHost(MonitorHost &host, const QString &database);

    // On a thread of its own, as in the window: shutdown() blocks this thread
    // while the checks in flight end, and they need their answers.
    Ui::EmbeddedServer m_server;
    std::unique_ptr<QTemporaryDir> m_dir;
};

void TestMonitorHost::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    EnglishPlurals::install(); // as the window does: "1 check", "2 checks"
    QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
}

void TestMonitorHost::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
}

Monitor TestMonitorHost::ticker(const QString &name, int intervalMs) const
{
    Monitor m = monitor(R"({"name": "x", "url": "{{server}}/status/200", "intervalMs": 100, "policy": "none"})");
    m.name = name;
    m.request.label = name;
    m.intervalMs = intervalMs;
    return m;
}

qsizetype TestMonitorHost::countOf(const QSignalSpy &checks, const QString &name)
{
    return std::count_if(checks.cbegin(), checks.cend(),
        [&name](const QList<QVariant> &args) { return args.constFirst().value<StoredCheck>().monitor == name; });
}

qsizetype TestMonitorHost::stored(HistoryReader &reader, const QString &monitor)
{
    HistoryFilter filter;
    filter.monitor = monitor;
    QString error;
    const auto checks = askReader<QList<StoredCheck>>(
        reader, &HistoryReader::checksRead, [&] { return reader.checks(filter); }, &error);
    if (!checks) {
        qWarning().noquote() << error;
        return -1;
    }
    return checks->size();
}

void TestMonitorHost::openHost(MonitorHost &host, const QString &database)
{
    QSignalSpy opened(&host, &MonitorHost::opened);
    host.open(database);
    QTRY_COMPARE_WITH_TIMEOUT(opened.size(), 1, 20'000);
    QCOMPARE(opened.constFirst().at(0).toString(), database);
    QCOMPARE(opened.constFirst().at(1).toString(), QString());
    QCOMPARE(host.database(), database);
}

void TestMonitorHost::addMonitor_checksArriveAndAreReadableThroughTheReader()
{
    const QString database = m_dir->filePath(QStringLiteral("history.sqlite"));
    MonitorHost host(m_dir->filePath(QStringLiteral("monitors.json")));
    QSignalSpy checks(&host, &MonitorHost::checkFinished);
    QSignalSpy changed(&host, &MonitorHost::monitorsChanged);
    QSignalSpy due(&host, &MonitorHost::nextDueTimes);
    openHost(host, database);
    QVERIFY(host.addMonitor(ticker(QStringLiteral("api"))));
    QVERIFY(!host.addMonitor(ticker(QStringLiteral("api"))));
    QCOMPARE(changed.size(), 1);
    QCOMPARE(host.monitors().size(), 1);
    QVERIFY(QFile::exists(host.monitorsFile()));
    QTRY_VERIFY_WITH_TIMEOUT(countOf(checks, QStringLiteral("api")) >= 2, 20'000);
    const auto check = checks.constFirst().constFirst().value<StoredCheck>();
    QVERIFY(check.success);
    QCOMPARE(check.agent, host.agent());

    // The next due times come every second, the monitor among them.
    QTRY_VERIFY_WITH_TIMEOUT(std::any_of(due.cbegin(), due.cend(),
                                 [](const QList<QVariant> &args) {
                                     return args.constFirst().value<QHash<QString, qint64>>().contains(
                                         QStringLiteral("api"));
                                 }),
        20'000);

    HistoryReader reader(database);
    QTRY_VERIFY_WITH_TIMEOUT(stored(reader, QStringLiteral("api")) >= 2, 20'000);
    QVERIFY(!host.checkNow(QStringLiteral("nobody")));
    QVERIFY(host.checkNow(QStringLiteral("api")));
}

void TestMonitorHost::downAndUpAgain_notifyInWordsForPeople()
{
    MonitorHost host(m_dir->filePath(QStringLiteral("monitors.json")));
    QSignalSpy notes(&host, &MonitorHost::notification);
    QSignalSpy states(&host, &MonitorHost::stateChanged);
    openHost(host, m_dir->filePath(QStringLiteral("history.sqlite")));
    // Fails twice per key: with no retries each check of key k=1,2 fails, then it works.
    Monitor flaky = monitor(R"({"name": "api", "url": "{{server}}/fail/2?key=fixed", "intervalMs": 100,
        "policy": "none", "downAfter": 2})");
    QVERIFY(host.addMonitor(flaky));
    QTRY_VERIFY_WITH_TIMEOUT(notes.size() >= 2, 20'000);
    QCOMPARE(notes.at(0).at(0).toString(), QStringLiteral("api is down"));
    const QString why = notes.at(0).at(1).toString();
    QVERIFY2(why.startsWith(QLatin1String("2 checks in a row failed")) && why.contains(QLatin1String("503")),
        qPrintable(why));
    QCOMPARE(notes.at(1).at(0).toString(), QStringLiteral("api is up again"));
    QCOMPARE(notes.size(), 2);
    QCOMPARE(states.size(), 2);

    // Retries that hide a fault: told once the run of such checks ends with a clean one.
    QVERIFY(host.addMonitor(monitor(R"({"name": "hiding", "url": "{{server}}/fail/2?key=hidden", "intervalMs": 100,
        "policy": {"name": "quick", "algorithm": "constant", "baseDelayMs": 10, "maxAttempts": 4,
                   "attemptTimeoutMs": 5000, "jitterMs": 0, "intervalJitter": "none"}})")));
    QTRY_VERIFY_WITH_TIMEOUT(notes.size() >= 3, 20'000);
    QCOMPARE(notes.at(2).at(0).toString(), QStringLiteral("hiding: the retries hid a fault"));
    const QString hidden = notes.at(2).at(1).toString();
    QVERIFY2(hidden.startsWith(QLatin1String("1 check succeeded only after 2 failed attempts")), qPrintable(hidden));
    QVERIFY2(hidden.contains(QLatin1String("503")), qPrintable(hidden));
}

void TestMonitorHost::pauseAndResume_stopAndRestartTheChecksAndAreSaved()
{
    MonitorHost host(m_dir->filePath(QStringLiteral("monitors.json")));
    QSignalSpy checks(&host, &MonitorHost::checkFinished);
    QSignalSpy states(&host, &MonitorHost::stateChanged);
    openHost(host, m_dir->filePath(QStringLiteral("history.sqlite")));
    QVERIFY(host.addMonitor(ticker(QStringLiteral("p"))));
    QVERIFY(host.addMonitor(ticker(QStringLiteral("ticker"))));
    QTRY_VERIFY_WITH_TIMEOUT(countOf(checks, QStringLiteral("p")) >= 1, 20'000);
    QVERIFY(host.pause(QStringLiteral("p")));
    QVERIFY(!host.pause(QStringLiteral("p")));
    QVERIFY(host.monitor(QStringLiteral("p"))->paused);
    QVERIFY(!host.checkNow(QStringLiteral("p")));
    QTRY_VERIFY_WITH_TIMEOUT(std::any_of(states.cbegin(), states.cend(),
                                 [](const QList<QVariant> &args) {
                                     return args.constFirst().value<StateEvent>().to == MonitorState::Paused;
                                 }),
        20'000);
    const auto pausedAt = countOf(checks, QStringLiteral("p"));
    const auto tickerAt = countOf(checks, QStringLiteral("ticker"));
    QTRY_VERIFY_WITH_TIMEOUT(countOf(checks, QStringLiteral("ticker")) >= tickerAt + 5, 20'000);
    QCOMPARE(countOf(checks, QStringLiteral("p")), pausedAt);
    const auto saved = MonitorsFileReader::readFile(host.monitorsFile());
    QVERIFY2(saved, qPrintable(saved.error()));
    QVERIFY(saved->find(QStringLiteral("p"))->paused);

    QVERIFY(host.resume(QStringLiteral("p")));
    QVERIFY(!host.monitor(QStringLiteral("p"))->paused);
    QTRY_VERIFY_WITH_TIMEOUT(countOf(checks, QStringLiteral("p")) >= pausedAt + 2, 20'000);
    QVERIFY(!MonitorsFileReader::readFile(host.monitorsFile())->find(QStringLiteral("p"))->paused);
}

void TestMonitorHost::removeMonitor_endsItsChecks()
{
    MonitorHost host(m_dir->filePath(QStringLiteral("monitors.json")));
    QSignalSpy checks(&host, &MonitorHost::checkFinished);
    openHost(host, m_dir->filePath(QStringLiteral("history.sqlite")));
    QVERIFY(host.addMonitor(ticker(QStringLiteral("gone"))));
    QVERIFY(host.addMonitor(ticker(QStringLiteral("ticker"))));
    QTRY_VERIFY_WITH_TIMEOUT(countOf(checks, QStringLiteral("gone")) >= 1, 20'000);
    QVERIFY(host.removeMonitor(QStringLiteral("gone")));
    QVERIFY(!host.removeMonitor(QStringLiteral("gone")));
    QCOMPARE(host.monitors().size(), 1);
    QVERIFY(!MonitorsFileReader::readFile(host.monitorsFile())->find(QStringLiteral("gone")));
    // At most the check in flight at the removal ends after it.
    QTRY_VERIFY_WITH_TIMEOUT(countOf(checks, QStringLiteral("ticker")) >= 2, 20'000);
    const auto goneAt = countOf(checks, QStringLiteral("gone"));
    const auto tickerAt = countOf(checks, QStringLiteral("ticker"));
    QTRY_VERIFY_WITH_TIMEOUT(countOf(checks, QStringLiteral("ticker")) >= tickerAt + 5, 20'000);
    QCOMPARE(countOf(checks, QStringLiteral("gone")), goneAt);

    // The last monitor removed leaves no file: the reader refuses one without monitors.
    QVERIFY(host.removeMonitor(QStringLiteral("ticker")));
    QVERIFY(!QFile::exists(host.monitorsFile()));
}

void TestMonitorHost::replaceMonitor_renamed_runsUnderTheNewName()
{
    const QString database = m_dir->filePath(QStringLiteral("history.sqlite"));
    MonitorHost host(m_dir->filePath(QStringLiteral("monitors.json")));
    QSignalSpy checks(&host, &MonitorHost::checkFinished);
    openHost(host, database);
    QVERIFY(host.addMonitor(ticker(QStringLiteral("old"))));
    QVERIFY(host.addMonitor(ticker(QStringLiteral("other"), 60'000)));
    QTRY_VERIFY_WITH_TIMEOUT(countOf(checks, QStringLiteral("old")) >= 1, 20'000);
    QVERIFY(!host.replaceMonitor(QStringLiteral("old"), ticker(QStringLiteral("other"))));
    QVERIFY(!host.replaceMonitor(QStringLiteral("nobody"), ticker(QStringLiteral("new"))));
    QVERIFY(host.replaceMonitor(QStringLiteral("old"), ticker(QStringLiteral("new"))));
    QCOMPARE(host.monitors().constFirst().name, QStringLiteral("new")); // keeps its place in the list
    QVERIFY(!host.monitor(QStringLiteral("old")));
    QTRY_VERIFY_WITH_TIMEOUT(countOf(checks, QStringLiteral("new")) >= 2, 20'000);
    const auto oldAt = countOf(checks, QStringLiteral("old"));
    const auto newAt = countOf(checks, QStringLiteral("new"));
    QTRY_VERIFY_WITH_TIMEOUT(countOf(checks, QStringLiteral("new")) >= newAt + 4, 20'000);
    QCOMPARE(countOf(checks, QStringLiteral("old")), oldAt);
    const auto saved = MonitorsFileReader::readFile(host.monitorsFile());
    QVERIFY(saved && saved->find(QStringLiteral("new")) && !saved->find(QStringLiteral("old")));
    // The old name's history stays.
    HistoryReader reader(database);
    QTRY_VERIFY_WITH_TIMEOUT(stored(reader, QStringLiteral("old")) >= 1, 20'000);
}

void TestMonitorHost::savedMonitors_loadInANewHost()
{
    const QString file = m_dir->filePath(QStringLiteral("monitors.json"));
    Monitor paused = ticker(QStringLiteral("resting"), 250);
    paused.paused = true;
    {
        MonitorHost first(file);
        QVERIFY(first.loadSaved()); // no file yet: an empty list
        QVERIFY(first.addMonitor(ticker(QStringLiteral("api"), 150)));
        QVERIFY(first.addMonitor(paused));
    }
    MonitorHost second(file);
    QSignalSpy changed(&second, &MonitorHost::monitorsChanged);
    QSignalSpy checks(&second, &MonitorHost::checkFinished);
    QVERIFY(second.loadSaved());
    QCOMPARE(changed.size(), 1);
    QCOMPARE(second.monitors().size(), 2);
    QCOMPARE(second.monitors().at(0).name, QStringLiteral("api"));
    QCOMPARE(second.monitors().at(0).intervalMs, 150.0);
    QVERIFY(!second.monitors().at(0).paused);
    QCOMPARE(second.monitors().at(1).name, QStringLiteral("resting"));
    QVERIFY(second.monitors().at(1).paused);
    openHost(second, m_dir->filePath(QStringLiteral("history.sqlite")));
    QTRY_VERIFY_WITH_TIMEOUT(countOf(checks, QStringLiteral("api")) >= 2, 20'000);
    QCOMPARE(countOf(checks, QStringLiteral("resting")), 0);
}

void TestMonitorHost::serverMonitor_savedAndLoaded_checksTheServerSet()
{
    const QString file = m_dir->filePath(QStringLiteral("monitors.json"));
    Monitor local = ticker(QStringLiteral("local"), 150);
    local.urlTemplate = QStringLiteral("{server}/status/200");
    local.request.url = QUrl();
    {
        MonitorHost first(file);
        QVERIFY(first.loadSaved());
        QVERIFY(first.addMonitor(local));
    }
    QFile saved(file);
    QVERIFY(saved.open(QIODevice::ReadOnly));
    QVERIFY2(saved.readAll().contains("\"{server}/status/200\""), "the file keeps {server} as typed");
    saved.close();

    // The server's URL may come before the history opens, as in the window.
    MonitorHost second(file);
    second.setServerUrl(m_server.baseUrl());
    QCOMPARE(second.serverUrl(), m_server.baseUrl());
    QSignalSpy checks(&second, &MonitorHost::checkFinished);
    QSignalSpy opened(&second, &MonitorHost::opened);
    QVERIFY(second.loadSaved());
    QCOMPARE(second.monitors().size(), 1);
    QCOMPARE(second.monitors().constFirst().urlTemplate, QStringLiteral("{server}/status/200"));
    openHost(second, m_dir->filePath(QStringLiteral("first.sqlite")));
    QTRY_VERIFY_WITH_TIMEOUT(countOf(checks, QStringLiteral("local")) >= 2, 20'000);
    for (const QList<QVariant> &args : std::as_const(checks)) {
        const auto check = args.constFirst().value<StoredCheck>();
        QVERIFY2(check.success, qPrintable(check.reason));
    }

    // Kept across a database switch.
    second.switchDatabase(m_dir->filePath(QStringLiteral("second.sqlite")));
    QTRY_COMPARE_WITH_TIMEOUT(opened.size(), 2, 20'000);
    checks.clear();
    QTRY_VERIFY_WITH_TIMEOUT(countOf(checks, QStringLiteral("local")) >= 2, 20'000);
    QVERIFY2(checks.constLast().constFirst().value<StoredCheck>().success,
        qPrintable(checks.constLast().constFirst().value<StoredCheck>().reason));

    // The server stopped: the checks fail, saying why.
    second.setServerUrl(QUrl());
    QTRY_VERIFY_WITH_TIMEOUT(
        checks.constLast().constFirst().value<StoredCheck>().reason.contains(QStringLiteral("not running")), 20'000);

    // Another window's file with {server} imports as well.
    MonitorHost third(m_dir->filePath(QStringLiteral("third.json")));
    QCOMPARE(third.importFile(file), QString());
    QCOMPARE(third.monitors().constFirst().urlTemplate, QStringLiteral("{server}/status/200"));
}

void TestMonitorHost::brokenMonitorsFile_isReportedAndNeverOverwritten()
{
    const QString file = m_dir->filePath(QStringLiteral("monitors.json"));
    const QByteArray broken = R"({"format": "retrylab-monitors", "version": 1, "monitors": [{"name": "x"}]})";
    {
        QFile out(file);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(broken);
    }
    MonitorHost host(file);
    QSignalSpy failed(&host, &MonitorHost::monitorsFileFailed);
    QVERIFY(!host.loadSaved());
    QCOMPARE(failed.size(), 1);
    QVERIFY2(failed.constFirst().constFirst().toString().contains(QLatin1String("monitors.json")),
        qPrintable(failed.constFirst().constFirst().toString()));
    QVERIFY(host.addMonitor(ticker(QStringLiteral("api"))));
    QCOMPARE(failed.size(), 2); // not saved, and said so
    QFile in(file);
    QVERIFY(in.open(QIODevice::ReadOnly));
    QCOMPARE(in.readAll(), broken);
}

void TestMonitorHost::importFile_withAClash_addsASuffix()
{
    const QString imported = m_dir->filePath(QStringLiteral("import.json"));
    QVERIFY(MonitorsFileWriter::writeFile(
        imported, {ticker(QStringLiteral("api")), ticker(QStringLiteral("web")), ticker(QStringLiteral("api (2)"))}));
    MonitorHost host(m_dir->filePath(QStringLiteral("monitors.json")));
    QSignalSpy checks(&host, &MonitorHost::checkFinished);
    openHost(host, m_dir->filePath(QStringLiteral("history.sqlite")));
    QVERIFY(host.addMonitor(ticker(QStringLiteral("api"))));
    QCOMPARE(host.importFile(imported), QString());
    QStringList names;
    for (const Monitor &m : host.monitors())
        names.append(m.name);
    QCOMPARE(names,
        (QStringList{
            QStringLiteral("api"), QStringLiteral("api (2)"), QStringLiteral("web"), QStringLiteral("api (2) (2)")}));
    QCOMPARE(host.monitor(QStringLiteral("api (2)"))->request.label, QStringLiteral("api (2)"));
    QTRY_VERIFY_WITH_TIMEOUT(countOf(checks, QStringLiteral("api (2)")) >= 1, 20'000);
    QTRY_VERIFY_WITH_TIMEOUT(countOf(checks, QStringLiteral("web")) >= 1, 20'000);
    QCOMPARE(MonitorsFileReader::readFile(host.monitorsFile())->monitors.size(), 4);

    const QString bad = m_dir->filePath(QStringLiteral("bad.json"));
    QFile out(bad);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write("{\"format\": \"retrylab-monitors\"");
    out.close();
    const QString error = host.importFile(bad);
    QVERIFY2(error.contains(QLatin1String("bad.json")), qPrintable(error));
    QCOMPARE(host.monitors().size(), 4);
}

void TestMonitorHost::switchDatabase_missingFolder_failsAndKeepsWritingTheOld()
{
    const QString database = m_dir->filePath(QStringLiteral("history.sqlite"));
    const QString missing = m_dir->filePath(QStringLiteral("no-such-folder/history.sqlite"));
    MonitorHost host(m_dir->filePath(QStringLiteral("monitors.json")));
    QSignalSpy failed(&host, &MonitorHost::databaseSwitchFailed);
    QSignalSpy opened(&host, &MonitorHost::opened);
    openHost(host, database);
    QVERIFY(host.addMonitor(ticker(QStringLiteral("api"))));
    host.switchDatabase(missing);
    QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 20'000);
    const QString error = failed.constFirst().constFirst().toString();
    QVERIFY2(error.contains(QLatin1String("no-such-folder")), qPrintable(error));
    QCOMPARE(opened.size(), 1);
    QCOMPARE(host.database(), database);
    QVERIFY(!QFile::exists(missing));

    HistoryReader reader(database);
    qsizetype before = -1;
    QTRY_VERIFY_WITH_TIMEOUT((before = stored(reader, QStringLiteral("api"))) >= 1, 20'000);
    QTRY_VERIFY_WITH_TIMEOUT(stored(reader, QStringLiteral("api")) >= before + 3, 20'000);
}

void TestMonitorHost::switchDatabase_works_newChecksGoToTheNewHistory()
{
    const QString first = m_dir->filePath(QStringLiteral("first.sqlite"));
    const QString second = m_dir->filePath(QStringLiteral("second.sqlite"));
    MonitorHost host(m_dir->filePath(QStringLiteral("monitors.json")));
    QSignalSpy opened(&host, &MonitorHost::opened);
    QSignalSpy checks(&host, &MonitorHost::checkFinished);
    openHost(host, first);
    QVERIFY(host.addMonitor(ticker(QStringLiteral("api"))));
    QTRY_VERIFY_WITH_TIMEOUT(countOf(checks, QStringLiteral("api")) >= 2, 20'000);
    host.switchDatabase(second);
    QTRY_COMPARE_WITH_TIMEOUT(opened.size(), 2, 20'000);
    QCOMPARE(opened.constLast().at(1).toString(), QString());
    QCOMPARE(host.database(), second);
    host.switchDatabase(second); // the one in use: nothing to do, and said so
    QTRY_COMPARE_WITH_TIMEOUT(opened.size(), 3, 20'000);
    QCOMPARE(opened.constLast().at(1).toString(), QString());
    HistoryReader reader(second);
    QTRY_VERIFY_WITH_TIMEOUT(stored(reader, QStringLiteral("api")) >= 2, 20'000);
    // The first history was closed whole: another writer may take it now.
    QVERIFY(HistoryStore::open(first, QStringLiteral("other")));
}

void TestMonitorHost::shutdown_flushesEveryCheckAndReleasesTheHistory()
{
    const QString database = m_dir->filePath(QStringLiteral("history.sqlite"));
    MonitorHost host(m_dir->filePath(QStringLiteral("monitors.json")));
    QSignalSpy checks(&host, &MonitorHost::checkFinished);
    openHost(host, database);
    QVERIFY(host.addMonitor(ticker(QStringLiteral("api"), 50)));
    QVERIFY(host.addMonitor(monitor(R"({"name": "slow", "url": "{{server}}/delay/300", "intervalMs": 604800000,
        "policy": "none"})")));
    QTRY_VERIFY_WITH_TIMEOUT(countOf(checks, QStringLiteral("api")) >= 3, 20'000);
    QVERIFY(host.checkNow(QStringLiteral("slow")));
    QTRY_VERIFY_WITH_TIMEOUT(countOf(checks, QStringLiteral("api")) >= 5, 20'000); // the slow one is under way
    QVERIFY(host.shutdown());
    QVERIFY(host.shutdown()); // once is enough
    QCoreApplication::processEvents(); // the signals sent before the end
    QCOMPARE(countOf(checks, QStringLiteral("slow")), 1); // the check in flight ended and was stored
    auto query = HistoryQuery::open(database);
    QVERIFY2(query, qPrintable(query.error()));
    const auto all = (*query)->checks({});
    QVERIFY2(all, qPrintable(all.error()));
    QCOMPARE(all->size(), checks.size());
    QVERIFY(HistoryStore::open(database, QStringLiteral("next")));
    QVERIFY(!host.checkNow(QStringLiteral("api")));
}

QTEST_GUILESS_MAIN(TestMonitorHost)
#include "tst_monitorhost.moc"
