#pragma once

#include "core/grouping/observedattempt.h"
#include "core/observe/observationplan.h"
#include "core/observe/policyinference.h"
#include "core/observe/verdicts.h"
#include "core/util/result.h"

#include <QByteArray>
#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QString>

namespace RetryLab::Core {

class Observer;

/// What an observation found, per client: its logical requests, the policy
/// inferred from them and the verdicts. Written as JSON of format
/// "retrylab-observation", version 1, and as JUnit XML (one test case per verdict).
struct ObservationReport
{
    struct Client
    {
        ObservedClient client;
        QList<LogicalRequest> requests;
        InferredPolicy policy;
        QList<Verdict> verdicts;
        std::optional<PresetComparison> closestPreset;
    };

    QDateTime started; ///< UTC
    QDateTime finished; ///< UTC
    QString serverUrl;
    ObservationPlan plan;
    double gapWindowMs = 0.0;
    int droppedLogicalRequests = 0;
    /// Clients forgotten to keep the observer's table bounded (Observer::maxClients()).
    int droppedClients = 0;
    QList<Client> clients;

    static inline const QString format = QStringLiteral("retrylab-observation");
    static constexpr int version = 1;

    /// Everything the observer holds now, inferred and judged.
    static ObservationReport from(const Observer &observer);
    /// True when no verdict of any client fails.
    bool allPass() const;

    QJsonObject toJson() const;
    /// Reads a report written by toJson(); the error names what is wrong.
    static Result<ObservationReport> fromJson(const QJsonObject &object);
    QByteArray toJunitXml() const;
    /// Per client: the inferred policy and the verdict table, for a terminal.
    QString toText() const;
};

} // namespace RetryLab::Core
