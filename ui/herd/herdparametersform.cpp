#include "ui/herd/herdparametersform.h"

#include "core/policy/backoffpolicy.h"

#include <QCheckBox>
#include <QColor>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLineEdit>
#include <QListWidget>
#include <QRegularExpressionValidator>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>

namespace RetryLab::Ui {

using namespace RetryLab::Core;

namespace {

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

} // namespace

HerdParametersForm::HerdParametersForm(QWidget *parent) : QWidget(parent)
{
    auto *formLayout = new QVBoxLayout(this);
    formLayout->setContentsMargins(0, 0, 6, 0);

    // Model and grid
    auto *gridGroup = new QGroupBox(tr("Model"), this);
    auto *grid = new QFormLayout(gridGroup);
    m_model = new QComboBox(gridGroup);
    m_model->setObjectName(QStringLiteral("modelCombo"));
    for (HerdModel each : allHerdModels())
        m_model->addItem(herdModelTitle(each), herdModelName(each));
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
    auto *strategyGroup = new QGroupBox(tr("Strategies"), this);
    auto *strategyLayout = new QVBoxLayout(strategyGroup);
    m_strategies = new QListWidget(strategyGroup);
    m_strategies->setObjectName(QStringLiteral("strategyList"));
    for (const HerdStrategy &s : HerdStrategy::allFor(HerdModel::Latency)) {
        auto *item = new QListWidgetItem(s.title(), m_strategies);
        item->setData(Qt::UserRole, s.name());
        item->setToolTip(s.algorithm ? algorithmFormula(*s.algorithm) : tr("retry as soon as the answer arrives"));
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
        item->setCheckState(Qt::Unchecked);
    }
    m_strategies->setMinimumHeight(m_strategies->sizeHintForRow(0) * 6 + 4);
    strategyLayout->addWidget(m_strategies);
    formLayout->addWidget(strategyGroup);

    // Backoff
    auto *backoffGroup = new QGroupBox(tr("Backoff (shared by all strategies)"), this);
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
    m_rateLimiter = new QCheckBox(tr("Each client limits its own rate after 429s (AWS adaptive mode)"), backoffGroup);
    m_rateLimiter->setObjectName(QStringLiteral("rateLimiterCheck"));
    m_rateLimiter->setToolTip(tr("botocore's adaptive rate limiter in every client: after a throttling answer "
                                 "(429) the client sends no faster than a token bucket whose rate follows a CUBIC "
                                 "curve."));
    backoff->addRow(m_rateLimiter);
    formLayout->addWidget(backoffGroup);

    // Network and arrivals
    auto *networkGroup = new QGroupBox(tr("Network and arrivals"), this);
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
    m_serverGroup = new QGroupBox(tr("Server"), this);
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
    m_outageGroup = new QGroupBox(tr("Outage"), this);
    auto *outage = new QFormLayout(m_outageGroup);
    m_outageStart = doubleSpin(0.0, HerdLimits::maxHorizonMs, 0, ms, m_outageGroup);
    m_outageEnd = doubleSpin(0.0, HerdLimits::maxHorizonMs, 0, ms, m_outageGroup);
    outage->addRow(tr("Down from"), m_outageStart);
    outage->addRow(tr("Up again at"), m_outageEnd);
    formLayout->addWidget(m_outageGroup);

    // Latency model: slow answers, and the hedging strategy that races them.
    m_latencyGroup = new QGroupBox(tr("Slow answers and hedging"), this);
    auto *latency = new QFormLayout(m_latencyGroup);
    m_latencyMedian = doubleSpin(0.01, HerdLimits::maxNetworkDelayMs, 1, ms, m_latencyGroup);
    m_latencySigma = doubleSpin(0.0, 4.0, 2, QString(), m_latencyGroup);
    m_latencySigma->setSingleStep(0.1);
    m_latencySigma->setToolTip(tr("Sigma of the lognormal answer time: 0 for none, 1 for a long tail."));
    m_failureRate = doubleSpin(0.0, 100.0, 2, tr(" %"), m_latencyGroup);
    m_hedgedAttempts = intSpin(2, PolicyLimits::maxHedgedAttempts, m_latencyGroup);
    m_hedgingDelay = doubleSpin(0.01, PolicyLimits::maxDelayMs, 1, ms, m_latencyGroup);
    m_hedgingDelay->setToolTip(tr("The hedging strategy sends a further attempt when none has answered for this "
                                  "long, and at once after a failure."));
    latency->addRow(tr("Median answer"), m_latencyMedian);
    latency->addRow(tr("Tail (sigma)"), m_latencySigma);
    latency->addRow(tr("Failing answers"), m_failureRate);
    latency->addRow(tr("Hedged attempts"), m_hedgedAttempts);
    latency->addRow(tr("Hedging delay"), m_hedgingDelay);
    formLayout->addWidget(m_latencyGroup);

    auto *outputGroup = new QGroupBox(tr("Load chart"), this);
    auto *output = new QFormLayout(outputGroup);
    m_bin = doubleSpin(1.0, 3'600'000.0, 0, ms, outputGroup);
    output->addRow(tr("Bin width"), m_bin);
    formLayout->addWidget(outputGroup);
    formLayout->addStretch(1);

    connect(m_model, &QComboBox::currentIndexChanged, this, &HerdParametersForm::handleModelChanged);
    connect(m_arrivals, &QComboBox::currentIndexChanged, this, &HerdParametersForm::updateEnabledFields);
    connect(m_arrivals, &QComboBox::currentIndexChanged, this, &HerdParametersForm::edited);
    connect(m_clients, &QLineEdit::textChanged, this, &HerdParametersForm::edited);
    connect(m_seed, &QLineEdit::textChanged, this, &HerdParametersForm::edited);
    connect(m_strategies, &QListWidget::itemChanged, this, &HerdParametersForm::edited);
    connect(m_status, &QComboBox::currentIndexChanged, this, &HerdParametersForm::edited);
    connect(m_honourRetryAfter, &QCheckBox::toggled, this, &HerdParametersForm::edited);
    connect(m_rateLimiter, &QCheckBox::toggled, this, &HerdParametersForm::edited);
    for (QSpinBox *spin : {m_runs, m_maxAttempts, m_queue, m_retryAfter, m_hedgedAttempts})
        connect(spin, &QSpinBox::valueChanged, this, &HerdParametersForm::edited);
    for (QDoubleSpinBox *spin :
        {m_base, m_cap, m_multiplier, m_jitter, m_deadline, m_networkMean, m_networkSd, m_arrivalRate, m_serviceRate,
            m_outageStart, m_outageEnd, m_latencyMedian, m_latencySigma, m_failureRate, m_hedgingDelay, m_bin})
        connect(spin, &QDoubleSpinBox::valueChanged, this, &HerdParametersForm::edited);

    fill(HerdParameters::defaultsFor(HerdModel::OptimisticConcurrency));
}

HerdModel HerdParametersForm::model() const
{
    return herdModelFromName(m_model->currentData().toString()).value_or(HerdModel::OptimisticConcurrency);
}

Result<HerdParameters> HerdParametersForm::parameters() const
{
    HerdParameters p;
    QStringList problems;

    p.model = model();
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
    p.rateLimiter = m_rateLimiter->isChecked() ? RateLimiterKind::AwsAdaptive : RateLimiterKind::None;
    p.outageStartMs = m_outageStart->value();
    p.outageEndMs = m_outageEnd->value();
    p.latencyMedianMs = m_latencyMedian->value();
    p.latencySigma = m_latencySigma->value();
    p.failureRate = m_failureRate->value() / 100.0;
    p.hedgedAttempts = m_hedgedAttempts->value();
    p.hedgingDelayMs = m_hedgingDelay->value();
    p.binMs = m_bin->value();

    for (const Error &problem : p.errors()) {
        // An unreadable client list is already reported in the user's own words.
        if (!counts && problem.path == QLatin1String("clients"))
            continue;
        problems.append(problem.text());
    }
    if (!problems.isEmpty())
        return Result<HerdParameters>::failure(problems.join(QLatin1Char('\n')));
    return p;
}

void HerdParametersForm::setParameters(const HerdParameters &p)
{
    {
        // One edited() for the whole form rather than one per field.
        const QSignalBlocker blockEdited(this);
        fill(p);
    }
    Q_EMIT edited();
}

void HerdParametersForm::fill(const HerdParameters &p)
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
    m_rateLimiter->setChecked(p.rateLimiter != RateLimiterKind::None);
    m_outageStart->setValue(p.outageStartMs);
    m_outageEnd->setValue(p.outageEndMs);
    m_latencyMedian->setValue(p.latencyMedianMs);
    m_latencySigma->setValue(p.latencySigma);
    m_failureRate->setValue(p.failureRate * 100.0);
    m_hedgedAttempts->setValue(p.hedgedAttempts);
    m_hedgingDelay->setValue(p.hedgingDelayMs);
    m_bin->setValue(p.binMs);
    updateEnabledFields();
}

