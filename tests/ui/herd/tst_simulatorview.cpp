#include "core/herd/herdsimulator.h"
#include "ui/herd/simulatorview.h"
#include "ui/widgets/outcomestyle.h"

#include <QAreaSeries>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QListWidget>
#include <QLogValueAxis>
#include <QProgressBar>
#include <QPushButton>
#include <QSet>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>
#include <QTimer>
#include <QValueAxis>

#include <algorithm>
#include <memory>

using namespace RetryLab;
using namespace RetryLab::Core;

class TestSimulatorView : public QObject
{
    Q_OBJECT

private:
    template<typename T>
    static T *child(const Ui::SimulatorView &view, const char *name)
    {
        T *widget = view.findChild<T *>(QLatin1String(name));
        if (!widget)
            qFatal("no child %s", name);
        return widget;
    }

    static HerdParameters smallGrid(HerdModel model = HerdModel::OptimisticConcurrency)
    {
        HerdParameters p = HerdParameters::defaultsFor(model);
        p.clientCounts = {10, 20, 30};
        p.runs = 5;
        p.strategies
            = {HerdStrategy{}, HerdStrategy{BackoffAlgorithm::Exponential}, HerdStrategy{BackoffAlgorithm::FullJitter}};
        return p;
    }

    // A grid that takes minutes, so that there is time to cancel it.
    static HerdParameters hugeGrid()
    {
        HerdParameters p = HerdParameters::defaultsFor(HerdModel::OptimisticConcurrency);
        p.clientCounts = {150, 160, 170, 180, 190};
        p.runs = 20'000;
        return p;
    }

    static QList<QLineSeries *> lines(QChartView *view)
    {
        QList<QLineSeries *> result;
        for (QAbstractSeries *s : view->chart()->series()) {
            if (auto *line = qobject_cast<QLineSeries *>(s))
                result.append(line);
        }
        return result;
    }

private Q_SLOTS:
    void initTestCase();
    void defaults_formIsValidAndRunEnabled();
    void chartText_followsTheFont_asPresentationEnlargesIt();
    void badClients_errorShownInlineAndRunDisabled();
    void outageEndingBeforeItStarts_errorShownInline();
    void noStrategy_errorShownInline();
    void modelChange_loadsModelDefaultsAndKeepsGrid();
    void setParameters_roundTrips();
    void smallGrid_progressReachesEndAndChartsGetSeries();
    void millionClients_progressMovesWithinTheRunAndCancels();
    void longRun_loadCurveIsBoundedAndLargeCountsAreScaled();
    void loadClients_choosesTheLoadCurve();
    void logScale_usesLogarithmicAxis();
    void outage_loadChartShowsTheOutage();
    void cancel_stopsAndKeepsPreviousCharts();
    void start_whileRunning_refused();
    void destroyWhileRunning_returnsPromptly();
    void darkPalette_coloursContrastWithTheBase();
    void screenshot_savedWhenAsked();
};

void TestSimulatorView::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
}

void TestSimulatorView::defaults_formIsValidAndRunEnabled()
{
    Ui::SimulatorView view;
    QVERIFY(child<QPushButton>(view, "runButton")->isEnabled());
    QVERIFY(!child<QPushButton>(view, "cancelButton")->isEnabled());
    QCOMPARE(child<QComboBox>(view, "modelCombo")->count(), 4);
    QCOMPARE(child<QListWidget>(view, "strategyList")->count(), HerdStrategy::allFor(HerdModel::Latency).size());
    const auto p = view.parameters();
    QVERIFY2(p, qPrintable(p.error()));
    const HerdParameters defaults = HerdParameters::defaultsFor(HerdModel::OptimisticConcurrency);
    QCOMPARE(p->clientCounts, defaults.clientCounts);
    QCOMPARE(p->runs, 100);
    // The list shows every strategy in HerdStrategy::all() order; the defaults are ticked.
    QList<HerdStrategy> expected = HerdStrategy::defaults();
    std::sort(expected.begin(), expected.end(),
        [](const HerdStrategy &a, const HerdStrategy &b) { return a.index() < b.index(); });
    QCOMPARE(p->strategies, expected);
    QCOMPARE(p->baseDelayMs, 5.0);
    QCOMPARE(p->maxBackoffMs, 2000.0);
    QVERIFY(!view.isRunning());
}

