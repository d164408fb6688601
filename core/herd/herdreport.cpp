#include "core/herd/herdreport.h"

#include "core/util/coretr.h"
#include "core/util/durationtext.h"

#include <QLocale>

#include <algorithm>
#include <cmath>

namespace RetryLab::Core {

namespace {

QString fixed(double value, int decimals = 2)
{
    return QString::number(value, 'f', decimals);
}

} // namespace

HerdStatistic HerdStatistic::of(const QList<double> &values)
{
    HerdStatistic s;
    if (values.isEmpty())
        return s;
    double sum = 0.0;
    s.min = values.first();
    s.max = values.first();
    for (double v : values) {
        sum += v;
        s.min = std::min(s.min, v);
        s.max = std::max(s.max, v);
    }
    const auto n = static_cast<double>(values.size());
    s.mean = sum / n;
    if (values.size() > 1) {
        double squares = 0.0;
        for (double v : values)
            squares += (v - s.mean) * (v - s.mean);
        s.stddev = std::sqrt(squares / (n - 1.0));
    }
    return s;
}

QList<QPointF> HerdCellResult::loadCurve(int maxPoints) const
{
    QList<QPointF> points;
    const qsizetype bins = meanLoadPerBin.size();
    if (bins == 0 || maxPoints < 1 || !(binMs > 0.0))
        return points;
    const double perSecond = 1000.0 / binMs;
    const auto at = [this](double bin) { return bin * binMs / 1000.0; };
    if (bins <= maxPoints) {
        points.reserve(bins);
        for (qsizetype i = 0; i < bins; ++i)
            points.append(QPointF(at(static_cast<double>(i) + 0.5), meanLoadPerBin[i] * perSecond));
        return points;
    }
    // Two points per group; the groups cover the bins evenly, the last one may be short.
    const qsizetype groups = std::max<qsizetype>(1, maxPoints / 2);
    const qsizetype width = (bins + groups - 1) / groups;
    points.reserve(2 * groups);
    for (qsizetype first = 0; first < bins; first += width) {
        const qsizetype end = std::min(bins, first + width);
        qsizetype low = first;
        qsizetype high = first;
        for (qsizetype i = first + 1; i < end; ++i) {
            if (meanLoadPerBin[i] < meanLoadPerBin[low])
                low = i;
            if (meanLoadPerBin[i] >= meanLoadPerBin[high])
                high = i; // the last of equal highs: a flat group spans its whole width
        }
        const qsizetype a = std::min(low, high);
        const qsizetype b = std::max(low, high);
        points.append(QPointF(at(static_cast<double>(a) + 0.5), meanLoadPerBin[a] * perSecond));
        if (b != a)
            points.append(QPointF(at(static_cast<double>(b) + 0.5), meanLoadPerBin[b] * perSecond));
    }
    return points;
}

double HerdCellResult::attemptsMean() const
{
    qint64 clientsSeen = 0;
    double attempts = 0.0;
    for (qsizetype k = 0; k < attemptHistogram.size(); ++k) {
        clientsSeen += attemptHistogram[k];
        attempts += static_cast<double>(k) * static_cast<double>(attemptHistogram[k]);
    }
    return clientsSeen > 0 ? attempts / static_cast<double>(clientsSeen) : 0.0;
}

int HerdCellResult::attemptsQuantile(double q) const
{
    qint64 total = 0;
    for (qint64 count : attemptHistogram)
        total += count;
    if (total == 0)
        return 0;
    const double wanted = std::clamp(q, 0.0, 1.0) * static_cast<double>(total);
    qint64 seen = 0;
    for (qsizetype k = 0; k < attemptHistogram.size(); ++k) {
        seen += attemptHistogram[k];
        if (static_cast<double>(seen) >= wanted && seen > 0)
            return static_cast<int>(k);
    }
    return attemptsMax();
}

int HerdCellResult::attemptsMax() const
{
    for (qsizetype k = attemptHistogram.size() - 1; k >= 0; --k) {
        if (attemptHistogram[k] > 0)
            return static_cast<int>(k);
    }
    return 0;
}

QString HerdReport::summarySentence() const
{
    if (cells.isEmpty())
        return {};
    const int clients
        = std::max_element(cells.cbegin(), cells.cend(), [](const HerdCellResult &a, const HerdCellResult &b) {
              return a.clients < b.clients;
          })->clients;
    QList<const HerdCellResult *> row;
    for (const HerdCellResult &cell : cells) {
        if (cell.clients == clients)
            row.append(&cell);
    }
    const auto count = [](double n) { return QLocale().toString(std::llround(n)); };
    if (parameters.model == HerdModel::Latency) {
        // Slow answers: what each strategy did to the tail, and what load it cost.
        const auto byTail = [](const HerdCellResult *a, const HerdCellResult *b) {
            return a->latencyP99Ms.mean < b->latencyP99Ms.mean;
        };
        const HerdCellResult *best = *std::min_element(row.cbegin(), row.cend(), byTail);
        const HerdCellResult *worst = *std::max_element(row.cbegin(), row.cend(), byTail);
        QString sentence = Tr::tr("At %1 clients %2 answered 99 % of them within %3 (median %4) for %5 calls")
                               .arg(QLocale().toString(clients), best->strategy.title(),
                                   DurationText::format(best->latencyP99Ms.mean),
                                   DurationText::format(best->latencyP50Ms.mean), count(best->calls.mean));
        if (worst != best) {
            sentence += Tr::tr("; %1 within %2 (median %3) for %4 calls")
                            .arg(worst->strategy.title(), DurationText::format(worst->latencyP99Ms.mean),
                                DurationText::format(worst->latencyP50Ms.mean), count(worst->calls.mean));
            if (worst->calls.mean > 0.0 && worst->latencyP99Ms.mean > 0.0) {
                const double load = (best->calls.mean / worst->calls.mean - 1.0) * 100.0;
                const double tail = (1.0 - best->latencyP99Ms.mean / worst->latencyP99Ms.mean) * 100.0;
                sentence += load >= 0.0 ? Tr::tr(": %1 % more load for a %2 % shorter tail")
                                              .arg(QLocale().toString(load, 'f', 0), QLocale().toString(tail, 'f', 0))
                                        : Tr::tr(": %1 % less load and a %2 % shorter tail")
                                              .arg(QLocale().toString(-load, 'f', 0), QLocale().toString(tail, 'f', 0));
            }
        }
        return sentence + QLatin1Char('.');
    }
    const auto byTime
        = [](const HerdCellResult *a, const HerdCellResult *b) { return a->completionMs.mean < b->completionMs.mean; };
    const HerdCellResult *first = *std::min_element(row.cbegin(), row.cend(), byTime);
    const HerdCellResult *last = *std::max_element(row.cbegin(), row.cend(), byTime);
    const QString clientsText = QLocale().toString(clients);
    QString sentence = Tr::tr("At %1 clients %2 was done first, after %3 and %4 calls")
                           .arg(clientsText, first->strategy.title(), DurationText::format(first->completionMs.mean),
                               count(first->calls.mean));
    if (last != first) {
        sentence
            += Tr::tr("; %1 took %2 and %3 calls")
                   .arg(last->strategy.title(), DurationText::format(last->completionMs.mean), count(last->calls.mean));
    }
    const HerdCellResult *fewest = *std::min_element(row.cbegin(), row.cend(),
        [](const HerdCellResult *a, const HerdCellResult *b) { return a->calls.mean < b->calls.mean; });
    if (fewest != first)
        sentence += Tr::tr("; %1 made the fewest calls (%2)").arg(fewest->strategy.title(), count(fewest->calls.mean));
    for (const HerdCellResult *cell : std::as_const(row)) {
        if (cell->succeededShare.mean < 0.9995) {
            sentence += Tr::tr("; under %1 only %2 % of the clients got through")
                            .arg(cell->strategy.title(), QLocale().toString(cell->succeededShare.mean * 100.0, 'f', 1));
            break;
        }
    }
    return sentence + QLatin1Char('.');
}

QString HerdReport::takeAway() const
{
    if (cells.isEmpty() || parameters.model == HerdModel::Latency)
        return {};
    int clients = 0;
    for (const HerdCellResult &cell : cells)
        clients = std::max(clients, cell.clients);
    QList<const HerdCellResult *> row;
    double bestShare = 0.0;
    for (const HerdCellResult &cell : cells) {
        if (cell.clients == clients) {
            row.append(&cell);
            bestShare = std::max(bestShare, cell.succeededShare.mean);
        }
    }
    // Getting clients through comes first; among those that got (about) as many through, the
    // fewest calls wins: that load is what keeps a recovering server down.
    const HerdCellResult *best = nullptr;
    for (const HerdCellResult *cell : std::as_const(row)) {
        if (cell->succeededShare.mean < bestShare - 0.0005)
            continue;
        if (!best || cell->calls.mean < best->calls.mean
            || (cell->calls.mean == best->calls.mean && cell->completionMs.mean < best->completionMs.mean))
            best = cell;
    }
    const auto count = [](double n) { return QLocale().toString(std::llround(n)); };
    const QString through = bestShare >= 0.9995
        ? Tr::tr("every client")
        : Tr::tr("%1 % of the clients").arg(QLocale().toString(best->succeededShare.mean * 100.0, 'f', 1));
    QString sentence = row.size() == 1
        ? Tr::tr("Take-away: at %1 clients %2 got %3 through with %4 calls")
              .arg(QLocale().toString(clients), best->strategy.title(), through, count(best->calls.mean))
        : Tr::tr("Take-away: at %1 clients use %2: it got %3 through with the fewest calls, %4")
              .arg(QLocale().toString(clients), best->strategy.title(), through, count(best->calls.mean));
    const HerdCellResult *quickest = *std::min_element(row.cbegin(), row.cend(),
        [](const HerdCellResult *a, const HerdCellResult *b) { return a->completionMs.mean < b->completionMs.mean; });
    if (quickest != best && quickest->completionMs.mean < best->completionMs.mean) {
        const QString sooner = Tr::tr("; %1 was done sooner (%2 against %3)")
                                   .arg(quickest->strategy.title(), DurationText::format(quickest->completionMs.mean),
                                       DurationText::format(best->completionMs.mean));
        if (quickest->succeededShare.mean < bestShare - 0.0005) {
            sentence += sooner
                + Tr::tr(" but got only %1 % of the clients through")
                      .arg(QLocale().toString(quickest->succeededShare.mean * 100.0, 'f', 1));
        } else if (best->calls.mean > 0.0 && quickest->calls.mean > best->calls.mean) {
            sentence += sooner
                + Tr::tr(" only by sending %1 % more calls")
                      .arg(QLocale().toString((quickest->calls.mean / best->calls.mean - 1.0) * 100.0, 'f', 0));
        }
    }
    return sentence + QLatin1Char('.');
}

const HerdCellResult *HerdReport::find(int clients, const HerdStrategy &strategy) const
{
    for (const HerdCellResult &cell : cells) {
        if (cell.clients == clients && cell.strategy == strategy)
            return &cell;
    }
    return nullptr;
}

QStringList HerdReport::csvColumns()
{
    return {
        QStringLiteral("model"),
        QStringLiteral("clients"),
        QStringLiteral("strategy"),
        QStringLiteral("runs"),
        QStringLiteral("calls"),
        QStringLiteral("calls_sd"),
        QStringLiteral("calls_min"),
        QStringLiteral("calls_max"),
        QStringLiteral("completion_ms"),
        QStringLiteral("completion_ms_sd"),
        QStringLiteral("completion_ms_min"),
        QStringLiteral("completion_ms_max"),
        QStringLiteral("succeeded_share"),
        QStringLiteral("succeeded_share_sd"),
        QStringLiteral("attempts_mean"),
        QStringLiteral("attempts_p50"),
        QStringLiteral("attempts_p90"),
        QStringLiteral("attempts_p99"),
        QStringLiteral("attempts_max"),
        QStringLiteral("peak_load_per_s"),
        QStringLiteral("peak_load_per_s_sd"),
        QStringLiteral("recovery_ms"),
        QStringLiteral("recovery_ms_sd"),
        QStringLiteral("recovery_peak_load_per_s"),
        QStringLiteral("gave_up"),
        QStringLiteral("unfinished"),
        QStringLiteral("latency_p50_ms"),
        QStringLiteral("latency_p99_ms"),
    };
}

QString HerdReport::toCsv() const
{
    const bool outage = parameters.model == HerdModel::Outage;
    QString csv = csvColumns().join(QLatin1Char(',')) + QLatin1Char('\n');
    for (const HerdCellResult &c : cells) {
        const QStringList row{
            herdModelName(parameters.model),
            QString::number(c.clients),
            c.strategy.name(),
            QString::number(c.runs),
            fixed(c.calls.mean),
            fixed(c.calls.stddev),
            fixed(c.calls.min, 0),
            fixed(c.calls.max, 0),
            fixed(c.completionMs.mean),
            fixed(c.completionMs.stddev),
            fixed(c.completionMs.min),
            fixed(c.completionMs.max),
            fixed(c.succeededShare.mean, 4),
            fixed(c.succeededShare.stddev, 4),
            fixed(c.attemptsMean(), 3),
            QString::number(c.attemptsQuantile(0.5)),
            QString::number(c.attemptsQuantile(0.9)),
            QString::number(c.attemptsQuantile(0.99)),
            QString::number(c.attemptsMax()),
            fixed(c.peakLoadPerSec.mean),
            fixed(c.peakLoadPerSec.stddev),
            // Recovery only means something when there was an outage: empty otherwise.
            outage ? fixed(c.recoveryMs.mean) : QString(),
            outage ? fixed(c.recoveryMs.stddev) : QString(),
            outage ? fixed(c.recoveryPeakLoadPerSec.mean) : QString(),
            QString::number(c.gaveUp),
            QString::number(c.unfinished),
            fixed(c.latencyP50Ms.mean),
            fixed(c.latencyP99Ms.mean),
        };
        csv += row.join(QLatin1Char(',')) + QLatin1Char('\n');
    }
    return csv;
}

QString HerdReport::loadCsv() const
{
    QString csv = QStringLiteral("clients,strategy,bin_start_ms,calls\n");
    for (const HerdCellResult &c : cells) {
        const QString prefix = QString::number(c.clients) + QLatin1Char(',') + c.strategy.name() + QLatin1Char(',');
        for (qsizetype i = 0; i < c.meanLoadPerBin.size(); ++i) {
            csv += prefix + fixed(static_cast<double>(i) * c.binMs) + QLatin1Char(',') + fixed(c.meanLoadPerBin[i], 3)
                + QLatin1Char('\n');
        }
    }
    return csv;
}

} // namespace RetryLab::Core
