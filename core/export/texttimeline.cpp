#include "core/export/texttimeline.h"

#include "core/record/runstatistics.h"
#include "core/util/coretr.h"
#include "core/util/durationtext.h"

#include <QCoreApplication>
#include <QHash>

#include <algorithm>
#include <cmath>

namespace RetryLab::Core::TextTimeline {

namespace {

double msSinceStart(const RunRecord &run, qint64 ns)
{
    return double(ns - run.epochNs) / 1e6;
}

QChar markFor(AttemptOutcome outcome)
{
    switch (outcome) {
    case AttemptOutcome::Success:
        return QLatin1Char('o');
    case AttemptOutcome::Retried:
        return QLatin1Char('x');
    case AttemptOutcome::Failed:
        return QLatin1Char('!');
    case AttemptOutcome::Cancelled:
        return QLatin1Char('c');
    case AttemptOutcome::InFlight:
        break;
    }
    return QLatin1Char('?');
}

} // namespace

int column(double ms, double spanMs, int width)
{
    if (!(spanMs > 0.0) || width <= 0 || !std::isfinite(ms))
        return 0;
    const double position = std::floor(ms / spanMs * width);
    return static_cast<int>(std::clamp(position, 0.0, double(width - 1)));
}

double tickStepMs(double spanMs, int width, int minColumns)
{
    if (!(spanMs > 0.0) || width <= 0)
        return 1.0;
    const double minStep = spanMs * std::max(1, minColumns) / width;
    double magnitude = std::pow(10.0, std::floor(std::log10(std::max(minStep, 1e-3))));
    for (;;) {
        for (double factor : {1.0, 2.0, 5.0}) {
            if (magnitude * factor >= minStep)
                return magnitude * factor;
        }
        magnitude *= 10.0;
    }
}

QString legend()
{
    return Tr::tr("o succeeded   x failed, retried   ! failed for good   c cancelled   - waiting   "
                  "= hedged: attempts in flight side by side   2-9 retried attempts in one column");
}

QStringList render(const RunRecord &run, const QList<Lane> &lanes, const Options &options)
{
    const int width = std::clamp(options.width, 10, 1000);
    QHash<quint64, QList<const AttemptRecord *>> attempts;
    for (const AttemptRecord &a : run.attempts)
        attempts[a.requestId].append(&a);
    QHash<quint64, const RequestResult *> results;
    for (const RequestResult &r : run.results)
        results.insert(r.requestId, &r);

    double span = options.spanMs;
    if (!(span > 0.0)) {
        for (const Lane &lane : lanes) {
            if (const RequestResult *r = results.value(lane.requestId))
                span = std::max(span, msSinceStart(run, r->endNs));
            for (const AttemptRecord *a : attempts.value(lane.requestId))
                span = std::max(span, msSinceStart(run, std::max(a->startNs, a->endNs)));
        }
        // A little room after the last mark, so that it is not squeezed into the edge.
        span = span > 0.0 ? span * 1.02 : 1000.0;
    }

    qsizetype labelWidth = 0;
    for (const Lane &lane : lanes)
        labelWidth = std::max(labelWidth, lane.label.size());
    const QString indent(labelWidth + 2, QLatin1Char(' '));

    // The ruler: a label above every tick that has room for it.
    const double step = tickStepMs(span, width, 10);
    QString labels(width + 12, QLatin1Char(' '));
    QString ticks(width, QLatin1Char('-'));
    int freeFrom = 0;
    for (int i = 0;; ++i) {
        const double t = i * step;
        if (t >= span) // the right edge is the end of the last column, not a column of its own
            break;
        const int col = column(t, span, width);
        ticks[col] = QLatin1Char('+');
        const QString text = DurationText::format(t);
        if (col >= freeFrom && col + text.size() <= labels.size()) {
            labels.replace(col, text.size(), text);
            freeFrom = col + static_cast<int>(text.size()) + 1;
        }
    }
    QString ruler = indent + QLatin1Char(' ') + labels;
    while (ruler.endsWith(QLatin1Char(' ')))
        ruler.chop(1);
    QStringList lines{ruler};
    lines.append(indent + QLatin1Char('|') + ticks + QLatin1Char('|'));

    for (const Lane &lane : lanes) {
        QString row(width, QLatin1Char(' '));
        QList<int> retriedHere(width, 0);
        QList<const AttemptRecord *> own = attempts.value(lane.requestId);
        std::sort(own.begin(), own.end(),
            [](const AttemptRecord *a, const AttemptRecord *b) { return a->attemptIndex < b->attemptIndex; });
        const RequestResult *result = results.value(lane.requestId);

        // Waiting: from the first attempt's start to the last one's (still running: to its end so far).
        if (!own.isEmpty()) {
            const int from = column(msSinceStart(run, own.first()->startNs), span, width);
            const qint64 endNs = result ? own.last()->startNs : std::max(own.last()->startNs, own.last()->endNs);
            const int to = column(msSinceStart(run, endNs), span, width);
            for (int c = from; c <= to; ++c)
                row[c] = QLatin1Char('-');
        }
        // A hedged request waited for nothing: its attempts ran side by side.
        if (std::any_of(own.cbegin(), own.cend(), [](const AttemptRecord *a) { return a->hedged; })) {
            for (const AttemptRecord *a : std::as_const(own)) {
                const int from = column(msSinceStart(run, a->startNs), span, width);
                const int to = column(msSinceStart(run, std::max(a->startNs, a->endNs)), span, width);
                for (int c = from; c <= to; ++c)
                    row[c] = QLatin1Char('=');
            }
        }
        for (const AttemptRecord *a : std::as_const(own)) {
            const int c = column(msSinceStart(run, a->startNs), span, width);
            const AttemptOutcome outcome = attemptOutcomeOf(*a);
            const QChar current = row[c];
            const bool finalMark = current == QLatin1Char('o') || current == QLatin1Char('!');
            if (outcome == AttemptOutcome::Retried) {
                if (finalMark)
                    continue;
                const int count = ++retriedHere[c];
                row[c] = count == 1 ? QLatin1Char('x')
                    : count <= 9    ? QChar(QLatin1Char('0' + count))
                                    : QLatin1Char('+');
            } else {
                row[c] = markFor(outcome);
            }
        }

        QString summary;
        if (result) {
            const QString total = DurationText::format(result->totalMs());
            summary = result->outcome == RequestOutcome::Succeeded
                ? Tr::tr("%n attempt(s), %1", nullptr, result->attempts).arg(total)
                : Tr::tr("%n attempt(s), %1 after %2", nullptr, result->attempts)
                      .arg(requestOutcomeName(result->outcome), total);
        } else {
            summary = Tr::tr("%n attempt(s) so far", nullptr, static_cast<int>(own.size()));
        }
        lines.append(lane.label.leftJustified(labelWidth + 2) + QLatin1Char('|') + row + QLatin1Char('|')
            + QStringLiteral("  ") + summary);
    }
    return lines;
}

} // namespace RetryLab::Core::TextTimeline
