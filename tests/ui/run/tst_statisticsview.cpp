#include "core/executor/threadedexecutor.h"
#include "core/faultserver/faultserver.h"
#include "tests/ui/session/sessionfixtures.h"
#include "ui/run/statisticsview.h"
#include "ui/session/run/runsession.h"

#include <QAreaSeries>
#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QComboBox>
#include <QLabel>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPieSeries>
#include <QPieSlice>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTest>
#include <QValueAxis>

using namespace RetryLab;
using namespace RetryLab::Fixtures;
using Figure = Ui::StatisticsView::Figure;
using Chart = Ui::StatisticsView::Chart;
using Ui::RunSession;
using Ui::StatisticsView;

namespace {

QList<qreal> valuesOf(const QBarSet *set)
{
    QList<qreal> values;
    for (int i = 0; i < set->count(); ++i)
        values.append(set->at(i));
    return values;
}

} // namespace

class TestStatisticsView : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void figures_showHandComputedRun();
    void histogram_barsPerAttemptCount();
    void latency_barsForRequestsAndAttempts();
    void errorsOverTime_oneStackedBandPerCause();
    void outcomes_sliceperOutcome();
    void circuitAndBudget_shown();
    void sessionUpdates_redrawCoalesced();
    void hidden_redrawsWhenShownOrRead();
    void cleared_showsNothing();
    void cleared_whileBreakerOpen_stillShowsItOpen();
    void policyChanged_breakersAndBudgetAsTheExecutorHasThem();
    void darkPalette_usesDarkTheme();
    void scope_latestRunByDefault_allRunsOrOneOnRequest();
    void scope_runStillGoing_countsItsRunningRequests();
    void latency_logAxis_missingValuesSitAtTheFloor();
};

void TestStatisticsView::initTestCase()
{
    QLocale::setDefault(QLocale::c());
}

void TestStatisticsView::figures_showHandComputedRun()
{
    RunSession session;
    feedHandComputedRun(session);
    StatisticsView view;
    view.setSession(&session);
    QCOMPARE(view.figureText(Figure::Requests), QStringLiteral("4 done"));
    QCOMPARE(
        view.figureText(Figure::SuccessRate), QStringLiteral("50.0 %")); // 2 of 4: the cancelled one did not succeed
    QCOMPARE(view.figureText(Figure::Attempts), QStringLiteral("7"));
    QCOMPARE(view.figureText(Figure::RetryAmplification), QStringLiteral("1.75\u00d7")); // 7 / 4
    // Requests: 50, 520, 980 ms. Attempts: 10 10 50 80 100 120 ms.
    QCOMPARE(view.figureText(Figure::RequestLatency), QStringLiteral("520 ms / 980 ms / 980 ms"));
    QCOMPARE(view.figureText(Figure::AttemptLatency), QStringLiteral("50 ms / 120 ms / 120 ms"));
    // Failed attempts and failed requests, each counted for what it is.
    QCOMPARE(view.figureText(Figure::Errors), QStringLiteral("4 / 1"));
    const auto *words = view.findChild<QLabel *>(QStringLiteral("amplificationWords"));
    QVERIFY(words);
    QCOMPARE(words->text(), QStringLiteral("Each request reached the server 1.75 times: 75 % extra load."));
}

void TestStatisticsView::histogram_barsPerAttemptCount()
{
    RunSession session;
    feedHandComputedRun(session);
    StatisticsView view;
    view.setSession(&session);
    QChart *chart = view.chart(Chart::AttemptsHistogram);
    auto *series = qobject_cast<QBarSeries *>(chart->series().value(0));
    QVERIFY(series);
    QCOMPARE(valuesOf(series->barSets().value(0)), (QList<qreal>{2, 1, 1})); // 1, 2 and 3 attempts
    auto *axis = qobject_cast<QBarCategoryAxis *>(chart->axes(Qt::Horizontal).value(0));
    QCOMPARE(axis->categories(), (QStringList{QStringLiteral("1"), QStringLiteral("2"), QStringLiteral("3")}));

    // Beyond 30 columns the last one collects the rest.
    RunSession many;
    for (int attempts = 1; attempts <= 40; ++attempts)
        many.recordResult(result(quint64(attempts), RequestOutcome::Succeeded, attempts, 0, 1));
    view.setSession(&many);
    QCOMPARE(axis->categories().size(), 30);
    QCOMPARE(axis->categories().last(), QStringLiteral("30+"));
    QCOMPARE(series->barSets().value(0)->at(29), 11.0);
}

