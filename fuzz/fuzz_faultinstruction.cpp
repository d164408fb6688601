// Fuzzes the fault server's scripted-test steps, which any client can post to
// /_control/tests: no crash, a step read is written back to text that reads to
// the same step, and a script never expands beyond its limit.

#include "core/faultserver/faultinstruction.h"
#include "fuzz/fuzzcheck.h"

#include <QString>
#include <QStringList>

#include <cstddef>
#include <cstdint>

using namespace RetryLab::Core;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QString text = QString::fromUtf8(reinterpret_cast<const char *>(data), static_cast<qsizetype>(size));

    const Result<FaultInstruction> step = FaultInstruction::parse(text);
    if (step) {
        const Result<FaultInstruction> again = FaultInstruction::parse(step->toString());
        FUZZ_CHECK(again.ok());
        FUZZ_CHECK(*again == *step);
    } else {
        FUZZ_CHECK(!step.error().isEmpty());
    }

    const QStringList lines = text.split(QLatin1Char('\n'));
    const Result<QList<FaultInstruction>> script = FaultInstruction::parseList(lines);
    if (script) {
        FUZZ_CHECK(script->size() <= FaultInstruction::maxInstructions);
        FUZZ_CHECK(script->size() >= lines.size());
    } else {
        FUZZ_CHECK(!script.error().isEmpty());
    }
    return 0;
}
