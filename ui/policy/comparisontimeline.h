#pragma once

#include "core/scenario/policycomparison.h"

#include <QList>
#include <QWidget>

namespace RetryLab::Ui {

/// The compared runs stacked on one time axis: a band per policy with a lane
/// per logical request, each attempt a bar in its outcome's colour, the wait
/// before the next attempt a thin line. The same time scale for every band,
/// so that a policy that waits longer is visibly longer.
class ComparisonTimeline final : public QWidget
{
    Q_OBJECT

public:
    explicit ComparisonTimeline(QWidget *parent = nullptr);

    void setRows(const QList<Core::ComparisonRow> &rows, double spanMs);
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    int laneCount() const;

    QList<Core::ComparisonRow> m_rows;
    double m_spanMs = 0.0;
};

} // namespace RetryLab::Ui