void TestStatisticsView::latency_barsForRequestsAndAttempts()
{
    RunSession session;
    feedHandComputedRun(session);
    StatisticsView view;
    view.setSession(&session);
    auto *series = qobject_cast<QBarSeries *>(view.chart(Chart::LatencyPercentiles)->series().value(0));
    QVERIFY(series);
    QCOMPARE(valuesOf(series->barSets().at(0)), (QList<qreal>{520, 980, 980}));
    QCOMPARE(valuesOf(series->barSets().at(1)), (QList<qreal>{50, 120, 120}));
    const auto attachedLog = [series] {
        for (QAbstractAxis *axis : series->attachedAxes()) {
            if (qobject_cast<QLogValueAxis *>(axis))
                return true;
        }
        return false;
    };
    QVERIFY(!attachedLog()); // 50 to 980 ms: one axis of milliseconds reads well

    // 4 ms to 9 s: a linear axis would hide p50, a log axis shows every bar.
    RunSession wide;
    wide.recordAttempt(httpAttempt(1, 0, 0, 4, 200));
    wide.recordResult(result(1, RequestOutcome::Succeeded, 1, 0, 4));
    wide.recordAttempt(httpAttempt(2, 0, 0, 9000, 200));
    wide.recordResult(result(2, RequestOutcome::Succeeded, 1, 0, 9000));
    wide.flush();
    view.setSession(&wide);
    QVERIFY(attachedLog());
    auto *log = view.chart(Chart::LatencyPercentiles)->findChild<QLogValueAxis *>(QStringLiteral("latencyLogAxis"));
    QVERIFY(log && log->isVisible());
    QVERIFY(log->min() <= 4.0);
    QVERIFY(log->max() >= 9000.0);
    view.setSession(&session);
    QVERIFY(!attachedLog());
}

void TestStatisticsView::errorsOverTime_oneStackedBandPerCause()
{
    RunSession session;
    feedHandComputedRun(session);
    StatisticsView view;
    view.setSession(&session);
    QChart *chart = view.chart(Chart::ErrorsOverTime);
    const QList<QAbstractSeries *> series = chart->series();
    QCOMPARE(series.size(), 2);
    auto *first = qobject_cast<QAreaSeries *>(series.at(0));
    auto *second = qobject_cast<QAreaSeries *>(series.at(1));
    QVERIFY(first && second);
    // Both causes have two errors; the first seen comes first.
    QCOMPARE(first->name(), QStringLiteral("http-503"));
    QCOMPARE(second->name(), QStringLiteral("connection-refused"));
    // 250 ms bins: 503 in bins 0 and 1, refused in bins 0 and 2. A step per bin (two points).
    const QList<QPointF> top503 = first->upperSeries()->points();
    QCOMPARE(top503.size(), 6);
    QCOMPARE(top503.at(0), QPointF(0.0, 1.0));
    QCOMPARE(top503.at(1), QPointF(0.25, 1.0));
    QCOMPARE(top503.at(2).y(), 1.0);
    QCOMPARE(top503.at(4).y(), 0.0);
    // The second band sits on the first: its top is the total.
    const QList<QPointF> total = second->upperSeries()->points();
    QCOMPARE(total.at(0).y(), 2.0);
    QCOMPARE(total.at(2).y(), 1.0);
    QCOMPARE(total.at(4).y(), 1.0);
    QCOMPARE(second->lowerSeries()->points().at(0).y(), 1.0);
    QVERIFY(chart->title().contains(QLatin1String("250 ms")));
    // Redraws replace the bands instead of piling them up.
    view.refresh();
    QCOMPARE(chart->series().size(), 2);
}

