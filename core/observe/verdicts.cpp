#include "core/observe/verdicts.h"

// Placeholder until the judge lands.
namespace RetryLab::Core {

QJsonObject Verdict::toJson() const
{
    return {};
}

QString Verdict::outcomeName(Outcome)
{
    return {};
}

QList<Verdict> Judge::judge(const QList<LogicalRequest> &, const InferredPolicy &)
{
    return {};
}

bool Judge::allPass(const QList<Verdict> &verdicts)
{
    for (const Verdict &v : verdicts) {
        if (!v.pass())
            return false;
    }
    return true;
}

std::optional<PresetComparison> Judge::closestPreset(const InferredPolicy &)
{
    return std::nullopt;
}

} // namespace RetryLab::Core
