#pragma once

#include "core/history/historyfigures.h"

#include <QWidget>

#include <optional>

class QLabel;
class QProgressBar;
class QStackedWidget;

namespace RetryLab::Ui {

/// A monitor's availability objective: the target, the availability over the
/// budget window, the error budget left (a bar and words), the burn rate of the
/// alert's long and short windows against the threshold, and whether it alerts.
/// Without an objective it says so, and how to set one.
class ObjectivePanel final : public QWidget
{
    Q_OBJECT

public:
    explicit ObjectivePanel(QWidget *parent = nullptr);

    void setStatus(const Core::ObjectiveStatus &status);
    /// The monitor has no objective.
    void clear();
    bool hasObjective() const { return m_status.has_value(); }

    /// A share (0.9995) as a percentage with the digits an objective needs ("99.95 %").
    static QString percentText(double fraction);

    QLabel *targetLabel() const { return m_target; }
    QLabel *availabilityLabel() const { return m_availability; }
    QProgressBar *budgetBar() const { return m_budgetBar; }
    QLabel *budgetLabel() const { return m_budget; }
    QLabel *longWindowLabel() const { return m_longWindow; }
    QLabel *shortWindowLabel() const { return m_shortWindow; }
    QLabel *alertLabel() const { return m_alert; }
    QLabel *emptyLabel() const { return m_empty; }

private:
    QString burnText(const Core::BurnRate &burn, double threshold) const;

    std::optional<Core::ObjectiveStatus> m_status;
    QStackedWidget *m_pages;
    QLabel *m_empty;
    QLabel *m_target;
    QLabel *m_availability;
    QProgressBar *m_budgetBar;
    QLabel *m_budget;
    QLabel *m_longWindow;
    QLabel *m_shortWindow;
    QLabel *m_alert;
    QLabel *m_note;
};

} // namespace RetryLab::Ui
