#include "ui/run/statisticsview.h"

#include "core/record/runstatistics.h"
#include "core/util/durationtext.h"
#include "ui/session/run/runsession.h"
#include "ui/widgets/outcomestyle.h"
#include "ui/widgets/timeaxis.h"

#include <QAreaSeries>
#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QElapsedTimer>
#include <QEvent>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLocale>
#include <QLogValueAxis>
#include <QPieSeries>
#include <QPieSlice>
#include <QValueAxis>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <numeric>

// One job: the statistics tab: the headline figures and four charts, redrawn from one
// RunStatistics for the chosen scope. Each refresh reads the same statistics in one
// pass, and the charts share their palette and ranges, so they stay together.

namespace RetryLab::Ui {

using Core::AttemptOutcome;
using Core::RequestOutcome;
using Core::RunStatistics;

namespace {

constexpr int defaultRefreshMs = 250;
constexpr qint64 slowestRefreshMs = 5000;
constexpr int maxHistogramColumns = 30; // the last column collects everything beyond
constexpr int maxCauseSeries = 6; // the rest is summed as "other"

QString statisticMsText(std::optional<double> ms)
{
    return ms ? Core::DurationText::format(*ms) : QStringLiteral("\u2014");
}

QString figureName(StatisticsView::Figure figure)
{
    switch (figure) {
    case StatisticsView::Figure::Requests:
        return QStringLiteral("requests");
    case StatisticsView::Figure::SuccessRate:
        return QStringLiteral("successRate");
    case StatisticsView::Figure::Attempts:
        return QStringLiteral("attempts");
    case StatisticsView::Figure::RetryAmplification:
        return QStringLiteral("retryAmplification");
    case StatisticsView::Figure::RequestLatency:
        return QStringLiteral("requestLatency");
    case StatisticsView::Figure::AttemptLatency:
        return QStringLiteral("attemptLatency");
    case StatisticsView::Figure::Errors:
        return QStringLiteral("errors");
    case StatisticsView::Figure::CircuitBreakers:
        return QStringLiteral("circuitBreakers");
    case StatisticsView::Figure::RetryBudget:
        return QStringLiteral("retryBudget");
    }
    return {};
}

// Distinct hues for error causes, legible on light and dark backgrounds.
QColor causeColor(int index)
{
    static const QColor colours[] = {QColor(0xd7, 0x3a, 0x49), QColor(0xe3, 0x8f, 0x1c), QColor(0x8e, 0x5b, 0xd6),
        QColor(0x1f, 0x9e, 0xa8), QColor(0xc2, 0x5e, 0x1f), QColor(0xa8, 0x32, 0x8c), QColor(0x8c, 0x8c, 0x8c)};
    return colours[std::clamp(index, 0, int(std::size(colours)) - 1)];
}

// Ticks at round numbers from 0 to just above `top`, about five of them.
void setNiceRange(QValueAxis *axis, double top, double minimumStep)
{
    // 1-2-5: a step of 2.5 would split counts, and the labels below show one significant digit.
    const double step = std::max(minimumStep, TimeAxis::niceStep(top / 5.0, TimeAxis::StepSeries::OneTwoFive));
    const double end = std::max(step, std::ceil(top * (1.0 + 1e-9) / step) * step);
    axis->setRange(0.0, end);
    axis->setTickType(QValueAxis::TicksDynamic);
    axis->setTickAnchor(0.0);
    axis->setTickInterval(step);
    const int decimals = step >= 1.0 ? 0 : std::min(3, int(std::ceil(-std::log10(step) - 1e-9)));
    axis->setLabelFormat(QStringLiteral("%.") + QString::number(decimals) + QStringLiteral("f"));
}

} // namespace

StatisticsView::StatisticsView(QWidget *parent) : QWidget(parent)
{
    m_refreshTimer.setSingleShot(true);
    m_refreshTimer.setInterval(defaultRefreshMs);
    connect(&m_refreshTimer, &QTimer::timeout, this, &StatisticsView::refresh);

    m_scope = new QComboBox(this);
    m_scope->setObjectName(QStringLiteral("statisticsScope"));
    m_scope->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_scope->addItem(tr("Latest run"), latestRun);
    m_scope->addItem(tr("All runs since Clear"), allRuns);
    m_scope->setToolTip(tr("What the figures and charts count: the latest run (the requests sent since "
                           "the last moment nothing was running), every run since the last Clear, or one run"));
    connect(m_scope, &QComboBox::activated, this, &StatisticsView::refresh);
    auto *scopeLabel = new QLabel(tr("&Count:"), this);
    scopeLabel->setBuddy(m_scope);
    auto *scopeRow = new QHBoxLayout;
    scopeRow->addWidget(scopeLabel);
    scopeRow->addWidget(m_scope);
    scopeRow->addStretch(1);

    auto *figures = new QGridLayout;
    const QList<QPair<Figure, QString>> titles{
        {Figure::Requests, tr("Requests")},
        {Figure::SuccessRate, tr("Success rate")},
        {Figure::Attempts, tr("Attempts")},
        {Figure::RetryAmplification, tr("Retry amplification")},
        {Figure::RequestLatency, tr("Request latency p50 / p90 / p99")},
        {Figure::AttemptLatency, tr("Attempt latency p50 / p90 / p99")},
        {Figure::Errors, tr("Failed attempts / requests")},
        {Figure::CircuitBreakers, tr("Circuit breakers")},
        {Figure::RetryBudget, tr("Retry budget")},
    };
    QFont big = font();
    big.setPointSizeF(big.pointSizeF() * 1.35);
    big.setBold(true);
    for (int i = 0; i < titles.size(); ++i) {
        auto *title = new QLabel(titles.at(i).second, this);
        auto *value = new QLabel(QStringLiteral("\u2014"), this);
        value->setObjectName(figureName(titles.at(i).first));
        value->setFont(big);
        value->setTextInteractionFlags(Qt::TextSelectableByMouse);
        // A narrow column wraps a value ("520 ms / 980 ms / 980 ms") rather than cut it.
        value->setWordWrap(true);
        title->setWordWrap(true);
        const int column = i % 5;
        const int rowPair = (i / 5) * 2;
        figures->addWidget(title, rowPair, column);
        figures->addWidget(value, rowPair + 1, column);
        m_figures.insert(titles.at(i).first, value);
    }
    m_figures.value(Figure::RequestLatency)
        ->setToolTip(tr("From the first attempt's start to the result, "
                        "nearest-rank percentiles; cancelled requests left out"));
    m_figures.value(Figure::AttemptLatency)->setToolTip(tr("One attempt on the wire, nearest-rank percentiles"));
    m_figures.value(Figure::RetryAmplification)
        ->setToolTip(tr("Attempts made by finished requests / finished requests"));
    m_figures.value(Figure::SuccessRate)
        ->setToolTip(tr("Succeeded / finished requests; a request cancelled by the user did not succeed"));
    m_figures.value(Figure::Errors)
        ->setToolTip(tr("Attempts that failed (retried or not) / requests that ended without success "
                        "(cancelled ones left out)"));
    m_amplificationWords = new QLabel(this);
    m_amplificationWords->setObjectName(QStringLiteral("amplificationWords"));
    m_amplificationWords->setWordWrap(true);
    figures->addWidget(m_amplificationWords, figures->rowCount(), 0, 1, 5);

    auto *charts = new QGridLayout;
    charts->addWidget(m_views[Chart::AttemptsHistogram] = new QChartView(this), 0, 0);
    charts->addWidget(m_views[Chart::LatencyPercentiles] = new QChartView(this), 0, 1);
    charts->addWidget(m_views[Chart::ErrorsOverTime] = new QChartView(this), 1, 0);
    charts->addWidget(m_views[Chart::Outcomes] = new QChartView(this), 1, 1);
    makeChart(tr("Attempts per request"), Chart::AttemptsHistogram);
    makeChart(tr("Latency percentiles"), Chart::LatencyPercentiles);
    makeChart(tr("Errors over time"), Chart::ErrorsOverTime);
    makeChart(tr("Request outcomes"), Chart::Outcomes);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(scopeRow);
    layout->addLayout(figures);
    layout->addLayout(charts, 1);

    // Histogram: one set, categories "1", "2", ...
    {
        QChart *c = chartOf(Chart::AttemptsHistogram);
        auto *series = new QBarSeries(c);
        auto *set = new QBarSet(tr("Requests"), series);
        series->append(set);
        c->addSeries(series);
        auto *x = new QBarCategoryAxis(c);
        x->setTitleText(tr("attempts"));
        auto *y = new QValueAxis(c);
        y->setLabelFormat(QStringLiteral("%.0f"));
        y->setTitleText(tr("requests"));
        c->addAxis(x, Qt::AlignBottom);
        c->addAxis(y, Qt::AlignLeft);
        series->attachAxis(x);
        series->attachAxis(y);
        c->legend()->hide();
    }
    // Latency: two sets over p50, p90, p99.
    {
        QChart *c = chartOf(Chart::LatencyPercentiles);
        auto *series = new QBarSeries(c);
        auto *requests = new QBarSet(tr("Whole request"), series);
        auto *attempts = new QBarSet(tr("Single attempt"), series);
        requests->append({0.0, 0.0, 0.0});
        attempts->append({0.0, 0.0, 0.0});
        series->append(requests);
        series->append(attempts);
        c->addSeries(series);
        auto *x = new QBarCategoryAxis(c);
        x->append({QStringLiteral("p50"), QStringLiteral("p90"), QStringLiteral("p99")});
        auto *y = new QValueAxis(c);
        y->setLabelFormat(QStringLiteral("%.0f"));
        y->setTitleText(tr("milliseconds"));
        // When the percentiles span decades, p50 would be a sliver on a linear axis.
        auto *log = new QLogValueAxis(c);
        log->setObjectName(QStringLiteral("latencyLogAxis"));
        log->setBase(10.0);
        log->setLabelFormat(QStringLiteral("%g"));
        log->setTitleText(tr("ms (log)"));
        log->setVisible(false);
        c->addAxis(x, Qt::AlignBottom);
        c->addAxis(y, Qt::AlignLeft);
        c->addAxis(log, Qt::AlignLeft);
        series->attachAxis(x);
        series->attachAxis(y);
    }
    // Errors over time: value axes; one line series per cause is made on refresh.
    {
        QChart *c = chartOf(Chart::ErrorsOverTime);
        auto *x = new QValueAxis(c);
        x->setTitleText(tr("seconds since the run started"));
        x->setLabelFormat(QStringLiteral("%.1f"));
        auto *y = new QValueAxis(c);
        y->setLabelFormat(QStringLiteral("%.0f"));
        c->addAxis(x, Qt::AlignBottom);
        c->addAxis(y, Qt::AlignLeft);
    }
    // Outcomes: a ring.
    {
        QChart *c = chartOf(Chart::Outcomes);
        auto *pie = new QPieSeries(c);
        pie->setHoleSize(0.45);
        c->addSeries(pie);
        c->legend()->setAlignment(Qt::AlignRight);
    }
    applyPalette();
    refresh();
}

QChart *StatisticsView::makeChart(const QString &title, Chart which)
{
    QChartView *view = m_views.value(which);
    auto *c = new QChart;
    c->setTitle(title);
    c->setAnimationOptions(QChart::NoAnimation); // redrawn several times a second
    c->setMargins(QMargins(4, 4, 4, 4));
    // QChartView starts with a chart of its own and releases (does not delete)
    // the chart it replaces.
    QChart *previous = view->chart();
    view->setChart(c);
    delete previous;
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumSize(260, 200);
    return c;
}

QChart *StatisticsView::chartOf(Chart which) const
{
    const QChartView *view = m_views.value(which);
    return view ? view->chart() : nullptr;
}

QChart *StatisticsView::chart(Chart which)
{
    catchUp();
    return chartOf(which);
}

QString StatisticsView::figureText(Figure figure)
{
    catchUp();
    const QLabel *label = m_figures.value(figure);
    return label ? label->text() : QString();
}

void StatisticsView::catchUp()
{
    if (m_stale)
        refresh();
}

void StatisticsView::setSession(RunSession *session)
{
    if (m_session)
        disconnect(m_session, nullptr, this, nullptr);
    m_session = session;
    if (session) {
        connect(session, &RunSession::updated, this, &StatisticsView::scheduleRefresh);
        connect(session, &RunSession::cleared, this, &StatisticsView::refresh);
    }
    refresh();
}

int StatisticsView::scope() const
{
    return m_scope->currentData().toInt();
}

void StatisticsView::setScope(int scope)
{
    const int index = m_scope->findData(scope);
    m_scope->setCurrentIndex(index >= 0 ? index : 0);
    refresh();
}

void StatisticsView::setRefreshInterval(int ms)
{
    m_baseInterval = std::max(0, ms);
    m_refreshTimer.setInterval(m_baseInterval);
}

void StatisticsView::scheduleRefresh()
{
    if (!isVisible()) {
        m_stale = true;
        return;
    }
    if (!m_refreshTimer.isActive())
        m_refreshTimer.start();
}

void StatisticsView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    catchUp();
}

