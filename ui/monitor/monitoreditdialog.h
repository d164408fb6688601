#pragma once

#include "core/monitor/monitor.h"

#include <QDialog>
#include <QList>
#include <QStringList>

QT_BEGIN_NAMESPACE
class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QSpinBox;
QT_END_NAMESPACE

namespace RetryLab::Ui {

class FieldMessage;
class UnitSpinBox;

/// Edits one monitor: its name, method and URL; how often it is checked (and
/// while down), the check's timeout and policy (the current one, a preset, or
/// none: one attempt per check); the conditions its answers must meet, as a
/// monitors file spells them; how many checks make it down or up; paused. The
/// first problem is shown under the form and OK stays disabled until there is
/// none. What the form does not show (headers, body, transport, maintenance
/// windows, alerts, a second condition of one kind) is kept as it was.
class MonitorEditDialog final : public QDialog
{
    Q_OBJECT

public:
    /// `takenNames`: the other monitors' names, which this one may not take.
    explicit MonitorEditDialog(const Core::Monitor &monitor, const QStringList &takenNames, QWidget *parent = nullptr);

    Core::Monitor monitor() const;
    /// The first thing that keeps the monitor from being saved; empty when none.
    QString problem() const { return m_problem; }

private:
    struct Parsed
    {
        QList<Core::MonitorCondition> conditions;
        QString problem;
    };

    QWidget *buildRequestPage();
    QWidget *buildSchedulePage();
    QWidget *buildConditionsPage();
    void load(const Core::Monitor &monitor);
    void validate();
    Parsed parseConditions() const;
    Core::BackoffPolicy chosenPolicy(QString *origin) const;

    Core::Monitor m_original;
    QStringList m_taken;
    QList<Core::MonitorCondition> m_extraConditions; ///< kept, not shown: a second condition of one kind
    QString m_problem;

    QLineEdit *m_name = nullptr;
    QComboBox *m_method = nullptr;
    QLineEdit *m_url = nullptr;
    QCheckBox *m_paused = nullptr;
    UnitSpinBox *m_interval = nullptr;
    UnitSpinBox *m_downInterval = nullptr;
    UnitSpinBox *m_timeout = nullptr;
    QComboBox *m_policy = nullptr;
    QSpinBox *m_downAfter = nullptr;
    QSpinBox *m_upAfter = nullptr;
    QLineEdit *m_status = nullptr;
    UnitSpinBox *m_maxResponseMs = nullptr;
    QLineEdit *m_bodyContains = nullptr;
    QLineEdit *m_jsonPointer = nullptr;
    QLineEdit *m_jsonEquals = nullptr;
    QLineEdit *m_header = nullptr;
    QLineEdit *m_headerMatches = nullptr;
    QSpinBox *m_certificateDays = nullptr;
    QLabel *m_extraNote = nullptr;
    FieldMessage *m_message = nullptr;
    QDialogButtonBox *m_buttons = nullptr;
};

} // namespace RetryLab::Ui
