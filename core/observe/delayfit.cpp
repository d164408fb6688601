#include "core/observe/delayfit.h"

#include "core/util/coretr.h"
#include "core/util/durationtext.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace RetryLab::Core {

double DelayFit::confidenceFromCount(int count, double quality)
{
    return std::clamp(quality * count / (count + 2.0), 0.0, 1.0);
}

namespace {

using DelayFit::confidenceFromCount;

/// How far two measured delays may differ and still be "the same": the client's
/// timer, a new connection and the scheduler add a few milliseconds.
double tolerance(double ms)
{
    return 3.0 + 0.05 * std::abs(ms);
}

double median(QList<double> values)
{
    if (values.isEmpty())
        return 0.0;
    std::sort(values.begin(), values.end());
    const qsizetype mid = values.size() / 2;
    return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2.0;
}

/// One retry index: its samples sorted, and the band they come from estimated
/// without the bias of a small sample (for k uniform samples the true ends lie
/// about (max - min) / (k - 1) beyond the extremes).
struct Level
{
    int index = 0;
    int count = 0;
    double min = 0.0;
    double median = 0.0;
    double max = 0.0;
    double low = 0.0; ///< estimated lower end of the band
    double high = 0.0; ///< estimated upper end of the band
    double term = 0.0; ///< the level the growth is fitted to
    /// max - min, or with ten samples or more the 10th to 90th percentile: a
    /// loaded machine holds up a few retries by tens of milliseconds, which
    /// must not read as jitter.
    double innerSpread = 0.0;
};

/// Whether the first retry came at once (urllib3's), by the level `of` each
/// retry index: within the tolerance of 0, or, as on a loaded machine where
/// "at once" arrives a few milliseconds late (8 ms seen), a small part of the
/// next delay with a step to it far larger than the step after.
template<typename Of>
bool firstCameAtOnce(const QList<Level> &levels, Of of)
{
    if (levels.size() < 2 || levels.first().index != 0 || of(levels[1]) <= tolerance(0.0) * 2)
        return false;
    const double first = of(levels[0]);
    if (first <= tolerance(0.0))
        return true;
    if (levels.size() < 3 || first > 0.2 * of(levels[1]))
        return false;
    return of(levels[1]) / first >= 3.0 * (of(levels[2]) / of(levels[1]));
}

struct GrowthFit
{
    Growth growth = Growth::Unknown;
    double base = 0.0;
    double multiplier = 1.0;
    double error = 0.0; ///< relative RMS error of the chosen model
    QString evidence;
};

/// Fits constant, linear ((n+1)*a) and exponential (b*m^n) to (n, term) points.
GrowthFit fitGrowth(const QList<Level> &points)
{
    GrowthFit f;
    if (points.isEmpty())
        return f;
    double lowest = points.first().term;
    double highest = lowest;
    for (const Level &p : points) {
        lowest = std::min(lowest, p.term);
        highest = std::max(highest, p.term);
    }
    if (points.size() == 1) {
        f.growth = Growth::Unknown;
        f.base = points.first().term;
        f.evidence = Tr::tr("one retry index only (delay %1): growth cannot be told").arg(DurationText::format(f.base));
        return f;
    }
    if (highest - lowest <= tolerance(highest) || highest <= lowest * 1.15) {
        QList<double> terms;
        for (const Level &p : points)
            terms.append(p.term);
        f.growth = Growth::Constant;
        f.base = median(terms);
        f.evidence = Tr::tr("levels %1 to %2 over %3 retry indexes: constant")
                         .arg(DurationText::format(lowest), DurationText::format(highest))
                         .arg(points.size());
        return f;
    }
    // Exponential: least squares of ln(term) on n, weighted by the samples behind each level.
    double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (const Level &p : points) {
        const double w = std::max(1, p.count);
        const double y = std::log(std::max(p.term, 0.01));
        sw += w;
        sx += w * p.index;
        sy += w * y;
        sxx += w * p.index * p.index;
        sxy += w * p.index * y;
    }
    const double denominator = sw * sxx - sx * sx;
    const double slope = denominator != 0.0 ? (sw * sxy - sx * sy) / denominator : 0.0;
    const double intercept = (sy - slope * sx) / sw;
    const double m = std::exp(slope);
    const double b = std::exp(intercept);
    // Linear: term = a * (n + 1).
    double num = 0, den = 0;
    for (const Level &p : points) {
        const double w = std::max(1, p.count);
        num += w * p.term * (p.index + 1);
        den += w * (p.index + 1.0) * (p.index + 1.0);
    }
    const double a = den > 0 ? num / den : 0.0;
    double errExp = 0, errLin = 0;
    for (const Level &p : points) {
        const double e = b * std::pow(m, p.index);
        const double l = a * (p.index + 1);
        errExp += std::pow(p.term / std::max(e, 1e-9) - 1.0, 2);
        errLin += std::pow(p.term / std::max(l, 1e-9) - 1.0, 2);
    }
    errExp = std::sqrt(errExp / points.size());
    errLin = std::sqrt(errLin / points.size());
    const bool linearWins = points.size() >= 3 && errLin < errExp * 0.7;
    if (linearWins) {
        f.growth = Growth::Linear;
        f.base = a;
        f.error = errLin;
        f.evidence = Tr::tr("levels grow by the same step (%1 each; fit error %2 %, exponential %3 %)")
                         .arg(DurationText::format(a))
                         .arg(errLin * 100, 0, 'f', 1)
                         .arg(errExp * 100, 0, 'f', 1);
    } else {
        f.growth = Growth::Exponential;
        f.base = b;
        f.multiplier = m;
        f.error = errExp;
        f.evidence = points.size() == 2
            ? Tr::tr("two retry indexes (%1, %2): x%3 each; with two points linear growth looks the same")
                  .arg(DurationText::format(points[0].term), DurationText::format(points[1].term))
                  .arg(m, 0, 'f', 2)
            : Tr::tr("levels grow by x%1 per retry (fit error %2 %, linear %3 %)")
                  .arg(m, 0, 'f', 2)
                  .arg(errExp * 100, 0, 'f', 1)
                  .arg(errLin * 100, 0, 'f', 1);
    }
    return f;
}

} // namespace

