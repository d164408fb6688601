#include "core/export/tenacityexport.h"

#include "core/policy/backoff.h"
#include "core/util/coretr.h"
#include "core/util/durationtext.h"

#include <QCoreApplication>
#include <QLoggingCategory>
#include <QSet>

#include <algorithm>

namespace {
Q_LOGGING_CATEGORY(lcTenacityExport, "retrylab.core.tenacityexport")
} // namespace

namespace RetryLab::Core::TenacityExport {

namespace {

using PythonSource::number;
using PythonSource::seconds;

struct TenacityParts
{
    QString wait;
    QString stop;
    QString retry;
    QSet<QString> names; ///< what is imported from tenacity
    QStringList notes;
};

QString tenacityWait(const BackoffPolicy &p, TenacityParts &parts)
{
    const QString base = seconds(p.baseDelayMs);
    const QString cap = seconds(p.maxBackoffMs);
    const QString mult = number(p.multiplier);
    const auto exponential = [&](const char *name, double scale) {
        parts.names.insert(QLatin1String(name));
        return QStringLiteral("%1(multiplier=%2, exp_base=%3, max=%4)")
            .arg(QLatin1String(name), seconds(p.baseDelayMs * scale), mult, seconds(p.maxBackoffMs * scale));
    };
    switch (p.algorithm) {
    case BackoffAlgorithm::Exponential:
        return exponential("wait_exponential", 1.0);
    case BackoffAlgorithm::FullJitter:
        return exponential("wait_random_exponential", 1.0);
    case BackoffAlgorithm::DecorrelatedJitter:
        parts.notes.append(Tr::tr("tenacity has no decorrelated jitter; the export waits U[0, min(cap, base * "
                                  "multiplier^n)] (wait_random_exponential) with the policy's base and cap."));
        return exponential("wait_random_exponential", 1.0);
    case BackoffAlgorithm::EqualJitter:
        // v/2 + U[0, v/2] is a fixed half plus a random half, each capped at half the cap.
        return exponential("wait_exponential", 0.5) + QStringLiteral(" + ")
            + exponential("wait_random_exponential", 0.5);
    case BackoffAlgorithm::ProportionalJitter: {
        const double f = std::clamp(p.jitterFraction, 0.0, 1.0);
        parts.notes.append(Tr::tr("tenacity waits v * (1 - %1) + U[0, v * %2] for the policy's v * U[1 - %1, 1 + %1]; "
                                  "it does not cap the sum, so a wait near the cap may pass it by up to %3 %.")
                               .arg(number(f), number(2.0 * f), number(f * 100.0)));
        return exponential("wait_exponential", 1.0 - f) + QStringLiteral(" + ")
            + exponential("wait_random_exponential", 2.0 * f);
    }
    case BackoffAlgorithm::GoogleTruncatedExponential:
    case BackoffAlgorithm::IamTruncatedExponential:
        parts.names.insert(QStringLiteral("wait_exponential_jitter"));
        return QStringLiteral("wait_exponential_jitter(initial=%1, exp_base=%2, max=%3, jitter=%4)")
            .arg(base, mult, cap, seconds(p.jitterMs));
    case BackoffAlgorithm::Immediate:
        parts.names.insert(QStringLiteral("wait_none"));
        return QStringLiteral("wait_none()");
    case BackoffAlgorithm::Linear:
        parts.names.insert(QStringLiteral("wait_incrementing"));
        if (p.intervalJitter != IntervalJitter::None) {
            parts.notes.append(Tr::tr("tenacity cannot randomise a growing linear wait; the export waits exactly "
                                      "(n + 1) * %1 ms without the policy's %2 jitter.")
                                   .arg(number(p.baseDelayMs), intervalJitterName(p.intervalJitter)));
        }
        return QStringLiteral("wait_incrementing(start=%1, increment=%1, max=%2)").arg(base, cap);
    case BackoffAlgorithm::Constant:
        break;
    }
    // Constant, with its interval jitter.
    const double v = std::min(p.baseDelayMs, p.maxBackoffMs);
    switch (p.intervalJitter) {
    case IntervalJitter::None:
        parts.names.insert(QStringLiteral("wait_fixed"));
        return QStringLiteral("wait_fixed(%1)").arg(seconds(v));
    case IntervalJitter::Full:
        parts.names.insert(QStringLiteral("wait_random"));
        return QStringLiteral("wait_random(0, %1)").arg(seconds(v));
    case IntervalJitter::Equal:
        parts.names.insert(QStringLiteral("wait_fixed"));
        parts.names.insert(QStringLiteral("wait_random"));
        return QStringLiteral("wait_fixed(%1) + wait_random(0, %1)").arg(seconds(v / 2.0));
    case IntervalJitter::Proportional: {
        const double f = std::clamp(p.jitterFraction, 0.0, 1.0);
        const double high = v * (1.0 + f);
        if (high > p.maxBackoffMs) {
            parts.notes.append(Tr::tr("The policy caps the jittered wait at %1 ms, which makes that wait more likely; "
                                      "tenacity draws evenly up to the cap instead.")
                                   .arg(number(p.maxBackoffMs)));
        }
        parts.names.insert(QStringLiteral("wait_random"));
        return QStringLiteral("wait_random(%1, %2)")
            .arg(seconds(v * (1.0 - f)), seconds(std::min(high, p.maxBackoffMs)));
    }
    }
    return {};
}

// requests raises ConnectionError for refused, reset, unresolved and TLS failures alike,
// Timeout for timeouts and ChunkedEncodingError for a body cut short.
QString retriedExceptions(const BackoffPolicy &p, QStringList &notes)
{
    QStringList types;
    const QList<NetworkFaultClass> connection{NetworkFaultClass::ConnectionRefused, NetworkFaultClass::ConnectionReset,
        NetworkFaultClass::HostNotFound, NetworkFaultClass::TlsFailure, NetworkFaultClass::ProtocolFailure};
    QStringList retried;
    QStringList notRetried;
    for (NetworkFaultClass fault : connection)
        (PythonSource::givesUp(p, fault) ? notRetried : retried) << networkFaultClassName(fault);
    if (!retried.isEmpty()) {
        types << QStringLiteral("requests.ConnectionError");
        if (!notRetried.isEmpty()) {
            notes.append(Tr::tr("requests raises ConnectionError for %2 as for %1, so tenacity retries %2 too, "
                                "which the policy gives up on.")
                             .arg(retried.join(QStringLiteral(", ")), notRetried.join(QStringLiteral(", "))));
        }
    }
    if (!PythonSource::givesUp(p, NetworkFaultClass::Timeout))
        types << QStringLiteral("requests.Timeout");
    if (!PythonSource::givesUp(p, NetworkFaultClass::BrokenStream))
        types << QStringLiteral("requests.exceptions.ChunkedEncodingError");
    if (!PythonSource::givesUp(p, NetworkFaultClass::Other))
        notes.append(Tr::tr("The policy retries other network faults; the export retries only the requests "
                            "exceptions named in retry_if_exception_type."));
    if (types.size() == 1)
        return types.constFirst();
    return types.isEmpty() ? QString() : QLatin1Char('(') + types.join(QStringLiteral(", ")) + QLatin1Char(')');
}

TenacityParts parts(const BackoffPolicy &p)
{
    TenacityParts out;
    out.wait = tenacityWait(p, out);

    QStringList stops;
    if (p.maxAttempts > 0) {
        out.names.insert(QStringLiteral("stop_after_attempt"));
        stops << QStringLiteral("stop_after_attempt(%1)").arg(p.maxAttempts);
    }
    if (p.deadlineMs > 0.0) {
        out.names.insert(QStringLiteral("stop_after_delay"));
        stops << QStringLiteral("stop_after_delay(%1)").arg(seconds(p.deadlineMs));
        out.notes.append(Tr::tr("stop_after_delay is checked after each attempt: tenacity does not give up early when "
                                "the next wait would cross the deadline of %1, and an attempt may run past it.")
                             .arg(DurationText::format(p.deadlineMs)));
    }
    out.stop = stops.join(QStringLiteral(" | "));

    QStringList retries;
    if (!p.classification.retryableStatuses.isEmpty()) {
        out.names.insert(QStringLiteral("retry_if_result"));
        retries << QStringLiteral("retry_if_result(retryable_status)");
    }
    const QString exceptions = retriedExceptions(p, out.notes);
    if (!exceptions.isEmpty()) {
        out.names.insert(QStringLiteral("retry_if_exception_type"));
        retries << QStringLiteral("retry_if_exception_type(%1)").arg(exceptions);
    }
    if (retries.isEmpty()) {
        out.names.insert(QStringLiteral("retry_never"));
        retries << QStringLiteral("retry_never");
    }
    out.retry = retries.join(QStringLiteral(" | "));
    out.names.insert(QStringLiteral("retry"));

    const auto &c = p.classification;
    if (c.honourRetryAfter) {
        out.notes.append(Tr::tr("tenacity ignores Retry-After; the policy waits as long as it asks (up to %1).")
                             .arg(DurationText::format(c.maxRetryAfterMs)));
    }
    if (!c.retryNonIdempotent) {
        out.notes.append(Tr::tr("tenacity retries whatever the decorated function does; the policy retries POST and "
                                "PATCH only when marked idempotent, so decorate only idempotent calls."));
    }
    if (c.putDeleteNeedPrecondition) {
        out.notes.append(
            Tr::tr("The policy retries PUT and DELETE only with a precondition; tenacity cannot tell, so decorate "
                   "them only when they carry one."));
    }
    if (p.retryBudget.kind != RetryBudgetKind::None)
        out.notes.append(Tr::tr("tenacity has no retry budget; each decorated call retries on its own."));
    out.notes.append(PythonSource::commonNotes(p, QStringLiteral("tenacity")));
    return out;
}

QString timeoutArgument(const BackoffPolicy &p)
{
    return p.attemptTimeoutMs > 0.0 ? seconds(p.attemptTimeoutMs) : QStringLiteral("None");
}

QString code(const BackoffPolicy &p, const TenacityParts &t, bool program, const QString &url)
{
    QStringList names(t.names.cbegin(), t.names.cend());
    if (program)
        names << QStringLiteral("RetryError");
    std::sort(names.begin(), names.end());

    QString s;
    s += PythonSource::comment(QStringLiteral("Retry policy \"%1\" for tenacity 8 (Debian: python3-tenacity), written "
                                              "by RetryLab.")
                                   .arg(p.name))
        + QLatin1Char('\n');
    if (program)
        s += QStringLiteral("# Usage: python3 %1 [URL]; exit status 0 on success, 1 on failure.\n")
                 .arg(QStringLiteral("this-file.py"));
    if (program)
        s += QStringLiteral("import sys\n\n");
    s += QStringLiteral("import requests\nfrom tenacity import %1\n\n").arg(names.join(QStringLiteral(", ")));
    if (program)
        s += PythonSource::urlLine(url);
    s += QStringLiteral("RETRYABLE_STATUSES = %1\n\n\n").arg(PythonSource::statusSet(PythonSource::sortedStatuses(p)));
    s += QStringLiteral("def retryable_status(response):\n    return response.status_code in RETRYABLE_STATUSES\n\n\n");
    s += QStringLiteral("@retry(\n    wait=%1,\n").arg(t.wait);
    if (!t.stop.isEmpty())
        s += QStringLiteral("    stop=%1,\n").arg(t.stop);
    s += QStringLiteral("    retry=%1,\n    reraise=True,\n)\n").arg(t.retry);
    s += QStringLiteral("def get(url):\n");
    if (program)
        s += QStringLiteral("    return requests.get(url, timeout=%1, headers={'User-Agent': %2})\n")
                 .arg(timeoutArgument(p), PythonSource::stringLiteral(QLatin1String(userAgent)));
    else
        s += QStringLiteral("    return requests.get(url, timeout=%1)\n").arg(timeoutArgument(p));
    if (program) {
        s += PythonSource::requestsMain(
            QStringLiteral("get(URL)"), QStringLiteral("(RetryError, requests.RequestException)"));
    }
    return s;
}

} // namespace

PythonSource::Code snippet(const BackoffPolicy &policy)
{
    const TenacityParts t = parts(policy);
    qCDebug(lcTenacityExport) << policy.name << "snippet," << t.notes.size() << "notes";
    return {code(policy, t, false, {}), t.notes};
}

PythonSource::Code program(const BackoffPolicy &policy, const QString &url)
{
    const TenacityParts t = parts(policy);
    qCDebug(lcTenacityExport) << policy.name << "program," << t.notes.size() << "notes";
    return {code(policy, t, true, url), t.notes};
}

} // namespace RetryLab::Core::TenacityExport