void StatisticsView::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        applyPalette();
        refresh();
    }
}

void StatisticsView::applyPalette()
{
    const QPalette pal = palette();
    const bool dark = isDarkPalette(pal);
    const QColor text = pal.color(QPalette::WindowText);
    QColor grid = pal.color(QPalette::Mid);
    grid.setAlpha(110);
    for (QChartView *view : std::as_const(m_views)) {
        QChart *c = view->chart();
        c->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
        c->setBackgroundBrush(pal.color(QPalette::Base));
        c->setBackgroundPen(QPen(pal.color(QPalette::Mid)));
        c->setTitleBrush(text);
        c->legend()->setLabelColor(text);
        for (QAbstractAxis *axis : c->axes()) {
            axis->setLabelsBrush(text);
            axis->setTitleBrush(text);
            axis->setGridLineColor(grid);
            axis->setLinePenColor(pal.color(QPalette::Mid));
        }
        view->setBackgroundBrush(pal.color(QPalette::Window));
    }
    // The theme chose colours of its own; ours carry meaning.
    if (auto *bars = qobject_cast<QBarSeries *>(chartOf(Chart::AttemptsHistogram)->series().value(0)))
        bars->barSets().value(0)->setColor(QColor(0x3b, 0x82, 0xf6));
    if (auto *bars = qobject_cast<QBarSeries *>(chartOf(Chart::LatencyPercentiles)->series().value(0))) {
        bars->barSets().value(0)->setColor(QColor(0x3b, 0x82, 0xf6));
        bars->barSets().value(1)->setColor(QColor(0x1f, 0x9e, 0xa8));
    }
}

