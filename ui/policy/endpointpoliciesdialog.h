#pragma once

#include "core/policy/endpointpolicy.h"

#include <QDialog>
#include <QList>

class QLabel;
class QPushButton;
class QTableWidget;

namespace RetryLab::Ui {

/// Policy > Endpoint policies: a policy of its own for the requests to some
/// hosts or paths (Azure: tune the strategy to the operation; uploads may retry
/// like a batch job while a page's calls fail fast). One row per rule, the
/// first that matches a request's URL wins; the other requests run under the
/// policy dock's policy. The policy of a row is a preset or one of the user's.
class EndpointPoliciesDialog final : public QDialog
{
    Q_OBJECT

public:
    /// `userPresets` are offered after the built-in presets.
    explicit EndpointPoliciesDialog(const QList<Core::BackoffPolicy> &userPresets, QWidget *parent = nullptr);

    void setPolicies(const QList<Core::EndpointPolicy> &policies);
    /// The rows as rules; a row whose path does not start with "/" makes
    /// problem() say so and is left out.
    QList<Core::EndpointPolicy> policies() const;
    QString problem() const;

    /// Adds a row (for the Add button and tests): host, path, index of the policy choice.
    void addRow(const QString &host = {}, const QString &path = {}, int choice = 0);

private:
    void refreshProblem();

    QList<Core::BackoffPolicy> m_choices;
    QStringList m_origins;
    QTableWidget *m_table = nullptr;
    QPushButton *m_remove = nullptr;
    QLabel *m_problem = nullptr;
};

} // namespace RetryLab::Ui
