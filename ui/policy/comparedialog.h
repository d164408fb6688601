#pragma once

#include "core/policy/backoffpolicy.h"
#include "core/scenario/policycomparison.h"

#include <QDialog>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace RetryLab::Ui {

class ComparisonTimeline;
class PolicyStackChooser;

/// Policy > Compare policies: two to four policies run one scripted fault
/// scenario at once, against separate copies of its scripts and with one seed
/// (Core::PolicyComparison), shown as stacked timelines on one time axis with
/// a summary row each. The same as `retrylab compare`.
class CompareDialog final : public QDialog
{
    Q_OBJECT

public:
    explicit CompareDialog(QWidget *parent = nullptr);
    ~CompareDialog() override;

    void setCurrentPolicy(const Core::BackoffPolicy &policy);
    PolicyStackChooser *chooser() const { return m_chooser; }
    /// A scenario file, or one of the built-in ones (":/scenarios/...").
    void setScenarioPath(const QString &path);
    void setSeed(std::optional<quint64> seed);

    /// Starts the comparison; false (and the reason shown) when it cannot.
    bool run();
    bool isRunning() const;
    const QList<Core::ComparisonRow> &rows() const;
    QString statusText() const;
    /// The one line a stakeholder takes away: how B did against A ("B (No retries) sent 40 %
    /// fewer attempts than A (AWS) and finished 1.2 s sooner; both succeeded 20 of 20.").
    /// Empty with fewer than two rows.
    static QString verdictText(const QList<Core::ComparisonRow> &rows);

Q_SIGNALS:
    void comparisonFinished();

private:
    void showResults();
    void chooseScenarioFile();

    PolicyStackChooser *m_chooser = nullptr;
    QComboBox *m_scenario = nullptr;
    QLineEdit *m_seed = nullptr;
    QPushButton *m_run = nullptr;
    QLabel *m_status = nullptr;
    QLabel *m_verdict = nullptr;
    QLabel *m_legend = nullptr;
    ComparisonTimeline *m_timeline = nullptr;
    QTableWidget *m_summary = nullptr;
    std::unique_ptr<Core::PolicyComparison> m_comparison;
};

} // namespace RetryLab::Ui