void StatisticsView::refresh()
{
    m_refreshTimer.stop();
    m_stale = false;
    ++m_refreshCount;
    QElapsedTimer took;
    took.start();
    refreshScope();
    // Only a recount of part of the session slows redraws down, never the drawing itself.
    const qint64 recountMs = m_scopeIsSession ? 0 : took.elapsed();
    refreshFigures();
    refreshHistogram();
    refreshLatency();
    refreshErrors();
    refreshOutcomes();
    m_refreshTimer.setInterval(int(std::clamp<qint64>(recountMs * 10, m_baseInterval, slowestRefreshMs)));
}

void StatisticsView::syncScopeItems(const QList<RunSession::RunSpan> &runs)
{
    // One item per run once there is more than one; the texts follow a growing run.
    const qsizetype fixed = 2;
    const qsizetype wanted = runs.size() > 1 ? fixed + runs.size() : fixed;
    const QVariant chosen = m_scope->currentData();
    const QSignalBlocker block(m_scope);
    while (m_scope->count() > wanted)
        m_scope->removeItem(m_scope->count() - 1);
    for (qsizetype i = 0; i + fixed < wanted; ++i) {
        const RunSession::RunSpan &run = runs.at(i);
        const QString from = m_session->wallTimeOf(run.startNs).toLocalTime().toString(QStringLiteral("HH:mm:ss"));
        const QString text = run.requestCount() == 1
            ? tr("Run %1: 1 request at %2").arg(i + 1).arg(from)
            : tr("Run %1: %2 requests from %3").arg(i + 1).arg(QLocale().toString(run.requestCount()), from);
        if (fixed + i < m_scope->count())
            m_scope->setItemText(int(fixed + i), text);
        else
            m_scope->addItem(text, int(i));
    }
    const int index = m_scope->findData(chosen);
    m_scope->setCurrentIndex(index >= 0 ? index : 0);
}

