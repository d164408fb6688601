#include "core/util/randomsource.h"

#include <QRandomGenerator>

#include <algorithm>
#include <cmath>

namespace RetryLab::Core {

quint64 RandomSource::freshSeed()
{
    return quint64(QRandomGenerator::system()->bounded(1, 1'000'000'000));
}

quint64 RandomSource::derive(quint64 seed, quint64 stream)
{
    // SplitMix64's finaliser over the seed and the stream's own increment.
    quint64 z = seed + (stream + 1) * 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

double RandomSource::uniform(double lo, double hi)
{
    if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi))
        return std::isfinite(lo) ? lo : 0.0;
    // generate_canonical gives [0, 1); the closed upper bound matters little for
    // continuous jitter, but it must never step outside [lo, hi].
    const double u = std::generate_canonical<double, 53>(engine());
    return std::clamp(lo + u * (hi - lo), lo, hi);
}

qint64 RandomSource::uniformInt(qint64 lo, qint64 hi)
{
    if (hi <= lo)
        return lo;
    std::uniform_int_distribution<qint64> dist(lo, hi);
    return dist(engine());
}

double RandomSource::normal(double mean, double stddev)
{
    if (!(stddev > 0.0))
        return mean;
    std::normal_distribution<double> dist(mean, stddev);
    return dist(engine());
}

double RandomSource::lognormal(double mu, double sigma)
{
    if (!(sigma > 0.0))
        return std::exp(mu);
    std::lognormal_distribution<double> dist(mu, sigma);
    return dist(engine());
}

double RandomSource::exponential(double rate)
{
    if (!(rate > 0.0))
        return 0.0;
    std::exponential_distribution<double> dist(rate);
    return dist(engine());
}

bool RandomSource::chance(double p)
{
    if (!(p > 0.0))
        return false;
    if (p >= 1.0)
        return true;
    return uniform(0.0, 1.0) < p;
}

} // namespace RetryLab::Core
