#include "ui/session/run/requestchecks.h"

#include "core/record/attemptrecord.h"
#include "ui/session/uitr.h"

#include <algorithm>

namespace RetryLab::Ui {

int ChecksVerdict::failedCount() const
{
    return static_cast<int>(
        std::count_if(results.cbegin(), results.cend(), [](const Core::AssertionResult &r) { return !r.passed; }));
}

ChecksVerdict RequestChecks::evaluate(const Core::AttemptRecord &last) const
{
    ChecksVerdict verdict;
    verdict.attemptIndex = last.attemptIndex;
    verdict.results = Core::evaluateAll(assertions, last);
    if (extract.isEmpty())
        return verdict;
    const Core::ResponseVariables::Outcome outcome = Core::ResponseVariables(extract).apply(last);
    // The outcome's values are a hash; people read them in the order of the rules.
    for (const Core::ResponseVariables::Rule &rule : extract) {
        const auto found = outcome.values.constFind(rule.name);
        if (found == outcome.values.cend())
            continue;
        const bool listed = std::any_of(verdict.values.cbegin(), verdict.values.cend(),
            [&](const std::pair<QString, QString> &value) { return value.first == rule.name; });
        if (!listed)
            verdict.values.append({rule.name, found.value()});
    }
    verdict.problems = outcome.problems;
    return verdict;
}

ChecksVerdict RequestChecks::notChecked(const QString &reason)
{
    ChecksVerdict verdict;
    verdict.error = Tr::tr("no attempt was made: %1").arg(reason);
    return verdict;
}

} // namespace RetryLab::Ui
