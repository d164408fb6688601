#include "ui/policy/schedulepreviewchart.h"

#include "core/util/durationtext.h"

#include <QAreaSeries>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegend>
#include <QLineSeries>
#include <QLocale>
#include <QLogValueAxis>
#include <QPen>
#include <QRandomGenerator>
#include <QTimer>
#include <QToolButton>
#include <QValueAxis>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace RetryLab::Ui {

namespace {

// Sample lines: hues apart from the palette's highlight, at a lightness that
// keeps them readable on light and on dark backgrounds alike.
QColor sampleColor(int index)
{
    static constexpr int hues[] = {28, 145, 290, 200, 340};
    return QColor::fromHsl(hues[index % 5], 190, 125);
}

QColor deadlineColor()
{
    return QColor::fromHsl(0, 200, 120);
}

QColor mix(const QColor &a, const QColor &b, double ratio)
{
    return QColor::fromRgbF(static_cast<float>(a.redF() * (1 - ratio) + b.redF() * ratio),
        static_cast<float>(a.greenF() * (1 - ratio) + b.greenF() * ratio),
        static_cast<float>(a.blueF() * (1 - ratio) + b.blueF() * ratio));
}

} // namespace

SchedulePreviewChart::SchedulePreviewChart(QWidget *parent)
    : QWidget(parent), m_timer(new QTimer(this)), m_chart(new QChart)
{
    m_timer->setSingleShot(true);
    m_timer->setInterval(coalesceMs);
    connect(m_timer, &QTimer::timeout, this, &SchedulePreviewChart::redraw);

    // The chart's own legend truncates its entries in a narrow dock; a wrapping
    // label below the chart says the same in full.
    m_chart->legend()->hide();
    m_chart->setMargins(QMargins(2, 2, 2, 2));
    m_chart->setBackgroundRoundness(0);
    m_chart->setAnimationOptions(QChart::NoAnimation);

    // The area series does not own its boundary lines; as its children they live exactly as long.
    m_band = new QAreaSeries;
    m_bandUpper = new QLineSeries(m_band);
    m_bandLower = new QLineSeries(m_band);
    m_band->setUpperSeries(m_bandUpper);
    m_band->setLowerSeries(m_bandLower);
    m_band->setObjectName(QStringLiteral("band"));
    m_band->setName(tr("Delays jitter can produce"));
    m_chart->addSeries(m_band);

    for (int k = 0; k < sampleCount; ++k) {
        auto *sample = new QLineSeries;
        sample->setObjectName(QStringLiteral("sample%1").arg(k));
        sample->setName(tr("Sampled schedules"));
        m_chart->addSeries(sample);
        m_samples.append(sample);
    }
    m_cumulativeMin = new QLineSeries;
    m_cumulativeMin->setObjectName(QStringLiteral("cumulativeMin"));
    m_cumulativeMin->setName(tr("Waited so far, fastest"));
    m_chart->addSeries(m_cumulativeMin);
    m_cumulativeMax = new QLineSeries;
    m_cumulativeMax->setObjectName(QStringLiteral("cumulativeMax"));
    m_cumulativeMax->setName(tr("slowest"));
    m_chart->addSeries(m_cumulativeMax);
    m_deadline = new QLineSeries;
    m_deadline->setObjectName(QStringLiteral("deadline"));
    m_deadline->setName(tr("Deadline"));
    m_chart->addSeries(m_deadline);
    m_xAxis = new QValueAxis(this);
    m_xAxis->setTitleText(tr("Retry index n (0 = first retry)"));
    m_xAxis->setLabelFormat(QStringLiteral("%.0f"));
    m_xAxis->setTickType(QValueAxis::TicksDynamic);
    m_xAxis->setTickAnchor(0.0);
    m_delayLinear = new QValueAxis(this);
    m_delayLinear->setLabelFormat(QStringLiteral("%g"));
    m_delayLog = new QLogValueAxis(this);
    m_delayLog->setLabelFormat(QStringLiteral("%g"));
    m_delayLog->setMinorTickCount(8);
    m_cumulativeLinear = new QValueAxis(this);
    m_cumulativeLinear->setLabelFormat(QStringLiteral("%g"));
    m_cumulativeLog = new QLogValueAxis(this);
    m_cumulativeLog->setLabelFormat(QStringLiteral("%g"));
    m_cumulativeLog->setMinorTickCount(8);
    // One grid is enough: the right-hand axis draws only its labels.
    for (QAbstractAxis *axis : std::initializer_list<QAbstractAxis *>{m_cumulativeLinear, m_cumulativeLog}) {
        axis->setGridLineVisible(false);
        axis->setMinorGridLineVisible(false);
    }
    m_chart->addAxis(m_xAxis, Qt::AlignBottom);
    for (QAbstractSeries *series : m_chart->series())
        series->attachAxis(m_xAxis);
    attachAxes(false);

    m_view = new QChartView(m_chart, this);
    m_view->setRenderHint(QPainter::Antialiasing);
    m_view->setMinimumSize(280, 220);

    auto *controls = new QHBoxLayout;
    auto *scaleLabel = new QLabel(tr("&Scale:"), this);
    m_scaleCombo = new QComboBox(this);
    m_scaleCombo->setObjectName(QStringLiteral("scale"));
    m_scaleCombo->addItem(tr("Automatic"), static_cast<int>(Scale::Automatic));
    m_scaleCombo->addItem(tr("Linear"), static_cast<int>(Scale::Linear));
    m_scaleCombo->addItem(tr("Logarithmic"), static_cast<int>(Scale::Logarithmic));
    m_scaleCombo->setToolTip(tr("Automatic picks a logarithmic delay axis when the delays span more than a factor of "
                                "50, so that the small first delays do not vanish into the floor."));
    scaleLabel->setBuddy(m_scaleCombo);
    connect(m_scaleCombo, &QComboBox::activated, this,
        [this](int index) { setScale(static_cast<Scale>(m_scaleCombo->itemData(index).toInt())); });
    m_seedLabel = new QLabel(this);
    m_seedLabel->setObjectName(QStringLiteral("seed"));
    m_seedLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_seedLabel->setToolTip(tr("The sampled schedules come from generators seeded with this number and the next "
                               "ones, so the same seed always draws the same schedules."));
    m_rerollButton = new QToolButton(this);
    m_rerollButton->setObjectName(QStringLiteral("reroll"));
    m_rerollButton->setText(tr("&Re-roll"));
    m_rerollButton->setToolTip(tr("Draw other sampled schedules with a new seed."));
    connect(m_rerollButton, &QToolButton::clicked, this, &SchedulePreviewChart::reroll);
    controls->addWidget(scaleLabel);
    controls->addWidget(m_scaleCombo);
    controls->addStretch(1);
    controls->addWidget(m_seedLabel);
    controls->addWidget(m_rerollButton);

    m_legendLabel = new QLabel(this);
    m_legendLabel->setObjectName(QStringLiteral("legend"));
    m_legendLabel->setWordWrap(true);
    m_legendLabel->setTextFormat(Qt::RichText);

    m_noteLabel = new QLabel(this);
    m_noteLabel->setObjectName(QStringLiteral("note"));
    m_noteLabel->setWordWrap(true);
    m_noteLabel->setTextFormat(Qt::PlainText);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(controls);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_legendLabel);
    layout->addWidget(m_noteLabel);

    applyPalette();
    updateSeedLabel();
    redraw();
}

