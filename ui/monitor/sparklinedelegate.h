#pragma once

#include <QStyledItemDelegate>

namespace RetryLab::Ui {

/// Draws the durations of a monitor's recent checks
/// (MonitorListModel::SparklineRole) as a small line, scaled to the slowest of
/// them, with the item's text (their median) on its right.
class SparklineDelegate final : public QStyledItemDelegate
{
    Q_OBJECT

public:
    explicit SparklineDelegate(QObject *parent = nullptr);

    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;

    /// Where the line is drawn in an item's rect (the text takes the rest, on the right).
    static QRect lineRect(const QRect &itemRect, int textWidth);
};

} // namespace RetryLab::Ui
