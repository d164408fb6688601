#include "ui/session/hosting/serverscenario.h"

#include "core/faultserver/faultinstruction.h"
#include "core/util/randomsource.h"
#include "ui/session/uitr.h"

#include <QCoreApplication>
#include <QJsonArray>

namespace RetryLab::Ui {

namespace {

QString sharingName(ServerScenario::Sharing sharing)
{
    return sharing == ServerScenario::Sharing::Shared ? QStringLiteral("shared") : QStringLiteral("per-request");
}

// A flaky server as a script: each answer fails with probability `p`, drawn once
// from a fixed seed so that the preset reads the same every time. Runs of equal
// steps are written "step*K" to keep the script short enough to read.
QStringList flakyScript(int steps, double p, quint64 seed)
{
    Core::RandomSource random(seed);
    QStringList out;
    QString previous;
    int run = 0;
    const auto flushRun = [&] {
        if (run > 0)
            out.append(run == 1 ? previous : QStringLiteral("%1*%2").arg(previous).arg(run));
    };
    for (int i = 0; i < steps; ++i) {
        const QString step = random.chance(p) ? QStringLiteral("return-503") : QStringLiteral("return-200");
        if (step == previous) {
            ++run;
            continue;
        }
        flushRun();
        previous = step;
        run = 1;
    }
    flushRun();
    return out;
}

} // namespace

QString ServerScenario::problem() const
{
    const auto steps = Core::FaultInstruction::parseList(instructions);
    return steps ? QString() : steps.error();
}

QList<ServerScenario::Preset> ServerScenario::presets()
{
    using S = Sharing;
    return {
        {QStringLiteral("none"), Tr::tr("No script: the URL decides"),
            Tr::tr("Requests are answered by their path, e.g. /fail/3 or /status/503."), {}, S::PerRequest},
        {QStringLiteral("three-503"), Tr::tr("3 × 503, then 200"),
            Tr::tr("Every request is refused three times with 503 Service Unavailable, then served."),
            {QStringLiteral("return-503*3"), QStringLiteral("return-200")}, S::PerRequest},
        {QStringLiteral("reset-429-200"), Tr::tr("Reset, 429 after 2 s, then 200"),
            Tr::tr("The connection is reset, then 429 Too Many Requests asks to wait 2 s (Retry-After), then 200."),
            {QStringLiteral("reset"), QStringLiteral("return-429-after-2s"), QStringLiteral("return-200")},
            S::PerRequest},
        {QStringLiteral("flaky-30"), Tr::tr("Flaky: 30 % of answers are 503"),
            Tr::tr("One script shared by all requests: about 30 % of the next 100 answers are 503, the rest 200."),
            flakyScript(100, 0.3, 30), S::Shared},
        {QStringLiteral("broken-stream"), Tr::tr("Broken body, then 200"),
            Tr::tr("The first answer announces 1024 bytes and sends 512, then the request is served."),
            {QStringLiteral("broken-stream"), QStringLiteral("return-200")}, S::PerRequest},
        {QStringLiteral("down"), Tr::tr("Down: 500 every time"),
            Tr::tr("Every answer is 500 Internal Server Error, so requests fail for good once their attempts run out."),
            {QStringLiteral("return-500*100")}, S::PerRequest},
    };
}

ServerScenario ServerScenario::fromPreset(const QString &id)
{
    for (const Preset &preset : presets()) {
        if (preset.id == id)
            return {preset.id, preset.instructions, preset.sharing};
    }
    return {};
}

QJsonObject ServerScenario::toJson() const
{
    return {
        {QStringLiteral("preset"), presetId},
        {QStringLiteral("instructions"), QJsonArray::fromStringList(instructions)},
        {QStringLiteral("sharing"), sharingName(sharing)},
    };
}

Core::Result<ServerScenario> ServerScenario::fromJson(const QJsonObject &object)
{
    using R = Core::Result<ServerScenario>;
    ServerScenario scenario;
    const QJsonValue preset = object.value(QStringLiteral("preset"));
    if (!preset.isUndefined() && !preset.isString())
        return R::failure(Tr::tr("preset: must be text"));
    scenario.presetId = preset.toString();

    const QJsonValue steps = object.value(QStringLiteral("instructions"));
    if (!steps.isUndefined()) {
        if (!steps.isArray())
            return R::failure(Tr::tr("instructions: must be a list of steps"));
        const QJsonArray array = steps.toArray();
        if (array.size() > Core::FaultInstruction::maxInstructions)
            return R::failure(Tr::tr("instructions: more than %1 steps").arg(Core::FaultInstruction::maxInstructions));
        for (qsizetype i = 0; i < array.size(); ++i) {
            if (!array.at(i).isString())
                return R::failure(Tr::tr("instructions[%1]: must be text").arg(i));
            scenario.instructions.append(array.at(i).toString());
        }
        if (const QString problem = scenario.problem(); !problem.isEmpty())
            return R::failure(Tr::tr("instructions: %1").arg(problem));
    }

    const QJsonValue sharing = object.value(QStringLiteral("sharing"));
    if (!sharing.isUndefined()) {
        if (sharing.toString() == sharingName(Sharing::Shared))
            scenario.sharing = Sharing::Shared;
        else if (sharing.toString() == sharingName(Sharing::PerRequest))
            scenario.sharing = Sharing::PerRequest;
        else
            return R::failure(Tr::tr("sharing: must be \"per-request\" or \"shared\""));
    }
    return scenario;
}

} // namespace RetryLab::Ui