void StatisticsView::refreshScope()
{
    if (!m_session) {
        syncScopeItems({});
        m_scoped.clear();
        m_stats = &m_scoped;
        m_scopeRunning = m_scopeInFlight = 0;
        m_scopeIsSession = true;
        m_runCount = 0;
        return;
    }
    const QList<RunSession::RunSpan> runs = m_session->runs();
    m_runCount = runs.size();
    syncScopeItems(runs);
    const int chosen = scope();
    RunSession::RunSpan span{0, m_session->laneCount(), -1};
    if (chosen >= 0 && chosen < runs.size())
        span = runs.at(chosen);
    else if (chosen != allRuns && !runs.isEmpty())
        span = runs.last();
    m_scopeIsSession = span.firstLane == 0 && span.endLane >= m_session->laneCount();
    if (m_scopeIsSession) {
        // Kept as records arrive: nothing to count again.
        m_stats = &m_session->statistics();
        m_scopeRunning = m_session->runningRequestCount();
        m_scopeInFlight = m_session->inFlightCount();
        m_scoped.clear();
        return;
    }
    m_scoped = m_session->statisticsOf(span.firstLane, span.endLane);
    m_stats = &m_scoped;
    const auto activity = m_session->activityOf(span.firstLane, span.endLane);
    m_scopeRunning = activity.first;
    m_scopeInFlight = activity.second;
}

