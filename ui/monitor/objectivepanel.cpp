#include "ui/monitor/objectivepanel.h"
#include "core/util/durationtext.h"

#include <QFormLayout>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QStackedWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace RetryLab::Ui {

ObjectivePanel::ObjectivePanel(QWidget *parent)
    : QWidget(parent), m_pages(new QStackedWidget), m_empty(new QLabel), m_target(new QLabel),
      m_availability(new QLabel), m_budgetBar(new QProgressBar), m_budget(new QLabel), m_longWindow(new QLabel),
      m_shortWindow(new QLabel), m_alert(new QLabel), m_note(new QLabel)
{
    m_empty->setObjectName(QStringLiteral("noObjective"));
    m_empty->setWordWrap(true);
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setText(tr("No objective set for this monitor. Give it one in the monitors file, such as "
                        "\"objective\": 0.999, to see its error budget and burn rates."));

    m_budgetBar->setRange(0, 1000);
    m_budgetBar->setTextVisible(false);
    m_budgetBar->setAccessibleName(tr("Error budget left"));
    m_budgetBar->setMaximumHeight(fontMetrics().height());
    for (QLabel *label : {m_target, m_availability, m_budget, m_longWindow, m_shortWindow, m_alert, m_note}) {
        label->setWordWrap(true);
        label->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    }
    m_note->setForegroundRole(QPalette::PlaceholderText);

    auto *status = new QWidget;
    auto *form = new QFormLayout(status);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->addRow(tr("Target:"), m_target);
    form->addRow(tr("Availability:"), m_availability);
    auto *budget = new QVBoxLayout;
    budget->setSpacing(2);
    budget->addWidget(m_budgetBar);
    budget->addWidget(m_budget);
    form->addRow(tr("Error budget:"), budget);
    form->addRow(tr("Burn rate, long window:"), m_longWindow);
    form->addRow(tr("Burn rate, short window:"), m_shortWindow);
    form->addRow(tr("Alert:"), m_alert);
    form->addRow(m_note);

    m_pages->addWidget(m_empty);
    m_pages->addWidget(status);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_pages);
    clear();
}

QString ObjectivePanel::percentText(double fraction)
{
    if (!std::isfinite(fraction))
        return QStringLiteral("\u2014");
    // Near the top, the nines matter: 99.95 % and 99.9 % are different objectives.
    const int decimals = fraction >= 0.999 ? 3 : fraction >= 0.99 ? 2 : 1;
    QString number = QLocale().toString(fraction * 100.0, 'f', decimals);
    const QChar point = QLocale().decimalPoint().front();
    if (number.contains(point)) {
        while (number.endsWith(QLatin1Char('0')))
            number.chop(1);
        if (number.endsWith(point))
            number.chop(1);
    }
    return tr("%1 %").arg(number);
}

void ObjectivePanel::clear()
{
    m_status.reset();
    m_pages->setCurrentWidget(m_empty);
}

QString ObjectivePanel::burnText(const Core::BurnRate &burn, double threshold) const
{
    const QString window = tr("last %1").arg(Core::DurationText::format(double(burn.windowMs)));
    if (!burn.rate)
        return tr("%1: no checks counted").arg(window);
    const bool over = *burn.rate > threshold;
    return tr("%1: %2\u00d7 (%3 of %4 checks failed): %5 the threshold of %6\u00d7")
        .arg(window, QLocale().toString(*burn.rate, 'f', 1))
        .arg(burn.failedChecks)
        .arg(burn.checks)
        .arg(over ? tr("over") : tr("under"), QLocale().toString(threshold, 'f', 1));
}

void ObjectivePanel::setStatus(const Core::ObjectiveStatus &status)
{
    m_status = status;
    m_pages->setCurrentIndex(1);
    const QString window = Core::DurationText::format(double(status.budgetWindowMs));
    m_target->setText(tr("%1 of checks over %2").arg(percentText(status.target), window));
    if (status.availability) {
        m_availability->setText(tr("%1 (%2 of %3 checks failed)")
                                    .arg(percentText(*status.availability))
                                    .arg(status.failedChecks)
                                    .arg(status.checks));
    } else {
        m_availability->setText(tr("no checks counted in the last %1").arg(window));
    }
    if (status.budgetRemaining) {
        const double left = *status.budgetRemaining;
        m_budgetBar->setValue(int(std::lround(std::clamp(left, 0.0, 1.0) * 1000.0)));
        const QString allowed = QLocale().toString(status.allowedFailures, 'f', 1);
        m_budget->setText(left >= 0.0 ? tr("%1 left: %2 of %3 allowed failed checks spent")
                                            .arg(percentText(left))
                                            .arg(status.failedChecks)
                                            .arg(allowed)
                                      : tr("Overspent by %1: %2 failed checks of %3 allowed")
                                            .arg(percentText(-left))
                                            .arg(status.failedChecks)
                                            .arg(allowed));
    } else {
        m_budgetBar->setValue(0);
        m_budget->setText(tr("unknown: no checks counted"));
    }
    m_longWindow->setText(burnText(status.longWindow, status.burnRateThreshold));
    m_shortWindow->setText(burnText(status.shortWindow, status.burnRateThreshold));
    m_alert->setText(status.alerting ? tr("Alerting: both windows burn the budget faster than %1\u00d7")
                                           .arg(QLocale().toString(status.burnRateThreshold, 'f', 1))
                                     : tr("Not alerting"));
    m_note->setText(status.fromAggregates
            ? tr("Part of the window was counted from per-minute and per-hour aggregates.")
            : QString());
    m_note->setVisible(status.fromAggregates);
}

} // namespace RetryLab::Ui
