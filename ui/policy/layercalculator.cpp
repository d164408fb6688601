#include "ui/policy/layercalculator.h"

#include "core/herd/layersimulation.h"
#include "core/policy/retrylayers.h"
#include "ui/policy/policystackchooser.h"

#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QLabel>
#include <QVBoxLayout>

namespace RetryLab::Ui {

namespace {

constexpr int checkRuns = 10'000;
constexpr quint64 checkSeed = 1;

} // namespace

LayerCalculator::LayerCalculator(QWidget *parent) : QDialog(parent)
{
    setObjectName(QStringLiteral("layerCalculator"));
    setWindowTitle(tr("Layer calculator"));
    auto *layout = new QVBoxLayout(this);
    auto *intro = new QLabel(tr("A task with a retry policy that calls another task with one adds a layer of retries "
                                "(the Retry pattern): every attempt of a layer runs the whole retry sequence of the "
                                "layer below. Stack the layers outermost first, for example app, SDK, service mesh."),
        this);
    intro->setWordWrap(true);
    layout->addWidget(intro);

    m_layers = new PolicyStackChooser(
        {tr("Layer 1 (outermost):"), tr("Layer 2:"), tr("Layer 3:"), tr("Layer 4 (innermost):")},
        Core::RetryLayers::minLayers, this);
    connect(m_layers, &PolicyStackChooser::changed, this, &LayerCalculator::recompute);
    layout->addWidget(m_layers);
    auto *form = new QFormLayout;
    m_probability = new QDoubleSpinBox(this);
    m_probability->setObjectName(QStringLiteral("failureProbability"));
    m_probability->setRange(0.0, 1.0);
    m_probability->setDecimals(3);
    m_probability->setSingleStep(0.05);
    m_probability->setValue(0.5);
    m_probability->setToolTip(tr("Probability that one attempt at the server fails (retryably), for the expected "
                                 "figures. The worst case assumes every attempt fails."));
    form->addRow(tr("An attempt fails with probability:"), m_probability);
    m_failureMs = new QDoubleSpinBox(this);
    m_failureMs->setObjectName(QStringLiteral("failureMs"));
    m_failureMs->setRange(0.0, 3'600'000.0);
    m_failureMs->setDecimals(0);
    m_failureMs->setSuffix(tr(" ms"));
    m_failureMs->setToolTip(tr("How long a failing attempt at the server takes (0: it fails at once)."));
    form->addRow(tr("A failing attempt takes:"), m_failureMs);
    m_threshold = new QDoubleSpinBox(this);
    m_threshold->setObjectName(QStringLiteral("threshold"));
    m_threshold->setRange(1.0, 1e9);
    m_threshold->setDecimals(0);
    m_threshold->setValue(Core::RetryLayers::Assumptions{}.threshold);
    m_threshold->setToolTip(tr("Warn when one user action may send more attempts to the server than this."));
    form->addRow(tr("Warn above (attempts per action):"), m_threshold);
    for (QDoubleSpinBox *spin : {m_probability, m_failureMs, m_threshold}) {
        spin->setFocusPolicy(Qt::StrongFocus);
        connect(spin, &QDoubleSpinBox::valueChanged, this, &LayerCalculator::recompute);
    }
    layout->addLayout(form);

    m_result = new QLabel(this);
    m_result->setObjectName(QStringLiteral("layerResult"));
    m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_result->setWordWrap(true);
    m_result->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    layout->addWidget(m_result);
    m_check = new QLabel(this);
    m_check->setObjectName(QStringLiteral("layerCheck"));
    m_check->setWordWrap(true);
    layout->addWidget(m_check);
    m_warning = new QLabel(this);
    m_warning->setObjectName(QStringLiteral("layerWarning"));
    m_warning->setWordWrap(true);
    QPalette warningPalette = m_warning->palette();
    warningPalette.setColor(QPalette::WindowText, QColor(0xb0, 0x30, 0x00));
    m_warning->setPalette(warningPalette);
    layout->addWidget(m_warning);
    layout->addStretch(1);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);

    recompute();
    resize(640, 560);
}

void LayerCalculator::setCurrentPolicy(const Core::BackoffPolicy &policy)
{
    m_layers->setCurrentPolicy(policy);
}

void LayerCalculator::setLayerChoice(int layer, int choice)
{
    m_layers->setChoice(layer, choice);
}

void LayerCalculator::setFailureProbability(double p)
{
    m_probability->setValue(p);
}

QList<Core::BackoffPolicy> LayerCalculator::stack() const
{
    return m_layers->policies();
}

QString LayerCalculator::resultText() const
{
    return m_result->text();
}

QString LayerCalculator::warningText() const
{
    return m_warning->text();
}

void LayerCalculator::recompute()
{
    if (!m_result)
        return;
    const QList<Core::BackoffPolicy> policies = stack();
    Core::RetryLayers::Assumptions assumptions;
    assumptions.failureProbability = m_probability->value();
    assumptions.failureMs = m_failureMs->value();
    assumptions.threshold = m_threshold->value();
    const Core::RetryLayers::Result result = Core::RetryLayers::compute(policies, assumptions);
    QString text = Core::RetryLayers::describe(result, assumptions);
    // The warning has a line of its own below.
    if (const qsizetype at = text.indexOf(QLatin1String("\nwarning: ")); at >= 0)
        text.truncate(at);
    m_result->setText(text);
    const Core::LayerSimulationResult played = Core::simulateLayers(policies, assumptions, checkRuns, checkSeed);
    m_check->setText(tr("Checked by playing %1 user actions on a virtual clock: %2 \u00b1 %3 attempts at the server "
                        "on average (exact: %4), at most %5.")
                         .arg(played.runs)
                         .arg(played.meanServerAttempts, 0, 'f', 3)
                         .arg(played.standardError, 0, 'f', 3)
                         .arg(result.expectedServerAttempts, 0, 'f', 3)
                         .arg(played.maxServerAttempts));
    m_warning->setText(result.warning.isEmpty() ? QString() : tr("\u26a0 %1").arg(result.warning));
    m_warning->setVisible(!result.warning.isEmpty());
}

} // namespace RetryLab::Ui