void TestStatisticsView::outcomes_sliceperOutcome()
{
    RunSession session;
    feedHandComputedRun(session);
    StatisticsView view;
    view.setSession(&session);
    auto *pie = qobject_cast<QPieSeries *>(view.chart(Chart::Outcomes)->series().value(0));
    QVERIFY(pie);
    QCOMPARE(pie->count(), 3);
    QCOMPARE(pie->slices().at(0)->label(), QStringLiteral("succeeded (2)"));
    QCOMPARE(pie->slices().at(0)->value(), 2.0);
    QCOMPARE(pie->slices().at(1)->label(), QStringLiteral("attempts-exhausted (1)"));
    QCOMPARE(pie->slices().at(2)->label(), QStringLiteral("cancelled (1)"));
}

void TestStatisticsView::circuitAndBudget_shown()
{
    RunSession session;
    StatisticsView view;
    view.setSession(&session);
    QCOMPARE(view.figureText(Figure::CircuitBreakers), QStringLiteral("all closed"));
    QCOMPARE(view.figureText(Figure::RetryBudget), QStringLiteral("not limited"));
    session.recordCircuitState(QStringLiteral("127.0.0.1:8080"), Core::CircuitBreaker::State::Open);
    session.recordBudget(485, 500);
    view.refresh();
    QCOMPARE(view.figureText(Figure::CircuitBreakers), QStringLiteral("127.0.0.1:8080 open"));
    QCOMPARE(view.figureText(Figure::RetryBudget), QStringLiteral("485 of 500 tokens"));
}

void TestStatisticsView::sessionUpdates_redrawCoalesced()
{
    RunSession session;
    StatisticsView view;
    view.setRefreshInterval(40);
    view.setSession(&session);
    view.show(); // a hidden view does not redraw at all (hidden_redrawsWhenShownOrRead)
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const int before = view.refreshCount();
    for (int i = 0; i < 10; ++i) {
        syntheticRun(session, 50, quint64(i), 1.0, 1 + i * 50);
        session.flush(); // ten updates from the session...
    }
    QTRY_COMPARE(view.refreshCount(), before + 1); // ...one redraw
    QCOMPARE(view.figureText(Figure::Requests), QStringLiteral("500 done"));
}

// A tab nobody looks at does not take the window's thread from the run: the view
// redraws when it is shown, or when what it shows is read.
void TestStatisticsView::hidden_redrawsWhenShownOrRead()
{
    RunSession session;
    StatisticsView view;
    view.setRefreshInterval(0);
    view.setSession(&session);
    const int before = view.refreshCount();
    syntheticRun(session, 50, 1, 1.0, 1);
    session.flush();
    QCoreApplication::processEvents();
    QCOMPARE(view.refreshCount(), before); // nothing redrawn, nothing scheduled
    view.show();
    QCOMPARE(view.refreshCount(), before + 1); // shown: brought up to date at once
    QCOMPARE(view.figureText(Figure::Requests), QStringLiteral("50 done"));

    view.hide();
    syntheticRun(session, 30, 2, 1.0, 51);
    session.flush();
    QCoreApplication::processEvents();
    QCOMPARE(view.refreshCount(), before + 1);
    QCOMPARE(view.figureText(Figure::Requests), QStringLiteral("80 done")); // read: up to date
    QCOMPARE(view.refreshCount(), before + 2);
    QCOMPARE(view.figureText(Figure::Requests), QStringLiteral("80 done")); // and only once
    QCOMPARE(view.refreshCount(), before + 2);
}

