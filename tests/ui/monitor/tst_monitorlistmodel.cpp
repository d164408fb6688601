#include "core/util/englishplurals.h"
#include "ui/monitor/monitorlistmodel.h"

#include <QAbstractItemModelTester>
#include <QIcon>
#include <QSignalSpy>
#include <QTest>

using namespace RetryLab;
using Core::MonitorState;
using Ui::MonitorBeat;
using Ui::MonitorListModel;

namespace {

Core::Monitor monitorNamed(const QString &name, bool paused = false)
{
    Core::Monitor monitor;
    monitor.name = name;
    monitor.urlTemplate = QStringLiteral("https://%1.example/health").arg(name);
    monitor.request.url = QUrl(monitor.urlTemplate);
    monitor.paused = paused;
    return monitor;
}

// A check of `attempts` attempts, all failed but the last when it succeeded.
Core::StoredCheck checkOf(const QString &monitor, qint64 startMs, int attempts, bool success, qint64 durationMs = 100)
{
    Core::StoredCheck check;
    check.monitor = monitor;
    check.startMs = startMs;
    check.endMs = startMs + durationMs;
    check.success = success;
    for (int i = 0; i < attempts; ++i) {
        Core::StoredAttempt attempt;
        attempt.index = i;
        attempt.success = success && i == attempts - 1;
        check.attempts.append(attempt);
    }
    if (!success)
        check.reason = QStringLiteral("HTTP 503");
    return check;
}

Core::MonitorSummary summaryOf(const QString &monitor, qint64 checks, qint64 checksOk, qint64 attempts,
    qint64 attemptsOk, const QString &agent = {})
{
    Core::MonitorSummary summary;
    summary.monitor = monitor;
    summary.agent = agent;
    summary.checks = checks;
    summary.checksSucceeded = checksOk;
    summary.attempts = attempts;
    summary.attemptsSucceeded = attemptsOk;
    return summary;
}

} // namespace

class TestMonitorListModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { Core::EnglishPlurals::install(); }
    void init();
    void cleanup();
    void setMonitors_appendsNewRemovesGoneAndKeepsWhatItKnows();
    void state_showsAWordAndAnIconPerState();
    void addCheck_keepsTheLastFortyChecksWithTheirAttempts();
    void addCheck_signalsOnlyTheBeatAndLatencyCellsOfItsRow();
    void setCheckHistory_seedsTheBeatsFromTheLastPoints();
    void summaries_showPercentagesWithCountsInTheTooltip_andAddUpAgents();
    void summaries_none_showADash();
    void nextCheck_relativeToNow_runningAndPaused();
    void latency_isTheMedianOfRecentChecks();
    void thousandMonitors_hundredChecks_signalOneRowEach();
    void sortRole_ordersDownFirstAndNumbersAsNumbers();

private:
    MonitorListModel *m_model = nullptr;
    QAbstractItemModelTester *m_tester = nullptr;
};

void TestMonitorListModel::init()
{
    m_model = new MonitorListModel;
    m_tester = new QAbstractItemModelTester(m_model, QAbstractItemModelTester::FailureReportingMode::QtTest);
}

void TestMonitorListModel::cleanup()
{
    delete m_tester;
    delete m_model;
}

void TestMonitorListModel::setMonitors_appendsNewRemovesGoneAndKeepsWhatItKnows()
{
    m_model->setMonitors(
        {monitorNamed(QStringLiteral("a")), monitorNamed(QStringLiteral("b")), monitorNamed(QStringLiteral("c"))});
    QCOMPARE(m_model->rowCount(), 3);
    m_model->setState(QStringLiteral("b"), MonitorState::Down);
    m_model->addCheck(checkOf(QStringLiteral("b"), 1000, 2, true));

    QSignalSpy reset(m_model, &QAbstractItemModel::modelReset);
    m_model->setMonitors({monitorNamed(QStringLiteral("b")), monitorNamed(QStringLiteral("d"), true)});
    QCOMPARE(reset.count(), 0);
    QCOMPARE(m_model->names(), (QStringList{QStringLiteral("b"), QStringLiteral("d")}));
    QCOMPARE(m_model->rowOf(QStringLiteral("b")), 0);
    QCOMPARE(m_model->rowOf(QStringLiteral("a")), -1);
    QCOMPARE(m_model->stateAt(0), MonitorState::Down);
    QCOMPARE(m_model->index(0, MonitorListModel::RecentChecks)
                 .data(MonitorListModel::BeatsRole)
                 .value<QList<MonitorBeat>>()
                 .size(),
        1);
    // A monitor that arrives paused is shown paused until its engine says otherwise.
    QCOMPARE(m_model->stateAt(1), MonitorState::Paused);
    QCOMPARE(m_model->monitorAt(1).name, QStringLiteral("d"));
    QCOMPARE(m_model->monitorAt(7).name, QString());
}