void TestSimulatorView::badClients_errorShownInlineAndRunDisabled()
{
    Ui::SimulatorView view;
    QSignalSpy failed(&view, &Ui::SimulatorView::failed);
    child<QLineEdit>(view, "clientsEdit")->setText(QStringLiteral("0:50:10"));
    QVERIFY(!child<QPushButton>(view, "runButton")->isEnabled());
    const QString status = child<QLabel>(view, "statusLabel")->text();
    QVERIFY2(status.contains(QLatin1String("clients:")), qPrintable(status));
    QVERIFY2(status.contains(QLatin1String("outside 1..")), qPrintable(status));

    view.start();
    QCOMPARE(failed.count(), 1);
    QVERIFY(!view.isRunning());

    child<QLineEdit>(view, "clientsEdit")->setText(QStringLiteral("10,20"));
    QVERIFY(child<QPushButton>(view, "runButton")->isEnabled());
    QVERIFY(!child<QLabel>(view, "statusLabel")->text().contains(QLatin1String("clients:")));
}

void TestSimulatorView::outageEndingBeforeItStarts_errorShownInline()
{
    Ui::SimulatorView view;
    HerdParameters p = smallGrid(HerdModel::Outage);
    p.outageStartMs = 4000.0;
    p.outageEndMs = 2000.0;
    view.setParameters(p);
    QVERIFY(!child<QPushButton>(view, "runButton")->isEnabled());
    const QString status = child<QLabel>(view, "statusLabel")->text();
    QVERIFY2(status.contains(QLatin1String("outageEndMs:")), qPrintable(status));
    QVERIFY(!view.parameters());
}

void TestSimulatorView::noStrategy_errorShownInline()
{
    Ui::SimulatorView view;
    auto *list = child<QListWidget>(view, "strategyList");
    for (int row = 0; row < list->count(); ++row)
        list->item(row)->setCheckState(Qt::Unchecked);
    QVERIFY(!child<QPushButton>(view, "runButton")->isEnabled());
    QVERIFY(child<QLabel>(view, "statusLabel")->text().contains(QLatin1String("no strategy")));
}

void TestSimulatorView::modelChange_loadsModelDefaultsAndKeepsGrid()
{
    Ui::SimulatorView view;
    child<QLineEdit>(view, "clientsEdit")->setText(QStringLiteral("5,15"));
    auto *model = child<QComboBox>(view, "modelCombo");
    model->setCurrentIndex(model->findData(herdModelName(HerdModel::CapacityLimited)));
    const auto p = view.parameters();
    QVERIFY2(p, qPrintable(p.error()));
    QCOMPARE(p->model, HerdModel::CapacityLimited);
    QCOMPARE(p->clientCounts, (QList<int>{5, 15}));
    const HerdParameters capacity = HerdParameters::defaultsFor(HerdModel::CapacityLimited);
    QCOMPARE(p->baseDelayMs, capacity.baseDelayMs);
    QCOMPARE(p->serviceRatePerSec, capacity.serviceRatePerSec);

    QGroupBox *server = nullptr;
    QGroupBox *outage = nullptr;
    for (QGroupBox *group : view.findChildren<QGroupBox *>()) {
        if (group->title() == QLatin1String("Server"))
            server = group;
        if (group->title() == QLatin1String("Outage"))
            outage = group;
    }
    QVERIFY(server && outage);
    QVERIFY(server->isEnabled());
    QVERIFY(!outage->isEnabled());
    model->setCurrentIndex(model->findData(herdModelName(HerdModel::Outage)));
    QVERIFY(outage->isEnabled());
    model->setCurrentIndex(model->findData(herdModelName(HerdModel::OptimisticConcurrency)));
    QVERIFY(!server->isEnabled());
}

void TestSimulatorView::setParameters_roundTrips()
{
    Ui::SimulatorView view;
    HerdParameters p = smallGrid(HerdModel::CapacityLimited);
    p.seed = 123456789012345ULL;
    p.retryAfterS = 3;
    p.overloadStatus = 429;
    p.honourRetryAfter = false;
    p.arrivals = ArrivalMode::Poisson;
    p.arrivalRatePerSec = 75.0;
    p.maxAttempts = 7;
    view.setParameters(p);
    const auto back = view.parameters();
    QVERIFY2(back, qPrintable(back.error()));
    QCOMPARE(back->seed, p.seed);
    QCOMPARE(back->retryAfterS, p.retryAfterS);
    QCOMPARE(back->overloadStatus, 429);
    QCOMPARE(back->honourRetryAfter, false);
    QCOMPARE(back->arrivals, ArrivalMode::Poisson);
    QCOMPARE(back->arrivalRatePerSec, 75.0);
    QCOMPARE(back->maxAttempts, 7);
    QCOMPARE(back->strategies, p.strategies);
    QCOMPARE(back->clientCounts, p.clientCounts);
}