void TestStatisticsView::cleared_showsNothing()
{
    RunSession session;
    feedHandComputedRun(session);
    StatisticsView view;
    view.setSession(&session);
    session.clear();
    QCOMPARE(view.figureText(Figure::SuccessRate), QStringLiteral("\u2014"));
    QCOMPARE(view.figureText(Figure::Requests), QStringLiteral("0 done"));
    QCOMPARE(view.chart(Chart::ErrorsOverTime)->series().size(), 0);
    QCOMPARE(qobject_cast<QPieSeries *>(view.chart(Chart::Outcomes)->series().value(0))->count(), 0);
    view.setSession(nullptr);
    QCOMPARE(view.figureText(Figure::Attempts), QStringLiteral("\u2014"));
}

void TestStatisticsView::darkPalette_usesDarkTheme()
{
    StatisticsView view;
    QCOMPARE(view.chart(Chart::Outcomes)->theme(), QChart::ChartThemeLight);
    QPalette dark = view.palette();
    dark.setColor(QPalette::Window, QColor(0x2b, 0x2d, 0x31));
    dark.setColor(QPalette::WindowText, QColor(0xe6, 0xe6, 0xe6));
    dark.setColor(QPalette::Base, QColor(0x1e, 0x1f, 0x22));
    view.setPalette(dark);
    QCOMPARE(view.chart(Chart::Outcomes)->theme(), QChart::ChartThemeDark);
    QCOMPARE(view.chart(Chart::Outcomes)->backgroundBrush().color(), QColor(0x1e, 0x1f, 0x22));
    QCOMPARE(view.chart(Chart::AttemptsHistogram)->titleBrush().color(), QColor(0xe6, 0xe6, 0xe6));
}

namespace {

// A statistics view of a session on a live executor, whose one request to a 503
// has opened its host's breaker (one failure opens it, for ten minutes).
struct OpenBreaker
{
    Core::FaultServer server;
    Core::ThreadedExecutor executor;
    RunSession session;
    StatisticsView view;
    QString host;

    static Core::BackoffPolicy policy()
    {
        Core::BackoffPolicy policy;
        policy.maxAttempts = 1;
        policy.circuitBreaker.enabled = true;
        policy.circuitBreaker.consecutiveFailures = 1;
        policy.circuitBreaker.openMs = 600'000.0;
        return policy;
    }

    void open(const Core::BackoffPolicy &with)
    {
        QVERIFY2(server.listen(), qPrintable(server.errorString()));
        executor.setPolicy(with);
        session.attach(&executor);
        view.setSession(&session);
        Core::RequestSpec spec;
        spec.url = server.baseUrl().resolved(QUrl(QStringLiteral("/status/503")));
        QSignalSpy finished(&executor, &Core::ThreadedExecutor::requestFinished);
        session.submit(spec);
        QTRY_COMPARE(finished.size(), 1);
        host = executor.hosts().value(0);
        QTRY_COMPARE(executor.circuitState(host), Core::CircuitBreaker::State::Open);
        view.refresh();
        QCOMPARE(view.figureText(Figure::CircuitBreakers), QStringLiteral("%1 open").arg(host));
    }
};

} // namespace

void TestStatisticsView::cleared_whileBreakerOpen_stillShowsItOpen()
{
    OpenBreaker b;
    b.open(OpenBreaker::policy());
    if (QTest::currentTestFailed())
        return;

    b.session.clear();
    b.view.refresh();
    QCOMPARE(b.view.figureText(Figure::CircuitBreakers), QStringLiteral("%1 open").arg(b.host));
}

