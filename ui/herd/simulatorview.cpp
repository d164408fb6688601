#include "ui/herd/simulatorview.h"

#include "core/herd/herdsimulator.h"
#include "ui/widgets/outcomestyle.h"

#include <QAreaSeries>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QListWidget>
#include <QLocale>
#include <QLoggingCategory>
#include <QLogValueAxis>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpressionValidator>
#include <QScrollArea>
#include <QSpinBox>
#include <QThread>
#include <QTimer>
#include <QValueAxis>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace RetryLab::Ui {

Q_LOGGING_CATEGORY(lcSimulatorView, "retrylab.ui.simulatorview", QtInfoMsg)

using namespace RetryLab::Core;

struct SimulatorView::Job
{
    HerdParameters parameters;
    HerdControl control;
    std::optional<Result<HerdReport>> result;
    double seconds = 0.0;
};

namespace {

// One colour per strategy, by HerdStrategy::index(), so a strategy keeps its
// colour in every chart and in the list. SimulatorView::strategyColor() adjusts
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
    };
    return palette.value(strategy.index() % palette.size());
}

QDoubleSpinBox *doubleSpin(double min, double max, int decimals, const QString &suffix, QWidget *parent)
{
    auto *spin = new QDoubleSpinBox(parent);
    spin->setRange(min, max);
    spin->setDecimals(decimals);
    spin->setSuffix(suffix);
    spin->setKeyboardTracking(false);
    spin->setAccelerated(true);
    return spin;
}

QSpinBox *intSpin(int min, int max, QWidget *parent)
{
    auto *spin = new QSpinBox(parent);
    spin->setRange(min, max);
    spin->setKeyboardTracking(false);
    spin->setAccelerated(true);
    return spin;
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
    view->setToolTip(SimulatorView::tr("Drag to zoom in, right-click to zoom out."));
    view->setMinimumSize(320, 240);
    return view;
}

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

// 1, 2 or 5 times a power of ten, so that `span` gets about `ticks` intervals.
double niceStep(double span, int ticks)
{
    if (!(span > 0.0))
        return 1.0;
    const double raw = span / ticks;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    const double fraction = raw / magnitude;
    const double nice = fraction <= 1.0 ? 1.0 : fraction <= 2.0 ? 2.0 : fraction <= 5.0 ? 5.0 : 10.0;
    return nice * magnitude;
}

} // namespace

SimulatorView::SimulatorView(QWidget *parent) : QWidget(parent)
{
    m_progressTimer = new QTimer(this);
    m_progressTimer->setInterval(33); // ~30 Hz: smooth enough, and no flood of repaints
    connect(m_progressTimer, &QTimer::timeout, this, &SimulatorView::handleProgressTick);

    auto *layout = new QHBoxLayout(this);
    layout->addWidget(buildForm());
    layout->addWidget(buildCharts(), 1);

    setParameters(HerdParameters::defaultsFor(HerdModel::OptimisticConcurrency));
    m_info = tr("Choose a model and press Run.");
    validateForm();
    applyPalette();
}

SimulatorView::~SimulatorView()
{
    if (m_thread) {
        m_job->control.cancel();
        m_thread->wait();
        delete m_thread;
    }
}

