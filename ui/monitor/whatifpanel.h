#pragma once

#include "core/history/historyfigures.h"
#include "core/policy/backoffpolicy.h"

#include <QList>
#include <QWidget>

#include <optional>

class QComboBox;
class QGridLayout;
class QLabel;
class QPushButton;

namespace RetryLab::Ui {

class FieldMessage;

/// Replays a monitor's recorded history under another policy: a preset, none
/// (one attempt per check) or the policy dock's, chosen here. Replay asks the
/// owner (whatIfRequested()); the owner answers with setResult(), which shows
/// the estimate beside what was recorded, labelled as an estimate with the
/// method in one line, or with setError().
class WhatIfPanel final : public QWidget
{
    Q_OBJECT

public:
    explicit WhatIfPanel(QWidget *parent = nullptr);

    /// The policy dock's policy, offered first as "The policy dock's".
    void setCurrentPolicy(const Core::BackoffPolicy &policy);
    void setResult(const Core::WhatIf &whatIf, const Core::MonitorSummary &actual);
    void clearResult();
    /// While a replay runs: Replay is disabled and the panel says so.
    void setBusy(bool busy);
    bool isBusy() const { return m_busy; }
    void setError(const QString &message);

    Core::BackoffPolicy chosenPolicy() const;
    QString chosenLabel() const;
    bool hasResult() const { return m_hasResult; }

    QComboBox *policyChooser() const { return m_policy; }
    QPushButton *replayButton() const { return m_replay; }
    FieldMessage *message() const { return m_message; }
    QLabel *methodLabel() const { return m_method; }
    /// The text of the results grid at (row, column): row 0 is the header,
    /// column 0 the figure's name, 1 what was recorded, 2 the estimate.
    QString resultText(int row, int column) const;
    int resultRows() const;

Q_SIGNALS:
    void whatIfRequested(const Core::BackoffPolicy &policy, const QString &policyLabel);

private:
    struct Choice
    {
        QString label;
        Core::BackoffPolicy policy;
    };
    void refillChoices();
    void handleReplay();
    void setRow(int row, const QString &name, const QString &actual, const QString &estimate);

    QList<Choice> m_choices;
    std::optional<Core::BackoffPolicy> m_dockPolicy;
    QString m_requestedLabel;
    bool m_busy = false;
    bool m_hasResult = false;
    QComboBox *m_policy;
    QPushButton *m_replay;
    FieldMessage *m_message;
    QWidget *m_results;
    QGridLayout *m_grid;
    QLabel *m_method;
};

} // namespace RetryLab::Ui
