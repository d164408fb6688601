#include "ui/run/timelinelegend.h"

#include "core/record/runstatistics.h"
#include "ui/widgets/outcomestyle.h"

#include <QCoreApplication>
#include <QFontMetrics>
#include <QPainter>
#include <QPalette>

namespace RetryLab::Ui::TimelineLegend {

using Core::AttemptOutcome;

namespace {

enum class Glyph { Swatch, Fallback, Winner, Marker, Planned, Actual };

struct Entry
{
    Glyph glyph;
    QString text;
    QColor colour;
};

QList<Entry> entries(const QColor &actualGap)
{
    QList<Entry> list;
    for (AttemptOutcome outcome : {AttemptOutcome::Success, AttemptOutcome::Retried, AttemptOutcome::Failed,
             AttemptOutcome::Cancelled, AttemptOutcome::InFlight})
        list.append({Glyph::Swatch, Core::attemptOutcomeTitle(outcome), outcomeColor(outcome)});
    list.append({Glyph::Fallback,
        QCoreApplication::translate("RetryLab::Ui::TimelineView", "at a fallback endpoint (band on top)"),
        fallbackColor()});
    list.append({Glyph::Winner,
        QCoreApplication::translate("RetryLab::Ui::TimelineView", "hedged: side by side, kept one outlined"),
        hedgeWinnerColor()});
    // The lane markers add one colour of their own: a request that was not worth retrying.
    list.append({Glyph::Marker, Core::requestOutcomeTitle(Core::RequestOutcome::GaveUp),
        requestOutcomeColor(Core::RequestOutcome::GaveUp)});
    list.append({Glyph::Planned, QCoreApplication::translate("RetryLab::Ui::TimelineView", "planned delay (dashed)"),
        QColor()});
    list.append(
        {Glyph::Actual, QCoreApplication::translate("RetryLab::Ui::TimelineView", "actual gap (solid)"), actualGap});
    return list;
}

constexpr int glyphWidth = 22;
constexpr int gap = 14;

int entryWidth(const Entry &entry, const QFontMetrics &fm)
{
    const int swatch = fm.height() - 6;
    const int glyph = entry.glyph == Glyph::Planned || entry.glyph == Glyph::Actual ? glyphWidth : swatch;
    return glyph + 4 + fm.horizontalAdvance(entry.text) + gap;
}

// Where each entry goes: its row, and its x within the row.
QList<QPoint> arrange(const QList<Entry> &list, int width, const QFontMetrics &fm)
{
    QList<QPoint> places;
    int x = 8;
    int row = 0;
    for (const Entry &entry : list) {
        const int w = entryWidth(entry, fm);
        if (x > 8 && x + w - gap > width - 4) {
            ++row;
            x = 8;
        }
        places.append({x, row});
        x += w;
    }
    return places;
}

} // namespace

int rowsFor(int width, const QFontMetrics &fm)
{
    const QList<QPoint> places = arrange(entries(QColor()), width, fm);
    return places.isEmpty() ? 1 : places.constLast().y() + 1;
}

void paint(QPainter &p, const QRect &band, const QPalette &palette, const QFontMetrics &fm, const QColor &actualGap)
{
    p.fillRect(band, palette.color(QPalette::Window));
    p.setPen(palette.color(QPalette::Mid));
    p.drawLine(band.topLeft(), band.topRight());

    const QList<Entry> list = entries(actualGap);
    const QList<QPoint> places = arrange(list, band.width(), fm);
    const int rows = places.isEmpty() ? 1 : places.constLast().y() + 1;
    const int rowHeight = band.height() / rows;
    const int swatch = fm.height() - 6;
    const QColor ink = withAlpha(palette.color(QPalette::Text), 190);
    for (qsizetype i = 0; i < list.size(); ++i) {
        const Entry &entry = list.at(i);
        const int x = places.at(i).x();
        const QRect row(band.left(), band.top() + places.at(i).y() * rowHeight, band.width(), rowHeight);
        const int middle = row.center().y();
        int textX = x + swatch + 4;
        switch (entry.glyph) {
        case Glyph::Swatch:
            p.fillRect(QRect(x, middle - swatch / 2, swatch, swatch), entry.colour);
            break;
        case Glyph::Fallback: {
            const QRect box(x, middle - swatch / 2, swatch, swatch);
            p.fillRect(box, outcomeColor(AttemptOutcome::Success));
            p.fillRect(QRect(box.left(), box.top(), box.width(), std::max(3, swatch / 3)), entry.colour);
            p.setPen(entry.colour);
            p.setBrush(Qt::NoBrush);
            p.drawRect(box.adjusted(0, 0, -1, -1));
            break;
        }
        case Glyph::Winner: {
            // Two thin bars, one above the other, the lower one outlined: two attempts at once, the second kept.
            const QRect box(x, middle - swatch / 2, swatch, swatch);
            const int half = box.height() / 2;
            p.fillRect(QRect(box.left(), box.top(), box.width(), half - 1), outcomeColor(AttemptOutcome::Cancelled));
            const QRect kept(box.left(), box.top() + half, box.width(), box.height() - half);
            p.fillRect(kept, outcomeColor(AttemptOutcome::Success));
            p.setPen(QPen(entry.colour, 2.0));
            p.setBrush(Qt::NoBrush);
            p.drawRect(kept.adjusted(1, 1, -1, -1));
            break;
        }
        case Glyph::Marker:
            p.fillRect(QRect(x, middle - swatch / 2, swatch / 2, swatch), entry.colour);
            break;
        case Glyph::Planned: {
            const int top = middle - 3;
            p.setPen(QPen(ink, 1.0, Qt::DashLine));
            p.drawLine(x, top, x + glyphWidth, top);
            p.setPen(QPen(ink, 1.0));
            p.drawLine(x, top, x, top + 4);
            p.drawLine(x + glyphWidth, top, x + glyphWidth, top + 4);
            textX = x + glyphWidth + 4;
            break;
        }
        case Glyph::Actual:
            p.setPen(QPen(entry.colour, 2.0, Qt::SolidLine, Qt::FlatCap));
            p.drawLine(x, middle, x + glyphWidth, middle);
            textX = x + glyphWidth + 4;
            break;
        }
        p.setPen(palette.color(QPalette::WindowText));
        p.drawText(QRect(textX, row.top(), fm.horizontalAdvance(entry.text) + 4, row.height()),
            Qt::AlignVCenter | Qt::AlignLeft, entry.text);
    }
}

} // namespace RetryLab::Ui::TimelineLegend