QWidget *SimulatorView::buildForm()
{
    auto *column = new QWidget(this);
    auto *columnLayout = new QVBoxLayout(column);
    columnLayout->setContentsMargins(0, 0, 0, 0);

    auto *scroll = new QScrollArea(column);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setFrameShape(QFrame::NoFrame);
    auto *form = new QWidget(scroll);
    auto *formLayout = new QVBoxLayout(form);
    formLayout->setContentsMargins(0, 0, 6, 0);

    // Model and grid
    auto *gridGroup = new QGroupBox(tr("Model"), form);
    auto *grid = new QFormLayout(gridGroup);
    m_model = new QComboBox(gridGroup);
    m_model->setObjectName(QStringLiteral("modelCombo"));
    for (HerdModel model : allHerdModels())
        m_model->addItem(herdModelTitle(model), herdModelName(model));
    m_clients = new QLineEdit(gridGroup);
    m_clients->setObjectName(QStringLiteral("clientsEdit"));
    m_clients->setToolTip(tr("first:last:step (10:190:10), one number, or a list (10,50,100)"));
    m_runs = intSpin(1, HerdLimits::maxRuns, gridGroup);
    m_runs->setObjectName(QStringLiteral("runsSpin"));
    m_seed = new QLineEdit(gridGroup);
    m_seed->setObjectName(QStringLiteral("seedEdit"));
    m_seed->setValidator(new QRegularExpressionValidator(QRegularExpression(QStringLiteral("[0-9]{1,20}")), m_seed));
    grid->addRow(tr("Model"), m_model);
    grid->addRow(tr("Clients"), m_clients);
    grid->addRow(tr("Runs per cell"), m_runs);
    grid->addRow(tr("Seed"), m_seed);
    formLayout->addWidget(gridGroup);

    // Strategies
    auto *strategyGroup = new QGroupBox(tr("Strategies"), form);
    auto *strategyLayout = new QVBoxLayout(strategyGroup);
    m_strategies = new QListWidget(strategyGroup);
    m_strategies->setObjectName(QStringLiteral("strategyList"));
    for (const HerdStrategy &s : HerdStrategy::all()) {
        auto *item = new QListWidgetItem(s.title(), m_strategies);
        item->setData(Qt::UserRole, s.name());
        item->setData(Qt::DecorationRole, baseStrategyColor(s)); // applyPalette() adjusts it
        item->setToolTip(s.algorithm ? algorithmFormula(*s.algorithm) : tr("retry as soon as the answer arrives"));
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
        item->setCheckState(Qt::Unchecked);
    }
    m_strategies->setMinimumHeight(m_strategies->sizeHintForRow(0) * 6 + 4);
    strategyLayout->addWidget(m_strategies);
    formLayout->addWidget(strategyGroup);

    // Backoff
    auto *backoffGroup = new QGroupBox(tr("Backoff (shared by all strategies)"), form);
    auto *backoff = new QFormLayout(backoffGroup);
    const QString ms = tr(" ms");
    m_base = doubleSpin(0.0, PolicyLimits::maxDelayMs, 1, ms, backoffGroup);
    m_cap = doubleSpin(0.0, PolicyLimits::maxDelayMs, 1, ms, backoffGroup);
    m_multiplier = doubleSpin(1.0, PolicyLimits::maxMultiplier, 2, QString(), backoffGroup);
    m_multiplier->setSingleStep(0.1);
    m_jitter = doubleSpin(0.0, PolicyLimits::maxDelayMs, 1, ms, backoffGroup);
    m_jitter->setToolTip(tr("Random part added by the Google and IAM algorithms: U[0, jitter]"));
    m_maxAttempts = intSpin(0, PolicyLimits::maxAttempts, backoffGroup);
    m_maxAttempts->setSpecialValueText(tr("no limit"));
    m_deadline = doubleSpin(0.0, PolicyLimits::maxDeadlineMs, 0, ms, backoffGroup);
    m_deadline->setSpecialValueText(tr("none"));
    backoff->addRow(tr("Base"), m_base);
    backoff->addRow(tr("Cap"), m_cap);
    backoff->addRow(tr("Multiplier"), m_multiplier);
    backoff->addRow(tr("Additive jitter"), m_jitter);
    backoff->addRow(tr("Attempts"), m_maxAttempts);
    backoff->addRow(tr("Deadline"), m_deadline);
    formLayout->addWidget(backoffGroup);

    // Network and arrivals
    auto *networkGroup = new QGroupBox(tr("Network and arrivals"), form);
    auto *network = new QFormLayout(networkGroup);
    m_networkMean = doubleSpin(0.0, HerdLimits::maxNetworkDelayMs, 2, ms, networkGroup);
    m_networkSd = doubleSpin(0.0, HerdLimits::maxNetworkDelayMs, 2, ms, networkGroup);
    m_arrivals = new QComboBox(networkGroup);
    m_arrivals->setObjectName(QStringLiteral("arrivalsCombo"));
    m_arrivals->addItem(tr("All at once (herd)"), arrivalModeName(ArrivalMode::Herd));
    m_arrivals->addItem(tr("Poisson stream"), arrivalModeName(ArrivalMode::Poisson));
    m_arrivalRate = doubleSpin(0.01, HerdLimits::maxServiceRatePerSec, 2, tr(" /s"), networkGroup);
    network->addRow(tr("Delay mean"), m_networkMean);
    network->addRow(tr("Delay std. dev."), m_networkSd);
    network->addRow(tr("Arrivals"), m_arrivals);
    network->addRow(tr("Arrival rate"), m_arrivalRate);
    formLayout->addWidget(networkGroup);

    // Server
    m_serverGroup = new QGroupBox(tr("Server"), form);
    auto *server = new QFormLayout(m_serverGroup);
    m_serviceRate = doubleSpin(0.01, HerdLimits::maxServiceRatePerSec, 2, tr(" /s"), m_serverGroup);
    m_queue = intSpin(0, HerdLimits::maxQueueCapacity, m_serverGroup);
    m_status = new QComboBox(m_serverGroup);
    m_status->addItem(tr("503 Service Unavailable"), 503);
    m_status->addItem(tr("429 Too Many Requests"), 429);
    m_retryAfter = intSpin(-1, HerdLimits::maxRetryAfterS, m_serverGroup);
    m_retryAfter->setSpecialValueText(tr("not sent"));
    m_retryAfter->setSuffix(tr(" s"));
    m_honourRetryAfter = new QCheckBox(tr("Clients honour Retry-After"), m_serverGroup);
    server->addRow(tr("Service rate"), m_serviceRate);
    server->addRow(tr("Queue"), m_queue);
    server->addRow(tr("Overload answer"), m_status);
    server->addRow(tr("Retry-After"), m_retryAfter);
    server->addRow(m_honourRetryAfter);
    formLayout->addWidget(m_serverGroup);

    // Outage
    m_outageGroup = new QGroupBox(tr("Outage"), form);
    auto *outage = new QFormLayout(m_outageGroup);
    m_outageStart = doubleSpin(0.0, HerdLimits::maxHorizonMs, 0, ms, m_outageGroup);
    m_outageEnd = doubleSpin(0.0, HerdLimits::maxHorizonMs, 0, ms, m_outageGroup);
    outage->addRow(tr("Down from"), m_outageStart);
    outage->addRow(tr("Up again at"), m_outageEnd);
    formLayout->addWidget(m_outageGroup);

    auto *outputGroup = new QGroupBox(tr("Load chart"), form);
    auto *output = new QFormLayout(outputGroup);
    m_bin = doubleSpin(1.0, 3'600'000.0, 0, ms, outputGroup);
    output->addRow(tr("Bin width"), m_bin);
    formLayout->addWidget(outputGroup);
    formLayout->addStretch(1);

    scroll->setWidget(form);
    columnLayout->addWidget(scroll, 1);

    // Run controls stay visible below the scrolling form.
    auto *buttons = new QHBoxLayout;
    m_runButton = new QPushButton(tr("Run"), column);
    m_runButton->setObjectName(QStringLiteral("runButton"));
    m_runButton->setDefault(true);
    m_cancelButton = new QPushButton(tr("Cancel"), column);
    m_cancelButton->setObjectName(QStringLiteral("cancelButton"));
    m_cancelButton->setEnabled(false);
    buttons->addWidget(m_runButton);
    buttons->addWidget(m_cancelButton);
    columnLayout->addLayout(buttons);
    m_progress = new QProgressBar(column);
    m_progress->setObjectName(QStringLiteral("progressBar"));
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    columnLayout->addWidget(m_progress);
    m_statusLabel = new QLabel(column);
    m_statusLabel->setObjectName(QStringLiteral("statusLabel"));
    m_statusLabel->setWordWrap(true);
    m_statusLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_statusLabel->setMinimumHeight(m_statusLabel->fontMetrics().lineSpacing() * 3);
    m_statusLabel->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    columnLayout->addWidget(m_statusLabel);

    column->setMinimumWidth(330);
    column->setMaximumWidth(400);

    connect(m_runButton, &QPushButton::clicked, this, &SimulatorView::start);
    connect(m_cancelButton, &QPushButton::clicked, this, &SimulatorView::cancel);
    connect(m_model, &QComboBox::currentIndexChanged, this, &SimulatorView::handleModelChanged);
    connect(m_arrivals, &QComboBox::currentIndexChanged, this, &SimulatorView::updateEnabledFields);
    connect(m_clients, &QLineEdit::textChanged, this, &SimulatorView::validateForm);
    connect(m_seed, &QLineEdit::textChanged, this, &SimulatorView::validateForm);
    connect(m_strategies, &QListWidget::itemChanged, this, &SimulatorView::validateForm);
    connect(m_status, &QComboBox::currentIndexChanged, this, &SimulatorView::validateForm);
    connect(m_honourRetryAfter, &QCheckBox::toggled, this, &SimulatorView::validateForm);
    for (QSpinBox *spin : {m_runs, m_maxAttempts, m_queue, m_retryAfter})
        connect(spin, &QSpinBox::valueChanged, this, &SimulatorView::validateForm);
    for (QDoubleSpinBox *spin : {m_base, m_cap, m_multiplier, m_jitter, m_deadline, m_networkMean, m_networkSd,
             m_arrivalRate, m_serviceRate, m_outageStart, m_outageEnd, m_bin})
        connect(spin, &QDoubleSpinBox::valueChanged, this, &SimulatorView::validateForm);
    return column;
}

