#include "ui/policy/policystackchooser.h"

#include "core/policy/presets.h"

#include <QComboBox>
#include <QFormLayout>
#include <QSignalBlocker>

namespace RetryLab::Ui {

PolicyStackChooser::PolicyStackChooser(const QStringList &titles, int required, QWidget *parent)
    : QWidget(parent), m_required(required)
{
    auto *form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);
    for (qsizetype i = 0; i < titles.size(); ++i) {
        auto *combo = new QComboBox(this);
        combo->setObjectName(QStringLiteral("policy%1").arg(i + 1));
        combo->setFocusPolicy(Qt::StrongFocus);
        connect(combo, &QComboBox::currentIndexChanged, this, &PolicyStackChooser::changed);
        m_combos.append(combo);
        form->addRow(titles.at(i), combo);
    }
    fill();
}

void PolicyStackChooser::setCurrentPolicy(const Core::BackoffPolicy &policy)
{
    m_current = policy;
    fill();
    Q_EMIT changed();
}

void PolicyStackChooser::fill()
{
    m_choices = {m_current};
    m_origins = {tr("current policy")};
    QStringList names{tr("Current policy: %1").arg(m_current.name)};
    for (const Core::Presets::Preset &preset : Core::Presets::all()) {
        m_choices.append(preset.policy);
        m_origins.append(tr("preset %1").arg(preset.id));
        names.append(tr("Preset: %1").arg(preset.policy.name));
    }
    for (qsizetype i = 0; i < m_combos.size(); ++i) {
        QComboBox *combo = m_combos.at(i);
        const bool optional = i >= m_required;
        // Keep the choice across a refill; an optional row starts as "(none)", a required one
        // as the current policy (the first) or the first preset.
        const bool wasNone = combo->count() == 0 ? optional : optional && combo->currentIndex() == combo->count() - 1;
        const int chosen = combo->count() == 0 ? std::min(int(i), 1) : std::max(0, combo->currentIndex());
        const QSignalBlocker blocker(combo);
        combo->clear();
        combo->addItems(names);
        if (optional)
            combo->addItem(tr("(none)"));
        int index = wasNone ? combo->count() - 1 : std::min(chosen, int(m_choices.size()) - 1);
        // A second row showing the first's policy compares nothing: it starts at the preset after
        // the one the current policy came from (or the first preset that differs).
        if (i >= 1 && !optional && showsCurrentPolicy(index))
            index = differentChoiceAfter(index);
        combo->setCurrentIndex(index);
    }
}

bool PolicyStackChooser::showsCurrentPolicy(int choice) const
{
    if (choice < 0 || choice >= m_choices.size())
        return false;
    // By name too: a preset edited a little still reads as the same row twice.
    return m_choices.at(choice) == m_current || m_choices.at(choice).name == m_current.name;
}

int PolicyStackChooser::differentChoiceAfter(int index) const
{
    const int count = int(m_choices.size());
    for (int step = 1; step < count; ++step) {
        // Choice 0 is the current policy itself: skip it when wrapping round.
        const int candidate = 1 + (index - 1 + step) % (count - 1);
        if (!showsCurrentPolicy(candidate))
            return candidate;
    }
    return index;
}

void PolicyStackChooser::setChoice(int row, int choice)
{
    if (row >= 0 && row < m_combos.size())
        m_combos.at(row)->setCurrentIndex(choice);
}

QList<Core::BackoffPolicy> PolicyStackChooser::policies() const
{
    QList<Core::BackoffPolicy> list;
    for (const QComboBox *combo : m_combos) {
        const int index = combo->currentIndex();
        if (index >= 0 && index < m_choices.size())
            list.append(m_choices.at(index));
    }
    return list;
}

QStringList PolicyStackChooser::origins() const
{
    QStringList list;
    for (const QComboBox *combo : m_combos) {
        const int index = combo->currentIndex();
        if (index >= 0 && index < m_choices.size())
            list.append(m_origins.at(index));
    }
    return list;
}

} // namespace RetryLab::Ui