void TestStatisticsView::policyChanged_breakersAndBudgetAsTheExecutorHasThem()
{
    // A new policy drops the breakers and starts a new budget without a signal per
    // host: the figures follow the executor's state, as the status bar does.
    Core::BackoffPolicy policy = OpenBreaker::policy();
    policy.retryBudget.kind = Core::RetryBudgetKind::GrpcThrottling;
    OpenBreaker b;
    b.open(policy);
    if (QTest::currentTestFailed())
        return;

    Core::BackoffPolicy changed = policy;
    changed.circuitBreaker.consecutiveFailures = 3;
    changed.retryBudget.grpcMaxTokens = 40.0;
    b.executor.setPolicy(changed);
    QCOMPARE(b.session.budgetCapacity(), 40.0);
    QTRY_COMPARE(b.executor.circuitState(b.host), Core::CircuitBreaker::State::Closed);
    b.view.refresh();
    QCOMPARE(b.view.figureText(Figure::CircuitBreakers), QStringLiteral("all closed"));
    QCOMPARE(b.view.figureText(Figure::RetryBudget), QStringLiteral("40 of 40 tokens"));
}

// After the hand-computed run (all finished by 1040 ms), an idle minute, then a
// second send of two requests: a success and a 503 given up.
static void feedSecondRun(RunSession &session)
{
    session.recordAttempt(httpAttempt(5, 0, 60'000, 60'040, 200));
    session.recordResult(result(5, RequestOutcome::Succeeded, 1, 60'000, 60'040));
    session.recordAttempt(httpAttempt(6, 0, 60'010, 60'090, 503));
    session.recordResult(result(6, RequestOutcome::AttemptsExhausted, 1, 60'010, 60'090));
}

void TestStatisticsView::scope_latestRunByDefault_allRunsOrOneOnRequest()
{
    RunSession session;
    feedHandComputedRun(session);
    feedSecondRun(session);
    QCOMPARE(session.runs().size(), 2);
    QCOMPARE(session.runs().at(1).firstLane, 4);
    StatisticsView view;
    view.setSession(&session);
    auto *scope = view.findChild<QComboBox *>(QStringLiteral("statisticsScope"));
    QVERIFY(scope);
    QCOMPARE(scope->count(), 4); // latest, all, run 1, run 2
    QVERIFY(scope->itemText(3).startsWith(QLatin1String("Run 2: 2 requests from ")));

    // The latest run alone: not pooled with what came before.
    QCOMPARE(view.scope(), StatisticsView::latestRun);
    QCOMPARE(view.figureText(Figure::Requests), QStringLiteral("2 done"));
    QCOMPARE(view.figureText(Figure::Attempts), QStringLiteral("2"));
    QCOMPARE(view.figureText(Figure::SuccessRate), QStringLiteral("50.0 %"));
    QCOMPARE(view.figureText(Figure::RequestLatency), QStringLiteral("40 ms / 80 ms / 80 ms"));
    QCOMPARE(view.figureText(Figure::Errors), QStringLiteral("1 / 1"));
    // Its errors counted from its own start: the 503 ends 90 ms into the run.
    QCOMPARE(view.shownStatistics().binCount(), 1);
    auto *x = qobject_cast<QValueAxis *>(view.chart(Chart::ErrorsOverTime)->axes(Qt::Horizontal).value(0));
    QVERIFY(x);
    QVERIFY2(x->max() < 2.0, qPrintable(QString::number(x->max())));
    QCOMPARE(x->titleText(), QStringLiteral("seconds since the run started"));

    view.setScope(StatisticsView::allRuns);
    QCOMPARE(view.figureText(Figure::Requests), QStringLiteral("6 done"));
    QCOMPARE(view.figureText(Figure::Attempts), QStringLiteral("9"));
    QCOMPARE(&view.shownStatistics(), &session.statistics()); // kept by the session, not counted again
    QCOMPARE(x->titleText(), QStringLiteral("seconds since the session started"));

    view.setScope(0); // the first run: the hand-computed figures
    QCOMPARE(view.figureText(Figure::Requests), QStringLiteral("4 done"));
    QCOMPARE(view.figureText(Figure::RetryAmplification), QStringLiteral("1.75\u00d7"));
    QCOMPARE(view.figureText(Figure::RequestLatency), QStringLiteral("520 ms / 980 ms / 980 ms"));
    QCOMPARE(view.figureText(Figure::Errors), QStringLiteral("4 / 1"));
    QCOMPARE(
        valuesOf(
            qobject_cast<QBarSeries *>(view.chart(Chart::AttemptsHistogram)->series().value(0))->barSets().value(0)),
        (QList<qreal>{2, 1, 1}));

    // Chosen in the list as a person would; the choice stays while the session grows.
    scope->setCurrentIndex(3);
    Q_EMIT scope->activated(3);
    QCOMPARE(view.figureText(Figure::Requests), QStringLiteral("2 done"));
    session.recordAttempt(httpAttempt(7, 0, 60'050, 60'070, 200));
    session.recordResult(result(7, RequestOutcome::Succeeded, 1, 60'050, 60'070));
    view.refresh();
    QCOMPARE(view.scope(), 1);
    QCOMPARE(view.figureText(Figure::Requests), QStringLiteral("3 done"));
    QVERIFY(scope->itemText(3).startsWith(QLatin1String("Run 2: 3 requests from ")));

    // Cleared: the chosen run is gone, the latest (empty) run is counted.
    session.clear();
    QCOMPARE(scope->count(), 2);
    QCOMPARE(view.scope(), StatisticsView::latestRun);
    QCOMPARE(view.figureText(Figure::Requests), QStringLiteral("0 done"));
}

