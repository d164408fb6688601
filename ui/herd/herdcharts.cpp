#include "ui/herd/herdcharts.h"

#include "ui/widgets/outcomestyle.h"
#include "ui/widgets/timeaxis.h"

#include <QAreaSeries>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QImage>
#include <QLabel>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPainter>
#include <QPalette>
#include <QPolygonF>
#include <QSignalBlocker>
#include <QValueAxis>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

namespace RetryLab::Ui {

using namespace RetryLab::Core;

namespace {

// Points per load curve at most: a few per pixel of a wide chart, whatever the run's length.
constexpr int maxLoadPoints = 2000;

// One colour per strategy, by HerdStrategy::index(), so a strategy keeps its
// colour in every chart and in the list. HerdCharts::strategyColor() adjusts
// it to the palette's base colour.
QColor baseStrategyColor(const HerdStrategy &strategy)
{
    static const QList<QColor> palette{
        QColor(0x6b, 0x6b, 0x6b), // none
        QColor(0x2c, 0x7f, 0xb8), // google
        QColor(0x7f, 0xcd, 0xbb), // iam
        QColor(0xd7, 0x30, 0x27), // exponential
        QColor(0x1a, 0x98, 0x50), // full jitter
        QColor(0xfd, 0xae, 0x61), // equal jitter
        QColor(0x76, 0x2a, 0x83), // decorrelated
        QColor(0xe7, 0x29, 0x8a), // proportional
        QColor(0x8c, 0x51, 0x0a), // constant
        QColor(0x35, 0x97, 0x8f), // linear
        QColor(0x3a, 0x3a, 0x3a), // immediate
        QColor(0xb8, 0x86, 0x0b), // hedging
    };
    return palette.value(strategy.index() % palette.size());
}

// Lines that lie on top of each other stay apart by their dashes and markers, not by colour
// alone: one style per strategy of the run, by its place in the run's list.
Qt::PenStyle herdLineStyle(qsizetype position)
{
    static const Qt::PenStyle styles[]
        = {Qt::SolidLine, Qt::DashLine, Qt::DotLine, Qt::DashDotLine, Qt::DashDotDotLine};
    return styles[position % 5];
}

/// The legend's picture of a line of that style ("——", "– –", …).
QString herdLineSample(qsizetype position)
{
    static const char16_t *samples[]
        = {u"\u2014\u2014", u"\u2013 \u2013", u"\u00b7\u00b7\u00b7", u"\u2013\u00b7\u2013", u"\u2013\u00b7\u00b7"};
    return QString::fromUtf16(samples[position % 5]);
}

/// A marker of its own per strategy: circle, square, triangle, diamond, cross.
QImage herdMarker(qsizetype position, const QColor &color)
{
    const int size = 11;
    QImage image(size, size, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::transparent);
    QPainter p(&image);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(QPen(color, 1.5));
    p.setBrush(color);
    const QRectF box(1.5, 1.5, size - 3.0, size - 3.0);
    switch (position % 5) {
    case 0:
        p.drawEllipse(box);
        break;
    case 1:
        p.drawRect(box);
        break;
    case 2:
        p.drawPolygon(QPolygonF{{box.center().x(), box.top()}, box.bottomRight(), box.bottomLeft()});
        break;
    case 3:
        p.drawPolygon(QPolygonF{{box.center().x(), box.top()}, {box.right(), box.center().y()},
            {box.center().x(), box.bottom()}, {box.left(), box.center().y()}});
        break;
    default:
        p.drawLine(box.topLeft(), box.bottomRight());
        p.drawLine(box.topRight(), box.bottomLeft());
        break;
    }
    return image;
}

void clearChart(QChart *chart)
{
    chart->removeAllSeries();
    const auto axes = chart->axes();
    for (QAbstractAxis *axis : axes) {
        chart->removeAxis(axis);
        delete axis;
    }
}

QChartView *makeChartView(const QString &title, const QString &objectName, QWidget *parent)
{
    auto *chart = new QChart;
    chart->setTitle(title);
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->setMargins(QMargins(4, 4, 4, 4));
    auto *view = new QChartView(chart, parent);
    view->setObjectName(objectName);
    view->setRenderHint(QPainter::Antialiasing);
    view->setRubberBand(QChartView::RectangleRubberBand);
    view->setToolTip(HerdCharts::tr("Drag to zoom in, right-click to zoom out."));
    view->setMinimumSize(240, 150);
    return view;
}

// Large counts are drawn in thousands or millions, so that axis labels stay short
// and readable ("8" with "calls (millions)", not "8000000").
struct CountScale
{
    double divisor = 1.0;
    QString unit; ///< empty: as they are

