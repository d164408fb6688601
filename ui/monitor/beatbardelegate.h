#pragma once

#include <QStyledItemDelegate>

namespace RetryLab::Ui {

struct MonitorBeat;

/// Draws a monitor's recent checks (MonitorListModel::BeatsRole) as a row of
/// cells, newest on the right, empty cells (an outline) where there is no
/// history yet. A cell is split into one segment per attempt, failed attempts
/// in the failure colour and the successful one in the success colour, so a
/// check that needed retries looks different from one that did not; a failed
/// check also gets a bar under its cell and a maintenance check is hatched, so
/// that neither depends on colour. The tooltip of a cell tells its check.
class BeatBarDelegate final : public QStyledItemDelegate
{
    Q_OBJECT

public:
    explicit BeatBarDelegate(QObject *parent = nullptr);

    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    bool helpEvent(QHelpEvent *event, QAbstractItemView *view, const QStyleOptionViewItem &option,
        const QModelIndex &index) override;

    /// Where slot `slot` (0 .. beatCount - 1, the newest last) is drawn in an item's rect.
    static QRect cellRect(const QRect &itemRect, int slot);
    /// The band under a cell where a failed check's mark goes.
    static QRect markRect(const QRect &itemRect, int slot);
    /// The slot under `pos`, or -1.
    static int slotAt(const QRect &itemRect, const QPoint &pos);
    /// The tooltip of the cell under `pos`; empty over an empty cell.
    static QString toolTipAt(const QRect &itemRect, const QModelIndex &index, const QPoint &pos);
    /// When, how many attempts, and how a check ended, for its tooltip.
    static QString describe(const MonitorBeat &beat);
};

} // namespace RetryLab::Ui