void StatisticsView::refreshFigures()
{
    const QLocale locale;
    const auto set = [this](Figure f, const QString &text) { m_figures.value(f)->setText(text); };
    if (!m_session) {
        for (QLabel *label : std::as_const(m_figures))
            label->setText(QStringLiteral("\u2014"));
        return;
    }
    const RunStatistics &s = *m_stats;
    const int running = m_scopeRunning;
    set(Figure::Requests,
        running > 0 ? tr("%1 done, %2 running").arg(locale.toString(s.requestCount()), locale.toString(running))
                    : tr("%1 done").arg(locale.toString(s.requestCount())));
    const auto rate = s.successRate();
    set(Figure::SuccessRate, rate ? tr("%1 %").arg(locale.toString(*rate * 100.0, 'f', 1)) : QStringLiteral("\u2014"));
    set(Figure::Attempts,
        m_scopeInFlight > 0
            ? tr("%1 (%2 in flight)").arg(locale.toString(s.attemptCount()), locale.toString(m_scopeInFlight))
            : locale.toString(s.attemptCount()));
    // Amplification said in words too: what it means for the server.
    const auto amplification = s.retryAmplification();
    set(Figure::RetryAmplification,
        amplification ? tr("%1\u00d7").arg(locale.toString(*amplification, 'f', 2)) : QStringLiteral("\u2014"));
    m_amplificationWords->setText(amplification
            ? tr("Each request reached the server %1 times: %2 % extra load.")
                  .arg(locale.toString(*amplification, 'f', 2),
                      locale.toString(std::max(0.0, *amplification - 1.0) * 100.0, 'f', 0))
            : QString());
    const auto request = s.requestLatency();
    set(Figure::RequestLatency,
        QStringLiteral("%1 / %2 / %3")
            .arg(statisticMsText(request.p50), statisticMsText(request.p90), statisticMsText(request.p99)));
    const auto attempt = s.attemptLatency();
    set(Figure::AttemptLatency,
        QStringLiteral("%1 / %2 / %3")
            .arg(statisticMsText(attempt.p50), statisticMsText(attempt.p90), statisticMsText(attempt.p99)));
    // Two different counts, each named: failed attempts (retried or not) and the
    // requests that ended without success.
    const qint64 failedRequests = s.requestCount() - s.requestCount(Core::RequestOutcome::Succeeded)
        - s.requestCount(Core::RequestOutcome::Cancelled);
    set(Figure::Errors,
        tr("%1 / %2").arg(locale.toString(s.errorCount()), locale.toString(std::max<qint64>(0, failedRequests))));

    const auto &circuits = m_session->circuitStates();
    QStringList open;
    for (auto it = circuits.cbegin(); it != circuits.cend(); ++it) {
        if (it.value() != Core::CircuitBreaker::State::Closed)
            open.append(tr("%1 %2").arg(it.key(), Core::CircuitBreaker::stateName(it.value())));
    }
    open.sort();
    set(Figure::CircuitBreakers, open.isEmpty() ? tr("all closed") : open.join(QStringLiteral(", ")));
    set(Figure::RetryBudget,
        m_session->budgetCapacity() > 0.0 ? tr("%1 of %2 tokens")
                                                .arg(locale.toString(m_session->budgetTokens(), 'f', 0),
                                                    locale.toString(m_session->budgetCapacity(), 'f', 0))
                                          : tr("not limited"));
}

