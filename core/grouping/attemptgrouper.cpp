#include "core/grouping/attemptgrouper.h"

#include "core/util/coretr.h"
#include "core/util/durationtext.h"

namespace RetryLab::Core {

namespace {

std::optional<QByteArray> headerValue(const QList<QPair<QByteArray, QByteArray>> &headers, QByteArrayView name)
{
    for (const auto &[key, value] : headers) {
        if (key.compare(name, Qt::CaseInsensitive) == 0)
            return value.trimmed();
    }
    return std::nullopt;
}

std::optional<int> positiveNumber(QByteArrayView text)
{
    bool ok = false;
    const int value = text.trimmed().toInt(&ok);
    return ok && value >= 0 ? std::optional<int>(value) : std::nullopt;
}

/// Reads "attempt=2; max=3" (amz-sdk-request).
void readAwsRequest(QByteArrayView value, AttemptGrouper::Identity &identity)
{
    for (const QByteArray &part : value.toByteArray().split(';')) {
        const qsizetype equals = part.indexOf('=');
        if (equals < 0)
            continue;
        const QByteArray name = part.left(equals).trimmed().toLower();
        const auto number = positiveNumber(QByteArrayView(part).sliced(equals + 1));
        if (name == "attempt")
            identity.attempt = number;
        else if (name == "max")
            identity.maxAttempts = number;
    }
}

/// Reads "gl-python/3.11 gccl/2.9 gccl-invocation-id/4c1a... gccl-attempt-count/2" (x-goog-api-client).
void readGoogleClient(QByteArrayView value, AttemptGrouper::Identity &identity)
{
    for (const QByteArray &token : value.toByteArray().split(' ')) {
        if (token.startsWith("gccl-invocation-id/")) {
            identity.key = token.mid(int(sizeof("gccl-invocation-id/")) - 1);
            identity.rule = GroupingRule::GoogleInvocationId;
        } else if (token.startsWith("gccl-attempt-count/")) {
            identity.attempt = positiveNumber(QByteArrayView(token).sliced(sizeof("gccl-attempt-count/") - 1));
        }
    }
}

QString shortKey(const QByteArray &key)
{
    return QString::fromLatin1(key.size() > 16 ? key.left(16) + "..." : key);
}

// The reasons that take no argument, given for nearly every observed request: translated once
// (the language is chosen at start), not per request.
enum class ConstantReason { DifferentRequest, WhileUnanswered, Gap, NotSeenBefore };

const QString &constantReason(ConstantReason reason)
{
    static const QString texts[] = {
        Tr::tr("different request"),
        Tr::tr("the same request while another was still unanswered"),
        Tr::tr("gap"),
        Tr::tr("a request not seen before from this client"),
    };
    return texts[static_cast<int>(reason)];
}

} // namespace

AttemptGrouper::Identity AttemptGrouper::identify(const QList<QPair<QByteArray, QByteArray>> &identityHeaders)
{
    Identity identity;
    if (const auto id = headerValue(identityHeaders, "amz-sdk-invocation-id"); id && !id->isEmpty()) {
        identity.rule = GroupingRule::AwsInvocationId;
        identity.key = *id;
        if (const auto request = headerValue(identityHeaders, "amz-sdk-request"))
            readAwsRequest(*request, identity);
        return identity;
    }
    if (const auto google = headerValue(identityHeaders, "x-goog-api-client")) {
        readGoogleClient(*google, identity);
        if (!identity.key.isEmpty())
            return identity;
        identity.attempt.reset();
    }
    if (const auto id = headerValue(identityHeaders, "x-retry-request-id"); id && !id->isEmpty()) {
        identity.rule = GroupingRule::RetryRequestId;
        identity.key = *id;
        if (const auto attempt = headerValue(identityHeaders, "x-retry-attempt"))
            identity.attempt = positiveNumber(*attempt);
        return identity;
    }
    if (const auto key = headerValue(identityHeaders, "idempotency-key"); key && !key->isEmpty()) {
        identity.rule = GroupingRule::IdempotencyKey;
        identity.key = *key;
        return identity;
    }
    if (const auto previous = headerValue(identityHeaders, "grpc-previous-rpc-attempts")) {
        if (const auto count = positiveNumber(*previous); count && *count > 0) {
            identity.rule = GroupingRule::GrpcPreviousAttempts;
            identity.attempt = *count + 1;
        }
    }
    return identity;
}

AttemptGrouper::Decision AttemptGrouper::assign(
    const ObservedAttempt &attempt, const QList<QPair<QByteArray, QByteArray>> &identityHeaders)
{
    return assignIdentified(attempt, identify(identityHeaders));
}

AttemptGrouper::Decision AttemptGrouper::assignIdentified(const ObservedAttempt &attempt, const Identity &identity)
{
    Decision d;
    const QString &client = attempt.clientId;

    // A different request on the same connection from a client whose last
    // logical request has been answered (and was not grouped by an identifier)
    // means it moved on; on another connection it is a parallel request.
    const auto closeLastIfOther = [&](const QByteArray &key) {
        const auto last = m_lastOfClient.constFind(client);
        if (last == m_lastOfClient.cend())
            return;
        const auto open = m_open.constFind(*last);
        if (open == m_open.cend() || open->byIdentifier || open->inFlight > 0 || open->key == key
            || open->lastPeer.isEmpty() || open->lastPeer != attempt.peer)
            return;
        d.closed.append({*last, constantReason(ConstantReason::DifferentRequest)});
        close(*last);
    };

    const auto join = [&](quint64 id, GroupingRule rule, const QString &detail) {
        Open &o = m_open[id];
        ++o.attempts;
        ++o.inFlight;
        o.lastPeer = attempt.peer;
        if (identity.maxAttempts)
            o.announcedMax = identity.maxAttempts;
        d.logicalId = id;
        d.newLogicalRequest = false;
        d.attemptIndex = o.attempts;
        d.rule = rule;
        d.detail = detail;
    };
    const auto start = [&](const QByteArray &key, bool byIdentifier, const QString &detail) {
        const quint64 id = m_nextId++;
        Open o;
        o.clientId = client;
        o.key = key;
        o.byIdentifier = byIdentifier;
        o.attempts = 1;
        o.inFlight = 1;
        o.lastPeer = attempt.peer;
        o.announcedMax = identity.maxAttempts;
        m_open.insert(id, std::move(o));
        if (!key.isEmpty())
            m_byKey.insert(key, id);
        m_lastOfClient.insert(client, id);
        d.logicalId = id;
        d.newLogicalRequest = true;
        d.attemptIndex = 1;
        d.rule = GroupingRule::NewRequest;
        d.detail = detail;
    };

    if (!identity.key.isEmpty()) {
        const QByteArray key
            = clientKey(client) + '\x1f' + GroupingRules::name(identity.rule).toLatin1() + '\x1f' + identity.key;
        if (const auto found = m_byKey.constFind(key); found != m_byKey.cend() && m_open.contains(*found)) {
            join(*found, identity.rule,
                Tr::tr("%1 %2").arg(GroupingRules::describe(identity.rule), shortKey(identity.key)));
            return d;
        }
        closeLastIfOther(key);
        start(key, true, Tr::tr("a new identifier %1").arg(shortKey(identity.key)));
        return d;
    }

    if (identity.rule == GroupingRule::GrpcPreviousAttempts) {
        if (const auto last = m_lastOfClient.constFind(client);
            last != m_lastOfClient.cend() && m_open.contains(*last)) {
            join(*last, identity.rule, Tr::tr("grpc-previous-rpc-attempts: %1").arg(*identity.attempt - 1));
            return d;
        }
    }

    // What arrived, not what is shown: a masked target would merge requests that
    // differ only in a masked query value (?key=a, ?key=b).
    const QByteArray key = clientKey(client) + '\x1e' + attempt.method + ' '
        + (attempt.requestDigest.isEmpty() ? attempt.target.toUtf8() : attempt.requestDigest) + ' '
        + attempt.bodyDigest;
    closeLastIfOther(key);
    if (const auto found = m_byKey.constFind(key); found != m_byKey.cend()) {
        const quint64 id = *found;
        const Open &o = m_open.value(id);
        if (o.inFlight > 0) {
            // The same request again while the previous one is unanswered: a
            // parallel request, not a retry (a retry follows an answer).
            start(key, false, constantReason(ConstantReason::WhileUnanswered));
            return d;
        }
        const double gap = attempt.arrivalMs - o.lastEndMs;
        if (gap > m_settings.gapWindowMs) {
            d.closed.append({id, constantReason(ConstantReason::Gap)});
            close(id);
            start(key, false,
                Tr::tr("%1 after the previous answer, beyond the gap window of %2")
                    .arg(DurationText::format(gap), DurationText::format(m_settings.gapWindowMs)));
            return d;
        }
        join(id, GroupingRule::SameRequest,
            Tr::tr("the same request %1 after a failed answer").arg(DurationText::format(gap)));
        m_lastOfClient.insert(client, id);
        return d;
    }
    start(key, false, constantReason(ConstantReason::NotSeenBefore));
    return d;
}

const QByteArray &AttemptGrouper::clientKey(const QString &client)
{
    // Nearly every attempt comes from the client of the one before: its UTF-8 is made once.
    if (m_keyClientUtf8.isNull() || client != m_keyClient) {
        m_keyClient = client;
        m_keyClientUtf8 = client.toUtf8();
    }
    return m_keyClientUtf8;
}

QString AttemptGrouper::complete(quint64 logicalId, bool succeeded, double endMs)
{
    const auto found = m_open.find(logicalId);
    if (found == m_open.end())
        return {};
    Open &o = *found;
    o.inFlight = std::max(0, o.inFlight - 1);
    o.lastEndMs = std::max(o.lastEndMs, endMs);
    if (succeeded) {
        close(logicalId);
        return QStringLiteral("success");
    }
    if (o.announcedMax && *o.announcedMax > 0 && o.attempts >= *o.announcedMax && o.inFlight == 0) {
        close(logicalId);
        return QStringLiteral("limit");
    }
    return {};
}

void AttemptGrouper::forget(quint64 logicalId)
{
    close(logicalId);
}

void AttemptGrouper::close(quint64 logicalId)
{
    const auto found = m_open.constFind(logicalId);
    if (found == m_open.cend())
        return;
    if (const auto key = m_byKey.constFind(found->key); key != m_byKey.cend() && *key == logicalId)
        m_byKey.erase(key);
    if (const auto last = m_lastOfClient.constFind(found->clientId);
        last != m_lastOfClient.cend() && *last == logicalId)
        m_lastOfClient.erase(last);
    m_open.erase(found);
}

} // namespace RetryLab::Core