QWidget *SimulatorView::buildCharts()
{
    auto *panel = new QWidget(this);
    auto *layout = new QVBoxLayout(panel);
    layout->setContentsMargins(0, 0, 0, 0);

    auto *options = new QHBoxLayout;
    m_logScale = new QCheckBox(tr("Logarithmic scale"), panel);
    m_logScale->setObjectName(QStringLiteral("logScaleCheck"));
    options->addWidget(m_logScale);
    options->addStretch(1);
    options->addWidget(new QLabel(tr("Load over time for"), panel));
    m_loadClients = new QComboBox(panel);
    m_loadClients->setObjectName(QStringLiteral("loadClientsCombo"));
    m_loadClients->setEnabled(false);
    m_loadClients->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    options->addWidget(m_loadClients);
    layout->addLayout(options);

    auto *top = new QHBoxLayout;
    m_callsView = makeChartView(tr("Calls vs clients"), QStringLiteral("callsChartView"), panel);
    m_completionView = makeChartView(tr("Completion time vs clients"), QStringLiteral("completionChartView"), panel);
    // The names would be elided in these narrow charts; the load chart's legend and
    // the coloured strategy list name every line instead.
    m_callsView->chart()->legend()->hide();
    m_completionView->chart()->legend()->hide();
    top->addWidget(m_callsView);
    top->addWidget(m_completionView);
    layout->addLayout(top, 1);
    m_loadView = makeChartView(tr("Server load over time"), QStringLiteral("loadChartView"), panel);
    layout->addWidget(m_loadView, 1);

    connect(m_logScale, &QCheckBox::toggled, this, &SimulatorView::plotGrid);
    connect(m_loadClients, &QComboBox::currentIndexChanged, this, &SimulatorView::handleLoadClientsChanged);
    return panel;
}