    static CountScale forLargest(double largest)
    {
        if (largest >= 1e6)
            return {1e6, HerdCharts::tr("millions")};
        if (largest >= 1e4)
            return {1e3, HerdCharts::tr("thousands")};
        return {};
    }
    QString title(const QString &what) const
    {
        return unit.isEmpty() ? what : HerdCharts::tr("%1 (%2)").arg(what, unit);
    }
};

// A y axis from 0 (or, logarithmic, from just below the smallest value) to just above the largest.
QAbstractAxis *valueAxis(double lo, double hi, bool logarithmic, const QString &title)
{
    if (logarithmic && lo > 0.0) {
        auto *axis = new QLogValueAxis;
        axis->setBase(10.0);
        axis->setLabelFormat(QStringLiteral("%g"));
        axis->setRange(lo / 1.5, hi * 1.5);
        axis->setMinorTickCount(-1);
        axis->setTitleText(title);
        return axis;
    }
    auto *axis = new QValueAxis;
    axis->setRange(0.0, hi > 0.0 ? hi * 1.05 : 1.0);
    axis->applyNiceNumbers();
    // Whole numbers once the values are large enough; "%g" would switch to 1e+04.
    axis->setLabelFormat(axis->max() >= 10.0 ? QStringLiteral("%.0f") : QStringLiteral("%.1f"));
    axis->setTitleText(title);
    return axis;
}

} // namespace

HerdCharts::HerdCharts(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);

    auto *options = new QHBoxLayout;
    m_logScale = new QCheckBox(tr("Logarithmic scale"), this);
    m_logScale->setObjectName(QStringLiteral("logScaleCheck"));
    options->addWidget(m_logScale);
    options->addStretch(1);
    options->addWidget(new QLabel(tr("Load over time for"), this));
    m_loadClients = new QComboBox(this);
    m_loadClients->setObjectName(QStringLiteral("loadClientsCombo"));
    m_loadClients->setEnabled(false);
    m_loadClients->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    options->addWidget(m_loadClients);
    layout->addLayout(options);