void StatisticsView::refreshHistogram()
{
    QChart *c = chartOf(Chart::AttemptsHistogram);
    auto *series = qobject_cast<QBarSeries *>(c->series().value(0));
    QBarSet *set = series ? series->barSets().value(0) : nullptr;
    auto *x = qobject_cast<QBarCategoryAxis *>(c->axes(Qt::Horizontal).value(0));
    auto *y = qobject_cast<QValueAxis *>(c->axes(Qt::Vertical).value(0));
    if (!set || !x || !y)
        return;
    const QMap<int, qint64> histogram = m_stats->attemptsHistogram();
    QStringList categories;
    QList<qreal> values;
    if (!histogram.isEmpty()) {
        const int first = histogram.firstKey();
        const int last = std::min(histogram.lastKey(), first + maxHistogramColumns - 1);
        for (int attempts = first; attempts <= last; ++attempts) {
            const bool rest = attempts == last && histogram.lastKey() > last;
            categories.append(rest ? tr("%1+").arg(attempts) : QString::number(attempts));
            qint64 count = 0;
            if (rest) {
                for (auto it = histogram.lowerBound(attempts); it != histogram.cend(); ++it)
                    count += it.value();
            } else {
                count = histogram.value(attempts);
            }
            values.append(qreal(count));
        }
    }
    if (x->categories() != categories) {
        x->clear();
        x->append(categories);
    }
    if (set->count() > 0)
        set->remove(0, set->count());
    set->append(values);
    const double top = values.isEmpty() ? 1.0 : *std::max_element(values.cbegin(), values.cend());
    setNiceRange(y, top, 1.0);
}

