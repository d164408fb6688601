#pragma once

#include <QStyledItemDelegate>

namespace RetryLab::Ui {

/// Draws a request's method as a small coloured badge before its name (GET,
/// POST...), as API clients do, so that a list of requests reads at a glance.
/// The badge's text is always there: the colour only repeats it.
class CollectionDelegate final : public QStyledItemDelegate
{
    Q_OBJECT

public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;

    /// The badge's width for the given font: the widest method.
    static int badgeWidth(const QFont &font);
};

} // namespace RetryLab::Ui
