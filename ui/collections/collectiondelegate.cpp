#include "ui/collections/collectiondelegate.h"

#include "ui/collections/collectionmodel.h"

#include <QApplication>
#include <QFontMetrics>
#include <QPainter>
#include <QPalette>

namespace RetryLab::Ui {

namespace {

QColor methodColor(const QString &method, const QPalette &palette)
{
    const bool dark = palette.color(QPalette::Base).lightness() < 128;
    QColor color;
    if (method == QLatin1String("GET"))
        color = QColor(0x2e, 0x7d, 0x32);
    else if (method == QLatin1String("POST"))
        color = QColor(0xb2, 0x6a, 0x00);
    else if (method == QLatin1String("PUT") || method == QLatin1String("PATCH"))
        color = QColor(0x15, 0x65, 0xc0);
    else if (method == QLatin1String("DELETE"))
        color = QColor(0xc6, 0x28, 0x28);
    else
        color = palette.color(QPalette::PlaceholderText);
    return dark ? color.lighter(160) : color;
}

QFont badgeFont(const QFont &base)
{
    QFont font = base;
    font.setBold(true);
    font.setPointSizeF(base.pointSizeF() > 0 ? base.pointSizeF() * 0.8 : 7.0);
    return font;
}

} // namespace

int CollectionDelegate::badgeWidth(const QFont &font)
{
    return QFontMetrics(badgeFont(font)).horizontalAdvance(QStringLiteral("DELETE")) + 6;
}

void CollectionDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    const QString method = index.data(CollectionModel::MethodRole).toString();
    if (method.isEmpty()) {
        QStyledItemDelegate::paint(painter, option, index);
        return;
    }
    QStyleOptionViewItem textOption = option;
    initStyleOption(&textOption, index);
    const int badge = badgeWidth(option.font);
    // The row's background and selection first, then the badge, then the name beside it.
    const QString name = textOption.text;
    textOption.text.clear();
    const QWidget *widget = option.widget;
    QStyle *style = widget ? widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &textOption, painter, widget);

    const QRect area = style->subElementRect(QStyle::SE_ItemViewItemText, &textOption, widget);
    painter->save();
    painter->setFont(badgeFont(option.font));
    const bool selected = option.state & QStyle::State_Selected;
    painter->setPen(selected ? option.palette.color(QPalette::HighlightedText) : methodColor(method, option.palette));
    const QString shown = method.size() > 6 ? method.left(5) + QChar(0x2026) : method;
    painter->drawText(QRect(area.left(), area.top(), badge, area.height()), Qt::AlignLeft | Qt::AlignVCenter, shown);
    painter->restore();

    painter->save();
    painter->setFont(option.font);
    painter->setPen(option.palette.color(selected ? QPalette::HighlightedText : QPalette::Text));
    const QRect nameRect = area.adjusted(badge, 0, 0, 0);
    painter->drawText(nameRect, Qt::AlignLeft | Qt::AlignVCenter,
        QFontMetrics(option.font).elidedText(name, Qt::ElideRight, nameRect.width()));
    painter->restore();
}

QSize CollectionDelegate::sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QSize size = QStyledItemDelegate::sizeHint(option, index);
    if (!index.data(CollectionModel::MethodRole).toString().isEmpty())
        size.rwidth() += badgeWidth(option.font);
    return size;
}

} // namespace RetryLab::Ui
