#include "ui/collections/environmentbar.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>

namespace RetryLab::Ui {

EnvironmentBar::EnvironmentBar(QWidget *parent) : QWidget(parent), m_combo(new QComboBox), m_edit(new QToolButton)
{
    m_combo->setObjectName(QStringLiteral("environmentCombo"));
    m_combo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_combo->setMinimumContentsLength(14);
    m_combo->setToolTip(tr("The environment whose variables fill {{name}} in the request (URL, headers, body)"));
    m_edit->setObjectName(QStringLiteral("editEnvironments"));
    m_edit->setText(tr("Edit\u2026"));
    m_edit->setToolTip(tr("Add, rename or delete environments and their variables"));
    auto *label = new QLabel(tr("&Environment:"));
    label->setBuddy(m_combo);
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 0, 4, 0);
    layout->addWidget(label);
    layout->addWidget(m_combo);
    layout->addWidget(m_edit);
    setEnvironments({}, {});

    connect(m_combo, &QComboBox::currentIndexChanged, this, [this] {
        if (!m_filling)
            Q_EMIT environmentPicked(current());
    });
    connect(m_edit, &QToolButton::clicked, this, &EnvironmentBar::editRequested);
}

void EnvironmentBar::setEnvironments(const QStringList &names, const QString &active)
{
    m_filling = true;
    m_combo->clear();
    m_combo->addItem(tr("No environment"), QString());
    for (const QString &name : names)
        m_combo->addItem(name, name);
    m_combo->setCurrentIndex(std::max(0, m_combo->findData(active)));
    m_filling = false;
}

QString EnvironmentBar::current() const
{
    return m_combo->currentData().toString();
}

} // namespace RetryLab::Ui
