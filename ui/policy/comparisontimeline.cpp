#include "ui/policy/comparisontimeline.h"

#include "core/record/runstatistics.h"
#include "core/util/durationtext.h"
#include "ui/widgets/outcomestyle.h"
#include "ui/widgets/timeaxis.h"

#include <QPainter>

#include <algorithm>
#include <cmath>

namespace RetryLab::Ui {

namespace {

constexpr int laneHeight = 14;
constexpr int bandHeader = 22;
constexpr int axisHeight = 22;
constexpr int labelWidth = 200;
constexpr int margin = 8;

} // namespace

ComparisonTimeline::ComparisonTimeline(QWidget *parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("comparisonTimeline"));
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
}

void ComparisonTimeline::setRows(const QList<Core::ComparisonRow> &rows, double spanMs)
{
    m_rows = rows;
    m_spanMs = spanMs;
    updateGeometry();
    update();
}

int ComparisonTimeline::laneCount() const
{
    int lanes = 0;
    for (const Core::ComparisonRow &row : m_rows)
        lanes += int(row.record.requests.size());
    return lanes;
}

QSize ComparisonTimeline::sizeHint() const
{
    return {720, axisHeight + 2 * margin + int(m_rows.size()) * bandHeader + laneCount() * laneHeight};
}

QSize ComparisonTimeline::minimumSizeHint() const
{
    return {labelWidth + 200, axisHeight + 2 * margin + int(m_rows.size()) * bandHeader};
}

void ComparisonTimeline::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing, false);
    const QPalette pal = palette();
    p.fillRect(rect(), pal.color(QPalette::Base));
    if (m_rows.isEmpty()) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("Choose the policies and a scenario, then Run."));
        return;
    }
    const double span = m_spanMs > 0.0 ? m_spanMs : 1.0;
    const int left = labelWidth;
    const int right = width() - margin;
    const double pxPerMs = double(std::max(1, right - left)) / span;
    const auto x = [&](double ms) { return left + int(std::lround(ms * pxPerMs)); };

    // The axis, with ticks 1-2-5 apart and at least 90 px from each other.
    const double step = TimeAxis::timeStep(90.0 / pxPerMs);
    p.setPen(pal.color(QPalette::Text));
    for (double t = 0.0; t <= span + 1e-9; t += step) {
        p.drawLine(x(t), margin + axisHeight - 6, x(t), margin + axisHeight);
        const QString label = Core::DurationText::format(t);
        p.drawText(QRect(x(t) - 40, margin, 80, axisHeight - 6), Qt::AlignHCenter | Qt::AlignBottom, label);
    }
    QColor grid = pal.color(QPalette::Text);
    grid.setAlpha(40);

    int y = margin + axisHeight;
    for (qsizetype band = 0; band < m_rows.size(); ++band) {
        const Core::ComparisonRow &row = m_rows.at(band);
        p.fillRect(QRect(0, y, width(), bandHeader), pal.color(QPalette::AlternateBase));
        QFont bold = font();
        bold.setBold(true);
        p.setFont(bold);
        p.setPen(pal.color(QPalette::Text));
        p.drawText(QRect(margin, y, width() - 2 * margin, bandHeader), Qt::AlignVCenter | Qt::AlignLeft,
            tr("%1: %2: %3 of %4 succeeded, %n attempt(s), busiest second %5", nullptr, int(row.attempts))
                .arg(QString(QChar(u'A' + int(band))), row.policy.name)
                .arg(row.succeeded)
                .arg(row.requests)
                .arg(row.peakAttemptsPerSecond));
        p.setFont(font());
        y += bandHeader;
        QList<quint64> ids = row.record.requests.keys();
        std::sort(ids.begin(), ids.end());
        for (quint64 id : std::as_const(ids)) {
            const QString label = row.record.requests.value(id).label;
            p.setPen(pal.color(QPalette::Text));
            p.drawText(QRect(margin * 2, y, labelWidth - 3 * margin, laneHeight), Qt::AlignVCenter | Qt::AlignLeft,
                label.isEmpty() ? tr("request %1").arg(id) : label);
            p.setPen(grid);
            p.drawLine(left, y + laneHeight / 2, right, y + laneHeight / 2);
            // The request's attempts in the order they started (a hedged request reports its winner first).
            QList<const Core::AttemptRecord *> attempts;
            bool hedged = false;
            for (const Core::AttemptRecord &a : row.record.attempts) {
                if (a.requestId == id && a.startNs >= 0) {
                    attempts.append(&a);
                    hedged = hedged || a.hedged;
                }
            }
            std::sort(attempts.begin(), attempts.end(),
                [](const Core::AttemptRecord *a, const Core::AttemptRecord *b) { return a->startNs < b->startNs; });
            // Hedged attempts overlap: each gets a track of the lane, the first free one when it starts.
            QList<int> trackOf;
            QList<qint64> trackEnds;
            for (const Core::AttemptRecord *a : std::as_const(attempts)) {
                qsizetype track = 0;
                while (hedged && track < trackEnds.size() && trackEnds.at(track) > a->startNs)
                    ++track;
                if (track == trackEnds.size())
                    trackEnds.append(0);
                trackEnds[track] = std::max(a->startNs, a->endNs);
                trackOf.append(int(track));
            }
            const int tracks = hedged ? int(trackEnds.size()) : 1;
            const int trackHeight = std::max(2, (laneHeight - 4) / tracks);
            double previousEnd = -1.0;
            for (qsizetype i = 0; i < attempts.size(); ++i) {
                const Core::AttemptRecord &a = *attempts.at(i);
                const double start = double(a.startNs - row.record.epochNs) / 1e6;
                const double end = a.endNs >= a.startNs ? double(a.endNs - row.record.epochNs) / 1e6 : start;
                if (previousEnd >= 0.0 && !hedged) {
                    p.setPen(QPen(pal.color(QPalette::Mid), 1));
                    p.drawLine(x(previousEnd), y + laneHeight / 2, x(start), y + laneHeight / 2);
                }
                // At least 3 px, so that a quick attempt still shows; the answer a hedge kept, 5.
                const int from = x(start);
                const int to = std::max(from + (a.hedgeWinner ? 5 : 3), x(end));
                const QRect bar = hedged
                    ? QRect(from, y + 2 + trackOf.at(i) * trackHeight, to - from, std::max(2, trackHeight - 1))
                    : QRect(from, y + 2, to - from, laneHeight - 4);
                p.fillRect(bar, readableOn(outcomeColor(Core::attemptOutcomeOf(a)), pal.color(QPalette::Base)));
                if (hedged && a.hedgeWinner && bar.width() >= 8) {
                    // The answer the hedged request kept.
                    p.setPen(QPen(hedgeWinnerColor(), 2));
                    p.setBrush(Qt::NoBrush);
                    p.drawRect(bar.adjusted(1, 1, -1, -1));
                }
                previousEnd = end;
            }
            y += laneHeight;
        }
    }
}

} // namespace RetryLab::Ui
