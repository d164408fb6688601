#pragma once

#include "core/grouping/attemptgrouper.h"
#include "core/http/httprequestparser.h"
#include "core/http/pathpattern.h"
#include "core/proxy/faultrule.h"
#include "core/util/randomsource.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <deque>
#include <optional>

namespace RetryLab::Core {

/// What the proxy does to one exchange: the rules that fired for it, combined.
/// Latencies add up and the lowest bandwidth holds; of the faults that decide
/// the answer (status, reset, empty, stall, cut, corrupt) the first rule in
/// order that fires wins.
struct ProxyFault
{
    enum class Outcome { Forward, Status, Reset, Empty, Stall, Cut, Corrupt };
    Outcome outcome = Outcome::Forward;
    int status = 0;
    std::optional<double> retryAfterS;
    FaultRule::ResetPoint resetPoint = FaultRule::ResetPoint::BeforeHeaders;
    qint64 cutAfterBytes = 0;
    int corruptEvery = 0;
    double delayBeforeForwardMs = 0.0;
    double delayBeforeResponseMs = 0.0;
    qint64 bandwidthBytesPerS = 0; ///< 0: no limit
    QStringList rules; ///< the names of the rules that fired, in order
    quint64 logicalId = 0; ///< the logical request the attempt belongs to
    int attemptIndex = 1; ///< 1-based within it

    bool callsUpstream() const;
    bool any() const { return !rules.isEmpty(); }
    /// The log's action for an exchange with this fault: "forwarded",
    /// "fault-status", "reset", "reset-after-headers", "empty", "stall",
    /// "broken-stream" (cut) or "corrupt".
    QString action() const;
    /// "rule \"outage\": 503 with Retry-After 2 s; rule \"slow\": +120 ms before forwarding".
    QString describe() const;
};

/// The fault rules of one proxy and what it needs to apply them: the counters
/// of `every=`, the logical requests of `first=` (an AttemptGrouper of its
/// own), the clock origin of `from=`/`to=`, and a seeded RandomSource for `p=`
/// and latencies, so that a seeded run draws the same faults again. Lives on
/// the proxy's thread; the window and the control port change it through the
/// ProxyServer. Times are milliseconds on any steady clock the caller keeps.
class FaultRuleSet
{
public:
    /// The host a request is for, lowercase, without port: an absolute-form
    /// target's, a CONNECT's, else the Host header's.
    static QByteArray requestHost(const HttpRequest &request);

    explicit FaultRuleSet(quint64 seed = 0x5EEDULL);

    /// Replaces the rules. With `restart`, counters, the time origin (`nowMs`)
    /// and the seed (the list's, if it has one) start again; without, a rule
    /// that did not change keeps its counts, and the origin and the draws go on
    /// (an edit in the window while traffic flows).
    void setRules(const FaultRuleList &list, double nowMs, bool restart = true);
    const QList<FaultRule> &rules() const { return m_rules; }
    /// Switches one rule by name; false when there is none of that name.
    bool setEnabled(const QString &name, bool enabled);
    /// Switches every rule.
    void setAllEnabled(bool enabled);

    quint64 seed() const { return m_random.seed(); }
    void reseed(quint64 seed) { m_random.reseed(seed); }

    /// Decides for a request that has just been read completely. `peer` is
    /// "address:port" of the client's connection.
    ProxyFault decide(const HttpRequest &request, const QString &peer, double nowMs);
    /// The exchange of an attempt ended; a success closes its logical request.
    void complete(quint64 logicalId, bool succeeded, double nowMs);

    struct Counts
    {
        quint64 matched = 0;
        quint64 fired = 0;
    };
    Counts counts(qsizetype rule) const { return m_counts.value(rule); }
    /// The rules as a `retrylab-faults` document, with "counts": each rule's
    /// state, matched and fired counts, in words. The control port answers it.
    QJsonObject stateJson() const;

private:
    bool matches(qsizetype rule, const HttpRequest &request) const;

    QList<FaultRule> m_rules;
    QList<PathPattern> m_paths; ///< each rule's path, compiled once
    QList<Counts> m_counts;
    double m_originMs = 0.0;
    RandomSource m_random;
    AttemptGrouper m_grouper;
    std::deque<quint64> m_logicalOrder; ///< to forget the oldest logical requests beyond a bound
};

} // namespace RetryLab::Core
