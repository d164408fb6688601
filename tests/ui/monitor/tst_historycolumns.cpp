#include "ui/monitor/historycolumns.h"

#include <QTest>

using namespace RetryLab;
using Ui::HistoryColumns;
using Ui::TimeScale;

namespace {

Core::CheckPoint check(
    qint64 startMs, float durationMs, bool success, quint16 failedAttempts = 0, bool maintenance = false)
{
    Core::CheckPoint p;
    p.startMs = startMs;
    p.durationMs = durationMs;
    p.attemptMinMs = durationMs / 2.0F;
    p.attemptMaxMs = durationMs;
    p.attempts = quint16(failedAttempts + (success ? 1 : 0));
    p.failedAttempts = failedAttempts;
    p.success = success;
    p.maintenance = maintenance;
    return p;
}

// 10 columns of 100 ms each over [0, 1000].
TimeScale tenColumns()
{
    TimeScale scale;
    scale.minSpanMs = 1.0;
    scale.setWidth(10.0);
    scale.setBounds(0.0, 1000.0);
    scale.showAll();
    return scale;
}

} // namespace

class TestHistoryColumns : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void columns_aggregateMinMaxAndCounts_perColumn();
    void columns_recomputedWhenTheRangeOrThePointsChange();
    void nearest_withinTolerance_only();
};

void TestHistoryColumns::columns_aggregateMinMaxAndCounts_perColumn()
{
    HistoryColumns data;
    // Unsorted on purpose: the columns need them by start.
    data.setPoints({check(150, 40.0F, true), check(120, 300.0F, false, 3), check(110, 80.0F, true, 1),
        check(950, 10.0F, false, 1, true), check(1500, 5.0F, true)});
    QCOMPARE(data.points().first().startMs, 110);
    const QList<HistoryColumns::Column> &columns = data.columns(tenColumns());
    QCOMPARE(columns.size(), 10);
    const HistoryColumns::Column &first = columns.at(1);
    QCOMPARE(first.checks, 3);
    QCOMPARE(first.checkMinMs, 40.0F);
    QCOMPARE(first.checkMaxMs, 300.0F);
    QCOMPARE(first.attemptMinMs, 20.0F);
    QCOMPARE(first.attemptMaxMs, 300.0F);
    QCOMPARE(first.failed, 1);
    QCOMPARE(first.retried, 1);
    // A failed check in maintenance is not a failure.
    QCOMPARE(columns.at(9).maintenance, 1);
    QCOMPARE(columns.at(9).failed, 0);
    int total = 0;
    for (const HistoryColumns::Column &column : columns)
        total += column.checks;
    QCOMPARE(total, 4); // the check at 1500 ms is out of sight
}

void TestHistoryColumns::columns_recomputedWhenTheRangeOrThePointsChange()
{
    HistoryColumns data;
    data.setPoints({check(150, 40.0F, true)});
    TimeScale scale = tenColumns();
    QCOMPARE(data.columns(scale).at(1).checks, 1);
    scale.setRange(100.0, 200.0); // zoomed in: the check is now in column 5
    QCOMPARE(data.columns(scale).at(5).checks, 1);
    QCOMPARE(data.columns(scale).at(1).checks, 0);
    data.setPoints({check(110, 40.0F, true), check(115, 50.0F, true)});
    QCOMPARE(data.columns(scale).at(1).checks, 2);
}

void TestHistoryColumns::nearest_withinTolerance_only()
{
    HistoryColumns data;
    data.setPoints({check(100, 1.0F, true), check(500, 1.0F, true)});
    const TimeScale scale = tenColumns();
    QCOMPARE(data.nearest(scale, 1.2, 1.0), std::optional<qsizetype>(0));
    QCOMPARE(data.nearest(scale, 4.6, 1.0), std::optional<qsizetype>(1));
    QCOMPARE(data.nearest(scale, 3.0, 1.0), std::nullopt);
    QCOMPARE(HistoryColumns().nearest(scale, 1.0, 5.0), std::nullopt);
}

QTEST_GUILESS_MAIN(TestHistoryColumns)
#include "tst_historycolumns.moc"
