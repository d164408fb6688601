#pragma once

#include <QTest>

namespace RetryLab::Testing {

/// Whether a third-party tool a suite needs must be there: under CI (CI=true)
/// and in ./scripts/test.sh (RETRYLAB_REQUIRE_TOOLS=1), which install every one
/// of them through scripts/deps.sh. Elsewhere a developer without the tool sees
/// the test skipped, with the package that brings it named.
inline bool toolsRequired()
{
    return qEnvironmentVariable("CI") == QLatin1String("true")
        || qEnvironmentVariableIntValue("RETRYLAB_REQUIRE_TOOLS") != 0;
}

} // namespace RetryLab::Testing

/// A tool the test needs is missing: `message` names it and its Debian package.
/// Fails the test where tools are required (see toolsRequired()), else skips it.
#define RETRYLAB_MISSING_TOOL(message)                                                                                 \
    do {                                                                                                               \
        if (RetryLab::Testing::toolsRequired())                                                                        \
            QFAIL(message);                                                                                            \
        QSKIP(message);                                                                                                \
    } while (false)
