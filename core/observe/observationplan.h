#pragma once

#include "core/faultserver/faultinstruction.h"
#include "core/util/result.h"

#include <QJsonObject>
#include <QList>
#include <QString>

namespace RetryLab::Core {

class RandomSource;

/// What an observed client is served, per logical request as the grouping
/// recognises it, so that a client that sends no test header still gets a
/// script: attempt n of every logical request gets steps[n-1], and once the
/// steps are used up, `then`. With a failure probability instead, each attempt
/// independently gets `randomStep` with that probability, else `then`.
///
/// Files (retrylab observe --plan FILE) are JSON:
///   {"name": "...", "description": "...", "steps": ["return-503*3"], "then": "return-200"}
///   {"name": "...", "probability": 0.3, "randomStep": "return-503", "then": "return-200"}
/// with steps in FaultInstruction's grammar.
struct ObservationPlan
{
    QString id; ///< preset id or file name: "503x3"
    QString name; ///< "503 three times, then 200"
    QString description;
    QList<FaultInstruction> steps;
    FaultInstruction then = FaultInstruction{FaultInstruction::Kind::Respond, 200, std::nullopt, 0};
    double probability = 0.0; ///< 0: the steps decide; (0, 1]: random faults
    FaultInstruction randomStep = FaultInstruction{FaultInstruction::Kind::Respond, 503, std::nullopt, 0};

    /// The step for attempt `attemptIndex` (1-based) of a logical request.
    FaultInstruction stepFor(int attemptIndex, RandomSource &random) const;
    QJsonObject toJson() const;

    /// Reads a plan object; the error names the field and what is wrong.
    static Result<ObservationPlan> fromJson(const QJsonObject &object);
    /// A preset id, or a JSON file of that path; the error says which it tried.
    static Result<ObservationPlan> load(const QString &idOrFile);
    /// The presets: "pass", "503x3", "429-retry-after-2", "reset-then-200",
    /// "empty-then-200", "stall-once", "503-30pct", "always-503", "404-then-200".
    static const QList<ObservationPlan> &presets();
    static const ObservationPlan &defaultPlan(); ///< "503x3"
};

} // namespace RetryLab::Core
