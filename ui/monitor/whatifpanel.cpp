#include "ui/monitor/whatifpanel.h"
#include "core/monitor/monitor.h"
#include "core/policy/presets.h"
#include "core/util/durationtext.h"
#include "ui/monitor/objectivepanel.h"
#include "ui/widgets/fieldmessage.h"

#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QLoggingCategory>
#include <QPushButton>
#include <QVBoxLayout>

Q_LOGGING_CATEGORY(lcWhatIfPanel, "retrylab.ui.monitor.whatif")

namespace RetryLab::Ui {

namespace {

constexpr int whatIfColumns = 3;

QString optionalPercent(const std::optional<double> &value)
{
    return value ? ObjectivePanel::percentText(*value) : WhatIfPanel::tr("unknown");
}

QString optionalNumber(const std::optional<double> &value)
{
    return value ? QLocale().toString(*value, 'f', 2) : WhatIfPanel::tr("unknown");
}

} // namespace

WhatIfPanel::WhatIfPanel(QWidget *parent)
    : QWidget(parent), m_policy(new QComboBox), m_replay(new QPushButton(tr("&Replay"))), m_message(new FieldMessage),
      m_results(new QWidget), m_grid(new QGridLayout(m_results)), m_method(new QLabel)
{
    m_policy->setObjectName(QStringLiteral("whatIfPolicy"));
    m_policy->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_policy->setMinimumContentsLength(18);
    auto *policyLabel = new QLabel(tr("&Policy:"));
    policyLabel->setBuddy(m_policy);
    m_replay->setToolTip(tr("Replay the recorded checks of this window under the chosen policy"));
    m_method->setWordWrap(true);
    m_method->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    m_grid->setContentsMargins(0, 0, 0, 0);
    m_grid->setColumnStretch(0, 1);
    m_grid->setColumnStretch(1, 1);
    m_grid->setColumnStretch(2, 1);

    auto *bar = new QHBoxLayout;
    bar->addWidget(policyLabel);
    bar->addWidget(m_policy, 1);
    bar->addWidget(m_replay);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_message);
    // The method comes before the figures: nobody should read them as measured.
    layout->addWidget(m_method);
    layout->addWidget(m_results);
    layout->addStretch(1);
    setTabOrder(m_policy, m_replay);

    connect(m_replay, &QPushButton::clicked, this, &WhatIfPanel::handleReplay);
    refillChoices();
    clearResult();
}

void WhatIfPanel::refillChoices()
{
    const QString chosen = m_policy->currentIndex() >= 0 ? chosenLabel() : QString();
    m_choices.clear();
    if (m_dockPolicy)
        m_choices.append({tr("The policy dock's (%1)").arg(m_dockPolicy->name), *m_dockPolicy});
    m_choices.append({tr("None (one attempt per check)"), Core::singleAttemptPolicy()});
    for (const Core::Presets::Preset &preset : Core::Presets::all())
        m_choices.append({tr("Preset: %1").arg(preset.policy.name), preset.policy});
    const QSignalBlocker blocker(m_policy);
    m_policy->clear();
    for (const Choice &choice : std::as_const(m_choices))
        m_policy->addItem(choice.label);
    const int again = m_policy->findText(chosen);
    m_policy->setCurrentIndex(again >= 0 ? again : 0);
}

void WhatIfPanel::setCurrentPolicy(const Core::BackoffPolicy &policy)
{
    const bool wasDock = m_dockPolicy && m_policy->currentIndex() == 0;
    m_dockPolicy = policy;
    refillChoices();
    if (wasDock)
        m_policy->setCurrentIndex(0);
}

Core::BackoffPolicy WhatIfPanel::chosenPolicy() const
{
    const int index = m_policy->currentIndex();
    return index >= 0 && index < m_choices.size() ? m_choices.at(index).policy : Core::singleAttemptPolicy();
}

QString WhatIfPanel::chosenLabel() const
{
    const int index = m_policy->currentIndex();
    return index >= 0 && index < m_choices.size() ? m_choices.at(index).label : QString();
}

void WhatIfPanel::handleReplay()
{
    m_requestedLabel = chosenLabel();
    qCDebug(lcWhatIfPanel) << "what-if requested under" << m_requestedLabel;
    Q_EMIT whatIfRequested(chosenPolicy(), m_requestedLabel);
}

void WhatIfPanel::setBusy(bool busy)
{
    m_busy = busy;
    m_replay->setEnabled(!busy);
    if (busy)
        m_message->setMessage(FieldMessage::Kind::Note, tr("Replaying the history\u2026"));
    else if (m_message->kind() == FieldMessage::Kind::Note)
        m_message->clear();
}

void WhatIfPanel::setError(const QString &message)
{
    setBusy(false);
    m_message->setMessage(FieldMessage::Kind::Error, tr("The replay failed: %1").arg(message));
}

void WhatIfPanel::clearResult()
{
    m_hasResult = false;
    while (QLayoutItem *item = m_grid->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    m_results->hide();
    m_method->setText(tr("Choose a policy and press Replay to estimate how this window's checks would have gone "
                         "under it."));
}

void WhatIfPanel::setRow(int row, const QString &name, const QString &actual, const QString &estimate)
{
    const QStringList texts{name, actual, estimate};
    for (int column = 0; column < whatIfColumns; ++column) {
        auto *label = new QLabel(texts.at(column));
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
        if (row == 0) {
            QFont bold = label->font();
            bold.setBold(true);
            label->setFont(bold);
            label->setWordWrap(true);
        }
        if (column > 0)
            label->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_grid->addWidget(label, row, column);
    }
}

void WhatIfPanel::setResult(const Core::WhatIf &whatIf, const Core::MonitorSummary &actual)
{
    clearResult();
    setBusy(false);
    m_message->clear();
    m_hasResult = true;
    const QString label = m_requestedLabel.isEmpty() ? whatIf.policyName : m_requestedLabel;
    setRow(0, QString(), tr("Recorded"), tr("Estimate: %1").arg(label));
    setRow(1, tr("Availability of checks"), optionalPercent(actual.checkAvailability),
        optionalPercent(whatIf.checkAvailability));
    setRow(
        2, tr("Attempts per check"), optionalNumber(actual.attemptsPerCheck), optionalNumber(whatIf.attemptsPerCheck));
    setRow(3, tr("Incidents seen"), QString::number(actual.incidents), QString::number(whatIf.incidents));
    setRow(4, tr("Incidents hidden by retries"), QString::number(actual.hiddenIncidents),
        QString::number(whatIf.hiddenIncidents));
    setRow(5, tr("Checks counted"), QString::number(actual.checks),
        tr("%1 (%2 unknown)").arg(whatIf.checksSimulated).arg(whatIf.unknownChecks));
    m_results->show();
    m_method->setText(tr("Estimate, not a measurement: each counterfactual attempt at time t takes the outcome and "
                         "duration of the recorded attempt nearest t; a check with an attempt farther than %1 from "
                         "every recorded one is unknown and left out. Retry budgets, circuit breakers and "
                         "Retry-After are not replayed.")
                          .arg(Core::DurationText::format(double(whatIf.gapMs))));
}

QString WhatIfPanel::resultText(int row, int column) const
{
    QLayoutItem *item = m_grid->itemAtPosition(row, column);
    const auto *label = item ? qobject_cast<QLabel *>(item->widget()) : nullptr;
    return label ? label->text() : QString();
}

int WhatIfPanel::resultRows() const
{
    return m_hasResult ? m_grid->rowCount() : 0;
}

} // namespace RetryLab::Ui
