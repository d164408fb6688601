#include "app/cli/runseed.h"

#include "app/cli/clitr.h"
#include "core/util/randomsource.h"

namespace RetryLab::Cli {

RunSeed::RunSeed(std::optional<quint64> chosen, std::optional<quint64> given)
{
    if (chosen) {
        m_value = *chosen;
    } else if (given) {
        m_value = *given;
    } else {
        m_value = Core::RandomSource::freshSeed();
        m_drawn = true;
    }
}

QString RunSeed::text() const
{
    if (m_drawn)
        return Tr::tr("seed %1 (drawn; --seed %1 repeats it)").arg(m_value);
    return Tr::tr("seed %1").arg(m_value);
}

} // namespace RetryLab::Cli
