#include "core/faultserver/scriptedtests.h"

#include "core/faultserver/requesttarget.h"
#include "core/util/coretr.h"

#include <QMutexLocker>

#include <algorithm>

namespace RetryLab::Core {

QString ScriptedStep::describe() const
{
    return Tr::tr("step %1 of %2 (%3) of test %4%5")
        .arg(index + 1)
        .arg(stepCount)
        .arg(instruction.toString(), testId, replayed ? Tr::tr(", again for a resent attempt") : QString());
}

int ScriptedTests::maxTests() const
{
    QMutexLocker lock(&m_mutex);
    return m_maxTests;
}

void ScriptedTests::setMaxTests(int maxTests)
{
    QMutexLocker lock(&m_mutex);
    m_maxTests = maxTests;
}

Result<QString> ScriptedTests::create(const QStringList &instructions)
{
    const auto steps = FaultInstruction::parseList(instructions);
    if (!steps)
        return steps.errorDetail();
    if (steps->isEmpty())
        return Result<QString>::failure(Tr::tr("a test needs at least one instruction"));
    QMutexLocker lock(&m_mutex);
    const qsizetype maxTests = std::max(1, m_maxTests);
    if (m_tests.size() >= maxTests || m_totalSteps + steps->size() > maxTotalSteps) {
        return Result<QString>::failure(
            Tr::tr("the server already holds %1 tests with %2 steps (at most %3 tests, %4 steps); reset it first")
                .arg(m_tests.size())
                .arg(m_totalSteps)
                .arg(maxTests)
                .arg(maxTotalSteps));
    }
    m_totalSteps += steps->size();
    Test test;
    test.id = QStringLiteral("t%1").arg(m_nextNumber++);
    test.steps = *steps;
    const QString id = test.id;
    m_tests.insert(id, std::move(test));
    return id;
}

Result<std::optional<ScriptedStep>> ScriptedTests::take(
    const QString &id, QByteArrayView requestId, const QString &attempt)
{
    QMutexLocker lock(&m_mutex);
    const auto it = m_tests.find(id);
    if (it == m_tests.end()) {
        return Result<std::optional<ScriptedStep>>::failure(
            Tr::tr("unknown X-Retry-Test-Id \"%1\" (never created, or forgotten by a reset)")
                .arg(RequestTarget::shortened(id)));
    }
    Test &test = *it;
    const QString replayKey
        = !requestId.isEmpty() && !attempt.isEmpty() && requestId.size() + attempt.size() < maxReplayKeyLength
        ? QString::fromLatin1(requestId) + QLatin1Char('#') + attempt
        : QString();
    ScriptedStep step;
    step.testId = test.id;
    step.stepCount = static_cast<int>(test.steps.size());
    if (!replayKey.isEmpty() && test.served.contains(replayKey)) {
        step.index = test.served.value(replayKey);
        step.replayed = true;
        ++test.replays;
    } else if (test.consumed < test.steps.size()) {
        step.index = test.consumed++;
        if (!replayKey.isEmpty())
            test.served.insert(replayKey, step.index);
    } else {
        return std::optional<ScriptedStep>();
    }
    step.instruction = test.steps.at(step.index);
    return std::optional<ScriptedStep>(std::move(step));
}

std::optional<ScriptedTestStatus> ScriptedTests::status(const QString &id) const
{
    QMutexLocker lock(&m_mutex);
    const auto it = m_tests.constFind(id);
    if (it == m_tests.cend())
        return std::nullopt;
    return statusOf(*it);
}

QList<ScriptedTestStatus> ScriptedTests::statuses() const
{
    QMutexLocker lock(&m_mutex);
    QList<ScriptedTestStatus> out;
    out.reserve(m_tests.size());
    for (const Test &test : m_tests)
        out.append(statusOf(test));
    return out;
}

int ScriptedTests::consumed(const QString &id) const
{
    QMutexLocker lock(&m_mutex);
    const auto it = m_tests.constFind(id);
    return it == m_tests.cend() ? -1 : it->consumed;
}

bool ScriptedTests::remove(const QString &id)
{
    QMutexLocker lock(&m_mutex);
    const auto it = m_tests.find(id);
    if (it == m_tests.end())
        return false;
    m_totalSteps -= it->steps.size();
    m_tests.erase(it);
    return true;
}

int ScriptedTests::count() const
{
    QMutexLocker lock(&m_mutex);
    return static_cast<int>(m_tests.size());
}

void ScriptedTests::clear()
{
    QMutexLocker lock(&m_mutex);
    m_tests.clear();
    m_totalSteps = 0;
}

ScriptedTestStatus ScriptedTests::statusOf(const Test &test)
{
    ScriptedTestStatus s;
    s.id = test.id;
    for (const FaultInstruction &step : test.steps)
        s.instructions.append(step.toString());
    s.consumed = test.consumed;
    s.replays = test.replays;
    return s;
}

} // namespace RetryLab::Core
