#include "ui/herd/simulatorview.h"

#include "core/util/durationtext.h"
#include "ui/herd/herdcharts.h"
#include "ui/herd/herdjob.h"
#include "ui/herd/herdparametersform.h"
#include "ui/widgets/outcomestyle.h"

#include <QColor>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

namespace RetryLab::Ui {

using namespace RetryLab::Core;

namespace {
constexpr int progressSteps = 1000;
} // namespace

SimulatorView::SimulatorView(QWidget *parent) : QWidget(parent)
{
    // First child, so first destroyed: the worker stops before the widgets go.
    m_job = new HerdJob(this);
    m_form = new HerdParametersForm(this);
    m_form->setObjectName(QStringLiteral("herdParametersForm"));
    m_charts = new HerdCharts(this);
    m_charts->setObjectName(QStringLiteral("herdCharts"));

    auto *layout = new QHBoxLayout(this);
    layout->addWidget(buildRunControls());
    layout->addWidget(m_charts, 1);

    connect(m_form, &HerdParametersForm::edited, this, &SimulatorView::handleFormEdited);
    connect(m_job, &HerdJob::started, this, &SimulatorView::handleJobStarted);
    connect(m_job, &HerdJob::progress, this, &SimulatorView::handleJobProgress);
    connect(m_job, &HerdJob::finished, this, &SimulatorView::handleJobFinished);
    connect(m_job, &HerdJob::cancelled, this, &SimulatorView::handleJobCancelled);
    connect(m_job, &HerdJob::failed, this, &SimulatorView::handleJobFailed);

    m_info = tr("Choose a model and press Run.");
    validateForm();
    applyPalette();
}

// The form scrolls; Run, Cancel, the progress and the status line stay visible below it.
QWidget *SimulatorView::buildRunControls()
{
    auto *column = new QWidget(this);
    auto *columnLayout = new QVBoxLayout(column);
    columnLayout->setContentsMargins(0, 0, 0, 0);

    auto *scroll = new QScrollArea(column);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(m_form);
    columnLayout->addWidget(scroll, 1);

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
    return column;
}

Result<HerdParameters> SimulatorView::parameters() const
{
    return m_form->parameters();
}

void SimulatorView::setParameters(const HerdParameters &parameters)
{
    m_form->setParameters(parameters);
}

bool SimulatorView::isRunning() const
{
    return m_job->isRunning();
}

const HerdReport &SimulatorView::report() const
{
    return m_charts->report();
}

QColor SimulatorView::strategyColor(const HerdStrategy &strategy) const
{
    return HerdCharts::strategyColor(strategy, palette());
}

QColor SimulatorView::errorColor() const
{
    // The status line sits on the window colour; it must also hold on the base colour.
    const QColor onWindow = readableOn(QColor(0xb0, 0x00, 0x20), palette().color(QPalette::Window));
    return readableOn(onWindow, palette().color(QPalette::Base));
}

void SimulatorView::handleFormEdited()
{
    // A running simulation keeps the parameters it started with; the form is locked meanwhile.
    if (isRunning())
        return;
    validateForm();
    Q_EMIT parametersEdited();
}

// Run is offered only for a valid form, and the status line says what is wrong with it.
void SimulatorView::validateForm()
{
    if (isRunning())
        return;
    const auto p = parameters();
    m_runButton->setEnabled(p.ok());
    if (!p)
        showError(p.error());
    else
        showStatus(m_info);
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
    // The charts follow the palette on their own.
    if (event->type() == QEvent::PaletteChange && m_statusLabel)
        applyPalette();
}

void SimulatorView::applyPalette()
{
    for (const HerdStrategy &s : HerdStrategy::allFor(HerdModel::Latency))
        m_form->setStrategyColor(s, strategyColor(s));
    const QPalette pal = palette();
    m_statusLabel->setPalette(pal);
    if (m_showingError) {
        QPalette error = pal;
        error.setColor(QPalette::WindowText, errorColor());
        m_statusLabel->setPalette(error);
    }
}

void SimulatorView::setRunning(bool running)
{
    m_cancelButton->setEnabled(running);
    m_runButton->setEnabled(!running);
    m_form->setEnabled(!running);
    validateForm();
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
    if (const auto begun = m_job->start(*p); !begun) {
        showError(begun.error());
        Q_EMIT failed(begun.error());
    }
}

void SimulatorView::cancel()
{
    if (!isRunning())
        return;
    m_job->cancel();
    m_cancelButton->setEnabled(false);
    showStatus(tr("Cancelling..."));
}

void SimulatorView::handleJobStarted(qint64 runsTotal)
{
    // Per mille of the simulated clients: a single run of a million clients moves it too.
    m_progress->setRange(0, progressSteps);
    m_progress->setValue(0);
    setRunning(true);
    showStatus(tr("Simulating %L1 runs...").arg(runsTotal));
    Q_EMIT started();
}

void SimulatorView::handleJobProgress(qint64 runsDone, qint64 runsTotal, double fractionDone)
{
    m_progress->setValue(static_cast<int>(std::lround(std::clamp(fractionDone, 0.0, 1.0) * progressSteps)));
    if (runsTotal > 1)
        m_progress->setFormat(tr("%p% (%L1 of %L2 runs)").arg(runsDone).arg(runsTotal));
    else
        m_progress->setFormat(tr("%p%"));
}

void SimulatorView::handleJobFinished(const HerdReport &report, double seconds)
{
    setRunning(false);
    m_progress->setValue(m_progress->maximum());
    m_info = tr("%L1 runs, %L2 simulated events, in %3.")
                 .arg(static_cast<qint64>(report.cells.size()) * report.parameters.runs)
                 .arg(report.events)
                 .arg(Core::DurationText::format(seconds * 1000.0));
    showStatus(m_info);
    m_charts->setReport(report);
    Q_EMIT finished();
}

void SimulatorView::handleJobCancelled(qint64 runsDone, qint64 runsTotal)
{
    setRunning(false);
    m_info = tr("Cancelled after %L1 of %L2 runs; the charts still show the previous results.")
                 .arg(runsDone)
                 .arg(runsTotal);
    showStatus(m_info);
    Q_EMIT cancelled();
}

void SimulatorView::handleJobFailed(const QString &message)
{
    setRunning(false);
    showError(message);
    Q_EMIT failed(message);
}

} // namespace RetryLab::Ui