Result<HerdParameters> SimulatorView::parameters() const
{
    HerdParameters p;
    QStringList problems;

    p.model = herdModelFromName(m_model->currentData().toString()).value_or(HerdModel::OptimisticConcurrency);
    const auto counts = parseClientCounts(m_clients->text());
    if (counts)
        p.clientCounts = *counts;
    else
        problems.append(counts.error());
    p.runs = m_runs->value();
    bool seedOk = false;
    p.seed = m_seed->text().toULongLong(&seedOk);
    if (!seedOk)
        problems.append(tr("seed: \"%1\" is not a whole number from 0 to 2^64 - 1.").arg(m_seed->text()));

    p.strategies.clear();
    for (int row = 0; row < m_strategies->count(); ++row) {
        const QListWidgetItem *item = m_strategies->item(row);
        if (item->checkState() == Qt::Checked) {
            if (const auto s = HerdStrategy::fromName(item->data(Qt::UserRole).toString()))
                p.strategies.append(*s);
        }
    }

    p.baseDelayMs = m_base->value();
    p.maxBackoffMs = m_cap->value();
    p.multiplier = m_multiplier->value();
    p.jitterMs = m_jitter->value();
    p.maxAttempts = m_maxAttempts->value();
    p.deadlineMs = m_deadline->value();
    p.networkMeanMs = m_networkMean->value();
    p.networkSdMs = m_networkSd->value();
    p.arrivals = arrivalModeFromName(m_arrivals->currentData().toString()).value_or(ArrivalMode::Herd);
    p.arrivalRatePerSec = m_arrivalRate->value();
    p.serviceRatePerSec = m_serviceRate->value();
    p.queueCapacity = m_queue->value();
    p.overloadStatus = m_status->currentData().toInt();
    if (m_retryAfter->value() >= 0)
        p.retryAfterS = m_retryAfter->value();
    p.honourRetryAfter = m_honourRetryAfter->isChecked();
    p.outageStartMs = m_outageStart->value();
    p.outageEndMs = m_outageEnd->value();
    p.binMs = m_bin->value();

    for (const QString &problem : p.validate()) {
        // An unreadable client list is already reported in the user's own words.
        if (!counts && problem.startsWith(QLatin1String("clients:")))
            continue;
        problems.append(problem);
    }
    if (!problems.isEmpty())
        return Result<HerdParameters>::failure(problems.join(QLatin1Char('\n')));
    return p;
}

