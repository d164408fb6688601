#include "core/policy/backoff.h"
#include "core/policy/presets.h"
#include "ui/policy/schedulepreviewchart.h"

#include <QAreaSeries>
#include <QChart>
#include <QLabel>
#include <QLineSeries>
#include <QLocale>
#include <QLogValueAxis>
#include <QSignalSpy>
#include <QTest>

#include <cmath>

using namespace RetryLab;
using Core::BackoffAlgorithm;
using Core::BackoffPolicy;
using Ui::SchedulePreviewChart;

namespace {

template<typename T>
T *series(const SchedulePreviewChart &chart, const QString &name)
{
    for (QAbstractSeries *each : chart.chart()->series()) {
        if (each->objectName() == name)
            return qobject_cast<T *>(each);
    }
    return nullptr;
}

bool close(double a, double b)
{
    return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b));
}

BackoffPolicy googlePolicy(int attempts)
{
    BackoffPolicy p;
    p.algorithm = BackoffAlgorithm::GoogleTruncatedExponential;
    p.maxAttempts = attempts;
    return p;
}

// Sets everything and waits for the one coalesced redraw.
void show(SchedulePreviewChart &chart, const BackoffPolicy &policy)
{
    QSignalSpy updated(&chart, &SchedulePreviewChart::previewUpdated);
    chart.setPolicy(policy);
    QVERIFY(chart.isUpdatePending());
    QVERIFY(updated.wait(2000));
    QCOMPARE(updated.count(), 1);
}

} // namespace

class TestSchedulePreviewChart final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void series_matchPreviewSchedule_forASeededPolicy_data();
    void series_matchPreviewSchedule_forASeededPolicy();
    void manyChanges_areCoalescedIntoOneRedraw();
    void zeroRetries_drawsNothingAndSaysWhy();
    void hedging_saysTheChartedDelaysAreNotUsed();
    void deadlineOnly_drawsUntilTheDeadlineIsCrossed();
    void thousandRetries_drawnWhole_andMoreAreTruncatedWithANote();
    void reroll_changesSamplesButNotTheBand();
    void automaticScale_picksLogarithmicForWideSpans();
    void logarithmicScale_withOnlyZeroDelays_staysLinear();
    void palette_isFollowed();
};

void TestSchedulePreviewChart::series_matchPreviewSchedule_forASeededPolicy_data()
{
    QTest::addColumn<BackoffPolicy>("policy");
    QTest::addColumn<int>("retries");
    BackoffPolicy deadline = googlePolicy(6);
    deadline.deadlineMs = 20'000;
    QTest::addRow("google, 5 retries, deadline") << deadline << 5;
    BackoffPolicy decorrelated;
    decorrelated.algorithm = BackoffAlgorithm::DecorrelatedJitter;
    decorrelated.baseDelayMs = 100;
    decorrelated.maxBackoffMs = 5000;
    decorrelated.maxAttempts = 12;
    QTest::addRow("decorrelated, 11 retries") << decorrelated << 11;
    QTest::addRow("grpc preset") << *Core::Presets::find(QStringLiteral("grpc-retry-policy")) << 3;
}

void TestSchedulePreviewChart::series_matchPreviewSchedule_forASeededPolicy()
{
    QFETCH(BackoffPolicy, policy);
    QFETCH(int, retries);
    SchedulePreviewChart chart;
    chart.setScale(SchedulePreviewChart::Scale::Linear);
    chart.setSeed(42);
    show(chart, policy);

    const auto expected = Core::previewSchedule(policy, retries, SchedulePreviewChart::sampleCount, 42);
    QCOMPARE(chart.shownRetries(), retries);
    QCOMPARE(chart.preview().samples, expected.samples);
    QVERIFY(!chart.isLogarithmic());

    const double du = chart.delayUnit().msPerUnit;
    const double cu = chart.cumulativeUnit().msPerUnit;
    auto *band = series<QAreaSeries>(chart, QStringLiteral("band"));
    QVERIFY(band);
    const auto upper = band->upperSeries()->points();
    const auto lower = band->lowerSeries()->points();
    QCOMPARE(upper.size(), 2 * retries);
    QCOMPARE(lower.size(), 2 * retries);
    auto *cumMin = series<QLineSeries>(chart, QStringLiteral("cumulativeMin"));
    auto *cumMax = series<QLineSeries>(chart, QStringLiteral("cumulativeMax"));
    QCOMPARE(cumMin->count(), retries);
    for (int n = 0; n < retries; ++n) {
        const auto &e = expected.envelope.at(n);
        // Each retry index is a step from n - 0.5 to n + 0.5.
        QCOMPARE(upper.at(2 * n).x(), n - 0.5);
        QCOMPARE(upper.at(2 * n + 1).x(), n + 0.5);
        QVERIFY(close(upper.at(2 * n).y() * du, e.maxMs));
        QVERIFY(close(upper.at(2 * n + 1).y() * du, e.maxMs));
        QVERIFY(close(lower.at(2 * n).y() * du, e.minMs));
        QCOMPARE(cumMin->at(n).x(), double(n));
        QVERIFY(close(cumMin->at(n).y() * cu, e.cumulativeMinMs));
        QVERIFY(close(cumMax->at(n).y() * cu, e.cumulativeMaxMs));
    }
    for (int k = 0; k < SchedulePreviewChart::sampleCount; ++k) {
        auto *sample = series<QLineSeries>(chart, QStringLiteral("sample%1").arg(k));
        QVERIFY(sample);
        QCOMPARE(sample->count(), retries);
        for (int n = 0; n < retries; ++n)
            QVERIFY(close(sample->at(n).y() * du, expected.samples.at(k).at(n)));
    }
    auto *deadline = series<QLineSeries>(chart, QStringLiteral("deadline"));
    if (policy.deadlineMs > 0) {
        QCOMPARE(deadline->count(), 2);
        QVERIFY(close(deadline->at(0).y() * cu, policy.deadlineMs));
    } else {
        QCOMPARE(deadline->count(), 0);
    }
    auto *legend = chart.findChild<QLabel *>(QStringLiteral("legend"));
    QVERIFY(legend);
    const QString legendText = legend->text().replace(QLatin1String("&nbsp;"), QLatin1String(" "));
    QVERIFY2(legendText.contains(QLatin1String("seed 42")), qPrintable(legendText));
    QCOMPARE(legendText.contains(QLatin1String("Deadline")), policy.deadlineMs > 0);
}

