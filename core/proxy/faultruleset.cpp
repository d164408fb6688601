#include "core/proxy/faultruleset.h"

#include "core/http/serverlogentry.h"
#include "core/util/coretr.h"
#include "core/util/durationtext.h"

#include <QJsonArray>

#include <algorithm>
#include <cmath>

namespace RetryLab::Core {

namespace {

/// Logical requests the `first=` grouping keeps open at most; the oldest go first.
constexpr std::size_t maxOpenLogicalRequests = 50'000;

} // namespace

bool ProxyFault::callsUpstream() const
{
    switch (outcome) {
    case Outcome::Status:
    case Outcome::Empty:
    case Outcome::Stall:
        return false;
    case Outcome::Reset:
        return resetPoint != FaultRule::ResetPoint::Unsent;
    case Outcome::Forward:
    case Outcome::Cut:
    case Outcome::Corrupt:
        return true;
    }
    return true;
}

QString ProxyFault::action() const
{
    switch (outcome) {
    case Outcome::Forward:
        return QStringLiteral("forwarded");
    case Outcome::Status:
        return QStringLiteral("fault-status");
    case Outcome::Reset:
        return resetPoint == FaultRule::ResetPoint::AfterHeaders ? QStringLiteral("reset-after-headers")
                                                                 : QStringLiteral("reset");
    case Outcome::Empty:
        return QStringLiteral("empty");
    case Outcome::Stall:
        return QStringLiteral("stall");
    case Outcome::Cut:
        return QStringLiteral("broken-stream");
    case Outcome::Corrupt:
        return QStringLiteral("corrupt");
    }
    return QString();
}

QString ProxyFault::describe() const
{
    if (rules.isEmpty())
        return QString();
    QStringList parts;
    switch (outcome) {
    case Outcome::Forward:
        break;
    case Outcome::Status:
        parts << (retryAfterS ? Tr::tr("%1 with Retry-After %2 s").arg(status).arg(*retryAfterS)
                              : Tr::tr("%1 without calling the upstream").arg(status));
        break;
    case Outcome::Reset:
        parts << (resetPoint == FaultRule::ResetPoint::Unsent        ? Tr::tr("reset, not forwarded")
                : resetPoint == FaultRule::ResetPoint::BeforeHeaders ? Tr::tr("reset instead of the upstream's answer")
                                                                     : Tr::tr("reset after the headers"));
        break;
    case Outcome::Empty:
        parts << Tr::tr("empty reply");
        break;
    case Outcome::Stall:
        parts << Tr::tr("stalled");
        break;
    case Outcome::Cut:
        parts << Tr::tr("body cut after %1 bytes").arg(cutAfterBytes);
        break;
    case Outcome::Corrupt:
        parts << Tr::tr("every %1th body byte inverted").arg(corruptEvery);
        break;
    }
    if (delayBeforeForwardMs > 0.0)
        parts << Tr::tr("+%1 before forwarding").arg(DurationText::format(delayBeforeForwardMs));
    if (delayBeforeResponseMs > 0.0)
        parts << Tr::tr("+%1 before responding").arg(DurationText::format(delayBeforeResponseMs));
    if (bandwidthBytesPerS > 0)
        parts << Tr::tr("%1 bytes/s").arg(bandwidthBytesPerS);
    QStringList quoted;
    for (const QString &r : rules)
        quoted << QLatin1Char('"') + r + QLatin1Char('"');
    return Tr::tr("fault %1: %2").arg(quoted.join(QStringLiteral(", ")), parts.join(QStringLiteral("; ")));
}

QByteArray FaultRuleSet::requestHost(const HttpRequest &request)
{
    QByteArray authority;
    if (request.method == "CONNECT") {
        authority = request.target;
    } else if (const qsizetype scheme = request.target.indexOf("://"); scheme > 0 && !request.target.startsWith('/')) {
        authority = request.target.mid(scheme + 3);
        const qsizetype end = authority.indexOf('/');
        const qsizetype query = authority.indexOf('?');
        authority.truncate(std::min(end < 0 ? authority.size() : end, query < 0 ? authority.size() : query));
        authority = authority.mid(authority.lastIndexOf('@') + 1);
    } else {
        authority = request.header("Host").value_or(QByteArray());
    }
    // "[::1]:8080" gives "::1", "example.com:443" "example.com".
    if (authority.startsWith('[')) {
        const qsizetype close = authority.indexOf(']');
        return authority.mid(1, close < 0 ? -1 : close - 1).toLower();
    }
    const qsizetype colon = authority.lastIndexOf(':');
    return (colon < 0 ? authority : authority.left(colon)).toLower();
}

FaultRuleSet::FaultRuleSet(quint64 seed) : m_random(seed)
{ }

void FaultRuleSet::setRules(const FaultRuleList &list, double nowMs, bool restart)
{
    FaultRuleList named = list;
    named.nameRules();
    QList<Counts> counts(named.rules.size());
    if (!restart) {
        for (qsizetype i = 0; i < named.rules.size(); ++i) {
            for (qsizetype j = 0; j < m_rules.size(); ++j) {
                FaultRule before = m_rules[j];
                before.enabled = named.rules[i].enabled; // switching a rule is not changing it
                if (before == named.rules[i])
                    counts[i] = m_counts.value(j);
            }
        }
    }
    m_rules = named.rules;
    m_counts = counts;
    m_paths.clear();
    for (const FaultRule &r : std::as_const(m_rules))
        m_paths.append(PathPattern(r.path));
    if (restart) {
        m_originMs = nowMs;
        if (list.seed)
            m_random.reseed(*list.seed);
    }
}

bool FaultRuleSet::setEnabled(const QString &name, bool enabled)
{
    for (FaultRule &r : m_rules) {
        if (r.name == name) {
            r.enabled = enabled;
            return true;
        }
    }
    return false;
}

void FaultRuleSet::setAllEnabled(bool enabled)
{
    for (FaultRule &r : m_rules)
        r.enabled = enabled;
}

bool FaultRuleSet::matches(qsizetype index, const HttpRequest &request) const
{
    const FaultRule &rule = m_rules[index];
    if (!rule.method.isEmpty() && rule.method != request.method)
        return false;
    if (!rule.host.isEmpty() && !FaultRule::globMatch(rule.host, requestHost(request)))
        return false;
    if (!m_paths[index].matches(QByteArrayView(request.path)))
        return false;
    if (!rule.headerName.isEmpty()) {
        bool found = false;
        for (const auto &[name, value] : request.headers) {
            if (name.compare(rule.headerName, Qt::CaseInsensitive) == 0
                && (rule.headerGlob.isEmpty() || FaultRule::globMatch(rule.headerGlob, value))) {
                found = true;
                break;
            }
        }
        if (!found)
            return false;
    }
    return true;
}

ProxyFault FaultRuleSet::decide(const HttpRequest &request, const QString &peer, double nowMs)
{
    ProxyFault fault;
    const bool anyEnabled = std::any_of(m_rules.cbegin(), m_rules.cend(), [](const FaultRule &r) { return r.enabled; });
    if (!anyEnabled)
        return fault;

    // The logical request, for first=: grouped as the observer groups.
    const bool needsGrouping = std::any_of(
        m_rules.cbegin(), m_rules.cend(), [](const FaultRule &r) { return r.enabled && r.firstPerLogicalRequest > 0; });
    if (needsGrouping) {
        ObservedAttempt a;
        a.arrivalMs = nowMs;
        a.peer = peer;
        a.address = peer.section(QLatin1Char(':'), 0, -2);
        a.userAgent = QString::fromLatin1(request.header("User-Agent").value_or(QByteArray()));
        a.clientId = a.userAgent + QLatin1Char('@') + a.address;
        a.method = request.method;
        a.target = QString::fromUtf8(request.target);
        a.bodyDigest = ServerLogEntry::bodyDigestOf(request.body);
        a.requestDigest = ServerLogEntry::requestDigestOf(request.target, request.headers);
        const QList<QPair<QByteArray, QByteArray>> identity = ServerLogEntry::identityHeadersOf(request.headers);
        const AttemptGrouper::Decision d = m_grouper.assign(a, identity);
        fault.logicalId = d.logicalId;
        fault.attemptIndex = d.attemptIndex;
        if (d.newLogicalRequest) {
            m_logicalOrder.push_back(d.logicalId);
            while (m_logicalOrder.size() > maxOpenLogicalRequests) {
                m_grouper.forget(m_logicalOrder.front());
                m_logicalOrder.pop_front();
            }
        }
    }

    const double elapsedS = (nowMs - m_originMs) / 1000.0;
    for (qsizetype i = 0; i < m_rules.size(); ++i) {
        const FaultRule &r = m_rules[i];
        if (!r.enabled || !matches(i, request))
            continue;
        Counts &counts = m_counts[i];
        ++counts.matched;
        if ((r.fromS && elapsedS < *r.fromS) || (r.toS && elapsedS >= *r.toS))
            continue;
        if (r.every > 0 && counts.matched % quint64(r.every) != 0)
            continue;
        if (r.firstPerLogicalRequest > 0 && fault.attemptIndex > r.firstPerLogicalRequest)
            continue;
        const bool decidesOutcome = r.kind != FaultRule::Kind::Latency && r.kind != FaultRule::Kind::Bandwidth;
        if (decidesOutcome && fault.outcome != ProxyFault::Outcome::Forward)
            continue; // an earlier rule decided the answer
        if (r.probability < 1.0 && !m_random.chance(r.probability))
            continue;
        ++counts.fired;
        fault.rules.append(r.name);
        switch (r.kind) {
        case FaultRule::Kind::Latency: {
            double ms = r.latencyMs;
            if (r.latencyShape == FaultRule::LatencyShape::Uniform)
                ms = m_random.uniform(r.latencyMs, r.latencyMaxMs);
            else if (r.latencyShape == FaultRule::LatencyShape::Lognormal)
                ms = std::min(600'000.0, m_random.lognormal(std::log(r.latencyMs), r.latencySigma));
            (r.latencyBeforeResponse ? fault.delayBeforeResponseMs : fault.delayBeforeForwardMs) += ms;
            break;
        }
        case FaultRule::Kind::Bandwidth:
            fault.bandwidthBytesPerS = fault.bandwidthBytesPerS == 0
                ? r.bandwidthBytesPerS
                : std::min(fault.bandwidthBytesPerS, r.bandwidthBytesPerS);
            break;
        case FaultRule::Kind::Status:
            fault.outcome = ProxyFault::Outcome::Status;
            fault.status = r.status;
            fault.retryAfterS = r.retryAfterS;
            break;
        case FaultRule::Kind::Reset:
            fault.outcome = ProxyFault::Outcome::Reset;
            fault.resetPoint = r.resetPoint;
            break;
        case FaultRule::Kind::Empty:
            fault.outcome = ProxyFault::Outcome::Empty;
            break;
        case FaultRule::Kind::Stall:
            fault.outcome = ProxyFault::Outcome::Stall;
            break;
        case FaultRule::Kind::Cut:
            fault.outcome = ProxyFault::Outcome::Cut;
            fault.cutAfterBytes = r.cutAfterBytes;
            break;
        case FaultRule::Kind::Corrupt:
            fault.outcome = ProxyFault::Outcome::Corrupt;
            fault.corruptEvery = r.corruptEvery;
            break;
        }
    }
    return fault;
}

void FaultRuleSet::complete(quint64 logicalId, bool succeeded, double nowMs)
{
    if (logicalId != 0)
        m_grouper.complete(logicalId, succeeded, nowMs);
}

QJsonObject FaultRuleSet::stateJson() const
{
    FaultRuleList list;
    list.rules = m_rules;
    list.seed = m_random.seed();
    QJsonObject o = list.toJson();
    QJsonArray counts;
    for (qsizetype i = 0; i < m_rules.size(); ++i) {
        counts.append(
            QJsonObject{{QStringLiteral("name"), m_rules[i].name}, {QStringLiteral("enabled"), m_rules[i].enabled},
                {QStringLiteral("matched"), double(m_counts.value(i).matched)},
                {QStringLiteral("fired"), double(m_counts.value(i).fired)},
                {QStringLiteral("describe"), m_rules[i].describe()}});
    }
    o.insert(QStringLiteral("counts"), counts);
    return o;
}

} // namespace RetryLab::Core