void StatisticsView::refreshLatency()
{
    QChart *c = chartOf(Chart::LatencyPercentiles);
    auto *series = qobject_cast<QBarSeries *>(c->series().value(0));
    QValueAxis *y = nullptr;
    QLogValueAxis *log = nullptr;
    for (QAbstractAxis *axis : c->axes(Qt::Vertical)) {
        if (auto *linear = qobject_cast<QValueAxis *>(axis))
            y = linear;
        else
            log = qobject_cast<QLogValueAxis *>(axis);
    }
    if (!series || series->count() < 2 || !y || !log)
        return;
    RunStatistics::Percentiles request;
    RunStatistics::Percentiles attempt;
    request = m_stats->requestLatency();
    attempt = m_stats->attemptLatency();
    const double top = std::max(request.p99.value_or(0.0), attempt.p99.value_or(0.0));
    double bottom = top;
    for (const auto &value : {request.p50, request.p90, attempt.p50, attempt.p90}) {
        if (value && *value > 0.0)
            bottom = std::min(bottom, *value);
    }
    const bool useLog = bottom > 0.0 && top / bottom >= 100.0;
    const double logFloor = useLog ? std::pow(10.0, std::floor(std::log10(bottom))) : 0.0;
    // On a log axis a missing or zero value sits at the axis' floor (an empty bar):
    // the logarithm of zero has no place on it.
    const auto put = [logFloor](QBarSet *set, const RunStatistics::Percentiles &p) {
        set->replace(0, std::max(logFloor, p.p50.value_or(0.0)));
        set->replace(1, std::max(logFloor, p.p90.value_or(0.0)));
        set->replace(2, std::max(logFloor, p.p99.value_or(0.0)));
    };
    // The axis first: a zero must never meet the log axis, not even for a moment.
    QAbstractAxis *from = useLog ? static_cast<QAbstractAxis *>(y) : log;
    QAbstractAxis *to = useLog ? static_cast<QAbstractAxis *>(log) : y;
    if (useLog) {
        put(series->barSets().at(0), request);
        put(series->barSets().at(1), attempt);
    }
    if (series->attachedAxes().contains(from)) {
        series->detachAxis(from);
        series->attachAxis(to);
    }
    from->setVisible(false);
    to->setVisible(true);
    if (useLog)
        log->setRange(logFloor, std::pow(10.0, std::ceil(std::log10(top))));
    else
        setNiceRange(y, std::max(top, 1.0), 0.001);
    if (!useLog) {
        put(series->barSets().at(0), request);
        put(series->barSets().at(1), attempt);
    }
}

