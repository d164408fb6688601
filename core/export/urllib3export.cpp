#include "core/export/urllib3export.h"

#include "core/http/httpstatuslist.h"
#include "core/policy/backoff.h"
#include "core/util/coretr.h"
#include "core/util/durationtext.h"

#include <QCoreApplication>
#include <QLoggingCategory>

#include <algorithm>

namespace {
Q_LOGGING_CATEGORY(lcUrllib3Export, "retrylab.core.urllib3export")
} // namespace

namespace RetryLab::Core::Urllib3Export {

namespace {

using PythonSource::number;
using PythonSource::seconds;

struct Urllib3Parts
{
    QStringList arguments; ///< Retry(...)'s keyword arguments, in order
    QString backoffMax; ///< DEFAULT_BACKOFF_MAX in seconds
    QStringList notes;
};

void backoffNotes(const BackoffPolicy &p, QStringList &notes)
{
    const QString base = number(p.baseDelayMs);
    switch (p.algorithm) {
    case BackoffAlgorithm::Immediate:
        return;
    case BackoffAlgorithm::Constant:
        notes.append(Tr::tr("urllib3 cannot wait a constant time; with backoff_factor %1 s it waits 0, then doubles "
                            "from %2 ms.")
                         .arg(seconds(p.baseDelayMs), number(2.0 * p.baseDelayMs)));
        break;
    case BackoffAlgorithm::Linear:
        notes.append(Tr::tr("urllib3 cannot grow the wait linearly; with backoff_factor %1 s it waits 0, then doubles "
                            "from %2 ms.")
                         .arg(seconds(p.baseDelayMs), number(2.0 * p.baseDelayMs)));
        break;
    default:
        if (p.multiplier != 2.0) {
            notes.append(
                Tr::tr("urllib3 always doubles the wait; the policy multiplies it by %1.").arg(number(p.multiplier)));
        }
        break;
    }
    notes.append(Tr::tr("urllib3 retries the first time at once (backoff_factor * 2^(n-1), 0 for the first retry); "
                        "the policy waits %1 ms first. Every later wait is the policy's base * 2^n.")
                     .arg(base));
    switch (p.algorithm) {
    case BackoffAlgorithm::Exponential:
        break;
    case BackoffAlgorithm::Constant:
    case BackoffAlgorithm::Linear:
        if (p.intervalJitter != IntervalJitter::None)
            notes.append(Tr::tr("urllib3 1.26 has no jitter; the policy's %1 jitter was not exported.")
                             .arg(intervalJitterName(p.intervalJitter)));
        break;
    default:
        notes.append(Tr::tr("urllib3 1.26 (Debian 12) has no jitter: every client waits the same time, so clients that "
                            "failed together retry together (urllib3 2 adds backoff_jitter, U[0, jitter] added); the "
                            "policy's %1 was not exported.")
                         .arg(algorithmName(p.algorithm)));
        break;
    }
}

QString pythonList(const QStringList &words)
{
    QStringList quoted;
    for (const QString &w : words)
        quoted << PythonSource::stringLiteral(w);
    return QStringLiteral("frozenset([%1])").arg(quoted.join(QStringLiteral(", ")));
}

Urllib3Parts parts(const BackoffPolicy &p)
{
    Urllib3Parts out;
    QStringList &notes = out.notes;
    QStringList &args = out.arguments;

    int total = p.maxAttempts > 0 ? p.maxAttempts - 1 : 0;
    if (p.maxAttempts == 0) {
        total = int(std::max<qint64>(1, previewSchedule(p, maxPreviewRetries, 0, 0).retriesWithinDeadline));
        notes.append(Tr::tr("The policy is bounded only by its deadline; urllib3 needs a count, so total=%1 was "
                            "written (the most retries that fit at the shortest waits).")
                         .arg(total));
    }
    if (p.deadlineMs > 0.0) {
        notes.append(
            Tr::tr("urllib3 has no deadline; the policy gives up after %1.").arg(DurationText::format(p.deadlineMs)));
    }
    args << QStringLiteral("total=%1").arg(total);

    // Connection failures count against `connect`, failures after sending against `read`.
    const bool connect = !PythonSource::givesUp(p, NetworkFaultClass::ConnectionRefused);
    const bool reset = !PythonSource::givesUp(p, NetworkFaultClass::ConnectionReset);
    const bool timeout = !PythonSource::givesUp(p, NetworkFaultClass::Timeout);
    if (!connect)
        args << QStringLiteral("connect=0");
    if (!reset && !timeout)
        args << QStringLiteral("read=0");
    else if (reset != timeout)
        notes.append(
            Tr::tr("urllib3 counts a reset and a read timeout alike (read); the policy retries only %1, "
                   "urllib3 retries both.")
                .arg(networkFaultClassName(reset ? NetworkFaultClass::ConnectionReset : NetworkFaultClass::Timeout)));
    if (PythonSource::givesUp(p, NetworkFaultClass::HostNotFound) && connect)
        notes.append(Tr::tr("urllib3 retries a host it cannot resolve as a connection error, which the policy gives "
                            "up on."));

    const bool immediate = p.algorithm == BackoffAlgorithm::Immediate;
    args << QStringLiteral("backoff_factor=%1").arg(immediate ? QStringLiteral("0") : seconds(p.baseDelayMs));
    backoffNotes(p, notes);
    out.backoffMax = seconds(immediate ? 0.0 : p.maxBackoffMs);

    const QList<int> statuses = PythonSource::sortedStatuses(p);
    args << QStringLiteral("status_forcelist=%1").arg(PythonSource::statusSet(statuses));
    const auto &c = p.classification;
    if (c.retryNonIdempotent) {
        args << QStringLiteral("allowed_methods=False");
    } else if (c.putDeleteNeedPrecondition) {
        args << QStringLiteral("allowed_methods=%1")
                    .arg(pythonList({QStringLiteral("GET"), QStringLiteral("HEAD"), QStringLiteral("OPTIONS"),
                        QStringLiteral("TRACE")}));
        notes.append(Tr::tr("The policy retries PUT and DELETE with a precondition; urllib3 cannot look for one, so "
                            "they are not retried at all."));
    } else {
        args << QStringLiteral("allowed_methods=Retry.DEFAULT_ALLOWED_METHODS");
        notes.append(Tr::tr("urllib3 never retries POST or PATCH here; the policy retries them when marked idempotent "
                            "or sent with an Idempotency-Key."));
    }
    args << QStringLiteral("respect_retry_after_header=%1")
                .arg(c.honourRetryAfter ? QStringLiteral("True") : QStringLiteral("False"));
    if (c.honourRetryAfter) {
        notes.append(Tr::tr("urllib3 honours Retry-After only on 413, 429 and 503 and without a cap; the policy caps "
                            "it at %1.")
                         .arg(DurationText::format(c.maxRetryAfterMs)));
        QList<int> extra;
        for (int s : {413, 429, 503}) {
            if (!statuses.contains(s))
                extra << s;
        }
        if (!extra.isEmpty()) {
            notes.append(Tr::tr("urllib3 also retries HTTP %1 when it carries Retry-After, which the policy does not.")
                             .arg(HttpStatusList::format(extra)));
        }
    }
    args << QStringLiteral("raise_on_status=False");
    if (p.retryBudget.kind != RetryBudgetKind::None)
        notes.append(Tr::tr("urllib3 has no retry budget; each request retries on its own."));
    notes.append(PythonSource::commonNotes(p, QStringLiteral("urllib3")));
    return out;
}

QString code(const BackoffPolicy &p, const Urllib3Parts &u, bool program, const QString &url)
{
    QString s;
    s += PythonSource::comment(
             QStringLiteral("Retry policy \"%1\" for urllib3 1.26 with requests (Debian: python3-urllib3, "
                            "python3-requests), written by RetryLab.")
                 .arg(p.name))
        + QLatin1Char('\n');
    if (program)
        s += QStringLiteral("# Usage: python3 this-file.py [URL]; exit status 0 on success, 1 on failure.\n"
                            "import sys\n\n");
    s += QStringLiteral("import requests\nfrom requests.adapters import HTTPAdapter\nfrom urllib3.util.retry import "
                        "Retry\n\n");
    if (program)
        s += PythonSource::urlLine(url) + QLatin1Char('\n');
    s += QStringLiteral("\nclass PolicyRetry(Retry):\n"
                        "    # The longest wait (urllib3 1.26; with urllib3 2 pass backoff_max= instead).\n"
                        "    DEFAULT_BACKOFF_MAX = %1\n\n\n")
             .arg(u.backoffMax);
    s += QStringLiteral("retry = PolicyRetry(\n");
    for (const QString &a : u.arguments)
        s += QStringLiteral("    %1,\n").arg(a);
    s += QStringLiteral(")\nsession = requests.Session()\n"
                        "session.mount('http://', HTTPAdapter(max_retries=retry))\n"
                        "session.mount('https://', HTTPAdapter(max_retries=retry))\n");
    if (program)
        s += QStringLiteral("session.headers['User-Agent'] = %1\n")
                 .arg(PythonSource::stringLiteral(QLatin1String(userAgent)));
    const QString timeout = p.attemptTimeoutMs > 0.0 ? seconds(p.attemptTimeoutMs) : QStringLiteral("None");
    s += QStringLiteral("TIMEOUT = %1  # seconds, for connecting and for each read\n").arg(timeout);
    if (program) {
        s += PythonSource::requestsMain(
            QStringLiteral("session.get(URL, timeout=TIMEOUT)"), QStringLiteral("requests.RequestException"));
    } else {
        s += QStringLiteral("# response = session.get(url, timeout=TIMEOUT)\n");
    }
    return s;
}

} // namespace

PythonSource::Code snippet(const BackoffPolicy &policy)
{
    const Urllib3Parts u = parts(policy);
    qCDebug(lcUrllib3Export) << policy.name << "snippet," << u.notes.size() << "notes";
    return {code(policy, u, false, {}), u.notes};
}

PythonSource::Code program(const BackoffPolicy &policy, const QString &url)
{
    const Urllib3Parts u = parts(policy);
    qCDebug(lcUrllib3Export) << policy.name << "program," << u.notes.size() << "notes";
    return {code(policy, u, true, url), u.notes};
}

} // namespace RetryLab::Core::Urllib3Export
