#include "core/scenario/conformancesuite.h"

#include "core/http/retryheaders.h"
#include "core/util/coretr.h"
#include "core/util/durationtext.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>

namespace RetryLab::Core {

namespace {

// The compressed timing (compressed()).
constexpr double targetBaseMs = 10.0;
constexpr double targetCapMs = 100.0;
constexpr double minDeadlineMs = 2000.0;
constexpr double maxAttemptTimeoutMs = 5000.0;

QString statusPhrase(const std::optional<int> &status)
{
    return status ? Tr::tr("status %1").arg(*status) : Tr::tr("no HTTP status");
}

} // namespace

QString ConformanceExpectation::summary() const
{
    QStringList names;
    for (RequestOutcome outcome : outcomes)
        names.append(requestOutcomeName(outcome));
    QString attempts;
    if (maxAttempts < 0)
        attempts = Tr::tr("after at least %n attempt(s)", nullptr, minAttempts);
    else if (minAttempts == maxAttempts)
        attempts = Tr::tr("after %n attempt(s)", nullptr, minAttempts);
    else
        attempts = Tr::tr("after %1-%2 attempts").arg(minAttempts).arg(maxAttempts);
    QString text = Tr::tr("%1 %2").arg(names.join(Tr::tr(" or ")), attempts);
    if (checkFinalStatus)
        text += Tr::tr(", %1").arg(statusPhrase(finalStatus));
    if (retryAfterDelayMs)
        text += Tr::tr(", waiting %1 as Retry-After asks").arg(DurationText::format(*retryAfterDelayMs));
    return text;
}

QString ConformanceCase::name() const
{
    return Tr::tr("%1 / %2").arg(sequence.title, Conformance::idempotencyTitle(idempotency));
}

bool ConformanceCase::applies() const
{
    return sequence.readModifyWrite == FaultSequence::ReadModifyWrite::None
        || idempotency == IdempotencyClass::Conditional;
}

QString ConformanceCase::notApplicableReason()
{
    return Tr::tr("not played: a read-modify-write's write carries the version it read, so it is conditional; only "
                  "the conditional column plays it");
}

RequestSpec ConformanceCase::request(const QUrl &base, const QString &testId, const QUrl &unreachable) const
{
    RequestSpec spec;
    QString root = (sequence.unreachable && unreachable.isValid() ? unreachable : base).toString(QUrl::FullyEncoded);
    while (root.endsWith(QLatin1Char('/')))
        root.chop(1);
    if (sequence.readModifyWrite != FaultSequence::ReadModifyWrite::None) {
        // A resource of the cell's own on /occ, read and written until a write lands.
        const QString resource = root
            + QStringLiteral("/occ/conformance-%1-%2")
                  .arg(sequence.id,
                      QString::fromLatin1(QUrl::toPercentEncoding(testId.isEmpty() ? QStringLiteral("cell") : testId)));
        spec.kind = RequestSpec::Kind::ReadModifyWrite;
        spec.label = name();
        if (sequence.readModifyWrite == FaultSequence::ReadModifyWrite::Iam) {
            const QString query = QStringLiteral("?etag=body&envelope=policy");
            spec.url = QUrl(resource + QStringLiteral(":getIamPolicy") + query);
            spec.readModifyWrite.readMethod = "POST";
            spec.readModifyWrite.writeMethod = "POST";
            spec.readModifyWrite.writeUrl = QUrl(resource + QStringLiteral(":setIamPolicy") + query);
            spec.readModifyWrite.etagPointer = QStringLiteral("/etag");
            spec.readModifyWrite.writeEnvelope = QStringLiteral("policy");
        } else {
            spec.url = QUrl(resource);
        }
        if (!testId.isEmpty())
            spec.headers.append({QByteArray(RetryHeaders::testId), testId.toLatin1()});
        return spec;
    }
    spec.url = QUrl(root + QStringLiteral("/status/%1").arg(sequence.thenStatus));
    spec.label = name();
    if (idempotency != IdempotencyClass::Always) {
        spec.method = "POST";
        spec.body = QByteArrayLiteral("{\"conformance\":\"") + sequence.id.toUtf8() + QByteArrayLiteral("\"}");
        spec.headers.append({QByteArrayLiteral("Content-Type"), QByteArrayLiteral("application/json")});
    }
    if (idempotency == IdempotencyClass::Conditional)
        spec.headers.append({QByteArrayLiteral("If-Match"), QByteArrayLiteral("\"conformance-v1\"")});
    if (idempotency == IdempotencyClass::GenerationMatch)
        spec.url.setQuery(QStringLiteral("ifGenerationMatch=1700000000000001"));
    if (!testId.isEmpty())
        spec.headers.append({QByteArray(RetryHeaders::testId), testId.toLatin1()});
    return spec;
}

namespace Conformance {

QList<FaultSequence> sequences()
{
    return {
        {QStringLiteral("503-then-ok"), Tr::tr("503, then OK"), {QStringLiteral("return-503")}},
        {QStringLiteral("5xx-then-ok"), Tr::tr("500, 502, 503, 504, then OK"),
            {QStringLiteral("return-500"), QStringLiteral("return-502"), QStringLiteral("return-503"),
                QStringLiteral("return-504")}},
        {QStringLiteral("reset-then-ok"), Tr::tr("connection reset twice, then OK"), {QStringLiteral("reset*2")}},
        {QStringLiteral("429-retry-after-then-ok"), Tr::tr("429 with Retry-After: 1, then OK"),
            {QStringLiteral("return-429-after-1s")}},
        {QStringLiteral("broken-stream-then-ok"), Tr::tr("broken stream, then OK"), {QStringLiteral("broken-stream")}},
        {QStringLiteral("400"), Tr::tr("400 Bad Request"), {QStringLiteral("return-400")}},
        {QStringLiteral("503-then-401"), Tr::tr("503, then 401 Unauthorized"),
            {QStringLiteral("return-503"), QStringLiteral("return-401")}},
        {QStringLiteral("409-aborted-then-ok"), Tr::tr("409 ABORTED (a concurrent writer), then OK"),
            {QStringLiteral("aborted")}},
        {QStringLiteral("412-then-ok"), Tr::tr("412 Precondition Failed, then OK"), {QStringLiteral("return-412")}},
        {QStringLiteral("iam-rmw-409-restart"), Tr::tr("IAM read-modify-write: write 409 ABORTED"),
            {QStringLiteral("pass"), QStringLiteral("aborted")}, 200, false, FaultSequence::ReadModifyWrite::Iam},
        {QStringLiteral("rmw-412-restart"), Tr::tr("read-modify-write: If-Match write gets 412"),
            {QStringLiteral("pass"), QStringLiteral("return-412")}, 200, false,
            FaultSequence::ReadModifyWrite::IfMatch},
        {QStringLiteral("503-forever"), Tr::tr("503 on every attempt"), {}, 503},
        {QStringLiteral("refused-forever"), Tr::tr("connection refused on every attempt (never sent)"), {}, 200, true},
    };
}

QList<IdempotencyClass> idempotencyClasses()
{
    return {IdempotencyClass::Always, IdempotencyClass::Conditional, IdempotencyClass::GenerationMatch,
        IdempotencyClass::Never};
}

QString idempotencyName(IdempotencyClass idempotency)
{
    switch (idempotency) {
    case IdempotencyClass::Always:
        return QStringLiteral("always");
    case IdempotencyClass::Conditional:
        return QStringLiteral("conditional");
    case IdempotencyClass::GenerationMatch:
        return QStringLiteral("generation-match");
    case IdempotencyClass::Never:
        break;
    }
    return QStringLiteral("never");
}

QString idempotencyTitle(IdempotencyClass idempotency)
{
    switch (idempotency) {
    case IdempotencyClass::Always:
        return Tr::tr("always idempotent (GET)");
    case IdempotencyClass::Conditional:
        return Tr::tr("conditional (POST + If-Match)");
    case IdempotencyClass::GenerationMatch:
        return Tr::tr("conditional (POST ?ifGenerationMatch=)");
    case IdempotencyClass::Never:
        break;
    }
    return Tr::tr("never idempotent (POST)");
}

double compressionFactor(const BackoffPolicy &policy)
{
    double factor = 1.0;
    if (policy.baseDelayMs > targetBaseMs)
        factor = std::min(factor, targetBaseMs / policy.baseDelayMs);
    if (policy.maxBackoffMs > targetCapMs)
        factor = std::min(factor, targetCapMs / policy.maxBackoffMs);
    return factor;
}

BackoffPolicy compressed(const BackoffPolicy &policy)
{
    BackoffPolicy p = policy;
    const double factor = compressionFactor(policy);
    p.baseDelayMs *= factor;
    p.maxBackoffMs *= factor;
    p.jitterMs *= factor;
    if (p.deadlineMs > 0.0)
        p.deadlineMs = std::max(p.deadlineMs * factor, minDeadlineMs);
    if (!(p.attemptTimeoutMs > 0.0) || p.attemptTimeoutMs > maxAttemptTimeoutMs)
        p.attemptTimeoutMs = maxAttemptTimeoutMs;
    if (p.deadlineMs > 0.0)
        p.attemptTimeoutMs = std::min(p.attemptTimeoutMs, p.deadlineMs);
    return p;
}

QList<ConformanceCase> cases(const BackoffPolicy &policy)
{
    QList<ConformanceCase> list;
    for (const FaultSequence &sequence : sequences()) {
        for (IdempotencyClass idempotency : idempotencyClasses())
            list.append({sequence, idempotency, expect(policy, sequence, idempotency)});
    }
    return list;
}

ConformanceVerdict judge(
    const ConformanceCase &cell, const RequestResult &result, const QList<AttemptRecord> &attempts, int stepsUsed)
{
    const ConformanceExpectation &e = cell.expected;
    QStringList misses;
    if (!e.outcomes.contains(result.outcome))
        misses.append(Tr::tr("it ended %1").arg(requestOutcomeName(result.outcome)));
    // Fewer attempts than modelled before the deadline: right only if the time
    // really ran out (slow attempts, late timers), not if it gave up early.
    const bool deadlineReached = result.outcome == RequestOutcome::DeadlineExceeded
        && e.outcomes.contains(RequestOutcome::DeadlineExceeded) && e.deadlineMs > 0.0
        && result.totalMs() + e.longestWaitMs + 1.0 >= e.deadlineMs;
    const bool tooFew = result.attempts < e.minAttempts && !deadlineReached;
    if (tooFew || (e.maxAttempts >= 0 && result.attempts > e.maxAttempts))
        misses.append(Tr::tr("it made %n attempt(s)", nullptr, result.attempts));
    if (e.checkFinalStatus && result.finalStatus != e.finalStatus)
        misses.append(Tr::tr("it ended with %1").arg(statusPhrase(result.finalStatus)));
    if (e.retryAfterDelayMs && result.attempts >= 2) {
        const auto second = std::find_if(
            attempts.cbegin(), attempts.cend(), [](const AttemptRecord &a) { return a.attemptIndex == 1; });
        if (second != attempts.cend() && std::abs(second->plannedDelayMs - *e.retryAfterDelayMs) > 1.0) {
            misses.append(
                Tr::tr("it waited %1 before the second attempt instead of the %2 Retry-After asks")
                    .arg(DurationText::format(second->plannedDelayMs), DurationText::format(*e.retryAfterDelayMs)));
        }
    }
    const int expectedSteps = std::min(result.attempts, e.scriptSteps);
    if (e.scriptSteps > 0 && stepsUsed >= 0 && stepsUsed != expectedSteps) {
        misses.append(Tr::tr("the server played %1 of its scripted steps for %n attempt(s)", nullptr, result.attempts)
                          .arg(stepsUsed));
    }

    QString observed = Tr::tr("%1 after %n attempt(s), %2", nullptr, result.attempts)
                           .arg(requestOutcomeName(result.outcome), statusPhrase(result.finalStatus));
    if (!attempts.isEmpty() && !attempts.constLast().cause.isEmpty())
        observed += Tr::tr(" (last cause %1)").arg(attempts.constLast().cause);

    ConformanceVerdict verdict;
    verdict.passed = misses.isEmpty();
    const QString rules = e.explanation.join(QLatin1Char('\n'));
    if (verdict.passed) {
        verdict.message = Tr::tr("as expected: %1\n%2").arg(observed, rules);
    } else {
        verdict.message = Tr::tr("expected %1, but %2\nobserved: %3\n%4")
                              .arg(e.summary(), misses.join(Tr::tr("; ")), observed, rules);
    }
    return verdict;
}

} // namespace Conformance

} // namespace RetryLab::Core
