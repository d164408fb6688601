// The history read off the window's thread: every kind of request answered
// under its id, failures named, tagged requests superseded, and reads going on
// while a MonitorHost writes the same SQLite file.

#include "tests/core/history/historyfixtures.h"
#include "tests/ui/session/monitor/monitorfixtures.h"

#include "core/monitor/monitor.h"
#include "ui/session/hosting/embeddedserver.h"
#include "ui/session/monitor/historyreader.h"
#include "ui/session/monitor/monitorhost.h"

#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace RetryLab;
using namespace RetryLab::Core;
using RetryLab::Testing::askReader;
using RetryLab::Testing::checkOf;
using RetryLab::Ui::HistoryReader;
using RetryLab::Ui::MonitorHost;

namespace {

constexpr qint64 t0 = 1'709'251'200'000; // 2024-03-01T00:00:00Z
constexpr qint64 minuteMs = 60'000;

} // namespace

class TestHistoryReader : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void everyKindOfRequest_isAnsweredUnderItsId();
    void missingHistory_failsWithTheFileThenReadsOnceItIsSet();
    void taggedRequests_theNewestIsAnsweredAndEachAtMostOnce();
    void readsGoOn_whileTheMonitorsWriteTheSameFile();

private:
    QString writeSample();
    // On a thread of its own, as in the window: shutdown() blocks this thread
    // while the checks in flight end, and they need their answers.
    Ui::EmbeddedServer m_server;
    QTemporaryDir m_dir;
};

void TestHistoryReader::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
}

// "api": ten checks a minute apart, the 4th and 5th failed, the 8th hidden by a retry.
QString TestHistoryReader::writeSample()
{
    const QString file = m_dir.filePath(QStringLiteral("sample.sqlite"));
    if (QFile::exists(file))
        return file;
    QList<StoredCheck> checks;
    for (int i = 0; i < 10; ++i) {
        QList<bool> attempts{true};
        if (i == 3 || i == 4)
            attempts = {false};
        if (i == 7)
            attempts = {false, true};
        checks.append(checkOf(QStringLiteral("api"), QStringLiteral("writer"), t0 + i * minuteMs, attempts));
    }
    if (!Testing::writeHistory(file, checks))
        return {};
    return file;
}

void TestHistoryReader::everyKindOfRequest_isAnsweredUnderItsId()
{
    const QString file = writeSample();
    QVERIFY(!file.isEmpty());
    HistoryReader reader(file);
    QCOMPARE(reader.database(), file);
    HistoryFilter filter;
    filter.monitor = QStringLiteral("api");

    const auto names
        = askReader<QStringList>(reader, &HistoryReader::monitorNamesRead, [&] { return reader.monitorNames(); });
    QCOMPARE(names, std::optional<QStringList>(QStringList{QStringLiteral("api")}));

    const auto summaries = askReader<QList<MonitorSummary>>(
        reader, &HistoryReader::summariesRead, [&] { return reader.summaries(filter); });
    QVERIFY(summaries && summaries->size() == 1);
    QCOMPARE(summaries->constFirst().checks, 10);
    QCOMPARE(summaries->constFirst().checksSucceeded, 8);
    QCOMPARE(summaries->constFirst().attempts, 11);
    QCOMPARE(summaries->constFirst().incidents, 1);
    QCOMPARE(summaries->constFirst().hiddenIncidents, 1);

    const auto points = askReader<QList<CheckPoint>>(
        reader, &HistoryReader::checkPointsRead, [&] { return reader.checkPoints(filter); });
    QVERIFY(points && points->size() == 10);
    QCOMPARE(points->at(7).attempts, 2);
    QCOMPARE(points->at(7).failedAttempts, 1);
    QVERIFY(!points->at(3).success);

    const auto checks
        = askReader<QList<StoredCheck>>(reader, &HistoryReader::checksRead, [&] { return reader.checks(filter); });
    QVERIFY(checks && checks->size() == 10);
    QCOMPARE(checks->at(7).attempts.size(), 2);
    QCOMPARE(checks->at(7).attempts.at(0).status, std::optional<int>(503));

    const auto incidents
        = askReader<QList<Incident>>(reader, &HistoryReader::incidentsRead, [&] { return reader.incidents(filter); });
    QVERIFY(incidents && incidents->size() == 2);
    QCOMPARE(incidents->at(0).startMs, t0 + 3 * minuteMs);
    QVERIFY(!incidents->at(0).hidden);
    QVERIFY(incidents->at(1).hidden);

    const auto events = askReader<QList<StateEvent>>(
        reader, &HistoryReader::stateEventsRead, [&] { return reader.stateEvents(filter); });
    QVERIFY(events && events->isEmpty()); // the sample stored checks only

    const auto objective = askReader<ObjectiveStatus>(reader, &HistoryReader::objectiveRead,
        [&] { return reader.objective(QStringLiteral("api"), 0.9, t0 + 10 * minuteMs); });
    QVERIFY(objective);
    QCOMPARE(objective->checks, 10);
    QCOMPARE(objective->failedChecks, 2);

    const auto whatIf = askReader<WhatIf>(reader, &HistoryReader::whatIfRead,
        [&] { return reader.whatIf(QStringLiteral("api"), t0, t0 + 10 * minuteMs, singleAttemptPolicy(), 7); });
    QVERIFY(whatIf);
    QCOMPARE(whatIf->policyName, QStringLiteral("none"));
    QVERIFY(whatIf->checksSimulated + whatIf->unknownChecks == 10);
}