SchedulePreviewChart::~SchedulePreviewChart() = default;

void SchedulePreviewChart::setPolicy(const Core::BackoffPolicy &policy)
{
    m_policy = policy;
    scheduleUpdate();
}

void SchedulePreviewChart::setProblem(const QString &problem)
{
    QString joined = problem;
    joined.replace(QLatin1Char('\n'), QStringLiteral("; "));
    if (joined == m_problem)
        return;
    m_problem = joined;
    scheduleUpdate();
}

void SchedulePreviewChart::setSeed(quint64 seed)
{
    if (seed == m_seed)
        return;
    m_seed = seed;
    updateSeedLabel();
    scheduleUpdate();
}

void SchedulePreviewChart::reroll()
{
    quint64 next = m_seed;
    // Short seeds are easier to read out and type back in.
    while (next == m_seed)
        next = QRandomGenerator::global()->bounded(1, 1'000'000);
    setSeed(next);
}

void SchedulePreviewChart::setScale(Scale scale)
{
    if (scale == m_scale)
        return;
    m_scale = scale;
    m_scaleCombo->setCurrentIndex(m_scaleCombo->findData(static_cast<int>(scale)));
    scheduleUpdate();
}

void SchedulePreviewChart::scheduleUpdate()
{
    // Not restarted when already running: a stream of edits redraws at a steady
    // rate instead of waiting for the stream to end.
    if (!m_timer->isActive())
        m_timer->start();
}

