#pragma once

#include "core/policy/backoffpolicy.h"

#include <QList>
#include <QStringList>
#include <QWidget>

class QComboBox;

namespace RetryLab::Ui {

/// Two to four policy choices in a column (the layer calculator's layers, the
/// compared policies): each offers the policy being edited ("Current policy:
/// NAME") and every preset; the rows after `required` also offer "(none)".
class PolicyStackChooser final : public QWidget
{
    Q_OBJECT

public:
    /// One row per title; the first `required` rows always hold a policy.
    PolicyStackChooser(const QStringList &titles, int required, QWidget *parent = nullptr);

    void setCurrentPolicy(const Core::BackoffPolicy &policy);
    /// Picks what a row holds: 0 the current policy, 1... the presets in order,
    /// and after them "(none)" in an optional row.
    void setChoice(int row, int choice);
    /// The chosen policies in order, "(none)" rows left out.
    QList<Core::BackoffPolicy> policies() const;
    /// Where each chosen policy came from: "current policy", "preset ID".
    QStringList origins() const;
    QComboBox *combo(int row) const { return m_combos.value(row); }

Q_SIGNALS:
    void changed();

private:
    void fill();
    /// Whether choice `choice` is the current policy again (equal, or of the same name).
    bool showsCurrentPolicy(int choice) const;
    /// The next preset after `index` that is not the current policy.
    int differentChoiceAfter(int index) const;

    int m_required;
    Core::BackoffPolicy m_current;
    QList<Core::BackoffPolicy> m_choices; ///< [0] is the current policy
    QStringList m_origins;
    QList<QComboBox *> m_combos;
};

} // namespace RetryLab::Ui