void TestSchedulePreviewChart::manyChanges_areCoalescedIntoOneRedraw()
{
    SchedulePreviewChart chart;
    QSignalSpy updated(&chart, &SchedulePreviewChart::previewUpdated);
    const int before = chart.redrawCount();
    BackoffPolicy policy = googlePolicy(8);
    for (int i = 1; i <= 200; ++i) {
        policy.baseDelayMs = 10.0 * i;
        chart.setPolicy(policy);
        chart.setSeed(static_cast<quint64>(i));
    }
    QVERIFY(updated.wait(2000));
    QCOMPARE(updated.count(), 1);
    QCOMPARE(chart.redrawCount(), before + 1);
    QVERIFY(!chart.isUpdatePending());
    QCOMPARE(chart.preview().samples, Core::previewSchedule(policy, 7, SchedulePreviewChart::sampleCount, 200).samples);
}

void TestSchedulePreviewChart::zeroRetries_drawsNothingAndSaysWhy()
{
    SchedulePreviewChart chart;
    show(chart, googlePolicy(1));
    QCOMPARE(chart.shownRetries(), 0);
    QCOMPARE(series<QAreaSeries>(chart, QStringLiteral("band"))->upperSeries()->count(), 0);
    QCOMPARE(series<QLineSeries>(chart, QStringLiteral("sample0"))->count(), 0);
    QVERIFY2(chart.note().contains(QLatin1String("single attempt")), qPrintable(chart.note()));
    QVERIFY(!chart.isTruncated());
}

void TestSchedulePreviewChart::hedging_saysTheChartedDelaysAreNotUsed()
{
    SchedulePreviewChart chart;
    show(chart, *Core::Presets::find(QStringLiteral("grpc-hedging")));
    QVERIFY2(chart.note().startsWith(QLatin1String("Hedging is on: a further attempt goes out every 500 ms while none "
                                                   "has answered, 4 in all")),
        qPrintable(chart.note()));
    show(chart, *Core::Presets::find(QStringLiteral("grpc-retry-policy")));
    QVERIFY(!chart.note().contains(QLatin1String("Hedging")));
}

void TestSchedulePreviewChart::deadlineOnly_drawsUntilTheDeadlineIsCrossed()
{
    const BackoffPolicy iam = *Core::Presets::find(QStringLiteral("iam"));
    QCOMPARE(iam.maxAttempts, 0);
    SchedulePreviewChart chart;
    show(chart, iam);

    const auto probe = Core::previewSchedule(iam, Core::maxPreviewRetries, 0, 1);
    const int fit = static_cast<int>(probe.retriesWithinDeadline);
    QVERIFY(fit > 5 && fit < 50);
    QCOMPARE(chart.shownRetries(), fit + 1);
    // The last one drawn is the first whose fastest schedule crosses the deadline.
    QVERIFY(chart.preview().envelope.at(fit - 1).cumulativeMinMs <= iam.deadlineMs);
    QVERIFY(chart.preview().envelope.at(fit).cumulativeMinMs > iam.deadlineMs);
    QCOMPARE(series<QLineSeries>(chart, QStringLiteral("deadline"))->count(), 2);
    QVERIFY2(chart.note().contains(QLatin1String("deadline")), qPrintable(chart.note()));
    QVERIFY(chart.note().contains(QString::number(fit)));

    // A deadline shorter than the first delay: one retry drawn, and said so.
    BackoffPolicy tight = iam;
    tight.deadlineMs = 500;
    show(chart, tight);
    QCOMPARE(chart.shownRetries(), 1);
    QVERIFY2(chart.note().contains(QLatin1String("Not even the first retry")), qPrintable(chart.note()));
}