void SimulatorView::setParameters(const HerdParameters &p)
{
    const QSignalBlocker blockModel(m_model);
    m_model->setCurrentIndex(m_model->findData(herdModelName(p.model)));
    m_clients->setText(formatClientCounts(p.clientCounts));
    m_runs->setValue(p.runs);
    m_seed->setText(QString::number(p.seed));
    {
        const QSignalBlocker blockList(m_strategies);
        for (int row = 0; row < m_strategies->count(); ++row) {
            QListWidgetItem *item = m_strategies->item(row);
            const auto s = HerdStrategy::fromName(item->data(Qt::UserRole).toString());
            item->setCheckState(s && p.strategies.contains(*s) ? Qt::Checked : Qt::Unchecked);
        }
    }
    m_base->setValue(p.baseDelayMs);
    m_cap->setValue(p.maxBackoffMs);
    m_multiplier->setValue(p.multiplier);
    m_jitter->setValue(p.jitterMs);
    m_maxAttempts->setValue(p.maxAttempts);
    m_deadline->setValue(p.deadlineMs);
    m_networkMean->setValue(p.networkMeanMs);
    m_networkSd->setValue(p.networkSdMs);
    m_arrivals->setCurrentIndex(m_arrivals->findData(arrivalModeName(p.arrivals)));
    m_arrivalRate->setValue(p.arrivalRatePerSec);
    m_serviceRate->setValue(p.serviceRatePerSec);
    m_queue->setValue(p.queueCapacity);
    m_status->setCurrentIndex(std::max(0, m_status->findData(p.overloadStatus)));
    m_retryAfter->setValue(p.retryAfterS.value_or(-1));
    m_honourRetryAfter->setChecked(p.honourRetryAfter);
    m_outageStart->setValue(p.outageStartMs);
    m_outageEnd->setValue(p.outageEndMs);
    m_bin->setValue(p.binMs);
    updateEnabledFields();
    validateForm();
}

bool SimulatorView::isRunning() const
{
    return m_thread != nullptr;
}

