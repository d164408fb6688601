#include "ui/monitor/beatbardelegate.h"

#include "core/record/attemptrecord.h"
#include "core/util/durationtext.h"
#include "ui/monitor/monitorlistmodel.h"
#include "ui/widgets/outcomestyle.h"

#include <QAbstractItemView>
#include <QApplication>
#include <QDateTime>
#include <QHelpEvent>
#include <QLocale>
#include <QLoggingCategory>
#include <QPainter>
#include <QToolTip>

#include <algorithm>

namespace RetryLab::Ui {

Q_LOGGING_CATEGORY(lcBeatBarDelegate, "retrylab.ui.beatbardelegate")

namespace {

constexpr int beatMargin = 2; // left and right of the bar
constexpr int beatTop = 3;
constexpr int beatMarkHeight = 3; // the failed check's bar under its cell
constexpr int beatMarkGap = 1;
constexpr int beatCellWidth = 5; // in the size hint; a wider column widens every cell

int cellPitch(const QRect &itemRect)
{
    return std::max(1, (itemRect.width() - 2 * beatMargin) / MonitorListModel::beatCount);
}

// A check's attempts, bottom to top: the failed ones first (they came first),
// then the successful one. Thin cells show as many as fit, the last one kept.
void paintSegments(QPainter *painter, const QRect &cell, const MonitorBeat &beat)
{
    const QColor success = outcomeColor(Core::AttemptOutcome::Success);
    const QColor failure = outcomeColor(Core::AttemptOutcome::Failed);
    int segments = std::max(1, beat.attempts);
    const int gap = 1;
    segments = std::min(segments, std::max(1, (cell.height() + gap) / (2 + gap)));
    const int failed = std::min(std::max(0, beat.failedAttempts), std::max(1, beat.attempts));
    const int height = (cell.height() - gap * (segments - 1)) / segments;
    for (int i = 0; i < segments; ++i) {
        // The last segment is the last attempt; when some are left out, the first ones are.
        const int attempt = i == segments - 1 ? std::max(1, beat.attempts) - 1 : i;
        const bool ok = beat.success ? attempt >= failed : false;
        const int bottom = cell.bottom() - i * (height + gap);
        const int top = i == segments - 1 ? cell.top() : bottom - height + 1;
        painter->fillRect(QRect(QPoint(cell.left(), top), QPoint(cell.right(), bottom)), ok ? success : failure);
    }
}

} // namespace

BeatBarDelegate::BeatBarDelegate(QObject *parent) : QStyledItemDelegate(parent)
{ }

QRect BeatBarDelegate::cellRect(const QRect &itemRect, int slot)
{
    const int pitch = cellPitch(itemRect);
    const int gap = pitch >= 3 ? 1 : 0;
    const int left = itemRect.left() + beatMargin + slot * pitch;
    const int top = itemRect.top() + beatTop;
    const int bottom = itemRect.bottom() - beatTop - beatMarkHeight - beatMarkGap + 1;
    return QRect(QPoint(left, top), QPoint(left + pitch - gap - 1, std::max(top, bottom)));
}

QRect BeatBarDelegate::markRect(const QRect &itemRect, int slot)
{
    const QRect cell = cellRect(itemRect, slot);
    return QRect(cell.left(), cell.bottom() + 1 + beatMarkGap, cell.width(), beatMarkHeight);
}

int BeatBarDelegate::slotAt(const QRect &itemRect, const QPoint &pos)
{
    if (!itemRect.contains(pos))
        return -1;
    const int slot = (pos.x() - itemRect.left() - beatMargin) / cellPitch(itemRect);
    if (pos.x() < itemRect.left() + beatMargin || slot >= MonitorListModel::beatCount)
        return -1;
    return slot;
}

void BeatBarDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    opt.text.clear(); // the text is for screen readers and copies; the cells say it here
    const QWidget *widget = option.widget;
    QStyle *style = widget ? widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, widget);

    const auto beats = index.data(MonitorListModel::BeatsRole).value<QList<MonitorBeat>>();
    const int count = MonitorListModel::beatCount;
    const int firstFilled = count - static_cast<int>(std::min<qsizetype>(beats.size(), count));
    const bool selected = option.state & QStyle::State_Selected;
    const QColor text = option.palette.color(selected ? QPalette::HighlightedText : QPalette::Text);
    const QColor empty = option.palette.color(QPalette::Mid);

    painter->save();
    for (int slot = 0; slot < count; ++slot) {
        const QRect cell = cellRect(option.rect, slot);
        if (slot < firstFilled) {
            painter->setPen(empty);
            painter->setBrush(Qt::NoBrush);
            painter->drawRect(cell.adjusted(0, 0, -1, -1));
            continue;
        }
        const MonitorBeat &beat = beats.at(beats.size() - (count - slot));
        if (beat.maintenance) {
            // Not counted: a neutral cell, hatched.
            painter->fillRect(cell, outcomeColor(Core::AttemptOutcome::Cancelled));
            painter->fillRect(cell, QBrush(text, Qt::BDiagPattern));
            continue;
        }
        paintSegments(painter, cell, beat);
        if (!beat.success)
            painter->fillRect(markRect(option.rect, slot), text);
    }
    painter->restore();
}