bool SchedulePreviewChart::isUpdatePending() const
{
    return m_timer->isActive();
}

void SchedulePreviewChart::flush()
{
    if (m_timer->isActive()) {
        m_timer->stop();
        redraw();
    }
}

void SchedulePreviewChart::updateSeedLabel()
{
    m_seedLabel->setText(tr("Seed %1").arg(m_seed));
}

QString SchedulePreviewChart::note() const
{
    return m_noteText;
}

void SchedulePreviewChart::attachAxes(bool logarithmic)
{
    if (m_axesAttached && logarithmic == m_axesLogarithmic)
        return;
    if (m_axesAttached) {
        // The chart gives up ownership of a removed axis; keep it for the next switch.
        for (QAbstractAxis *axis : {m_axesLogarithmic ? static_cast<QAbstractAxis *>(m_delayLog) : m_delayLinear,
                 m_axesLogarithmic ? static_cast<QAbstractAxis *>(m_cumulativeLog) : m_cumulativeLinear}) {
            m_chart->removeAxis(axis);
            axis->setParent(this);
        }
    }
    QAbstractAxis *delay = logarithmic ? static_cast<QAbstractAxis *>(m_delayLog) : m_delayLinear;
    QAbstractAxis *cumulative = logarithmic ? static_cast<QAbstractAxis *>(m_cumulativeLog) : m_cumulativeLinear;
    m_chart->addAxis(delay, Qt::AlignLeft);
    m_chart->addAxis(cumulative, Qt::AlignRight);
    m_band->attachAxis(delay);
    for (QLineSeries *sample : std::as_const(m_samples))
        sample->attachAxis(delay);
    m_cumulativeMin->attachAxis(cumulative);
    m_cumulativeMax->attachAxis(cumulative);
    m_deadline->attachAxis(cumulative);
    m_axesAttached = true;
    m_axesLogarithmic = logarithmic;
    applyPalette();
}