void SimulatorView::handleModelChanged()
{
    // A new model brings its own sensible numbers; the grid and the choice of
    // strategies are the user's and stay.
    const QString clients = m_clients->text();
    const int runs = m_runs->value();
    const QString seed = m_seed->text();
    QList<Qt::CheckState> checks;
    for (int row = 0; row < m_strategies->count(); ++row)
        checks.append(m_strategies->item(row)->checkState());

    const auto model = herdModelFromName(m_model->currentData().toString()).value_or(HerdModel::OptimisticConcurrency);
    setParameters(HerdParameters::defaultsFor(model));

    m_clients->setText(clients);
    m_runs->setValue(runs);
    m_seed->setText(seed);
    const QSignalBlocker blockList(m_strategies);
    for (int row = 0; row < m_strategies->count(); ++row)
        m_strategies->item(row)->setCheckState(checks.value(row));
    validateForm();
}

void SimulatorView::updateEnabledFields()
{
    const auto model = herdModelFromName(m_model->currentData().toString()).value_or(HerdModel::OptimisticConcurrency);
    const bool running = isRunning();
    m_serverGroup->setEnabled(!running && model != HerdModel::OptimisticConcurrency);
    m_outageGroup->setEnabled(!running && model == HerdModel::Outage);
    m_arrivalRate->setEnabled(m_arrivals->currentData().toString() == arrivalModeName(ArrivalMode::Poisson));
    validateForm();
}

void SimulatorView::validateForm()
{
    if (!m_runButton || isRunning())
        return;
    const auto p = parameters();
    m_runButton->setEnabled(p.ok());
    if (!p)
        showError(p.error());
    else
        showStatus(m_info);
    Q_EMIT parametersEdited();
}

QColor SimulatorView::strategyColor(const HerdStrategy &strategy) const
{
    return readableOn(baseStrategyColor(strategy), palette().color(QPalette::Base));
}

QColor SimulatorView::errorColor() const
{
    // The status line sits on the window colour; it must also hold on the base colour.
    const QColor onWindow = readableOn(QColor(0xb0, 0x00, 0x20), palette().color(QPalette::Window));
    return readableOn(onWindow, palette().color(QPalette::Base));
}

void SimulatorView::showError(const QString &message)
{
    m_showingError = true;
    QPalette pal = palette();
    pal.setColor(QPalette::WindowText, errorColor());
    m_statusLabel->setPalette(pal);
    m_statusLabel->setText(message);
}

void SimulatorView::showStatus(const QString &message)
{
    m_showingError = false;
    m_statusLabel->setPalette(palette());
    m_statusLabel->setText(message);
}

void SimulatorView::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange && m_statusLabel) {
        applyPalette();
        plotGrid();
        plotLoad();
    }
}

// Charts keep their own colours unless told: give them the palette's, so that a
// dark desktop gets dark charts with readable text and lines.
void SimulatorView::applyPalette()
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
        view->setBackgroundBrush(pal.color(QPalette::Window));
    }
    for (int row = 0; row < m_strategies->count(); ++row) {
        QListWidgetItem *item = m_strategies->item(row);
        if (const auto s = HerdStrategy::fromName(item->data(Qt::UserRole).toString()))
            item->setData(Qt::DecorationRole, strategyColor(*s));
    }
    m_statusLabel->setPalette(pal);
    if (m_showingError) {
        QPalette error = pal;
        error.setColor(QPalette::WindowText, errorColor());
        m_statusLabel->setPalette(error);
    }
}

void SimulatorView::styleAxes(QChart *chart) const
{
    const QPalette pal = palette();
    const QColor text = pal.color(QPalette::WindowText);
    QColor grid = pal.color(QPalette::Mid);
    grid.setAlpha(110);
    for (QAbstractAxis *axis : chart->axes()) {
        axis->setLabelsBrush(text);
        axis->setTitleBrush(text);
        axis->setGridLineColor(grid);
        axis->setLinePenColor(pal.color(QPalette::Mid));
    }
}

void SimulatorView::setRunning(bool running)
{
    m_cancelButton->setEnabled(running);
    m_runButton->setEnabled(!running);
    for (QWidget *w : {static_cast<QWidget *>(m_model), static_cast<QWidget *>(m_clients),
             static_cast<QWidget *>(m_runs), static_cast<QWidget *>(m_seed), static_cast<QWidget *>(m_strategies)})
        w->setEnabled(!running);
    for (QGroupBox *group : findChildren<QGroupBox *>()) {
        if (group != m_serverGroup && group != m_outageGroup)
            group->setEnabled(!running);
    }
    updateEnabledFields();
}

