#include "ui/monitor/sparklinedelegate.h"

#include "core/record/attemptrecord.h"
#include "ui/monitor/monitorlistmodel.h"
#include "ui/widgets/outcomestyle.h"

#include <QApplication>
#include <QPainter>
#include <QPolygonF>

#include <algorithm>

namespace RetryLab::Ui {

namespace {

constexpr int sparkMargin = 3;
constexpr int sparkLineWidth = 60;

} // namespace

SparklineDelegate::SparklineDelegate(QObject *parent) : QStyledItemDelegate(parent)
{ }

QRect SparklineDelegate::lineRect(const QRect &itemRect, int textWidth)
{
    const QRect inner = itemRect.adjusted(sparkMargin, sparkMargin, -sparkMargin, -sparkMargin);
    const int width = std::max(0, inner.width() - textWidth - sparkMargin);
    return QRect(inner.left(), inner.top(), width, inner.height());
}

void SparklineDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    const QString text = opt.text;
    opt.text.clear();
    const QWidget *widget = option.widget;
    QStyle *style = widget ? widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, widget);

    const bool selected = option.state & QStyle::State_Selected;
    const QColor textColour = option.palette.color(selected ? QPalette::HighlightedText : QPalette::Text);
    const int textWidth = option.fontMetrics.horizontalAdvance(text) + sparkMargin;
    const QRect textRect(
        option.rect.right() - textWidth - sparkMargin + 1, option.rect.top(), textWidth, option.rect.height());
    painter->save();
    painter->setPen(textColour);
    painter->drawText(textRect, Qt::AlignRight | Qt::AlignVCenter, text);

    const auto durations = index.data(MonitorListModel::SparklineRole).value<QList<double>>();
    const QRect line = lineRect(option.rect, textWidth);
    if (durations.size() >= 2 && line.width() > 4 && line.height() > 2) {
        const double slowest = std::max(1.0, *std::max_element(durations.cbegin(), durations.cend()));
        QPolygonF points;
        points.reserve(durations.size());
        const double step = double(line.width() - 1) / double(durations.size() - 1);
        for (qsizetype i = 0; i < durations.size(); ++i) {
            const double y = line.bottom() - (durations.at(i) / slowest) * (line.height() - 1);
            points.append(QPointF(line.left() + double(i) * step, y));
        }
        painter->setRenderHint(QPainter::Antialiasing);
        painter->setPen(QPen(selected ? textColour : outcomeColor(Core::AttemptOutcome::InFlight), 1.5));
        painter->drawPolyline(points);
    }
    painter->restore();
}

QSize SparklineDelegate::sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    const QSize base = QStyledItemDelegate::sizeHint(option, index);
    return QSize(base.width() + sparkLineWidth + 2 * sparkMargin, base.height());
}

} // namespace RetryLab::Ui