void DelayFit::Samples::add(int retryIndex, double delayMs, double previousDelayMs)
{
    if (retryIndex < 0 || retryIndex > 10'000)
        return;
    if (byIndex.size() <= retryIndex)
        byIndex.resize(retryIndex + 1);
    byIndex[retryIndex].append(delayMs);
    if (previousDelayMs >= 0.0)
        consecutive.append({previousDelayMs, delayMs});
    ++total;
}

void DelayFit::fit(const Samples &samples, InferredPolicy &p)
{
    p.delays.clear();
    QList<Level> levels;
    int mostSamples = 0;
    double globalMin = -1.0;
    double globalMax = 0.0;
    for (qsizetype n = 0; n < samples.byIndex.size(); ++n) {
        QList<double> values = samples.byIndex[n];
        if (values.isEmpty())
            continue;
        std::sort(values.begin(), values.end());
        Level l;
        l.index = int(n);
        l.count = int(values.size());
        l.min = values.first();
        l.max = values.last();
        l.median = median(values);
        const double widen = l.count >= 2 ? (l.max - l.min) / (l.count - 1) : 0.0;
        l.low = std::max(0.0, l.min - widen);
        l.high = l.max + widen;
        if (l.count >= 10) {
            const auto at
                = [&values](double fraction) { return values[qsizetype(fraction * double(values.size() - 1))]; };
            l.innerSpread = at(0.9) - at(0.1);
        } else {
            l.innerSpread = l.max - l.min;
        }
        levels.append(l);
        mostSamples = std::max(mostSamples, l.count);
        globalMin = globalMin < 0 ? l.min : std::min(globalMin, l.min);
        globalMax = std::max(globalMax, l.max);
        p.delays.append({l.index, l.count, l.min, l.median, l.max});
    }
    if (levels.isEmpty()) {
        p.growthConfidence = {0.0, Tr::tr("no retry was seen")};
        p.jitterConfidence = {0.0, Tr::tr("no retry was seen")};
        return;
    }
    if (globalMax <= tolerance(0.0)) {
        p.growth = Growth::None;
        p.baseMs = 0.0;
        p.jitter = JitterKind::None;
        p.growthConfidence = {confidenceFromCount(samples.total),
            Tr::tr("all %1 retries came within %2 of the previous answer")
                .arg(samples.total)
                .arg(DurationText::format(globalMax))};
        p.baseConfidence = p.growthConfidence;
        p.jitterConfidence = p.growthConfidence;
        return;
    }

    // --- Jitter: how the delays of one retry index spread across logical requests.
    QList<Level> spread;
    for (const Level &l : levels) {
        if (l.count >= 2)
            spread.append(l);
    }
    int spreadSamples = 0;
    for (const Level &l : spread)
        spreadSamples += l.count;
    const Level &first = levels.first();
    if (spread.isEmpty()) {
        p.jitter = JitterKind::Unclear;
        p.jitterConfidence = {0.1, Tr::tr("one delay per retry index only: a spread needs several logical requests")};
    } else {
        // The machine's own noise: as given, or the spread of a first retry that came at once
        // (urllib3's), which is all timers and scheduling.
        double noise = samples.timingNoiseMs;
        if (levels[0].count >= 3 && firstCameAtOnce(levels, [](const Level &l) { return l.median; })) {
            noise = std::max(noise, levels[0].innerSpread);
        }
        bool flat = true;
        for (const Level &l : spread)
            flat = flat && l.innerSpread <= tolerance(l.median) + noise;
        QList<double> ratios;
        QList<double> fractions;
        for (const Level &l : spread) {
            if (l.high > 0.0) {
                ratios.append(l.low / l.high);
                fractions.append((l.high - l.low) / (l.high + l.low));
            }
        }
        const double r = median(ratios);
        // Decorrelated: each delay stays within three times the one before, and none gets near zero.
        int pairs = 0;
        int beyond = 0;
        for (const auto &[before, after] : samples.consecutive) {
            if (before <= tolerance(0.0))
                continue;
            ++pairs;
            beyond += after > 3.0 * before + tolerance(3.0 * before) ? 1 : 0;
        }
        // Additive: the band keeps its width while its level grows.
        bool additive = false;
        double widthRatio = 1.0;
        double levelRatio = 1.0;
        if (spread.size() >= 2) {
            const Level &lo = spread.first();
            const Level &hi = spread.last();
            levelRatio = hi.high / std::max(lo.high, 1e-9);
            widthRatio = (hi.high - hi.low) / std::max(lo.high - lo.low, 1e-9);
            additive = levelRatio > 1.5 && widthRatio <= std::sqrt(levelRatio) && r > 0.15;
        }
        const double countConfidence = confidenceFromCount(spreadSamples / std::max<qsizetype>(1, spread.size()));
        if (flat) {
            p.jitter = JitterKind::None;
            p.jitterConfidence = {countConfidence,
                Tr::tr("the delays of each retry index agree within a few milliseconds across %1 samples")
                    .arg(spreadSamples)};
        } else if (pairs >= 10 && beyond == 0 && r < 0.45 && globalMin >= 0.3 * first.median) {
            p.jitter = JitterKind::Decorrelated;
            p.jitterConfidence = {confidenceFromCount(pairs, 0.8),
                Tr::tr("each of %1 delays stayed within three times the one before, and none below %2")
                    .arg(pairs)
                    .arg(DurationText::format(globalMin))};
        } else if (additive) {
            p.jitter = JitterKind::Additive;
            QList<double> widths;
            for (const Level &l : spread)
                widths.append(l.high - l.low);
            p.additiveJitterMs = median(widths);
            p.jitterConfidence = {countConfidence * 0.9,
                Tr::tr("the band keeps a width of about %1 while its level grows x%2: a random amount added")
                    .arg(DurationText::format(*p.additiveJitterMs))
                    .arg(levelRatio, 0, 'f', 1)};
        } else if (r < 0.3) {
            p.jitter = JitterKind::Full;
            p.jitterConfidence = {countConfidence * (1.0 - r),
                Tr::tr("delays of each retry index spread from near 0 to the top of the band (low/high %1)")
                    .arg(r, 0, 'f', 2)};
        } else if (r >= 0.38 && r <= 0.62) {
            p.jitter = JitterKind::Equal;
            p.jitterConfidence = {countConfidence * 0.8,
                Tr::tr("delays of each retry index spread over the upper half of the band (low/high %1)")
                    .arg(r, 0, 'f', 2)};
        } else if (r > 0.62) {
            p.jitter = JitterKind::Proportional;
            p.jitterFraction = median(fractions);
            p.jitterConfidence = {countConfidence * 0.8,
                Tr::tr("delays spread by about ±%1 % around the level, in proportion to it")
                    .arg(*p.jitterFraction * 100.0, 0, 'f', 0)};
        } else {
            p.jitter = JitterKind::Unclear;
            p.jitterConfidence
                = {0.2, Tr::tr("the delays spread (low/high %1), but like no known kind of jitter").arg(r, 0, 'f', 2)};
        }
    }

    // --- The level each retry index is fitted at, given the jitter.
    for (Level &l : levels) {
        const bool sampled = l.count >= 2;
        switch (p.jitter) {
        case JitterKind::Full:
            l.term = sampled ? l.high : 2.0 * l.median;
            break;
        case JitterKind::Equal:
            l.term = sampled ? l.high : l.median * 4.0 / 3.0;
            break;
        case JitterKind::Additive:
            l.term = sampled ? l.low : l.min - p.additiveJitterMs.value_or(0.0) / 2.0;
            break;
        case JitterKind::Proportional:
            l.term = sampled ? (l.low + l.high) / 2.0 : l.median;
            break;
        case JitterKind::Unclear:
        case JitterKind::None:
        case JitterKind::Decorrelated:
            l.term = l.median;
            break;
        }
        l.term = std::max(0.0, l.term);
    }

    if (p.jitter == JitterKind::Decorrelated) {
        // min(cap, U[base, previous * 3]): the floor is the base, the growth x3 by definition.
        p.growth = Growth::Exponential;
        p.baseMs = globalMin;
        p.multiplier = 3.0;
        p.capMs = globalMax;
        p.growthConfidence = p.jitterConfidence;
        p.baseConfidence = {
            p.jitterConfidence.value * 0.8, Tr::tr("the smallest delay seen, %1").arg(DurationText::format(globalMin))};
        p.multiplierConfidence
            = {p.jitterConfidence.value, Tr::tr("decorrelated jitter draws up to three times the previous delay")};
        p.capConfidence = {0.3, Tr::tr("the largest delay seen, %1").arg(DurationText::format(globalMax))};
        return;
    }

    // Fit to the well-sampled levels; a first retry that came at once (urllib3) is left out.
    QList<Level> points;
    for (const Level &l : levels) {
        if (l.count * 3 >= mostSamples)
            points.append(l);
    }
    if (firstCameAtOnce(points, [](const Level &l) { return l.term; })) {
        p.firstRetryImmediate = true;
        points.removeFirst();
    }

    // Cap: the levels stop growing. The plateau must hold two indexes or more, or one the growth overshoots.
    double top = 0.0;
    for (const Level &l : points)
        top = std::max(top, l.term);
    qsizetype plateauStart = points.size();
    for (qsizetype i = 0; i < points.size(); ++i) {
        if (points[i].term >= 0.85 * top) {
            plateauStart = i;
            break;
        }
    }
    const QList<Level> plateau = points.mid(plateauStart);
    bool capped = plateauStart >= 1 && plateau.size() >= 2 && points.first().term < 0.6 * top;
    for (const Level &l : plateau)
        capped = capped && l.term >= 0.8 * top;
    GrowthFit growth;
    if (capped) {
        // Fit the rise only: the first level of the plateau may be the cap cutting a larger term.
        const QList<Level> before = points.mid(0, plateauStart);
        growth = fitGrowth(before.size() >= 2 ? before : points.mid(0, plateauStart + 1));
    } else {
        growth = fitGrowth(points);
    }
    p.growth = growth.growth;
    const double quality = std::clamp(1.0 - growth.error * 2.0, 0.1, 1.0);
    int fitted = 0;
    for (const Level &l : points)
        fitted += l.count;
    p.growthConfidence
        = {growth.growth == Growth::Unknown ? 0.1
                                            : confidenceFromCount(fitted, quality) * (points.size() == 2 ? 0.6 : 1.0),
            growth.evidence};
    p.baseMs = growth.base;
    p.baseConfidence = {p.growthConfidence.value,
        p.firstRetryImmediate
            ? Tr::tr("%1; the first retry came at once, the growth starts at the second").arg(growth.evidence)
            : growth.evidence};
    if (growth.growth == Growth::Exponential) {
        p.multiplier = growth.multiplier;
        p.multiplierConfidence = p.growthConfidence;
    } else if (growth.growth == Growth::Constant || growth.growth == Growth::Linear) {
        p.multiplier = 1.0;
        p.multiplierConfidence = p.growthConfidence;
    }
    if (capped) {
        QList<double> terms;
        for (const Level &l : plateau)
            terms.append(l.term);
        p.capMs = p.jitter == JitterKind::Full || p.jitter == JitterKind::Equal ? top : median(terms);
        p.capConfidence = {confidenceFromCount(int(plateau.size()) * 2, 0.9),
            Tr::tr("the delays stop growing at about %1 from retry %2 on")
                .arg(DurationText::format(*p.capMs))
                .arg(plateau.first().index + 1)};
    } else {
        p.capConfidence = {0.0, Tr::tr("no cap was reached within %1 retries").arg(levels.last().index + 1)};
    }
}

} // namespace RetryLab::Core
