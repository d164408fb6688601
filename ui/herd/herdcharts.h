#pragma once

#include "core/herd/herdreport.h"

#include <QWidget>

class QChart;
class QChartView;
class QCheckBox;
class QColor;
class QComboBox;
class QLabel;
class QEvent;
class QPalette;

namespace RetryLab::Ui {

/// The herd simulator's charts of one report: calls and completion time against
/// the client count (a line per strategy, optionally on a logarithmic scale), and
/// the server load over time for one client count the user picks. They take the
/// widget's palette, so that a dark desktop gets dark charts.
class HerdCharts final : public QWidget
{
    Q_OBJECT

public:
    explicit HerdCharts(QWidget *parent = nullptr);

    /// Draws `report`. The load chart keeps its client count when the new report
    /// has it, and shows the largest one otherwise.
    void setReport(Core::HerdReport report);
    /// The report drawn (no cells before the first setReport()).
    const Core::HerdReport &report() const { return m_report; }

    /// A strategy's colour in every chart and in the strategy list, adjusted to be
    /// readable on the palette's base colour.
    static QColor strategyColor(const Core::HerdStrategy &strategy, const QPalette &pal);

protected:
    void changeEvent(QEvent *event) override;

private:
    void applyPalette();
    void styleAxes(QChart *chart) const;
    void plotGrid();
    void plotLoad();

    QChartView *m_callsView = nullptr;
    QChartView *m_completionView = nullptr;
    QChartView *m_loadView = nullptr;
    QComboBox *m_loadClients = nullptr;
    QCheckBox *m_logScale = nullptr;
    QLabel *m_takeAway = nullptr; ///< the strategy to use and why, above everything
    QLabel *m_summary = nullptr; ///< the run's result in one sentence, above the charts
    QLabel *m_legend = nullptr; ///< the strategies' colours, shared by the two grid charts
    void updateLegendAndSummary();

    Core::HerdReport m_report;
};

} // namespace RetryLab::Ui
