#pragma once

#include <QString>

#include <optional>

namespace RetryLab::Cli {

/// The seed a run draws its jitter and random faults from: --seed, else the
/// input's own (a scenario file's, a saved request's), else a fresh one from
/// the system's random source, drawn once; and how to say which.
class RunSeed final
{
public:
    explicit RunSeed(std::optional<quint64> chosen, std::optional<quint64> given = std::nullopt);

    quint64 value() const { return m_value; }
    bool drawn() const { return m_drawn; }
    /// "seed 42", or for a drawn seed "seed 831 (drawn; --seed 831 repeats it)".
    QString text() const;

private:
    quint64 m_value = 0;
    bool m_drawn = false;
};

} // namespace RetryLab::Cli
