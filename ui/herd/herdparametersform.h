#pragma once

#include "core/herd/herdparameters.h"
#include "core/util/result.h"

#include <QWidget>

class QCheckBox;
class QColor;
class QComboBox;
class QDoubleSpinBox;
class QGroupBox;
class QLineEdit;
class QListWidget;
class QSpinBox;

namespace RetryLab::Ui {

/// The herd simulator's parameters as a form: the model and the grid of client
/// counts, the strategies to compare, the shared backoff, the network, the server
/// and the outage. Fields a model does not use are disabled; choosing another model
/// loads its defaults but keeps the grid and the strategies, which are the user's.
class HerdParametersForm final : public QWidget
{
    Q_OBJECT

public:
    explicit HerdParametersForm(QWidget *parent = nullptr);

    /// What the form describes, or every reason it cannot be simulated, one per
    /// line, each naming its field ("clients: ...", "outageEndMs: ...").
    Core::Result<Core::HerdParameters> parameters() const;
    /// Fills the form (the model's own fields are enabled accordingly); edited() follows once.
    void setParameters(const Core::HerdParameters &parameters);

    /// The swatch next to a strategy in the list; the charts draw it in the same colour.
    void setStrategyColor(const Core::HerdStrategy &strategy, const QColor &color);

Q_SIGNALS:
    /// The form changed (by the user or setParameters()); parameters() says whether it is valid.
    void edited();

private:
    Core::HerdModel model() const;
    /// setParameters() without edited(), for callers that emit it once themselves.
    void fill(const Core::HerdParameters &parameters);
    void updateEnabledFields();
    void handleModelChanged();

    QComboBox *m_model = nullptr;
    QLineEdit *m_clients = nullptr;
    QSpinBox *m_runs = nullptr;
    QLineEdit *m_seed = nullptr;
    QListWidget *m_strategies = nullptr;
    QDoubleSpinBox *m_base = nullptr;
    QDoubleSpinBox *m_cap = nullptr;
    QDoubleSpinBox *m_multiplier = nullptr;
    QDoubleSpinBox *m_jitter = nullptr;
    QSpinBox *m_maxAttempts = nullptr;
    QDoubleSpinBox *m_deadline = nullptr;
    QDoubleSpinBox *m_networkMean = nullptr;
    QDoubleSpinBox *m_networkSd = nullptr;
    QComboBox *m_arrivals = nullptr;
    QDoubleSpinBox *m_arrivalRate = nullptr;
    QGroupBox *m_serverGroup = nullptr;
    QDoubleSpinBox *m_serviceRate = nullptr;
    QSpinBox *m_queue = nullptr;
    QComboBox *m_status = nullptr;
    QSpinBox *m_retryAfter = nullptr;
    QCheckBox *m_honourRetryAfter = nullptr;
    QCheckBox *m_rateLimiter = nullptr;
    QGroupBox *m_outageGroup = nullptr;
    QDoubleSpinBox *m_outageStart = nullptr;
    QDoubleSpinBox *m_outageEnd = nullptr;
    QGroupBox *m_latencyGroup = nullptr;
    QDoubleSpinBox *m_latencyMedian = nullptr;
    QDoubleSpinBox *m_latencySigma = nullptr;
    QDoubleSpinBox *m_failureRate = nullptr;
    QSpinBox *m_hedgedAttempts = nullptr;
    QDoubleSpinBox *m_hedgingDelay = nullptr;
    QDoubleSpinBox *m_bin = nullptr;
};

} // namespace RetryLab::Ui