    // What to take away, before any chart is read; then what the run showed, and the key
    // to the lines.
    m_takeAway = new QLabel(this);
    m_takeAway->setObjectName(QStringLiteral("herdTakeAway"));
    m_takeAway->setWordWrap(true);
    m_takeAway->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont bold = m_takeAway->font();
    bold.setBold(true);
    m_takeAway->setFont(bold);
    layout->addWidget(m_takeAway);
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("herdSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_summary);
    m_legend = new QLabel(this);
    m_legend->setObjectName(QStringLiteral("herdLegend"));
    m_legend->setWordWrap(true);
    m_legend->setTextFormat(Qt::RichText);
    layout->addWidget(m_legend);

    auto *top = new QHBoxLayout;
    m_callsView = makeChartView(tr("Calls per run vs clients"), QStringLiteral("callsChartView"), this);
    m_completionView = makeChartView(tr("Completion time vs clients"), QStringLiteral("completionChartView"), this);
    // The names would be elided in these narrow charts; the legend above them, which
    // wraps, names every line instead.
    m_callsView->chart()->legend()->hide();
    m_completionView->chart()->legend()->hide();
    top->addWidget(m_callsView);
    top->addWidget(m_completionView);
    layout->addLayout(top, 1);
    m_loadView = makeChartView(tr("Server load over time"), QStringLiteral("loadChartView"), this);
    layout->addWidget(m_loadView, 1);

    connect(m_logScale, &QCheckBox::toggled, this, &HerdCharts::plotGrid);
    connect(m_loadClients, &QComboBox::currentIndexChanged, this, &HerdCharts::plotLoad);
    applyPalette();
}

void HerdCharts::setReport(HerdReport report)
{
    m_report = std::move(report);
    const int previous = m_loadClients->currentData().toInt();
    {
        const QSignalBlocker block(m_loadClients);
        m_loadClients->clear();
        for (int n : m_report.parameters.clientCounts)
            m_loadClients->addItem(tr("%Ln client(s)", nullptr, n), n);
        const int keep = m_loadClients->findData(previous);
        m_loadClients->setCurrentIndex(keep >= 0 ? keep : m_loadClients->count() - 1);
    }
    m_loadClients->setEnabled(m_loadClients->count() > 0);
    updateLegendAndSummary();
    plotGrid();
    plotLoad();
}

void HerdCharts::updateLegendAndSummary()
{
    m_takeAway->setText(m_report.takeAway());
    m_takeAway->setVisible(!m_takeAway->text().isEmpty());
    m_summary->setText(m_report.summarySentence());
    m_summary->setVisible(!m_summary->text().isEmpty());
    QStringList entries;
    const QList<HerdStrategy> &strategies = m_report.parameters.strategies;
    for (qsizetype position = 0; position < strategies.size(); ++position) {
        const HerdStrategy &strategy = strategies.at(position);
        entries.append(QStringLiteral("<span style=\"color:%1\"><b>%2</b></span>&nbsp;%3")
                           .arg(strategyColor(strategy, palette()).name(), herdLineSample(position),
                               strategy.title().toHtmlEscaped()));
    }
    m_legend->setText(entries.join(QStringLiteral(" &nbsp; ")));
    m_legend->setVisible(!entries.isEmpty());
}

QColor HerdCharts::strategyColor(const HerdStrategy &strategy, const QPalette &pal)
{
    return readableOn(baseStrategyColor(strategy), pal.color(QPalette::Base));
}

void HerdCharts::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    // A new palette, or a larger font (presentation mode): the charts' text follows.
    if ((event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange) && m_loadView) {
        applyPalette();
        updateLegendAndSummary();
        plotGrid();
        plotLoad();
    }
}

// Charts keep their own colours unless told: give them the palette's, so that a
// dark desktop gets dark charts with readable text and lines.
void HerdCharts::applyPalette()
{
    const QPalette pal = palette();
    const bool dark = isDarkPalette(pal);
    const QColor text = pal.color(QPalette::WindowText);
    for (QChartView *view : {m_callsView, m_completionView, m_loadView}) {
        QChart *chart = view->chart();
        chart->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
        chart->setBackgroundBrush(pal.color(QPalette::Base));
        chart->setBackgroundPen(QPen(pal.color(QPalette::Mid)));
        chart->setTitleBrush(text);
        chart->legend()->setLabelColor(text);
        // The theme sets fonts of its own; the charts take the tab's, larger in presentation mode.
        QFont title = font();
        title.setBold(true);
        chart->setTitleFont(title);
        chart->legend()->setFont(font());
        view->setBackgroundBrush(pal.color(QPalette::Window));
    }
}

void HerdCharts::styleAxes(QChart *chart) const
{
    const QPalette pal = palette();
    const QColor text = pal.color(QPalette::WindowText);
    QColor grid = pal.color(QPalette::Mid);
    grid.setAlpha(110);
    for (QAbstractAxis *axis : chart->axes()) {
        axis->setLabelsBrush(text);
        axis->setTitleBrush(text);
        axis->setLabelsFont(font());
        axis->setTitleFont(font());
        axis->setGridLineColor(grid);
        axis->setLinePenColor(pal.color(QPalette::Mid));
    }
}

