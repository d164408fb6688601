#pragma once

#include "core/policy/backoffpolicy.h"

#include <QDialog>
#include <QList>

class QDoubleSpinBox;
class QLabel;

namespace RetryLab::Ui {

class PolicyStackChooser;

/// Policy > Layer calculator: two to four retry policies stacked, outermost
/// first (app -> SDK -> service mesh), and what the stack does when the server
/// fails: the worst-case and expected attempts at the server per user action
/// and the longest wait before the action gives up (Core::RetryLayers, exact),
/// checked by playing the stack on a virtual clock (Core::simulateLayers), with
/// a warning when the attempts exceed the threshold. The same as `retrylab layers`.
class LayerCalculator final : public QDialog
{
    Q_OBJECT

public:
    explicit LayerCalculator(QWidget *parent = nullptr);

    /// The policy being edited, offered first in every layer as "Current: NAME".
    void setCurrentPolicy(const Core::BackoffPolicy &policy);
    /// Picks what each layer holds: an index into the choices (0: the current
    /// policy, then the presets; in layers 3 and 4 the last choice is "none").
    void setLayerChoice(int layer, int choice);
    /// The stacked policies, outermost first (two to four).
    QList<Core::BackoffPolicy> stack() const;
    void setFailureProbability(double p);

    /// The figures as shown, for tests and the screenshot.
    QString resultText() const;
    QString warningText() const;

private:
    void recompute();

    PolicyStackChooser *m_layers = nullptr;
    QDoubleSpinBox *m_probability = nullptr;
    QDoubleSpinBox *m_failureMs = nullptr;
    QDoubleSpinBox *m_threshold = nullptr;
    QLabel *m_result = nullptr;
    QLabel *m_check = nullptr;
    QLabel *m_warning = nullptr;
};

} // namespace RetryLab::Ui
