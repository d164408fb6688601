#pragma once

#include "core/collections/requesttemplate.h"
#include "core/policy/backoffpolicy.h"
#include "core/policy/endpointpolicy.h"
#include "core/record/attemptrecord.h"
#include "core/record/expectationresult.h"

#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>
#include <QUrl>

#include <optional>

namespace RetryLab::Core {

struct RunRecord;

/// Steps for the embedded fault server (FaultInstruction texts, "reset*2"
/// allowed), answered to one request entry of a scenario.
struct ScenarioScript
{
    QStringList steps;
    /// false: every logical request of the entry gets its own copy of the
    /// steps, so each sees the same sequence (as a conformance test wants).
    /// true: one copy for the whole entry; its requests take the steps in the
    /// order they reach the server, like clients sharing one flaky backend.
    bool shared = false;
};

/// One entry of a scenario's "requests": `count` logical requests made from
/// the same template, at most `concurrency` of them outstanding at once.
struct ScenarioRequest
{
    QString name; ///< unique within the scenario; expectations refer to it
    /// The request. Its URL is left empty: it is resolved from urlTemplate.
    RequestSpec spec;
    /// The URL as written; "{server}" stands for the embedded server's base URL.
    QString urlTemplate;
    /// RequestSpec::fallbackUrls as written ("fallbacks"), "{server}" resolved like urlTemplate.
    QStringList fallbackTemplates;
    /// ReadModifyWriteShape::writeUrl as written, "{server}" resolved like urlTemplate; empty: the URL's.
    QString writeUrlTemplate;
    int count = 1;
    /// Logical requests of this entry in progress at once (sleeping between
    /// attempts counts): a group of `concurrency` clients working through `count`.
    int concurrency = 1;
    std::optional<ScenarioScript> script;

    bool usesServer() const;
};

/// What a scenario expects of the logical requests of one entry. Every
/// criterion that is set must hold for every one of them, except
/// minSuccessRate, which looks at the entry as a whole.
struct ScenarioExpectation
{
    QString name; ///< the JUnit test case name; made from the criteria when empty
    QString request; ///< the ScenarioRequest::name it checks
    QList<RequestOutcome> outcomes; ///< any of these; empty: not checked
    std::optional<int> minAttempts;
    std::optional<int> maxAttempts;
    bool checkFinalStatus = false;
    std::optional<int> finalStatus; ///< none: no HTTP status at all (a network fault)
    std::optional<double> minTotalMs;
    std::optional<double> maxTotalMs;
    std::optional<double> minSuccessRate; ///< 0..1, over the entry's requests
    QString lastCause; ///< cause of the final attempt, e.g. "http-503/not-idempotent"

    /// A short description of the criteria: "succeeded, 3 attempts, status 200".
    QString describe() const;
};

/// A scenario file as read by ScenarioReader: a policy, requests, an optional
/// script for the embedded fault server and expectations. The same object
/// drives `retrylab run` and could drive the GUI.
struct Scenario
{
    QString name;
    QString description;
    BackoffPolicy policy;
    /// Where the policy came from, for people: "preset google-cloud-storage
    /// with 2 overrides", "inline".
    QString policyOrigin;
    /// Policies of their own for some hosts or paths, the first match wins;
    /// the other requests run under `policy`.
    QList<EndpointPolicy> endpointPolicies;
    /// The policy a request to `url` runs under.
    const BackoffPolicy &policyFor(const QUrl &url) const
    {
        const EndpointPolicy *endpoint = matchingEndpointPolicy(endpointPolicies, url);
        return endpoint ? endpoint->policy : policy;
    }
    /// The seed of the jitter and of the embedded server's random faults.
    /// Unset: each run draws a fresh one (RandomSource::freshSeed()) and says it.
    std::optional<quint64> seed;
    int concurrency = 6; ///< attempts in flight at once across all requests
    /// Stops the run (cancelling what is left) after this long; 0: no limit.
    double timeoutMs = 0.0;
    QList<ScenarioRequest> requests;
    QList<ScenarioExpectation> expectations;

    /// The placeholders of URLs, header values and bodies, as in the window and in
    /// collections (RequestTemplate): {server}, the embedded server's base URL
    /// ("http://127.0.0.1:PORT"), and {id}, a key of its own for every logical request.
    static QString serverPlaceholder() { return RequestTemplate::serverPlaceholder(); }
    static QString idPlaceholder() { return RequestTemplate::idPlaceholder(); }

    /// Whether the embedded server must run: a URL names it, or a script needs it.
    bool needsServer() const;
    int totalRequests() const;
    const ScenarioRequest *request(const QString &requestName) const;

    /// `text` with {server} replaced by `serverBase` and {id} by `key`.
    static QString expand(const QString &text, const QUrl &serverBase, const QString &key);
    /// A URL template with the placeholders replaced.
    static QUrl resolveUrl(const QString &urlTemplate, const QUrl &serverBase, const QString &key);
};

/// Judges the expectations against a finished run. `requestNames` maps each
/// logical request id of the run to the name of its scenario entry.
QList<ExpectationResult> evaluateExpectations(
    const Scenario &scenario, const RunRecord &run, const QHash<quint64, QString> &requestNames);

} // namespace RetryLab::Core
