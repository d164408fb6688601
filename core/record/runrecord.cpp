#include "core/record/runrecord.h"

#include <algorithm>

namespace RetryLab::Core {

std::optional<quint64> RunRecord::commonSeed() const
{
    if (seed)
        return seed;
    std::optional<quint64> common;
    for (const RequestSpec &spec : requests) {
        if (!spec.seed || (common && *common != *spec.seed))
            return std::nullopt;
        common = spec.seed;
    }
    return common;
}

const BackoffPolicy &RunRecord::policyOf(quint64 requestId) const
{
    const int index = requestPolicies.value(requestId, -1);
    return index >= 0 && index < policies.size() ? policies.at(index) : policy;
}

void RunRecord::notePolicy(quint64 requestId, const BackoffPolicy &used)
{
    // A run uses a handful of policies; the newest is the likeliest match.
    int index = -1;
    for (int i = int(policies.size()) - 1; i >= 0 && index < 0; --i) {
        if (policies.at(i) == used)
            index = i;
    }
    if (index < 0) {
        policies.append(used);
        index = int(policies.size()) - 1;
    }
    requestPolicies.insert(requestId, index);
}

QList<bool> RunRecord::attemptBodiesWithin(qint64 budget) const
{
    QList<bool> within(attempts.size(), true);
    qint64 used = 0;
    for (qsizetype i = attempts.size() - 1; i >= 0; --i) {
        const AttemptRecord &a = attempts.at(i);
        used += a.requestBody.size() + a.responseBody.size();
        within[i] = used <= budget;
    }
    return within;
}

qsizetype RunRecord::certificateErrorsIgnored() const
{
    return std::count_if(
        attempts.cbegin(), attempts.cend(), [](const AttemptRecord &a) { return a.tls.errorsIgnored; });
}

QStringList RunRecord::hostsWithCertificateErrorsIgnored() const
{
    QStringList hosts;
    for (const AttemptRecord &a : attempts) {
        if (a.tls.errorsIgnored && !hosts.contains(a.url.host()))
            hosts.append(a.url.host());
    }
    hosts.sort();
    return hosts;
}

} // namespace RetryLab::Core
