#pragma once

#include "core/observe/policyinference.h"
#include "core/observe/verdicts.h"

#include <QWidget>

class QLabel;
class QPushButton;
class QTableWidget;

namespace RetryLab::Ui {

/// What RetryLab makes of one observed client: its inferred policy with a
/// confidence and the evidence per value, one verdict per rule of the source
/// documents, the closest preset side by side, and "Make a policy like this
/// client", which hands the inferred policy to the policy dock.
class VerdictPanel final : public QWidget
{
    Q_OBJECT

public:
    explicit VerdictPanel(QWidget *parent = nullptr);

    /// Shows a client's inference; an empty name shows that none is selected.
    void show(const QString &clientName, const Core::InferredPolicy &policy, const QList<Core::Verdict> &verdicts);
    void showNothing(const QString &why);

    QTableWidget *verdictTable() const { return m_verdicts; }
    QTableWidget *policyTable() const { return m_policy; }
    QTableWidget *presetTable() const { return m_preset; }
    QPushButton *makePolicyButton() const { return m_makePolicy; }

Q_SIGNALS:
    /// "Make a policy like this client".
    void policyRequested(const RetryLab::Core::BackoffPolicy &policy);

private:
    QLabel *m_title;
    QLabel *m_summary;
    QTableWidget *m_policy;
    QTableWidget *m_verdicts;
    QLabel *m_presetTitle;
    QTableWidget *m_preset;
    QPushButton *m_makePolicy;
    Core::BackoffPolicy m_inferred;
};

} // namespace RetryLab::Ui