void SchedulePreviewChart::redraw()
{
    m_timer->stop();
    const Core::BackoffPolicy &p = m_policy;
    const QLocale locale;

    // How many retry indexes to draw, and what to say about the rest.
    QStringList notes;
    int count = 0;
    m_truncated = false;
    const bool hasDeadline = p.deadlineMs > 0.0 && std::isfinite(p.deadlineMs);
    if (p.maxAttempts > 0) {
        const qint64 total = static_cast<qint64>(p.maxAttempts) - 1;
        count = static_cast<int>(std::min<qint64>(total, Core::maxPreviewRetries));
        m_truncated = total > Core::maxPreviewRetries;
        if (total == 0)
            notes.append(tr("No retries: the policy makes a single attempt."));
        else if (m_truncated)
            notes.append(tr("Showing the first %1 of %2 retries.").arg(locale.toString(count), locale.toString(total)));
    } else if (hasDeadline) {
        // Only the deadline bounds the retries: draw until the fastest schedule crosses it.
        const auto probe = Core::previewSchedule(p, Core::maxPreviewRetries, 0, m_seed);
        const qint64 fit = std::max<qint64>(probe.retriesWithinDeadline, 0);
        count = static_cast<int>(std::min<qint64>(fit + 1, Core::maxPreviewRetries));
        m_truncated = fit >= Core::maxPreviewRetries;
        if (m_truncated)
            notes.append(tr("Only the deadline limits the retries, and more than %1 fit in it; showing the first %1.")
                             .arg(locale.toString(count)));
        else
            notes.append(tr("Only the deadline limits the retries: showing them until the fastest schedule "
                            "crosses it."));
    } else {
        notes.append(tr("No retries shown: the policy has neither an attempt limit nor a deadline."));
    }

    m_preview = Core::previewSchedule(p, count, sampleCount, m_seed);
    if (hasDeadline && count > 0) {
        const qint64 fit = std::max<qint64>(m_preview.retriesWithinDeadline, 0);
        if (fit == 0)
            notes.append(
                tr("Not even the first retry fits in the %1 deadline.").arg(Core::DurationText::format(p.deadlineMs)));
        else if (!m_truncated && (fit < count || p.maxAttempts <= 0))
            notes.append(tr("Retries that fit in the deadline at best: %1; then the client gives up instead of "
                            "sleeping past it.")
                             .arg(locale.toString(fit)));
    }

    // Units and scale.
    double maxDelay = 0.0;
    double minPositiveDelay = 0.0;
    auto consider = [&](double value) {
        maxDelay = std::max(maxDelay, value);
        if (value > 0.0 && (minPositiveDelay == 0.0 || value < minPositiveDelay))
            minPositiveDelay = value;
    };
    for (const auto &point : std::as_const(m_preview.envelope)) {
        consider(point.minMs);
        consider(point.maxMs);
    }
    for (const auto &sample : std::as_const(m_preview.samples)) {
        for (double value : sample)
            consider(value);
    }
    double maxCumulative = hasDeadline ? p.deadlineMs : 0.0;
    double minPositiveCumulative = hasDeadline ? p.deadlineMs : 0.0;
    for (const auto &point : std::as_const(m_preview.envelope)) {
        maxCumulative = std::max(maxCumulative, point.cumulativeMaxMs);
        for (double value : {point.cumulativeMinMs, point.cumulativeMaxMs}) {
            if (value > 0.0 && (minPositiveCumulative == 0.0 || value < minPositiveCumulative))
                minPositiveCumulative = value;
        }
    }

    m_delayUnit = TimeAxis::unitFor(maxDelay);
    m_cumulativeUnit = TimeAxis::unitFor(maxCumulative);
    const bool canLog = minPositiveDelay > 0.0;
    switch (m_scale) {
    case Scale::Automatic:
        m_logarithmic = canLog && TimeAxis::logScaleHelps(minPositiveDelay, maxDelay);
        break;
    case Scale::Linear:
        m_logarithmic = false;
        break;
    case Scale::Logarithmic:
        m_logarithmic = canLog;
        if (!canLog && count > 0)
            notes.append(tr("Every delay is 0, which a logarithmic axis cannot show; the axis stays linear."));
        break;
    }
    attachAxes(m_logarithmic);

    const double du = m_delayUnit.msPerUnit;
    const double cu = m_cumulativeUnit.msPerUnit;
    TimeAxis::Range delayRange;
    TimeAxis::Range cumulativeRange;
    if (m_logarithmic) {
        delayRange = TimeAxis::logRange(minPositiveDelay / du, maxDelay / du);
        cumulativeRange = TimeAxis::logRange(
            (minPositiveCumulative > 0.0 ? minPositiveCumulative : minPositiveDelay) / cu, maxCumulative / cu);
    } else {
        // A little headroom, so that a constant delay is not drawn on the plot's border.
        delayRange = TimeAxis::linearRange(0.0, maxDelay / du * 1.04);
        cumulativeRange = TimeAxis::linearRange(0.0, maxCumulative / cu * 1.04);
    }
    // On a log axis a zero delay is drawn at the floor (the axis cannot reach 0).
    auto delayY = [&](double ms) { return m_logarithmic ? TimeAxis::clampForLog(ms / du, delayRange.min) : ms / du; };
    auto cumulativeY
        = [&](double ms) { return m_logarithmic ? TimeAxis::clampForLog(ms / cu, cumulativeRange.min) : ms / cu; };

    QList<QPointF> upper;
    QList<QPointF> lower;
    QList<QPointF> cumMin;
    QList<QPointF> cumMax;
    upper.reserve(2 * count);
    lower.reserve(2 * count);
    cumMin.reserve(count);
    cumMax.reserve(count);
    for (const auto &point : std::as_const(m_preview.envelope)) {
        // A step per retry index: the band is a range of one discrete delay,
        // not an interpolation between neighbours.
        const double x = static_cast<double>(point.retryIndex);
        upper.append({x - 0.5, delayY(point.maxMs)});
        upper.append({x + 0.5, delayY(point.maxMs)});
        lower.append({x - 0.5, delayY(point.minMs)});
        lower.append({x + 0.5, delayY(point.minMs)});
        cumMin.append({x, cumulativeY(point.cumulativeMinMs)});
        cumMax.append({x, cumulativeY(point.cumulativeMaxMs)});
    }
    m_bandUpper->replace(upper);
    m_bandLower->replace(lower);
    m_cumulativeMin->replace(cumMin);
    m_cumulativeMax->replace(cumMax);

    for (int k = 0; k < sampleCount; ++k) {
        QList<QPointF> points;
        if (k < m_preview.samples.size()) {
            const auto &sample = m_preview.samples.at(k);
            points.reserve(sample.size());
            for (qsizetype n = 0; n < sample.size(); ++n)
                points.append({static_cast<double>(n), delayY(sample.at(n))});
        }
        m_samples.at(k)->replace(points);
        m_samples.at(k)->setPointsVisible(count <= markerLimit);
    }

    const double lastX = std::max(count, 1) - 0.5;
    if (hasDeadline && count > 0)
        m_deadline->replace(QList<QPointF>{{-0.5, cumulativeY(p.deadlineMs)}, {lastX, cumulativeY(p.deadlineMs)}});
    else
        m_deadline->clear();
    m_deadlineShown = hasDeadline && count > 0;

    m_xAxis->setRange(-0.5, lastX);
    m_xAxis->setTickInterval(TimeAxis::integerTickInterval(std::max(count, 1)));
    const QString delayTitle = tr("Delay before retry (%1)").arg(m_delayUnit.symbol);
    const QString cumulativeTitle = tr("Waited so far (%1)").arg(m_cumulativeUnit.symbol);
    if (m_logarithmic) {
        m_delayLog->setRange(delayRange.min, delayRange.max);
        m_delayLog->setTitleText(delayTitle);
        m_cumulativeLog->setRange(cumulativeRange.min, cumulativeRange.max);
        m_cumulativeLog->setTitleText(cumulativeTitle);
    } else {
        m_delayLinear->setRange(delayRange.min, delayRange.max);
        m_delayLinear->setTickCount(delayRange.tickCount);
        m_delayLinear->setTitleText(delayTitle);
        m_cumulativeLinear->setRange(cumulativeRange.min, cumulativeRange.max);
        m_cumulativeLinear->setTickCount(cumulativeRange.tickCount);
        m_cumulativeLinear->setTitleText(cumulativeTitle);
    }

    if (count > 0)
        notes.append(tr("Waited so far adds up the delays; the attempts themselves take time on top."));
    if (p.hedging.enabled) {
        // The attempts of a hedging policy do not back off: say so before anything the chart shows.
        notes.prepend(tr("Hedging is on: a further attempt goes out every %1 while none has answered, %2 in all, "
                         "the next at once after an answer the policy would retry; the delays charted here are "
                         "not used.")
                          .arg(Core::DurationText::format(p.hedging.delayMs))
                          .arg(p.hedging.maxAttempts));
    }
    if (!m_problem.isEmpty())
        notes.prepend(tr("The policy has errors (see the editor); the chart shows what its numbers would do."));
    m_noteText = notes.join(QLatin1Char(' '));
    m_noteLabel->setText(m_noteText);
    updateLegend();

    ++m_redraws;
    Q_EMIT previewUpdated();
}