void HerdCharts::plotGrid()
{
    const HerdParameters &p = m_report.parameters;
    const bool logarithmic = m_logScale->isChecked();
    struct Plot
    {
        QChartView *view;
        QString yTitle;
        double (*value)(const HerdCellResult &);
        bool counts; ///< drawn in thousands or millions when large
    };
    // Slow answers: the tail each strategy left is what matters, not when the last client was done.
    const bool latency = p.model == HerdModel::Latency;
    m_completionView->chart()->setTitle(
        latency ? tr("Time to an answer, 99th percentile, vs clients") : tr("Completion time vs clients"));
    const Plot plots[] = {
        {m_callsView, tr("calls"), [](const HerdCellResult &c) { return c.calls.mean; }, true},
        {m_completionView, tr("seconds"),
            latency ? [](const HerdCellResult &c) { return c.latencyP99Ms.mean / 1000.0; }
                    : [](const HerdCellResult &c) { return c.completionMs.mean / 1000.0; },
            false},
    };
    const CountScale clientScale
        = CountScale::forLargest(p.clientCounts.isEmpty() ? 0.0 : static_cast<double>(p.clientCounts.last()));
    for (const Plot &plot : plots) {
        QChart *chart = plot.view->chart();
        clearChart(chart);
        if (m_report.cells.isEmpty())
            continue;
        // Calls are counted in thousands or millions when they are that many; seconds are seconds.
        CountScale valueScale;
        if (plot.counts) {
            double largest = 0.0;
            for (const HerdCellResult &cell : m_report.cells)
                largest = std::max(largest, plot.value(cell));
            valueScale = CountScale::forLargest(largest);
        }
        double lo = std::numeric_limits<double>::infinity();
        double hi = 0.0;
        QList<QLineSeries *> lines;
        for (qsizetype position = 0; position < p.strategies.size(); ++position) {
            const HerdStrategy &s = p.strategies.at(position);
            auto *series = new QLineSeries;
            series->setName(s.title());
            QPen pen(strategyColor(s, palette()));
            pen.setWidthF(2.0);
            pen.setStyle(herdLineStyle(position));
            series->setPen(pen);
            series->setPointsVisible(p.clientCounts.size() < 40);
            series->setLightMarker(herdMarker(position, pen.color()));
            series->setMarkerSize(11);
            QList<QPointF> points;
            for (int n : p.clientCounts) {
                if (const HerdCellResult *cell = m_report.find(n, s)) {
                    const double v = plot.value(*cell) / valueScale.divisor;
                    points.append(QPointF(n / clientScale.divisor, v));
                    hi = std::max(hi, v);
                    if (v > 0.0)
                        lo = std::min(lo, v);
                }
            }
            series->replace(points);
            chart->addSeries(series);
            lines.append(series);
        }
        auto *x = new QValueAxis;
        x->setTitleText(clientScale.title(tr("clients")));
        const double first = p.clientCounts.first() / clientScale.divisor;
        const double last = p.clientCounts.last() / clientScale.divisor;
        if (p.clientCounts.size() == 1)
            x->setRange(0.0, last * 1.25); // one count: its points in from the edge, not on it
        else
            x->setRange(first, std::max(last, first + 1.0 / clientScale.divisor));
        x->applyNiceNumbers();
        const bool wholeTicks = clientScale.divisor == 1.0 || x->max() - x->min() >= 10.0;
        x->setLabelFormat(wholeTicks ? QStringLiteral("%.0f") : QStringLiteral("%.2g"));
        QAbstractAxis *y = valueAxis(std::isfinite(lo) ? lo : 0.0, hi, logarithmic, valueScale.title(plot.yTitle));
        chart->addAxis(x, Qt::AlignBottom);
        chart->addAxis(y, Qt::AlignLeft);
        styleAxes(chart);
        for (QLineSeries *series : lines) {
            series->attachAxis(x);
            series->attachAxis(y);
        }
    }
}

