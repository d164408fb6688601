// Fuzzes the scenario reader, which reads files a user opens or passes to
// `retrylab run`: no crash, a refusal always says why, and a scenario it
// accepts stays within the limits the runner relies on (request counts,
// concurrency, a valid policy, expectations that name a request, server
// scripts the fault server can take).

#include "core/faultserver/faultinstruction.h"
#include "core/scenario/scenarioreader.h"
#include "fuzz/fuzzcheck.h"

#include <QByteArray>
#include <QSet>
#include <QUrl>

#include <cmath>
#include <cstddef>
#include <cstdint>

using namespace RetryLab::Core;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray json(reinterpret_cast<const char *>(data), static_cast<qsizetype>(size));
    const Result<Scenario> scenario = ScenarioReader::fromJson(json);
    if (!scenario) {
        FUZZ_CHECK(!scenario.error().isEmpty());
        return 0;
    }

    for (const PolicyIssue &issue : validatePolicy(scenario->policy))
        FUZZ_CHECK(!issue.isError());
    FUZZ_CHECK(scenario->concurrency >= 1 && scenario->concurrency <= ScenarioReader::maxConcurrency);
    FUZZ_CHECK(std::isfinite(scenario->timeoutMs) && scenario->timeoutMs >= 0.0);
    FUZZ_CHECK(!scenario->requests.isEmpty());
    FUZZ_CHECK(scenario->requests.size() <= ScenarioReader::maxRequestEntries);
    FUZZ_CHECK(scenario->totalRequests() >= 1 && scenario->totalRequests() <= ScenarioReader::maxTotalRequests);

    const QUrl server(QStringLiteral("http://127.0.0.1:8080"));
    QSet<QString> names;
    for (const ScenarioRequest &request : scenario->requests) {
        FUZZ_CHECK(request.count >= 1);
        FUZZ_CHECK(request.concurrency >= 1 && request.concurrency <= ScenarioReader::maxConcurrency);
        names.insert(request.name);
        // Resolving a template must not crash, whatever it holds.
        (void)Scenario::resolveUrl(request.urlTemplate, server);
        if (request.script) {
            const Result<QList<FaultInstruction>> steps = FaultInstruction::parseList(request.script->steps);
            FUZZ_CHECK(steps.ok());
            FUZZ_CHECK(steps->size() <= FaultInstruction::maxInstructions);
        }
    }
    FUZZ_CHECK(names.size() == scenario->requests.size());

    for (const ScenarioExpectation &expectation : scenario->expectations) {
        FUZZ_CHECK(scenario->request(expectation.request) != nullptr);
        if (expectation.minSuccessRate)
            FUZZ_CHECK(*expectation.minSuccessRate >= 0.0 && *expectation.minSuccessRate <= 1.0);
        FUZZ_CHECK(!expectation.describe().isEmpty());
    }
    return 0;
}