void TestSchedulePreviewChart::thousandRetries_drawnWhole_andMoreAreTruncatedWithANote()
{
    SchedulePreviewChart chart;
    show(chart, googlePolicy(1001));
    QCOMPARE(chart.shownRetries(), 1000);
    QVERIFY(!chart.isTruncated());
    QCOMPARE(series<QLineSeries>(chart, QStringLiteral("sample2"))->count(), 1000);
    QVERIFY(!series<QLineSeries>(chart, QStringLiteral("sample2"))->pointsVisible());

    show(chart, googlePolicy(100'000));
    QCOMPARE(chart.shownRetries(), Core::maxPreviewRetries);
    QVERIFY(chart.isTruncated());
    QVERIFY2(chart.note().contains(QLatin1String("first")), qPrintable(chart.note()));
    const QString total = QLocale().toString(99'999);
    QVERIFY2(chart.note().contains(total), qPrintable(chart.note()));

    BackoffPolicy immediate;
    immediate.algorithm = BackoffAlgorithm::Immediate;
    immediate.maxAttempts = 0;
    immediate.deadlineMs = 1000;
    show(chart, immediate);
    QCOMPARE(chart.shownRetries(), Core::maxPreviewRetries);
    QVERIFY(chart.isTruncated());
}

void TestSchedulePreviewChart::reroll_changesSamplesButNotTheBand()
{
    SchedulePreviewChart chart;
    show(chart, googlePolicy(6));
    const quint64 seed = chart.seed();
    const auto before = chart.preview();

    QSignalSpy updated(&chart, &SchedulePreviewChart::previewUpdated);
    chart.reroll();
    QVERIFY(updated.wait(2000));
    QVERIFY(chart.seed() != seed);
    QVERIFY(chart.preview().samples != before.samples);
    QCOMPARE(chart.preview().samples,
        Core::previewSchedule(googlePolicy(6), 5, SchedulePreviewChart::sampleCount, chart.seed()).samples);
    for (int n = 0; n < 5; ++n)
        QCOMPARE(chart.preview().envelope.at(n).maxMs, before.envelope.at(n).maxMs);
    auto *label = chart.findChild<QLabel *>(QStringLiteral("seed"));
    QVERIFY(label && label->text().contains(QString::number(chart.seed())));
}

void TestSchedulePreviewChart::automaticScale_picksLogarithmicForWideSpans()
{
    SchedulePreviewChart chart;
    QCOMPARE(chart.scale(), SchedulePreviewChart::Scale::Automatic);
    show(chart, googlePolicy(5)); // 1 s .. 17 s: linear reads fine
    QVERIFY(!chart.isLogarithmic());

    BackoffPolicy wide;
    wide.algorithm = BackoffAlgorithm::Exponential;
    wide.baseDelayMs = 10;
    wide.maxBackoffMs = 60'000;
    wide.maxAttempts = 14;
    show(chart, wide);
    QVERIFY(chart.isLogarithmic());
    const auto axes = chart.chart()->axes(Qt::Vertical);
    QVERIFY(std::any_of(
        axes.cbegin(), axes.cend(), [](QAbstractAxis *axis) { return qobject_cast<QLogValueAxis *>(axis); }));
    QCOMPARE(axes.size(), 2);

    QSignalSpy updated(&chart, &SchedulePreviewChart::previewUpdated);
    chart.setScale(SchedulePreviewChart::Scale::Linear);
    QVERIFY(updated.wait(2000));
    QVERIFY(!chart.isLogarithmic());
    QCOMPARE(chart.chart()->axes(Qt::Vertical).size(), 2);
}

void TestSchedulePreviewChart::logarithmicScale_withOnlyZeroDelays_staysLinear()
{
    SchedulePreviewChart chart;
    chart.setScale(SchedulePreviewChart::Scale::Logarithmic);
    BackoffPolicy immediate;
    immediate.algorithm = BackoffAlgorithm::Immediate;
    immediate.maxAttempts = 4;
    show(chart, immediate);
    QVERIFY(!chart.isLogarithmic());
    QVERIFY2(chart.note().contains(QLatin1String("logarithmic")), qPrintable(chart.note()));
    QCOMPARE(chart.shownRetries(), 3);
}

void TestSchedulePreviewChart::palette_isFollowed()
{
    SchedulePreviewChart chart;
    QPalette dark;
    dark.setColor(QPalette::Window, QColor(30, 30, 30));
    dark.setColor(QPalette::WindowText, QColor(230, 230, 230));
    dark.setColor(QPalette::Base, QColor(20, 20, 20));
    dark.setColor(QPalette::Text, QColor(230, 230, 230));
    chart.setPalette(dark);
    QCOMPARE(chart.chart()->backgroundBrush().color(), QColor(30, 30, 30));
    QCOMPARE(chart.chart()->plotAreaBackgroundBrush().color(), QColor(20, 20, 20));
    QCOMPARE(chart.chart()->axes(Qt::Horizontal).constFirst()->labelsBrush().color(), QColor(230, 230, 230));
}

QTEST_MAIN(TestSchedulePreviewChart)
#include "tst_schedulepreviewchart.moc"
