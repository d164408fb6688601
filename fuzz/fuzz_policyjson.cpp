// Fuzzes the policy JSON reader: no crash, an accepted policy passes
// validation, and writing it out and reading it back gives the same policy
// (the format promises a lossless round trip).

#include "core/policy/policyjson.h"
#include "fuzz/fuzzcheck.h"

#include <QByteArray>

#include <cstddef>
#include <cstdint>

using namespace RetryLab::Core;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray json(reinterpret_cast<const char *>(data), static_cast<qsizetype>(size));
    const Result<BackoffPolicy> policy = PolicyJson::fromJson(json);
    if (!policy) {
        FUZZ_CHECK(!policy.error().isEmpty());
        return 0;
    }
    for (const PolicyIssue &issue : validatePolicy(*policy))
        FUZZ_CHECK(!issue.isError());

    const Result<BackoffPolicy> again = PolicyJson::fromJson(PolicyJson::toJson(*policy));
    FUZZ_CHECK(again.ok());
    FUZZ_CHECK(*again == *policy);
    return 0;
}