void HerdParametersForm::handleModelChanged()
{
    // A new model brings its own sensible numbers; the grid and the choice of
    // strategies are the user's and stay.
    const QString clients = m_clients->text();
    const int runs = m_runs->value();
    const QString seed = m_seed->text();
    QList<Qt::CheckState> checks;
    for (int row = 0; row < m_strategies->count(); ++row)
        checks.append(m_strategies->item(row)->checkState());

    {
        const QSignalBlocker blockEdited(this);
        fill(HerdParameters::defaultsFor(model()));
        m_clients->setText(clients);
        m_runs->setValue(runs);
        m_seed->setText(seed);
        const QSignalBlocker blockList(m_strategies);
        const bool latency = model() == HerdModel::Latency;
        for (int row = 0; row < m_strategies->count(); ++row) {
            QListWidgetItem *item = m_strategies->item(row);
            // Hedging races slow answers: the latency model plays it, and only that one.
            const bool hedging = item->data(Qt::UserRole).toString() == HerdStrategy::hedge().name();
            item->setCheckState(hedging ? (latency ? Qt::Checked : Qt::Unchecked) : checks.value(row));
        }
    }
    Q_EMIT edited();
}

void HerdParametersForm::updateEnabledFields()
{
    const HerdModel current = model();
    m_serverGroup->setEnabled(current == HerdModel::CapacityLimited || current == HerdModel::Outage);
    m_outageGroup->setEnabled(current == HerdModel::Outage);
    m_latencyGroup->setEnabled(current == HerdModel::Latency);
    m_arrivalRate->setEnabled(m_arrivals->currentData().toString() == arrivalModeName(ArrivalMode::Poisson));
}

void HerdParametersForm::setStrategyColor(const HerdStrategy &strategy, const QColor &color)
{
    // A colour is no edit: no itemChanged(), so no edited().
    const QSignalBlocker blockList(m_strategies);
    for (int row = 0; row < m_strategies->count(); ++row) {
        QListWidgetItem *item = m_strategies->item(row);
        if (item->data(Qt::UserRole).toString() == strategy.name())
            item->setData(Qt::DecorationRole, color);
    }
}

} // namespace RetryLab::Ui