QSize BeatBarDelegate::sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    const QSize base = QStyledItemDelegate::sizeHint(option, index);
    return QSize(2 * beatMargin + MonitorListModel::beatCount * beatCellWidth, std::max(base.height(), 22));
}

QString BeatBarDelegate::describe(const MonitorBeat &beat)
{
    const QString when = QLocale().toString(QDateTime::fromMSecsSinceEpoch(beat.startMs), QLocale::ShortFormat);
    QString outcome;
    if (beat.maintenance)
        outcome
            = beat.success ? tr("succeeded, in maintenance (not counted)") : tr("failed, in maintenance (not counted)");
    else if (beat.success && beat.failedAttempts > 0)
        outcome = tr("succeeded after %n failed attempt(s)", nullptr, beat.failedAttempts);
    else if (beat.success)
        outcome = tr("succeeded");
    else
        outcome = tr("failed");
    QStringList lines{tr("%1: %2").arg(when, outcome),
        tr("%n attempt(s), %1", nullptr, beat.attempts).arg(Core::DurationText::format(beat.durationMs))};
    if (beat.status)
        lines.append(tr("HTTP %1").arg(*beat.status));
    if (!beat.reason.isEmpty())
        lines.append(beat.reason);
    return lines.join(QLatin1Char('\n'));
}

QString BeatBarDelegate::toolTipAt(const QRect &itemRect, const QModelIndex &index, const QPoint &pos)
{
    const int slot = slotAt(itemRect, pos);
    if (slot < 0)
        return {};
    const auto beats = index.data(MonitorListModel::BeatsRole).value<QList<MonitorBeat>>();
    const qsizetype at = beats.size() - (MonitorListModel::beatCount - slot);
    if (at < 0 || at >= beats.size())
        return tr("No check yet");
    return describe(beats.at(at));
}

bool BeatBarDelegate::helpEvent(
    QHelpEvent *event, QAbstractItemView *view, const QStyleOptionViewItem &option, const QModelIndex &index)
{
    if (!event || event->type() != QEvent::ToolTip || !index.isValid())
        return QStyledItemDelegate::helpEvent(event, view, option, index);
    const QString text = toolTipAt(option.rect, index, event->pos());
    if (text.isEmpty()) {
        QToolTip::hideText();
        return true;
    }
    qCDebug(lcBeatBarDelegate) << "tooltip at" << event->pos();
    QToolTip::showText(event->globalPos(), text, view, cellRect(option.rect, slotAt(option.rect, event->pos())));
    return true;
}

} // namespace RetryLab::Ui