// One run of a million clients: the bar moves while that single run goes on, the
// window's event loop keeps turning, and Cancel stops it.
void TestSimulatorView::millionClients_progressMovesWithinTheRunAndCancels()
{
    HerdParameters p = HerdParameters::defaultsFor(HerdModel::CapacityLimited);
    p.clientCounts = {HerdLimits::maxClients};
    p.strategies = {*HerdStrategy::fromName(QStringLiteral("full-jitter"))};
    p.runs = 1;
    p.serviceRatePerSec = 20'000.0;
    p.queueCapacity = 1'000;
    p.maxBackoffMs = 20'000.0;
    Ui::SimulatorView view;
    view.setParameters(p);
    QSignalSpy started(&view, &Ui::SimulatorView::started);
    QSignalSpy cancelled(&view, &Ui::SimulatorView::cancelled);
    QSignalSpy failed(&view, &Ui::SimulatorView::failed);
    view.start();
    QCOMPARE(failed.count(), 0);
    QCOMPARE(started.count(), 1);

    auto *progress = child<QProgressBar>(view, "progressBar");
    int ticks = 0;
    QTimer ticker;
    QObject::connect(&ticker, &QTimer::timeout, &view, [&ticks] { ++ticks; });
    ticker.start(10);
    QTRY_VERIFY_WITH_TIMEOUT(progress->value() > 0, 120'000);
    QVERIFY(view.isRunning());
    QVERIFY(progress->value() < progress->maximum());
    QVERIFY(ticks > 0); // the window's timers ran while the run went on
    QTest::mouseClick(child<QPushButton>(view, "cancelButton"), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(cancelled.count(), 1, 30'000);
    QVERIFY(!view.isRunning());
    QVERIFY(child<QLabel>(view, "statusLabel")->text().contains(QLatin1String("Cancelled after 0 of 1 runs")));
}

// Tens of thousands of load bins reach the chart as at most 2,000 points that keep
// the peak; calls in the tens of thousands are drawn in thousands.
void TestSimulatorView::longRun_loadCurveIsBoundedAndLargeCountsAreScaled()
{
    HerdParameters p = HerdParameters::defaultsFor(HerdModel::CapacityLimited);
    p.clientCounts = {20'000};
    p.strategies = {*HerdStrategy::fromName(QStringLiteral("full-jitter"))};
    p.runs = 1;
    p.serviceRatePerSec = 1'000.0;
    p.queueCapacity = 100;
    p.binMs = 4.0;
    Ui::SimulatorView view;
    view.setParameters(p);
    QSignalSpy finished(&view, &Ui::SimulatorView::finished);
    QSignalSpy failed(&view, &Ui::SimulatorView::failed);
    view.start();
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() + failed.count() == 1, 120'000);
    QVERIFY2(failed.isEmpty(), qPrintable(failed.value(0).value(0).toString()));

    const HerdCellResult &cell = view.report().cells.first();
    QVERIFY(cell.meanLoadPerBin.size() > 4'000);
    const auto load = lines(child<QChartView>(view, "loadChartView"));
    QCOMPARE(load.size(), 1);
    QVERIFY(load.first()->count() <= 2000);
    double peak = 0.0;
    for (const QPointF &point : load.first()->points())
        peak = std::max(peak, point.y());
    const double binPeak = *std::max_element(cell.meanLoadPerBin.cbegin(), cell.meanLoadPerBin.cend());
    const auto *y
        = qobject_cast<QValueAxis *>(child<QChartView>(view, "loadChartView")->chart()->axes(Qt::Vertical).first());
    QVERIFY(y);
    // calls per 4 ms bin x 250 = calls/s: the herd's first bins reach millions a second
    QVERIFY2(y->titleText().contains(QLatin1String("millions")), qPrintable(y->titleText()));
    QCOMPARE(peak, binPeak * 250.0 / 1e6);

    const auto calls = lines(child<QChartView>(view, "callsChartView"));
    QCOMPARE(calls.first()->count(), 1);
    QCOMPARE(calls.first()->at(0).x(), 20.0); // clients, in thousands
    QCOMPARE(calls.first()->at(0).y(), cell.calls.mean / 1000.0);
}

void TestSimulatorView::smallGrid_progressReachesEndAndChartsGetSeries()
{
    Ui::SimulatorView view;
    view.setParameters(smallGrid());
    QSignalSpy started(&view, &Ui::SimulatorView::started);
    QSignalSpy finished(&view, &Ui::SimulatorView::finished);
    view.start();
    QCOMPARE(started.count(), 1);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30'000);
    QVERIFY(!view.isRunning());

    auto *progress = child<QProgressBar>(view, "progressBar");
    QCOMPARE(progress->value(), progress->maximum());
    QVERIFY(progress->text().contains(QLatin1String("45 of 45 runs")));
    QCOMPARE(view.report().cells.size(), 9);

    for (const char *name : {"callsChartView", "completionChartView"}) {
        const auto series = lines(child<QChartView>(view, name));
        QCOMPARE(series.size(), 3);
        for (QLineSeries *s : series)
            QCOMPARE(s->count(), 3);
        QCOMPARE(child<QChartView>(view, name)->chart()->axes().size(), 2);
    }
    // The calls chart plots the report's means.
    const auto calls = lines(child<QChartView>(view, "callsChartView"));
    const HerdCellResult *cell = view.report().find(20, HerdStrategy{});
    QVERIFY(cell);
    QCOMPARE(calls.first()->at(1), QPointF(20, cell->calls.mean));

    auto *loadClients = child<QComboBox>(view, "loadClientsCombo");
    QCOMPARE(loadClients->count(), 3);
    QCOMPARE(loadClients->currentData().toInt(), 30);
    const auto load = lines(child<QChartView>(view, "loadChartView"));
    QCOMPARE(load.size(), 3);
    for (QLineSeries *s : load)
        QVERIFY(s->count() > 0);
    QVERIFY(child<QPushButton>(view, "runButton")->isEnabled());
    QVERIFY(!child<QPushButton>(view, "cancelButton")->isEnabled());

    // The run's result in one sentence above the charts, and a key naming every line.
    QCOMPARE(child<QLabel>(view, "herdSummary")->text(), view.report().summarySentence());
    QVERIFY(child<QLabel>(view, "herdSummary")->text().startsWith(QLatin1String("At ")));
    // Above it, what to take away: the strategy to use.
    QCOMPARE(child<QLabel>(view, "herdTakeAway")->text(), view.report().takeAway());
    QVERIFY(child<QLabel>(view, "herdTakeAway")->text().startsWith(QLatin1String("Take-away: at 30 clients")));
    // Lines on top of each other stay apart: each strategy has a dash style of its own.
    QSet<int> styles;
    for (QLineSeries *line : calls)
        styles.insert(int(line->pen().style()));
    QCOMPARE(styles.size(), calls.size());
    QSet<int> loadStyles;
    for (QLineSeries *line : load)
        loadStyles.insert(int(line->pen().style()));
    QCOMPARE(loadStyles.size(), load.size());
    const QString legend = child<QLabel>(view, "herdLegend")->text();
    for (const HerdStrategy &strategy : view.report().parameters.strategies)
        QVERIFY2(legend.contains(strategy.title().toHtmlEscaped()), qPrintable(legend));
}

void TestSimulatorView::loadClients_choosesTheLoadCurve()
{
    Ui::SimulatorView view;
    view.setParameters(smallGrid());
    QSignalSpy finished(&view, &Ui::SimulatorView::finished);
    view.start();
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30'000);

    auto *loadClients = child<QComboBox>(view, "loadClientsCombo");
    loadClients->setCurrentIndex(loadClients->findData(10));
    const auto load = lines(child<QChartView>(view, "loadChartView"));
    QCOMPARE(load.size(), 3);
    const HerdCellResult *cell = view.report().find(10, HerdStrategy{});
    QCOMPARE(load.first()->count(), cell->meanLoadPerBin.size());
    QVERIFY(child<QChartView>(view, "loadChartView")->chart()->title().contains(QLatin1String("10")));
}

void TestSimulatorView::logScale_usesLogarithmicAxis()
{
    Ui::SimulatorView view;
    view.setParameters(smallGrid());
    QSignalSpy finished(&view, &Ui::SimulatorView::finished);
    view.start();
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30'000);

    auto hasLogAxis = [&view] {
        for (QAbstractAxis *axis : child<QChartView>(view, "completionChartView")->chart()->axes()) {
            if (qobject_cast<QLogValueAxis *>(axis))
                return true;
        }
        return false;
    };
    QVERIFY(!hasLogAxis());
    child<QCheckBox>(view, "logScaleCheck")->setChecked(true);
    QVERIFY(hasLogAxis());
    QCOMPARE(lines(child<QChartView>(view, "completionChartView")).size(), 3);
    child<QCheckBox>(view, "logScaleCheck")->setChecked(false);
    QVERIFY(!hasLogAxis());
}

void TestSimulatorView::outage_loadChartShowsTheOutage()
{
    Ui::SimulatorView view;
    view.setParameters(smallGrid(HerdModel::Outage));
    QSignalSpy finished(&view, &Ui::SimulatorView::finished);
    view.start();
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30'000);
    const auto series = child<QChartView>(view, "loadChartView")->chart()->series();
    QCOMPARE(series.size(), 4);
    int bands = 0;
    for (QAbstractSeries *s : series)
        bands += qobject_cast<QAreaSeries *>(s) ? 1 : 0;
    QCOMPARE(bands, 1);
}

void TestSimulatorView::cancel_stopsAndKeepsPreviousCharts()
{
    Ui::SimulatorView view;
    view.setParameters(smallGrid());
    QSignalSpy finished(&view, &Ui::SimulatorView::finished);
    QSignalSpy cancelled(&view, &Ui::SimulatorView::cancelled);
    view.start();
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30'000);

    view.setParameters(hugeGrid());
    view.start();
    QVERIFY(view.isRunning());
    QVERIFY(child<QPushButton>(view, "cancelButton")->isEnabled());
    QVERIFY(!child<QPushButton>(view, "runButton")->isEnabled());
    QVERIFY(!child<QLineEdit>(view, "clientsEdit")->isEnabled());
    QTest::mouseClick(child<QPushButton>(view, "cancelButton"), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(cancelled.count(), 1, 10'000);
    QCOMPARE(finished.count(), 1);
    QVERIFY(!view.isRunning());

    auto *progress = child<QProgressBar>(view, "progressBar");
    QVERIFY(progress->value() < progress->maximum());
    QVERIFY(child<QLabel>(view, "statusLabel")->text().contains(QLatin1String("Cancelled")));
    QCOMPARE(lines(child<QChartView>(view, "callsChartView")).size(), 3);
    QCOMPARE(view.report().cells.size(), 9);
    QVERIFY(child<QPushButton>(view, "runButton")->isEnabled());
    QVERIFY(child<QLineEdit>(view, "clientsEdit")->isEnabled());
}

void TestSimulatorView::start_whileRunning_refused()
{
    Ui::SimulatorView view;
    view.setParameters(hugeGrid());
    QSignalSpy failed(&view, &Ui::SimulatorView::failed);
    QSignalSpy cancelled(&view, &Ui::SimulatorView::cancelled);
    view.start();
    view.start();
    QCOMPARE(failed.count(), 1);
    QVERIFY(failed.first().first().toString().contains(QLatin1String("already running")));
    view.cancel();
    QTRY_COMPARE_WITH_TIMEOUT(cancelled.count(), 1, 10'000);
}

void TestSimulatorView::destroyWhileRunning_returnsPromptly()
{
    auto view = std::make_unique<Ui::SimulatorView>();
    view->setParameters(hugeGrid());
    view->start();
    QVERIFY(view->isRunning());
    QElapsedTimer timer;
    timer.start();
    view.reset();
    QVERIFY(timer.elapsed() < 10'000);
}

void TestSimulatorView::darkPalette_coloursContrastWithTheBase()
{
    Ui::SimulatorView view;
    QPalette dark = view.palette();
    dark.setColor(QPalette::Window, QColor(0x2b, 0x2d, 0x31));
    dark.setColor(QPalette::WindowText, QColor(0xe6, 0xe6, 0xe6));
    dark.setColor(QPalette::Base, QColor(0x1e, 0x1f, 0x22));
    dark.setColor(QPalette::Text, QColor(0xe6, 0xe6, 0xe6));
    dark.setColor(QPalette::Mid, QColor(0x55, 0x57, 0x5c));
    view.setPalette(dark);
    const QColor base = dark.color(QPalette::Base);

    // Every strategy (black "immediate" included, and hedging) and the error text.
    for (const HerdStrategy &s : HerdStrategy::allFor(HerdModel::Latency)) {
        const double ratio = Ui::contrastRatio(view.strategyColor(s), base);
        QVERIFY2(ratio >= 3.0, qPrintable(QStringLiteral("%1: %2").arg(s.name()).arg(ratio)));
    }
    QVERIFY(Ui::contrastRatio(view.errorColor(), base) >= 3.0);
    QVERIFY(Ui::contrastRatio(view.errorColor(), dark.color(QPalette::Window)) >= 3.0);
    child<QLineEdit>(view, "clientsEdit")->setText(QStringLiteral("not a grid"));
    auto *status = child<QLabel>(view, "statusLabel");
    QVERIFY(Ui::contrastRatio(status->palette().color(QPalette::WindowText), dark.color(QPalette::Window)) >= 3.0);

    // The charts take the palette, and their lines the adjusted colours.
    HerdParameters p = smallGrid(HerdModel::Outage);
    p.strategies = HerdStrategy::all();
    view.setParameters(p);
    QSignalSpy finished(&view, &Ui::SimulatorView::finished);
    view.start();
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30'000);
    for (const char *name : {"callsChartView", "completionChartView", "loadChartView"}) {
        QChart *chart = child<QChartView>(view, name)->chart();
        QCOMPARE(chart->theme(), QChart::ChartThemeDark);
        QCOMPARE(chart->backgroundBrush().color(), base);
        QVERIFY(Ui::contrastRatio(chart->titleBrush().color(), base) >= 3.0);
        for (QAbstractAxis *axis : chart->axes())
            QVERIFY(Ui::contrastRatio(axis->labelsBrush().color(), base) >= 3.0);
        const auto series = lines(child<QChartView>(view, name));
        QVERIFY(!series.isEmpty());
        for (QLineSeries *line : series)
            QVERIFY2(Ui::contrastRatio(line->pen().color(), base) >= 3.0, qPrintable(line->name()));
    }

    // Back to a light palette: the same strategies are readable there too.
    QPalette light = dark;
    light.setColor(QPalette::Window, QColor(0xef, 0xef, 0xef));
    light.setColor(QPalette::WindowText, Qt::black);
    light.setColor(QPalette::Base, Qt::white);
    view.setPalette(light);
    QCOMPARE(child<QChartView>(view, "loadChartView")->chart()->theme(), QChart::ChartThemeLight);
    for (const HerdStrategy &s : HerdStrategy::all())
        QVERIFY2(Ui::contrastRatio(view.strategyColor(s), Qt::white) >= 3.0, qPrintable(s.name()));
}

void TestSimulatorView::screenshot_savedWhenAsked()
{
    // A picture of the tab for people, not a check: set RETRYLAB_SCREENSHOT_DIR to get one.
    const QString dir = qEnvironmentVariable("RETRYLAB_SCREENSHOT_DIR");
    if (dir.isEmpty())
        QSKIP("RETRYLAB_SCREENSHOT_DIR is not set");
    Ui::SimulatorView view;
    HerdParameters p = HerdParameters::defaultsFor(HerdModel::OptimisticConcurrency);
    p.runs = 20;
    view.setParameters(p);
    view.resize(1500, 950);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QSignalSpy finished(&view, &Ui::SimulatorView::finished);
    view.start();
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60'000);
    QTest::qWait(200); // let the charts paint once before grabbing them
    QVERIFY(view.grab().save(QDir(dir).filePath(QStringLiteral("simulatorview-occ.png"))));

    p = HerdParameters::defaultsFor(HerdModel::Outage);
    p.runs = 20;
    view.setParameters(p);
    view.start();
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, 60'000);
    QTest::qWait(200);
    QVERIFY(view.grab().save(QDir(dir).filePath(QStringLiteral("simulatorview-outage.png"))));
}

void TestSimulatorView::chartText_followsTheFont_asPresentationEnlargesIt()
{
    Ui::SimulatorView view;
    QFont larger = view.font();
    larger.setPointSizeF(larger.pointSizeF() * 1.5);
    view.setFont(larger);
    for (const char *name : {"callsChartView", "completionChartView", "loadChartView"}) {
        QChart *chart = child<QChartView>(view, name)->chart();
        QCOMPARE(chart->titleFont().pointSizeF(), larger.pointSizeF());
        QCOMPARE(chart->legend()->font().pointSizeF(), larger.pointSizeF());
    }
}

QTEST_MAIN(TestSimulatorView)
#include "tst_simulatorview.moc"