void SimulatorView::start()
{
    if (isRunning()) {
        Q_EMIT failed(tr("A simulation is already running."));
        return;
    }
    const auto p = parameters();
    if (!p) {
        showError(p.error());
        Q_EMIT failed(p.error());
        return;
    }

    m_job = std::make_shared<Job>();
    m_job->parameters = *p;
    const qint64 total = static_cast<qint64>(p->clientCounts.size()) * p->strategies.size() * p->runs;
    m_progress->setRange(0, static_cast<int>(std::min<qint64>(total, std::numeric_limits<int>::max())));
    m_progress->setValue(0);

    const std::shared_ptr<Job> job = m_job;
    m_thread = QThread::create([job] {
        QElapsedTimer timer;
        timer.start();
        job->result = HerdSimulator::run(job->parameters, &job->control);
        job->seconds = static_cast<double>(timer.nsecsElapsed()) / 1e9;
    });
    m_thread->setObjectName(QStringLiteral("herd simulator"));
    connect(m_thread, &QThread::finished, this, &SimulatorView::handleWorkerFinished);
    setRunning(true);
    showStatus(tr("Simulating %L1 runs...").arg(total));
    m_progressTimer->start();
    m_thread->start(QThread::LowPriority);
    qCDebug(lcSimulatorView) << "started" << total << "runs";
    Q_EMIT started();
}

void SimulatorView::cancel()
{
    if (!isRunning())
        return;
    m_job->control.cancel();
    m_cancelButton->setEnabled(false);
    showStatus(tr("Cancelling..."));
}

void SimulatorView::handleProgressTick()
{
    if (m_job)
        m_progress->setValue(static_cast<int>(std::min<qint64>(m_job->control.runsDone(), m_progress->maximum())));
}

void SimulatorView::handleWorkerFinished()
{
    m_progressTimer->stop();
    const std::shared_ptr<Job> job = std::move(m_job);
    m_thread->deleteLater();
    m_thread = nullptr;
    setRunning(false);
    handleProgressTick();
    if (!job)
        return;

    if (job->result && job->result->ok()) {
        m_report = std::move(*job->result).value();
        m_progress->setValue(m_progress->maximum());
        m_info = tr("%L1 runs, %L2 simulated events, in %3 s.")
                     .arg(static_cast<qint64>(m_report.cells.size()) * m_report.parameters.runs)
                     .arg(m_report.events)
                     .arg(job->seconds, 0, 'f', 2);
        showStatus(m_info);

        const int previous = m_loadClients->currentData().toInt();
        {
            const QSignalBlocker block(m_loadClients);
            m_loadClients->clear();
            for (int n : m_report.parameters.clientCounts)
                m_loadClients->addItem(tr("%n client(s)", nullptr, n), n);
            const int keep = m_loadClients->findData(previous);
            m_loadClients->setCurrentIndex(keep >= 0 ? keep : m_loadClients->count() - 1);
        }
        m_loadClients->setEnabled(m_loadClients->count() > 0);
        plotGrid();
        plotLoad();
        Q_EMIT finished();
        return;
    }
    if (job->control.isCancelled()) {
        m_info = tr("Cancelled after %L1 of %L2 runs; the charts still show the previous results.")
                     .arg(job->control.runsDone())
                     .arg(job->control.runsTotal());
        showStatus(m_info);
        Q_EMIT cancelled();
        return;
    }
    const QString message = job->result ? job->result->error() : tr("The simulation stopped without a result.");
    showError(message);
    Q_EMIT failed(message);
}

void SimulatorView::handleLoadClientsChanged()
{
    plotLoad();
}