void TestMonitorListModel::state_showsAWordAndAnIconPerState()
{
    m_model->setMonitors({monitorNamed(QStringLiteral("a"))});
    const QModelIndex state = m_model->index(0, MonitorListModel::State);
    QCOMPARE(state.data().toString(), QStringLiteral("Pending"));
    QHash<MonitorState, QImage> images;
    for (const MonitorState s : {MonitorState::Up, MonitorState::Down, MonitorState::Pending, MonitorState::Paused}) {
        m_model->setState(QStringLiteral("a"), s);
        QCOMPARE(state.data().toString(), MonitorListModel::stateText(s));
        const auto icon = state.data(Qt::DecorationRole).value<QIcon>();
        QVERIFY(!icon.isNull());
        images.insert(s, icon.pixmap(16, 16).toImage());
    }
    // Four different shapes: no two icons alike.
    const QList<QImage> all = images.values();
    for (int i = 0; i < all.size(); ++i) {
        for (int j = i + 1; j < all.size(); ++j)
            QVERIFY(all.at(i) != all.at(j));
    }
}

void TestMonitorListModel::addCheck_keepsTheLastFortyChecksWithTheirAttempts()
{
    m_model->setMonitors({monitorNamed(QStringLiteral("a"))});
    for (int i = 0; i < 45; ++i)
        m_model->addCheck(checkOf(QStringLiteral("a"), 1000 * i, i == 44 ? 3 : 1, i != 43));
    m_model->addCheck(checkOf(QStringLiteral("unknown"), 0, 1, true));
    const auto beats = m_model->index(0, MonitorListModel::RecentChecks)
                           .data(MonitorListModel::BeatsRole)
                           .value<QList<MonitorBeat>>();
    QCOMPARE(beats.size(), MonitorListModel::beatCount);
    QCOMPARE(beats.first().startMs, 5000);
    QCOMPARE(beats.last().startMs, 44000);
    QCOMPARE(beats.last().attempts, 3);
    QCOMPARE(beats.last().failedAttempts, 2);
    QVERIFY(beats.last().success);
    QVERIFY(!beats.at(38).success);
    QCOMPARE(beats.at(38).reason, QStringLiteral("HTTP 503"));
    QCOMPARE(m_model->index(0, MonitorListModel::RecentChecks).data().toString(),
        QStringLiteral("1 of the last 40 checks failed"));
}

void TestMonitorListModel::addCheck_signalsOnlyTheBeatAndLatencyCellsOfItsRow()
{
    m_model->setMonitors({monitorNamed(QStringLiteral("a")), monitorNamed(QStringLiteral("b"))});
    QSignalSpy changed(m_model, &QAbstractItemModel::dataChanged);
    m_model->addCheck(checkOf(QStringLiteral("b"), 1000, 1, true));
    QCOMPARE(changed.count(), 2);
    QSet<int> columns;
    for (const QList<QVariant> &signal : changed) {
        const auto topLeft = signal.at(0).toModelIndex();
        const auto bottomRight = signal.at(1).toModelIndex();
        QCOMPARE(topLeft, bottomRight);
        QCOMPARE(topLeft.row(), 1);
        columns.insert(topLeft.column());
    }
    QCOMPARE(columns, (QSet<int>{MonitorListModel::RecentChecks, MonitorListModel::Latency}));

    changed.clear();
    m_model->setState(QStringLiteral("a"), MonitorState::Paused);
    m_model->setState(QStringLiteral("a"), MonitorState::Paused); // no change, no signal
    QCOMPARE(changed.count(), 2); // the state and the next-check text
    QCOMPARE(changed.first().at(0).toModelIndex(), m_model->index(0, MonitorListModel::State));
}

