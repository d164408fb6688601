#pragma once

#include "core/grouping/observedattempt.h"
#include "core/observe/policyinference.h"
#include "core/policy/backoffpolicy.h"

#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

namespace RetryLab::Core {

/// One rule of the source documents applied to an observed client.
struct Verdict
{
    enum class Outcome {
        Pass,
        Fail,
        NotObserved, ///< the faults served gave no chance to see it (or it cannot be seen from the server)
    };
    QString rule; ///< stable id: "growing-backoff", "random-jitter", "bounded-attempts", ...
    QString title; ///< the rule in words
    QString source; ///< where the rule comes from: the documents it cites, exactly (see Judge::rules())
    Outcome outcome = Outcome::NotObserved;
    QString evidence; ///< what was seen, with numbers

    bool pass() const { return outcome != Outcome::Fail; }
    QJsonObject toJson() const;
    static QString outcomeName(Outcome outcome); ///< "pass", "fail", "not-observed"
};

/// The closest built-in preset to an inferred policy, with the differences.
struct PresetComparison
{
    QString presetId;
    BackoffPolicy preset;
    double distance = 0.0; ///< 0 for a perfect match
    struct Row
    {
        QString field; ///< "algorithm", "baseMs", "multiplier", "capMs", "jitter", "maxAttempts"
        QString observed;
        QString preset;
        bool matches = false;
    };
    QList<Row> rows;
};

/// A rule the verdicts judge, with where it comes from. `quotes` are the words
/// of the source documents (docs/sources/) the rule rests on, each with the
/// document's file name there: a test checks every one against the documents,
/// so that no verdict claims a document that does not say it.
struct VerdictRule
{
    QString rule;
    QString title;
    QString source;
    struct Quote
    {
        QString document; ///< file name in docs/sources/
        QString text; ///< as it stands there
    };
    QList<Quote> quotes;
};

namespace Judge {

/// The rules, in the order judge() gives its verdicts.
const QList<VerdictRule> &rules();

/// One verdict per rule, in a fixed order: delays that grow (exponentially with
/// a cap, or incrementally), random jitter, a bounded number of attempts or a
/// deadline, no retry of non-idempotent requests without a key, Retry-After
/// honoured, permanent errors not retried, every retry logged (never
/// observable from the server).
QList<Verdict> judge(const QList<LogicalRequest> &requests, const InferredPolicy &policy);
/// True when no verdict fails.
bool allPass(const QList<Verdict> &verdicts);
/// The built-in preset nearest to the inferred policy.
std::optional<PresetComparison> closestPreset(const InferredPolicy &policy);

} // namespace Judge

} // namespace RetryLab::Core