void HerdCharts::plotLoad()
{
    QChart *chart = m_loadView->chart();
    clearChart(chart);
    const int clients = m_loadClients->currentData().toInt();
    const HerdParameters &p = m_report.parameters;
    if (m_report.cells.isEmpty() || clients <= 0) {
        chart->setTitle(tr("Server load over time"));
        return;
    }
    chart->setTitle(tr("Server load over time, %Ln client(s) (mean of %1 runs)", nullptr, clients).arg(p.runs));

    // A long run has hundreds of thousands of bins; the chart gets a bounded curve
    // per strategy that keeps every group's low and peak.
    double hi = 0.0;
    double end = 0.0;
    QList<QPair<HerdStrategy, QList<QPointF>>> curves;
    for (const HerdStrategy &s : p.strategies) {
        const HerdCellResult *cell = m_report.find(clients, s);
        if (!cell)
            continue;
        curves.append(qMakePair(s, cell->loadCurve(maxLoadPoints)));
        for (const QPointF &point : std::as_const(curves.last().second))
            hi = std::max(hi, point.y());
        end = std::max(end, static_cast<double>(cell->meanLoadPerBin.size()) * cell->binMs / 1000.0);
    }
    const CountScale scale = CountScale::forLargest(hi);
    hi /= scale.divisor;
    QList<QLineSeries *> lines;
    for (auto &[strategy, points] : curves) {
        auto *series = new QLineSeries;
        series->setName(strategy.title());
        QPen pen(strategyColor(strategy, palette()));
        pen.setWidthF(1.5);
        pen.setStyle(herdLineStyle(p.strategies.indexOf(strategy)));
        series->setPen(pen);
        if (scale.divisor != 1.0) {
            for (QPointF &point : points)
                point.setY(point.y() / scale.divisor);
        }
        series->replace(points);
        lines.append(series);
    }

    QAbstractSeries *outage = nullptr;
    const bool dark = isDarkPalette(palette());
    if (p.model == HerdModel::Outage && hi > 0.0) {
        // The outage as a shaded band behind the curves.
        // An area series does not own its boundary line, so the band parents it.
        auto *band = new QAreaSeries;
        auto *upper = new QLineSeries(band);
        upper->append(p.outageStartMs / 1000.0, hi * 1.05);
        upper->append(p.outageEndMs / 1000.0, hi * 1.05);
        band->setUpperSeries(upper);
        band->setName(tr("outage"));
        QColor outageColor = readableOn(QColor(220, 50, 47), palette().color(QPalette::Base));
        outageColor.setAlpha(dark ? 70 : 40);
        band->setColor(outageColor);
        outageColor.setAlpha(dark ? 150 : 90);
        band->setBorderColor(outageColor);
        chart->addSeries(band);
        outage = band;
        end = std::max(end, p.outageEndMs / 1000.0);
    }
    for (QLineSeries *series : lines)
        chart->addSeries(series);

    // The axis ends where the data ends; ticks fall on round values from 0. 1-2-5,
    // because the labels below have no room for the second decimal of 2.5.
    auto *x = new QValueAxis;
    x->setTitleText(tr("virtual time (s)"));
    const double span = end > 0.0 ? end : 1.0;
    const double step = TimeAxis::niceStep(span / 8.0, TimeAxis::StepSeries::OneTwoFive);
    x->setRange(0.0, span);
    x->setTickType(QValueAxis::TicksDynamic);
    x->setTickAnchor(0.0);
    x->setTickInterval(step);
    x->setLabelFormat(step >= 1.0 ? QStringLiteral("%.0f") : QStringLiteral("%.2g"));
    QAbstractAxis *y = valueAxis(0.0, hi, false, scale.title(tr("calls/s")));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    styleAxes(chart);
    if (outage) {
        outage->attachAxis(x);
        outage->attachAxis(y);
    }
    for (QLineSeries *series : lines) {
        series->attachAxis(x);
        series->attachAxis(y);
    }
}

} // namespace RetryLab::Ui