void TestMonitorListModel::setCheckHistory_seedsTheBeatsFromTheLastPoints()
{
    m_model->setMonitors({monitorNamed(QStringLiteral("a"))});
    QList<Core::CheckPoint> points;
    for (int i = 0; i < 50; ++i) {
        Core::CheckPoint point;
        point.startMs = 1000 * i;
        point.durationMs = float(10 * i);
        point.attempts = 2;
        point.failedAttempts = 1;
        point.success = true;
        point.maintenance = i == 49;
        points.append(point);
    }
    m_model->setCheckHistory(QStringLiteral("a"), points);
    m_model->addCheck(checkOf(QStringLiteral("a"), 60'000, 1, false));
    const auto beats = m_model->index(0, MonitorListModel::RecentChecks)
                           .data(MonitorListModel::BeatsRole)
                           .value<QList<MonitorBeat>>();
    QCOMPARE(beats.size(), MonitorListModel::beatCount);
    QCOMPARE(beats.first().startMs, 11'000);
    QCOMPARE(beats.at(38).attempts, 2);
    QCOMPARE(beats.at(38).failedAttempts, 1);
    QVERIFY(beats.at(38).maintenance);
    QCOMPARE(beats.last().startMs, 60'000);
    const auto durations
        = m_model->index(0, MonitorListModel::Latency).data(MonitorListModel::SparklineRole).value<QList<double>>();
    QCOMPARE(durations.size(), MonitorListModel::beatCount);
    QCOMPARE(durations.first(), 110.0);
}

void TestMonitorListModel::summaries_showPercentagesWithCountsInTheTooltip_andAddUpAgents()
{
    m_model->setMonitors({monitorNamed(QStringLiteral("a")), monitorNamed(QStringLiteral("b"))});
    QSignalSpy changed(m_model, &QAbstractItemModel::dataChanged);
    auto withMaintenance = summaryOf(QStringLiteral("a"), 1000, 995, 1200, 1100, QStringLiteral("eu"));
    withMaintenance.maintenanceChecks = 4;
    m_model->setSummaries(
        {withMaintenance, summaryOf(QStringLiteral("a"), 1000, 1000, 1000, 1000, QStringLiteral("us"))},
        {summaryOf(QStringLiteral("b"), 4, 3, 8, 4)});
    QCOMPARE(changed.count(), 1);
    QCOMPARE(changed.first().at(0).toModelIndex(), m_model->index(0, MonitorListModel::Checks24h));
    QCOMPARE(changed.first().at(1).toModelIndex(), m_model->index(1, MonitorListModel::Attempts30d));

    QCOMPARE(m_model->index(0, MonitorListModel::Checks24h).data().toString(), QStringLiteral("99.75 %"));
    QCOMPARE(m_model->index(0, MonitorListModel::Attempts24h).data().toString(), QStringLiteral("95.45 %"));
    QCOMPARE(m_model->index(0, MonitorListModel::Checks24h).data(Qt::ToolTipRole).toString(),
        QStringLiteral("1995 of 2000 checks succeeded (4 checks in maintenance not counted)"));
    QCOMPARE(m_model->index(0, MonitorListModel::Attempts24h).data(Qt::ToolTipRole).toString(),
        QStringLiteral("2100 of 2200 attempts succeeded (4 checks in maintenance not counted)"));
    QCOMPARE(m_model->index(1, MonitorListModel::Checks30d).data().toString(), QStringLiteral("75.00 %"));
    QCOMPARE(m_model->index(1, MonitorListModel::Attempts30d).data().toString(), QStringLiteral("50.00 %"));
    QCOMPARE(m_model->index(1, MonitorListModel::Checks30d).data(MonitorListModel::SortRole).toDouble(), 0.75);
}

void TestMonitorListModel::summaries_none_showADash()
{
    m_model->setMonitors({monitorNamed(QStringLiteral("a"))});
    m_model->setSummaries({summaryOf(QStringLiteral("a"), 0, 0, 0, 0)}, {});
    for (const int column : {MonitorListModel::Checks24h, MonitorListModel::Attempts24h, MonitorListModel::Checks30d,
             MonitorListModel::Attempts30d, MonitorListModel::Latency}) {
        QCOMPARE(m_model->index(0, column).data().toString(), QStringLiteral("—"));
    }
    QCOMPARE(m_model->index(0, MonitorListModel::Checks30d).data(Qt::ToolTipRole).toString(),
        QStringLiteral("No checks in this window"));
}

void TestMonitorListModel::nextCheck_relativeToNow_runningAndPaused()
{
    m_model->setMonitors({monitorNamed(QStringLiteral("a")), monitorNamed(QStringLiteral("b")),
        monitorNamed(QStringLiteral("c"), true), monitorNamed(QStringLiteral("d"))});
    m_model->setNow(100'000);
    m_model->setNextDue(
        {{QStringLiteral("a"), 106'500}, {QStringLiteral("b"), 99'000}, {QStringLiteral("c"), 200'000}});
    const auto text = [this](int row) { return m_model->index(row, MonitorListModel::NextCheck).data().toString(); };
    QCOMPARE(text(0), QStringLiteral("in 7 s"));
    QCOMPARE(text(1), QStringLiteral("running"));
    QCOMPARE(text(2), QStringLiteral("paused"));
    QCOMPARE(text(3), QStringLiteral("—"));

    QSignalSpy changed(m_model, &QAbstractItemModel::dataChanged);
    m_model->setNow(104'000);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(changed.first().at(0).toModelIndex(), m_model->index(0, MonitorListModel::NextCheck));
    QCOMPARE(changed.first().at(1).toModelIndex(), m_model->index(3, MonitorListModel::NextCheck));
    QCOMPARE(text(0), QStringLiteral("in 3 s"));
    m_model->setState(QStringLiteral("a"), MonitorState::Paused);
    QCOMPARE(text(0), QStringLiteral("paused"));
}

void TestMonitorListModel::latency_isTheMedianOfRecentChecks()
{
    m_model->setMonitors({monitorNamed(QStringLiteral("a"))});
    for (const qint64 ms : {300, 100, 200, 5000})
        m_model->addCheck(checkOf(QStringLiteral("a"), 0, 1, true, ms));
    const QModelIndex latency = m_model->index(0, MonitorListModel::Latency);
    QCOMPARE(latency.data().toString(), QStringLiteral("200 ms"));
    QCOMPARE(latency.data(MonitorListModel::SortRole).toDouble(), 200.0);
    QCOMPARE(latency.data(MonitorListModel::SparklineRole).value<QList<double>>(),
        (QList<double>{300.0, 100.0, 200.0, 5000.0}));
}

void TestMonitorListModel::thousandMonitors_hundredChecks_signalOneRowEach()
{
    QList<Core::Monitor> monitors;
    for (int i = 0; i < 1000; ++i)
        monitors.append(monitorNamed(QStringLiteral("m%1").arg(i)));
    m_model->setMonitors(monitors);
    QCOMPARE(m_model->rowCount(), 1000);
    QSignalSpy changed(m_model, &QAbstractItemModel::dataChanged);
    for (int i = 0; i < 100; ++i)
        m_model->addCheck(checkOf(QStringLiteral("m%1").arg(i * 10 + 3), i, 1, true));
    QCOMPARE(changed.count(), 200);
    for (const QList<QVariant> &signal : changed)
        QCOMPARE(signal.at(0).toModelIndex().row(), signal.at(1).toModelIndex().row());
    QCOMPARE(m_model->rowOf(QStringLiteral("m993")), 993);
}

void TestMonitorListModel::sortRole_ordersDownFirstAndNumbersAsNumbers()
{
    m_model->setMonitors({monitorNamed(QStringLiteral("up")), monitorNamed(QStringLiteral("down"))});
    m_model->setState(QStringLiteral("up"), MonitorState::Up);
    m_model->setState(QStringLiteral("down"), MonitorState::Down);
    const auto sortKey
        = [this](int row, int column) { return m_model->index(row, column).data(MonitorListModel::SortRole); };
    QVERIFY(sortKey(1, MonitorListModel::State).toInt() < sortKey(0, MonitorListModel::State).toInt());
    QCOMPARE(sortKey(0, MonitorListModel::Checks24h).toDouble(), -1.0);
    QCOMPARE(m_model->index(0, 0).data(MonitorListModel::NameRole).toString(), QStringLiteral("up"));
    QCOMPARE(m_model->index(1, 0).data(MonitorListModel::StateRole).toInt(), int(MonitorState::Down));
}

QTEST_MAIN(TestMonitorListModel)
#include "tst_monitorlistmodel.moc"