void TestStatisticsView::scope_runStillGoing_countsItsRunningRequests()
{
    RunSession session;
    feedHandComputedRun(session);
    // A second run whose request is in its first attempt.
    session.recordAttemptStarted(8, 0, 70'000 * ms);
    StatisticsView view;
    view.setSession(&session);
    QCOMPARE(session.runs().size(), 2);
    QCOMPARE(view.figureText(Figure::Requests), QStringLiteral("0 done, 1 running"));
    QCOMPARE(view.figureText(Figure::Attempts), QStringLiteral("0 (1 in flight)"));
    view.setScope(StatisticsView::allRuns);
    QCOMPARE(view.figureText(Figure::Requests), QStringLiteral("4 done, 1 running"));
}

void TestStatisticsView::latency_logAxis_missingValuesSitAtTheFloor()
{
    // Attempts of 1 and 500 ms (a log axis), and no request finished yet: the
    // request bars have no value, and the logarithm of zero has no place on the axis.
    QTest::failOnWarning(QRegularExpression(QStringLiteral("Logarithm")));
    RunSession session;
    session.recordAttempt(httpAttempt(1, 0, 0, 1, 503, 100));
    session.recordAttempt(httpAttempt(1, 1, 101, 601, 503, 100));
    StatisticsView view;
    view.resize(900, 700);
    view.setSession(&session);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QChart *chart = view.chart(Chart::LatencyPercentiles);
    auto *log = chart->findChild<QLogValueAxis *>(QStringLiteral("latencyLogAxis"));
    QVERIFY(log);
    QVERIFY(log->isVisible());
    QCOMPARE(log->min(), 1.0);
    auto *series = qobject_cast<QBarSeries *>(chart->series().value(0));
    QCOMPARE(valuesOf(series->barSets().at(0)), (QList<qreal>{1.0, 1.0, 1.0})); // no request finished
    QCOMPARE(valuesOf(series->barSets().at(1)), (QList<qreal>{1.0, 500.0, 500.0}));
    QVERIFY(!view.grab().isNull());

    // Back to a linear axis: the empty values are zero again.
    session.clear();
    session.recordAttempt(httpAttempt(2, 0, 0, 50, 503, 100));
    view.refresh();
    QVERIFY(!log->isVisible());
    QCOMPARE(valuesOf(series->barSets().at(0)), (QList<qreal>{0.0, 0.0, 0.0}));
    QVERIFY(!view.grab().isNull());
}

QTEST_MAIN(TestStatisticsView)
#include "tst_statisticsview.moc"