void TestHistoryReader::missingHistory_failsWithTheFileThenReadsOnceItIsSet()
{
    HistoryReader nothing;
    QString error;
    QVERIFY(!askReader<QStringList>(
        nothing, &HistoryReader::monitorNamesRead, [&] { return nothing.monitorNames(); }, &error));
    QVERIFY(!error.isEmpty());

    const QString missing = m_dir.filePath(QStringLiteral("missing.sqlite"));
    HistoryReader reader(missing);
    QVERIFY(!askReader<QStringList>(
        reader, &HistoryReader::monitorNamesRead, [&] { return reader.monitorNames(); }, &error));
    QVERIFY2(error.contains(QLatin1String("missing.sqlite")), qPrintable(error));

    reader.setDatabase(writeSample());
    const auto names = askReader<QStringList>(
        reader, &HistoryReader::monitorNamesRead, [&] { return reader.monitorNames(); }, &error);
    QVERIFY2(names, qPrintable(error));
    QCOMPARE(*names, QStringList{QStringLiteral("api")});
}

void TestHistoryReader::taggedRequests_theNewestIsAnsweredAndEachAtMostOnce()
{
    HistoryReader reader(writeSample());
    QSignalSpy points(&reader, &HistoryReader::checkPointsRead);
    QSignalSpy summaries(&reader, &HistoryReader::summariesRead);
    QList<quint64> tagged;
    HistoryFilter filter;
    for (int i = 0; i < 50; ++i) {
        filter.sinceMs = t0 + (i % 10) * minuteMs;
        tagged.append(reader.checkPoints(filter, QStringLiteral("chart")));
    }
    // Another kind under the same tag, and untagged requests, are never dropped.
    const quint64 other = reader.summaries({}, HistoryQuery::SummaryDetail::WithoutLatency, QStringLiteral("chart"));
    const quint64 untagged1 = reader.checkPoints({});
    const quint64 untagged2 = reader.checkPoints({});
    QTRY_VERIFY_WITH_TIMEOUT(std::any_of(points.cbegin(), points.cend(),
                                 [&](const QList<QVariant> &a) { return a.at(0).toULongLong() == untagged2; }),
        20'000);
    QCOMPARE(summaries.size(), 1);
    QCOMPARE(summaries.constFirst().at(0).toULongLong(), other);
    QList<quint64> answered;
    for (const QList<QVariant> &args : std::as_const(points))
        answered.append(args.at(0).toULongLong());
    QVERIFY(answered.contains(tagged.constLast()));
    QVERIFY(answered.contains(untagged1));
    // In order, once each.
    QVERIFY(std::is_sorted(answered.cbegin(), answered.cend()));
    QVERIFY(std::adjacent_find(answered.cbegin(), answered.cend()) == answered.cend());
    // The newest tagged answer carries its own window: checks from its since on.
    for (const QList<QVariant> &args : std::as_const(points)) {
        if (args.at(0).toULongLong() == tagged.constLast())
            QCOMPARE(args.at(1).value<QList<CheckPoint>>().size(), 10 - 49 % 10);
    }
}

void TestHistoryReader::readsGoOn_whileTheMonitorsWriteTheSameFile()
{
    const QString database = m_dir.filePath(QStringLiteral("live.sqlite"));
    MonitorHost host(m_dir.filePath(QStringLiteral("monitors.json")));
    QSignalSpy opened(&host, &MonitorHost::opened);
    host.open(database);
    QTRY_COMPARE_WITH_TIMEOUT(opened.size(), 1, 20'000);
    QCOMPARE(opened.constFirst().at(1).toString(), QString());
    for (int i = 0; i < 4; ++i) {
        Monitor m = Testing::monitorOf(m_server.baseUrl(),
            R"({"name": "m", "url": "{{server}}/status/200", "intervalMs": 100, "policy": "none"})");
        m.name = QStringLiteral("m%1").arg(i);
        QVERIFY(host.addMonitor(m));
    }
    HistoryReader reader(database);
    QSignalSpy failures(&reader, &HistoryReader::readFailed);
    const auto totalChecks = [&reader] {
        const auto summaries = askReader<QList<MonitorSummary>>(
            reader, &HistoryReader::summariesRead, [&] { return reader.summaries({}); });
        qint64 total = -1;
        if (summaries) {
            total = 0;
            for (const MonitorSummary &s : *summaries)
                total += s.checks;
        }
        return total;
    };
    // Each read sees what was committed when it began, and the writer goes on meanwhile.
    qint64 last = -1;
    for (int round = 0; round < 4; ++round) {
        qint64 total = -1;
        QTRY_VERIFY_WITH_TIMEOUT((total = totalChecks()) > last, 20'000);
        last = total;
    }
    QVERIFY(last > 0);
    QCOMPARE(failures.size(), 0);
    QVERIFY(host.shutdown());
}

QTEST_GUILESS_MAIN(TestHistoryReader)
#include "tst_historyreader.moc"
