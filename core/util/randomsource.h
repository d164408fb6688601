#pragma once

#include <QtGlobal>

#include <optional>
#include <random>

namespace RetryLab::Core {

/// The one source of randomness for jitter, simulated latency and fault
/// probabilities. It is seedable, so any run can be replayed exactly, and it is
/// handed to whoever needs it instead of being reached globally.
class RandomSource final
{
public:
    explicit RandomSource(quint64 seed = 0x5EEDULL) : m_seed(seed) { }

    quint64 seed() const { return m_seed; }
    void reseed(quint64 seed)
    {
        m_seed = seed;
        m_engine.reset();
    }

    /// Uniform in [lo, hi]; returns lo when the range is empty or inverted.
    double uniform(double lo, double hi);
    /// Uniform integer in [lo, hi].
    qint64 uniformInt(qint64 lo, qint64 hi);
    /// Normal distribution with the given mean and standard deviation.
    double normal(double mean, double stddev);
    /// Lognormal distribution parameterised by the underlying normal.
    double lognormal(double mu, double sigma);
    /// Exponential distribution with the given rate (events per unit).
    double exponential(double rate);
    /// true with probability p (clamped to [0, 1]).
    bool chance(double p);

    /// The engine, seeded at the first draw: seeding fills 2.5 KB of state, and
    /// many sources (one per decision of the executor) never draw.
    std::mt19937_64 &engine()
    {
        if (!m_engine)
            m_engine.emplace(m_seed);
        return *m_engine;
    }

    /// A seed from the system's random source, for a run that was not given
    /// one: every run then draws other jitter, and the seed it shows replays it.
    /// From 1 to 999,999,999, so that it is easy to read out and type back.
    static quint64 freshSeed();
    /// The seed of stream `stream` of `seed` (SplitMix64 of both): independent
    /// streams, such as one per logical request, from one seed.
    static quint64 derive(quint64 seed, quint64 stream);

private:
    quint64 m_seed;
    std::optional<std::mt19937_64> m_engine;
};

} // namespace RetryLab::Core