void SchedulePreviewChart::applyPalette()
{
    const QPalette pal = palette();
    const QColor text = pal.color(QPalette::WindowText);
    const QColor window = pal.color(QPalette::Window);
    const QColor base = pal.color(QPalette::Base);
    const QColor grid = mix(base, text, 0.18);
    const QColor minorGrid = mix(base, text, 0.08);

    m_chart->setBackgroundBrush(window);
    m_chart->setBackgroundPen(Qt::NoPen);
    m_chart->setPlotAreaBackgroundBrush(base);
    m_chart->setPlotAreaBackgroundVisible(true);
    m_chart->setTitleBrush(text);

    for (QAbstractAxis *axis : std::initializer_list<QAbstractAxis *>{
             m_xAxis, m_delayLinear, m_delayLog, m_cumulativeLinear, m_cumulativeLog}) {
        axis->setLabelsColor(text);
        axis->setTitleBrush(text);
        axis->setLinePenColor(grid);
        axis->setGridLineColor(grid);
        axis->setMinorGridLineColor(minorGrid);
        axis->setLabelsFont(font());
        QFont title = font();
        title.setBold(false);
        axis->setTitleFont(title);
    }

    QColor fill = pal.color(QPalette::Highlight);
    fill.setAlphaF(0.30f);
    m_band->setBrush(fill);
    QPen border(pal.color(QPalette::Highlight));
    border.setWidthF(1.0);
    m_band->setPen(border);

    for (int k = 0; k < m_samples.size(); ++k) {
        QPen pen(sampleColor(k));
        pen.setWidthF(1.6);
        m_samples.at(k)->setPen(pen);
        m_samples.at(k)->setMarkerSize(5.0);
    }
    QPen cumulative(mix(window, text, 0.75));
    cumulative.setWidthF(1.4);
    cumulative.setStyle(Qt::DashLine);
    m_cumulativeMin->setPen(cumulative);
    cumulative.setStyle(Qt::DotLine);
    m_cumulativeMax->setPen(cumulative);
    QPen deadline(deadlineColor());
    deadline.setWidthF(2.0);
    deadline.setStyle(Qt::DashDotLine);
    m_deadline->setPen(deadline);
    if (m_legendLabel)
        updateLegend();
}

