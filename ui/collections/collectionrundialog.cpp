#include "ui/collections/collectionrundialog.h"

#include "core/monitor/monitor.h"
#include "core/policy/presets.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace RetryLab::Ui {

namespace {

// The name `retrylab run --policy none` gives the single attempt.
const QLatin1String noPolicyId("none");

} // namespace

CollectionRunDialog::CollectionRunDialog(const QString &what, const QString &environmentName, QWidget *parent)
    : QDialog(parent), m_iterations(new QSpinBox), m_delay(new QSpinBox), m_bail(new QCheckBox),
      m_policy(new QComboBox), m_timeout(new QSpinBox)
{
    setObjectName(QStringLiteral("collectionRunDialog"));
    setWindowTitle(tr("Run %1").arg(what));

    m_iterations->setObjectName(QStringLiteral("runIterations"));
    m_iterations->setRange(1, 10'000);
    m_iterations->setToolTip(tr("How many times the whole selection runs"));
    m_delay->setObjectName(QStringLiteral("runDelay"));
    m_delay->setRange(0, 600'000);
    m_delay->setSingleStep(100);
    m_delay->setSuffix(tr(" ms"));
    m_delay->setToolTip(tr("A pause between two requests"));
    m_bail->setObjectName(QStringLiteral("runBail"));
    m_bail->setText(tr("Stop at the first request that &fails"));
    m_policy->setObjectName(QStringLiteral("runPolicy"));
    m_policy->addItem(tr("None: one attempt each"), QString(noPolicyId));
    for (const Core::Presets::Preset &preset : Core::Presets::all())
        m_policy->addItem(preset.policy.name.isEmpty() ? preset.id : preset.policy.name, preset.id);
    m_policy->setToolTip(tr("The policy of requests that have none of their own, nor their folder"));
    m_timeout->setObjectName(QStringLiteral("runAttemptTimeout"));
    m_timeout->setRange(0, 3'600'000);
    m_timeout->setSingleStep(500);
    m_timeout->setSuffix(tr(" ms"));
    m_timeout->setSpecialValueText(tr("the request's or its policy's"));
    m_timeout->setToolTip(tr("Each attempt's timeout where the request does not set its own"));

    auto *form = new QFormLayout;
    form->addRow(tr("&Iterations:"), m_iterations);
    form->addRow(tr("&Delay between requests:"), m_delay);
    form->addRow(QString(), m_bail);
    form->addRow(tr("Default &policy:"), m_policy);
    form->addRow(tr("Attempt &timeout:"), m_timeout);
    auto *environment = new QLabel(environmentName.isEmpty()
            ? tr("No environment: variables come from the collection alone.")
            : tr("Environment: %1 (the one chosen in the toolbar)").arg(environmentName));
    environment->setObjectName(QStringLiteral("runEnvironment"));
    environment->setWordWrap(true);
    form->addRow(environment);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("&Run"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(buttons);
}

Core::CollectionRunOptions CollectionRunDialog::options(Core::CollectionRunOptions base) const
{
    base.iterations = m_iterations->value();
    base.delayRequestMs = m_delay->value();
    base.bail = m_bail->isChecked();
    const QString policy = m_policy->currentData().toString();
    const auto preset = policy == noPolicyId ? std::nullopt : Core::Presets::find(policy);
    if (preset) {
        base.defaultPolicy = *preset;
        base.defaultPolicyName = policy;
    } else {
        base.defaultPolicy = Core::singleAttemptPolicy();
        base.defaultPolicyName = noPolicyId;
    }
    base.attemptTimeoutMs = m_timeout->value() > 0 ? std::optional<double>(m_timeout->value()) : std::nullopt;
    return base;
}

void CollectionRunDialog::setOptions(const Core::CollectionRunOptions &options)
{
    m_iterations->setValue(options.iterations);
    m_delay->setValue(options.delayRequestMs);
    m_bail->setChecked(options.bail);
    const int policy = m_policy->findData(options.defaultPolicyName);
    m_policy->setCurrentIndex(policy < 0 ? 0 : policy);
    m_timeout->setValue(options.attemptTimeoutMs ? int(*options.attemptTimeoutMs) : 0);
}

} // namespace RetryLab::Ui