void SimulatorView::plotGrid()
{
    const HerdParameters &p = m_report.parameters;
    const bool logarithmic = m_logScale->isChecked();
    struct Plot
    {
        QChartView *view;
        QString yTitle;
        double (*value)(const HerdCellResult &);
    };
    const Plot plots[] = {
        {m_callsView, tr("calls (mean per run)"), [](const HerdCellResult &c) { return c.calls.mean; }},
        {m_completionView, tr("completion time (s)"),
            [](const HerdCellResult &c) { return c.completionMs.mean / 1000.0; }},
    };
    for (const Plot &plot : plots) {
        QChart *chart = plot.view->chart();
        clearChart(chart);
        if (m_report.cells.isEmpty())
            continue;
        double lo = std::numeric_limits<double>::infinity();
        double hi = 0.0;
        QList<QLineSeries *> lines;
        for (const HerdStrategy &s : p.strategies) {
            auto *series = new QLineSeries;
            series->setName(s.title());
            QPen pen(strategyColor(s));
            pen.setWidthF(2.0);
            series->setPen(pen);
            series->setPointsVisible(p.clientCounts.size() < 40);
            QList<QPointF> points;
            for (int n : p.clientCounts) {
                if (const HerdCellResult *cell = m_report.find(n, s)) {
                    const double v = plot.value(*cell);
                    points.append(QPointF(n, v));
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
        x->setTitleText(tr("clients"));
        x->setLabelFormat(QStringLiteral("%d"));
        const int first = p.clientCounts.first();
        const int last = p.clientCounts.last();
        x->setRange(first, std::max(last, first + 1));
        x->applyNiceNumbers();
        QAbstractAxis *y = valueAxis(std::isfinite(lo) ? lo : 0.0, hi, logarithmic, plot.yTitle);
        chart->addAxis(x, Qt::AlignBottom);
        chart->addAxis(y, Qt::AlignLeft);
        styleAxes(chart);
        for (QLineSeries *series : lines) {
            series->attachAxis(x);
            series->attachAxis(y);
        }
    }
}

void SimulatorView::plotLoad()
{
    QChart *chart = m_loadView->chart();
    clearChart(chart);
    const int clients = m_loadClients->currentData().toInt();
    const HerdParameters &p = m_report.parameters;
    if (m_report.cells.isEmpty() || clients <= 0) {
        chart->setTitle(tr("Server load over time"));
        return;
    }
    chart->setTitle(tr("Server load over time, %n client(s) (mean of %1 runs)", nullptr, clients).arg(p.runs));

    double hi = 0.0;
    double end = 0.0;
    QList<QLineSeries *> lines;
    for (const HerdStrategy &s : p.strategies) {
        const HerdCellResult *cell = m_report.find(clients, s);
        if (!cell)
            continue;
        auto *series = new QLineSeries;
        series->setName(s.title());
        QPen pen(strategyColor(s));
        pen.setWidthF(1.5);
        series->setPen(pen);
        QList<QPointF> points;
        points.reserve(cell->meanLoadPerBin.size() + 1);
        const double perSecond = 1000.0 / cell->binMs;
        for (qsizetype i = 0; i < cell->meanLoadPerBin.size(); ++i) {
            // Each bin's rate is drawn at the bin's middle.
            const double t = (static_cast<double>(i) + 0.5) * cell->binMs / 1000.0;
            const double rate = cell->meanLoadPerBin[i] * perSecond;
            points.append(QPointF(t, rate));
            hi = std::max(hi, rate);
        }
        end = std::max(end, static_cast<double>(cell->meanLoadPerBin.size()) * cell->binMs / 1000.0);
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

    // The axis ends where the data ends; ticks fall on round values from 0.
    auto *x = new QValueAxis;
    x->setTitleText(tr("virtual time (s)"));
    const double span = end > 0.0 ? end : 1.0;
    const double step = niceStep(span, 8);
    x->setRange(0.0, span);
    x->setTickType(QValueAxis::TicksDynamic);
    x->setTickAnchor(0.0);
    x->setTickInterval(step);
    x->setLabelFormat(step >= 1.0 ? QStringLiteral("%.0f") : QStringLiteral("%.2g"));
    QAbstractAxis *y = valueAxis(0.0, hi, false, tr("calls per second"));
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
