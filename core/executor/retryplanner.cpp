#include "core/executor/retryplanner.h"

#include "core/http/retryafter.h"
#include "core/policy/backoff.h"
#include "core/policy/fallbacktriggers.h"
#include "core/policy/retrybudget.h"
#include "core/util/coretr.h"
#include "core/util/jsonpointer.h"
#include "core/util/randomsource.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>

#include <algorithm>
#include <cmath>

namespace RetryLab::Core::RetryPlanner {

namespace {

const QString readStep = QStringLiteral("read");

bool isReadModifyWrite(const RequestSpec &spec)
{
    return spec.kind == RequestSpec::Kind::ReadModifyWrite;
}

Decision finish(Decision decision, RequestOutcome outcome, const QString &reason)
{
    decision.action = Decision::Action::Finish;
    decision.outcome = outcome;
    decision.reason = reason;
    return decision;
}

// The read of a read-modify-write succeeded: keep what it read and write next,
// or give up when there is nothing to modify.
Decision afterRead(Decision decision, const RequestSpec &spec, const Attempt &attempt)
{
    const ReadModifyWriteShape &shape = spec.readModifyWrite;
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(attempt.body, &parseError);
    const QJsonValue root = document.isObject() ? QJsonValue(document.object())
        : document.isArray()                    ? QJsonValue(document.array())
                                                : QJsonValue();
    const auto value = JsonPointer::get(root, shape.valuePointer);
    const bool integral = value && value->isDouble() && std::floor(value->toDouble()) == value->toDouble()
        && std::abs(value->toDouble()) <= 9.0e15;
    std::optional<QByteArray> etag;
    if (shape.etagPointer.isEmpty()) {
        etag = headerValue(attempt.responseHeaders, "ETag");
    } else if (const auto field = JsonPointer::get(root, shape.etagPointer); field && field->isString()) {
        etag = field->toString().toUtf8();
    }
    const QString version
        = shape.etagPointer.isEmpty() ? Tr::tr("an ETag header") : Tr::tr("a string at %1").arg(shape.etagPointer);
    if (!integral || !etag) {
        decision.recordDecision = Classification::Decision::GiveUp;
        decision.recordReason
            = Tr::tr("the read did not return an integer at %1 and %2; cannot modify and write")
                  .arg(shape.valuePointer.isEmpty() ? Tr::tr("the top") : shape.valuePointer, version);
        return finish(decision, RequestOutcome::GaveUp, decision.recordReason);
    }
    State &state = decision.state;
    state.readValue = value->toInteger();
    state.etag = *etag;
    state.readDocument = document.toJson(QJsonDocument::Compact);
    state.step = QStringLiteral("write");
    decision.action = Decision::Action::NextStep;
    decision.recordReason = shape.etagPointer.isEmpty()
        ? Tr::tr("read value %1 with ETag %2; writing %3 with If-Match")
              .arg(state.readValue)
              .arg(QString::fromLatin1(state.etag))
              .arg(state.readValue + spec.increment)
        : Tr::tr("read value %1 with etag %2 (%3); writing %4 with the etag as read")
              .arg(state.readValue)
              .arg(QString::fromUtf8(state.etag), shape.etagPointer)
              .arg(state.readValue + spec.increment);
    decision.nextDelayMs = 0.0;
    return decision;
}

} // namespace

State initialState(const RequestSpec &spec)
{
    State state;
    if (isReadModifyWrite(spec))
        state.step = readStep;
    return state;
}

namespace {

// The method as sent: trimmed and upper case. Most already are: those share their bytes.
QByteArray normalMethod(const QByteArray &method)
{
    const bool normal = std::none_of(method.cbegin(), method.cend(),
        [](char c) { return (c >= 'a' && c <= 'z') || uchar(c) >= 0x80 || c == ' ' || (c >= '\t' && c <= '\r'); });
    return normal ? method : method.trimmed().toUpper();
}

} // namespace

HopRequest attemptRequest(const RequestSpec &spec, const State &state)
{
    HopRequest request{spec.url, normalMethod(spec.method), spec.body, spec.headers};
    if (!isReadModifyWrite(spec))
        return request;
    const ReadModifyWriteShape &shape = spec.readModifyWrite;
    if (state.step == readStep) {
        request.method = normalMethod(shape.readMethod);
        if (request.method == "GET" || request.method == "HEAD")
            request.body.clear();
        return request;
    }
    request.method = normalMethod(shape.writeMethod);
    if (!shape.writeUrl.isEmpty())
        request.url = shape.writeUrl;
    // The document read, its value changed; the rest (an IAM policy's bindings and etag) as it was.
    const QJsonDocument read = QJsonDocument::fromJson(state.readDocument);
    QJsonValue document = read.isArray() ? QJsonValue(read.array()) : QJsonValue(read.object());
    JsonPointer::set(document, shape.valuePointer, QJsonValue(state.readValue + spec.increment));
    if (!shape.writeEnvelope.isEmpty())
        document = QJsonObject{{shape.writeEnvelope, document}};
    request.body = document.isArray() ? QJsonDocument(document.toArray()).toJson(QJsonDocument::Compact)
                                      : QJsonDocument(document.toObject()).toJson(QJsonDocument::Compact);
    request.headers.removeIf([](const auto &h) {
        return h.first.compare("If-Match", Qt::CaseInsensitive) == 0
            || h.first.compare("Content-Type", Qt::CaseInsensitive) == 0;
    });
    if (shape.etagPointer.isEmpty())
        request.headers.append({QByteArray("If-Match"), state.etag});
    request.headers.append({QByteArray("Content-Type"), QByteArray("application/json")});
    return request;
}

Decision decide(const State &state, const RequestSpec &spec, const Attempt &attempt, const Classification &c,
    const BackoffPolicy &policy, const RetryBudget &budget, RandomSource &random)
{
    Decision decision;
    decision.state = state;
    decision.recordDecision = c.decision;
    decision.recordReason = c.reason;
    State &next = decision.state;

    if (c.decision == Classification::Decision::Success) {
        if (isReadModifyWrite(spec) && state.step == readStep)
            return afterRead(decision, spec, attempt);
        return finish(decision, RequestOutcome::Succeeded, c.reason);
    }

    ++next.failures;
    if (!c.isRetry()) {
        RequestOutcome outcome = RequestOutcome::GaveUp;
        if (attempt.end == AttemptEnd::Cancelled)
            outcome = RequestOutcome::Cancelled;
        else if (attempt.end == AttemptEnd::Deadline)
            outcome = RequestOutcome::DeadlineExceeded;
        return finish(decision, outcome, c.reason);
    }

    const QString &what = c.reason;
    // The fault was worth a retry but the policy allows none: the attempt's own
    // reason ends with why the client stopped, not with "retry after a delay".
    const auto giveUp = [&decision, &what](RequestOutcome outcome, const QString &reason, const QString &cause) {
        decision.recordReason = Tr::tr("%1; gave up: %2").arg(what, cause);
        return finish(decision, outcome, reason);
    };
    if (policy.maxAttempts > 0 && next.failures >= policy.maxAttempts) {
        return giveUp(RequestOutcome::AttemptsExhausted,
            Tr::tr("gave up after %n attempt(s): %1", nullptr, next.failures).arg(what),
            Tr::tr("attempt limit reached: %1 of %2").arg(next.failures).arg(policy.maxAttempts));
    }
    // The Azure Retry pattern: Immediate retries once, at once, for a rare fault; a
    // fault that survives that retry is not rare, whatever maxAttempts allows.
    if (policy.algorithm == BackoffAlgorithm::Immediate && next.failures >= 2) {
        return giveUp(RequestOutcome::AttemptsExhausted,
            Tr::tr("gave up after %n attempt(s): %1; the Immediate algorithm retries only once", nullptr, next.failures)
                .arg(what),
            Tr::tr("the Immediate algorithm retries only once"));
    }

    // The delay: immediate once for rare faults, else the policy's backoff,
    // replaced by a bounded Retry-After when the server sent one. The backoff
    // is drawn, and the retry index advances, even when Retry-After replaces it.
    double delay = 0.0;
    QString delayReason;
    if (c.decision == Classification::Decision::RetryImmediately && !state.usedImmediateRetry) {
        next.usedImmediateRetry = true;
        delayReason = Tr::tr("retrying immediately once");
    } else {
        delay = Backoff::delayMs(policy, state.retryIndex, state.previousDelayMs, random);
        next.previousDelayMs = delay;
        ++next.retryIndex;
        delayReason = Tr::tr("%1 backoff").arg(algorithmTitle(policy.algorithm));
        // A kind of fault may wait more or less than the backoff (a reset less than a 503, a 429 more).
        double factor = 1.0;
        QString factorFor;
        if (c.networkFault) {
            factor = policy.classification.delayFactor(*c.networkFault);
            factorFor = networkFaultClassName(*c.networkFault);
        } else if (c.httpStatus) {
            factor = policy.classification.statusDelayFactor(*c.httpStatus);
            factorFor = Tr::tr("HTTP %1").arg(*c.httpStatus);
        }
        if (factor != 1.0) {
            delay = Backoff::scaledDelayMs(policy, delay, factor);
            delayReason = Tr::tr("%1 \u00d7 %2 for %3").arg(delayReason).arg(factor).arg(factorFor);
        }
    }

    const double remainingMs = policy.deadlineMs > 0.0 ? std::max(0.0, policy.deadlineMs - attempt.elapsedMs) : -1.0;
    // The server's own word on when to come back: Retry-After, or else the reset of
    // a spent rate limit (ClassificationRules::honourRateLimitReset), bounded alike.
    const bool rateLimit = !(c.retryAfter && c.retryAfter->isValid()) && c.rateLimitReset;
    if (const auto &server = rateLimit ? c.rateLimitReset : c.retryAfter) {
        const RetryAfterDecision ra = boundRetryAfter(*server, policy.classification.maxRetryAfterMs, remainingMs);
        if (ra.action == RetryAfterDecision::Action::GiveUp)
            return giveUp(RequestOutcome::DeadlineExceeded, Tr::tr("%1; %2").arg(what, ra.reason), ra.reason);
        if (ra.action == RetryAfterDecision::Action::Wait) {
            delay = ra.delayMs;
            delayReason = rateLimit ? Tr::tr("waiting for the rate limit reset: %1").arg(ra.reason) : ra.reason;
        }
    }

    if (remainingMs >= 0.0 && delay >= remainingMs) {
        return giveUp(RequestOutcome::DeadlineExceeded,
            Tr::tr("%1; the next retry in %2 ms would start after the deadline (%3 ms left): giving up now")
                .arg(what)
                .arg(std::round(delay))
                .arg(std::floor(remainingMs)),
            Tr::tr("deadline: the next retry in %1 ms would start after it (%2 ms left)")
                .arg(std::round(delay))
                .arg(std::floor(remainingMs)));
    }

    // Asked on a copy: the executor pays, and only for a retry it schedules.
    const bool afterTimeout = attempt.end == AttemptEnd::AttemptTimeout;
    RetryBudget trial = budget;
    const double cost = trial.tryAcquireRetry(afterTimeout);
    if (cost < 0.0) {
        return giveUp(RequestOutcome::BudgetExhausted,
            Tr::tr("%1; the retry budget is exhausted (%2 of %3 tokens left)")
                .arg(what)
                .arg(budget.tokens())
                .arg(budget.capacity()),
            Tr::tr("retry budget empty (%1 of %2 tokens left)").arg(budget.tokens()).arg(budget.capacity()));
    }

    if (c.restartSequence)
        ++next.sequenceRound;
    // Retrying only the write keeps failing: the whole sequence starts again.
    if (isReadModifyWrite(spec))
        next.step = readStep;

    decision.action = Decision::Action::Retry;
    decision.nextDelayMs = delay;
    decision.reason = Tr::tr("%1 (%2)").arg(what, delayReason);
    decision.attemptsLeft = policy.maxAttempts > 0 ? policy.maxAttempts - next.failures : -1;
    decision.retryCost = cost;
    decision.retryAfterTimeout = afterTimeout;
    return decision;
}

FallbackVerdict fallbackVerdict(const RequestSpec &spec, const Classification &c)
{
    FallbackVerdict verdict;
    if (spec.fallbackOn.isEmpty()) {
        verdict.allowed = c.fallbackAllowed;
        if (!verdict.allowed)
            verdict.refusal
                = Tr::tr("a fallback is another attempt, and this fault or this request is not one to repeat");
        return verdict;
    }
    verdict.trigger = FallbackTriggers::match(spec.fallbackOn, c);
    if (verdict.trigger.isEmpty()) {
        verdict.refusal = Tr::tr("%1 is not in the request's fallback list (%2)")
                              .arg(c.cause, spec.fallbackOn.join(QStringLiteral(", ")));
    } else if (!c.repeatable) {
        verdict.refusal = Tr::tr("\"%1\" is in the request's fallback list, but a fallback is another attempt, and "
                                 "this request is not one to repeat")
                              .arg(verdict.trigger);
    } else {
        verdict.allowed = true;
    }
    return verdict;
}

bool takesFallback(const RequestSpec &spec, int current, RequestOutcome outcome, bool lastAttemptAllows)
{
    if (!lastAttemptAllows)
        return false;
    switch (outcome) {
    case RequestOutcome::Succeeded:
    case RequestOutcome::Cancelled:
    case RequestOutcome::InvalidRequest:
        return false;
    case RequestOutcome::GaveUp:
    case RequestOutcome::AttemptsExhausted:
    case RequestOutcome::DeadlineExceeded:
    case RequestOutcome::CircuitOpen:
    case RequestOutcome::BudgetExhausted:
        break;
    }
    return current >= 0 && current < spec.fallbackUrls.size();
}

QString fallbackName(const RequestSpec &spec, int fallback)
{
    const QUrl url
        = fallback >= 1 && fallback <= spec.fallbackUrls.size() ? spec.fallbackUrls.at(fallback - 1) : QUrl();
    return Tr::tr("fallback %1 of %2 (%3)")
        .arg(fallback)
        .arg(spec.fallbackUrls.size())
        .arg(url.toDisplayString(QUrl::RemoveUserInfo | QUrl::RemoveQuery | QUrl::RemoveFragment));
}

Decision decideFallback(
    const State &state, const RequestSpec &spec, int fallback, AttemptEnd end, const Classification &classification)
{
    Decision decision;
    decision.state = state;
    decision.nextDelayMs = -1.0;
    const QString where = fallbackName(spec, fallback);
    if (end == AttemptEnd::Cancelled) {
        decision.recordReason = classification.reason;
        return finish(decision, RequestOutcome::Cancelled, classification.reason);
    }
    if (classification.decision == Classification::Decision::Success) {
        decision.recordDecision = Classification::Decision::Success;
        decision.recordReason = classification.reason;
        return finish(decision, RequestOutcome::Succeeded, Tr::tr("%1 answered: %2").arg(where, classification.reason));
    }
    decision.recordDecision = Classification::Decision::GiveUp;
    decision.recordReason = Tr::tr("%1; a fallback endpoint gets one attempt").arg(classification.reason);
    return finish(decision, RequestOutcome::GaveUp, Tr::tr("%1 failed: %2").arg(where, classification.reason));
}

} // namespace RetryLab::Core::RetryPlanner
