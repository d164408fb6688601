#include "core/export/sourcetext.h"

#include "core/policy/backoff.h"
#include "core/policy/responseconditions.h"
#include "core/util/coretr.h"
#include "core/util/durationtext.h"

#include <QCoreApplication>
#include <QLocale>
#include <QLoggingCategory>

#include <algorithm>
#include <cmath>

namespace {
Q_LOGGING_CATEGORY(lcSourceText, "retrylab.core.sourcetext")
} // namespace

namespace RetryLab::Core::SourceText {

QString comment(const QString &prefix, const QString &text)
{
    QString line;
    line.reserve(text.size());
    for (const QChar c : text) {
        const char16_t u = c.unicode();
        if (u < 0x20 || (u >= 0x7f && u < 0xa0) || c.category() == QChar::Separator_Line
            || c.category() == QChar::Separator_Paragraph || c.isSurrogate())
            line += QLatin1Char(' ');
        else if (c == QLatin1Char('\\'))
            line += QStringLiteral("\\\\");
        else
            line += c;
    }
    return prefix + line.trimmed();
}

QString number(double value)
{
    if (!std::isfinite(value))
        return QStringLiteral("0");
    return QString::number(value, 'f', QLocale::FloatingPointShortest);
}

QString wholeMilliseconds(double milliseconds)
{
    return QString::number(std::llround(std::max(0.0, milliseconds)));
}

QString statusCondition(QList<int> statuses, const QString &variable)
{
    std::sort(statuses.begin(), statuses.end());
    statuses.erase(std::unique(statuses.begin(), statuses.end()), statuses.end());
    if (statuses.isEmpty())
        return QStringLiteral("false");
    QStringList parts;
    for (qsizetype i = 0; i < statuses.size();) {
        qsizetype j = i;
        while (j + 1 < statuses.size() && statuses[j + 1] == statuses[j] + 1)
            ++j;
        if (j - i >= 2) {
            parts << QStringLiteral("(%1 >= %2 && %1 <= %3)").arg(variable).arg(statuses[i]).arg(statuses[j]);
        } else {
            for (qsizetype k = i; k <= j; ++k)
                parts << QStringLiteral("%1 == %2").arg(variable).arg(statuses[k]);
        }
        i = j + 1;
    }
    return parts.join(QStringLiteral(" || "));
}

QString slug(const QString &name, const QString &fallback)
{
    QString out;
    for (const QChar c : name.toLower()) {
        if ((c >= QLatin1Char('a') && c <= QLatin1Char('z')) || (c >= QLatin1Char('0') && c <= QLatin1Char('9')))
            out += c;
        else if (!out.isEmpty() && !out.endsWith(QLatin1Char('-')))
            out += QLatin1Char('-');
    }
    while (out.endsWith(QLatin1Char('-')))
        out.chop(1);
    return out.isEmpty() ? fallback : out.left(64);
}

QList<int> sortedStatuses(const BackoffPolicy &policy)
{
    QList<int> statuses(
        policy.classification.retryableStatuses.cbegin(), policy.classification.retryableStatuses.cend());
    std::sort(statuses.begin(), statuses.end());
    return statuses;
}

bool givesUp(const BackoffPolicy &policy, NetworkFaultClass fault)
{
    return policy.classification.networkActions.value(fault, FaultAction::GiveUp) == FaultAction::GiveUp;
}

QStringList responseNotes(const BackoffPolicy &p, const QString &library, RateLimitReset reset)
{
    QStringList notes;
    const auto &c = p.classification;
    if (!c.retryOnResponse.isEmpty()) {
        QStringList conditions;
        for (const ResponseRetryCondition &condition : c.retryOnResponse)
            conditions << ResponseConditions::formatLine(condition);
        notes.append(Tr::tr("The policy retries answers that succeed by status but say otherwise (%1); %2 decides "
                            "by status and faults only, so the application must check those answers itself.")
                         .arg(conditions.join(QStringLiteral("; ")), library));
    }
    if (c.honourRateLimitReset && reset == RateLimitReset::Absent) {
        notes.append(Tr::tr("The policy waits for a spent rate limit's reset (RateLimit, X-RateLimit-Reset) and "
                            "holds back requests to a host whose quota is spent; %1 reads neither field and waits its "
                            "backoff instead.")
                         .arg(library));
    }
    return notes;
}

QStringList limiterNotes(const BackoffPolicy &p, const QString &library)
{
    if (p.rateLimiter.kind == RateLimiterKind::None)
        return {};
    return {Tr::tr("The policy slows the whole client down after throttling answers (%1: a token bucket whose rate "
                   "follows a CUBIC curve); %2 has no such limiter, so it sends as fast as it retries.")
                .arg(rateLimiterKindName(p.rateLimiter.kind), library)};
}

QStringList hedgingNotes(const BackoffPolicy &p, const QString &library)
{
    if (!p.hedging.enabled)
        return {};
    return {Tr::tr("The policy hedges (up to %1 attempts, a further one every %2 while the earlier ones are in "
                   "flight, the first acceptable answer kept); %3 cannot, so the export retries one attempt at a time "
                   "after a failure, with the policy's backoff, which the policy itself does not use while it hedges.")
                .arg(p.hedging.maxAttempts)
                .arg(DurationText::format(p.hedging.delayMs), library)};
}

QStringList commonNotes(const BackoffPolicy &p, const QString &library, Breaker breaker, RateLimitReset reset,
    Limiter limiter, Hedging hedging)
{
    QStringList notes;
    const auto &c = p.classification;
    QStringList immediate;
    for (NetworkFaultClass fault : allNetworkFaultClasses()) {
        if (c.networkActions.value(fault, FaultAction::GiveUp) == FaultAction::RetryImmediately)
            immediate << networkFaultClassName(fault);
    }
    if (!immediate.isEmpty()) {
        notes.append(Tr::tr("%1 waits its backoff after every fault; the policy retries %2 at once.")
                         .arg(library, immediate.join(QStringLiteral(", "))));
    }
    if (!c.networkDelayFactors.isEmpty() || !c.statusDelayFactors.isEmpty()) {
        notes.append(Tr::tr("%1 waits the same backoff whatever the fault; the policy's per-fault delay factors "
                            "were not exported.")
                         .arg(library));
    }
    if (c.retryConflictAborted && !c.retryableStatuses.contains(409)) {
        notes.append(Tr::tr("409 ABORTED restarts a whole read-modify-write sequence in RetryLab; %1 cannot, so the "
                            "application must restart the sequence itself.")
                         .arg(library));
    }
    if (p.circuitBreaker.enabled && breaker == Breaker::Absent)
        notes.append(Tr::tr("%1 has no circuit breaker; the breaker was not exported.").arg(library));
    notes.append(responseNotes(p, library, reset));
    if (limiter == Limiter::Absent)
        notes.append(limiterNotes(p, library));
    if (hedging == Hedging::Absent)
        notes.append(hedgingNotes(p, library));
    qCDebug(lcSourceText) << p.name << library << notes.size() << "common notes";
    return notes;
}

QStringList idempotencyNotes(const BackoffPolicy &p, const QString &library)
{
    QStringList notes;
    if (!p.classification.retryNonIdempotent) {
        notes.append(Tr::tr("%1 retries every call it wraps; the policy retries POST and PATCH only when marked "
                            "idempotent, so wrap only idempotent calls.")
                         .arg(library));
    }
    if (p.classification.putDeleteNeedPrecondition) {
        notes.append(Tr::tr("The policy retries PUT and DELETE only with a precondition; %1 cannot tell, so wrap them "
                            "only when they carry one.")
                         .arg(library));
    }
    return notes;
}

QStringList budgetNotes(const BackoffPolicy &p, const QString &library)
{
    if (p.retryBudget.kind == RetryBudgetKind::None)
        return {};
    return {Tr::tr("%1 has no retry budget; each client retries on its own.").arg(library)};
}

int attemptsFor(const BackoffPolicy &p)
{
    if (p.maxAttempts > 0)
        return p.maxAttempts;
    return int(std::max<qint64>(1, previewSchedule(p, maxPreviewRetries, 0, 0).retriesWithinDeadline)) + 1;
}

} // namespace RetryLab::Core::SourceText