void SchedulePreviewChart::updateLegend()
{
    // Each entry is kept on one line (non-breaking spaces); the label wraps between entries.
    auto entry = [](const QColor &color, const QString &symbol, const QString &text) {
        QString label = text.toHtmlEscaped();
        label.replace(QLatin1Char(' '), QStringLiteral("&nbsp;"));
        return QStringLiteral("<span style=\"color:%1\">%2</span>&nbsp;%3")
            .arg(color.name(QColor::HexRgb), symbol, label);
    };
    const QPalette pal = palette();
    QStringList entries;
    QColor band = pal.color(QPalette::Highlight);
    entries.append(entry(band, QStringLiteral("\u25A0"), tr("Delays jitter can produce")));
    QString samples;
    for (int k = 0; k < sampleCount; ++k)
        samples += QStringLiteral("<span style=\"color:%1\">\u25CF</span>").arg(sampleColor(k).name());
    entries.append(samples + QStringLiteral("&nbsp;")
        + entry(pal.color(QPalette::WindowText), QString(), tr("Sampled schedules (seed %1)").arg(m_seed)));
    const QColor cumulative = mix(pal.color(QPalette::Window), pal.color(QPalette::WindowText), 0.75);
    entries.append(
        entry(cumulative, QStringLiteral("\u2504\u2504"), tr("Waited so far, fastest and slowest (right axis)")));
    if (m_deadlineShown)
        entries.append(entry(deadlineColor(), QStringLiteral("\u2501"), tr("Deadline (right axis)")));
    m_legendLabel->setText(entries.join(QStringLiteral("&nbsp;&nbsp; ")));
}

void SchedulePreviewChart::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange)
        applyPalette();
}

} // namespace RetryLab::Ui