void StatisticsView::refreshErrors()
{
    QChart *c = chartOf(Chart::ErrorsOverTime);
    auto *x = qobject_cast<QValueAxis *>(c->axes(Qt::Horizontal).value(0));
    auto *y = qobject_cast<QValueAxis *>(c->axes(Qt::Vertical).value(0));
    if (!x || !y)
        return;
    c->removeAllSeries();
    x->setTitleText(m_scopeIsSession && m_runCount > 1 ? tr("seconds since the session started")
                                                       : tr("seconds since the run started"));
    if (m_stats->binCount() == 0) {
        c->setTitle(tr("Errors over time"));
        x->setRange(0.0, 1.0);
        y->setRange(0.0, 1.0);
        return;
    }
    const RunStatistics &s = *m_stats;
    const double width = s.binWidthMs();
    c->setTitle(tr("Errors per %1, by cause").arg(Core::DurationText::format(width)));

    // The commonest causes get a band each, the rest share one; the bands are stacked
    // steps, so that the top edge is the total and no cause hides behind another.
    QList<int> order(s.errorCauses().size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
        [&s](int a, int b) { return s.errorCount(s.errorCauses().at(a)) > s.errorCount(s.errorCauses().at(b)); });
    const int shown = std::min<int>(int(order.size()), maxCauseSeries);
    QList<QList<int>> bands; // cause indexes per band
    QStringList names;
    for (int i = 0; i < shown; ++i) {
        bands.append(QList<int>{order.at(i)});
        names.append(s.errorCauses().at(order.at(i)));
    }
    if (order.size() > shown) {
        bands.append(order.mid(shown));
        names.append(tr("other"));
    }

    std::vector<double> below(std::size_t(s.binCount()), 0.0);
    double top = 0.0;
    for (qsizetype band = 0; band < bands.size(); ++band) {
        auto *upper = new QLineSeries;
        auto *lower = new QLineSeries;
        QList<QPointF> upperPoints;
        QList<QPointF> lowerPoints;
        upperPoints.reserve(s.binCount() * 2);
        lowerPoints.reserve(s.binCount() * 2);
        for (int bin = 0; bin < s.binCount(); ++bin) {
            qint64 count = 0;
            for (int cause : bands.at(band))
                count += s.errorsInBin(bin, cause);
            const double from = s.binStartMs(bin) / 1000.0;
            const double to = (s.binStartMs(bin) + width) / 1000.0;
            const double base = below[std::size_t(bin)];
            lowerPoints.append({QPointF(from, base), QPointF(to, base)});
            upperPoints.append({QPointF(from, base + double(count)), QPointF(to, base + double(count))});
            below[std::size_t(bin)] = base + double(count);
            top = std::max(top, below[std::size_t(bin)]);
        }
        upper->replace(upperPoints);
        lower->replace(lowerPoints);
        auto *area = new QAreaSeries(upper, lower);
        // The area does not own its edges; make it, so that removeAllSeries() frees them.
        upper->setParent(area);
        lower->setParent(area);
        area->setName(names.at(band));
        QColor colour = causeColor(int(band < shown ? band : maxCauseSeries));
        area->setPen(QPen(colour.darker(120), 1.0));
        colour.setAlpha(210);
        area->setBrush(colour);
        c->addSeries(area);
        area->attachAxis(x);
        area->attachAxis(y);
    }
    const double totalMs = s.binCount() * width;
    x->setRange(0.0, totalMs / 1000.0);
    const double step = TimeAxis::timeStep(totalMs / 6.0) / 1000.0;
    x->setTickType(QValueAxis::TicksDynamic);
    x->setTickAnchor(0.0);
    x->setTickInterval(step);
    const int decimals = step >= 1.0 ? 0 : std::min(3, int(std::ceil(-std::log10(step) - 1e-9)));
    x->setLabelFormat(QStringLiteral("%.") + QString::number(decimals) + QStringLiteral("f"));
    setNiceRange(y, std::max(top, 1.0), 1.0);
    c->legend()->setLabelColor(palette().color(QPalette::WindowText));
}

void StatisticsView::refreshOutcomes()
{
    QChart *c = chartOf(Chart::Outcomes);
    auto *pie = qobject_cast<QPieSeries *>(c->series().value(0));
    if (!pie)
        return;
    pie->clear();
    const RunStatistics &s = *m_stats;
    for (RequestOutcome outcome : {RequestOutcome::Succeeded, RequestOutcome::AttemptsExhausted, RequestOutcome::GaveUp,
             RequestOutcome::DeadlineExceeded, RequestOutcome::CircuitOpen, RequestOutcome::BudgetExhausted,
             RequestOutcome::Cancelled, RequestOutcome::InvalidRequest}) {
        const qint64 count = s.requestCount(outcome);
        if (count == 0)
            continue;
        QPieSlice *slice = pie->append(
            tr("%1 (%2)").arg(Core::requestOutcomeName(outcome), QLocale().toString(count)), double(count));
        slice->setColor(requestOutcomeColor(outcome));
        slice->setBorderColor(palette().color(QPalette::Base));
    }
    c->legend()->setLabelColor(palette().color(QPalette::WindowText));
}

} // namespace RetryLab::Ui
