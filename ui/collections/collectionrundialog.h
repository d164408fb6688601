#pragma once

#include "core/runner/collectionrunner.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QSpinBox;

namespace RetryLab::Ui {

/// Asks how to run a collection or a folder, as `retrylab run` takes it on its
/// command line: the iterations, a delay between requests, whether to stop at
/// the first failure, the policy of requests that have none of their own (none:
/// one attempt each, or a built-in preset) and each attempt's timeout. The
/// environment is the one the sidebar has chosen; the dialog names it.
class CollectionRunDialog final : public QDialog
{
    Q_OBJECT

public:
    /// `what`: the collection or folder to run, for the title; `environmentName`:
    /// the environment in use (empty: none).
    CollectionRunDialog(const QString &what, const QString &environmentName, QWidget *parent = nullptr);

    /// The choices, on top of `base` (its variables, folders and the rest are kept).
    Core::CollectionRunOptions options(Core::CollectionRunOptions base = {}) const;
    /// Shows earlier choices (the last run's).
    void setOptions(const Core::CollectionRunOptions &options);

    QSpinBox *iterationsBox() const { return m_iterations; }
    QSpinBox *delayBox() const { return m_delay; }
    QCheckBox *bailBox() const { return m_bail; }
    QComboBox *policyBox() const { return m_policy; }
    /// 0: each request's own timeout, else its policy's.
    QSpinBox *timeoutBox() const { return m_timeout; }

private:
    QSpinBox *m_iterations;
    QSpinBox *m_delay;
    QCheckBox *m_bail;
    QComboBox *m_policy;
    QSpinBox *m_timeout;
};

} // namespace RetryLab::Ui
