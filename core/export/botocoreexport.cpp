#include "core/export/botocoreexport.h"

#include "core/http/httpstatuslist.h"
#include "core/policy/backoff.h"
#include "core/util/coretr.h"
#include "core/util/durationtext.h"

#include <QCoreApplication>
#include <QLoggingCategory>

#include <algorithm>

namespace {
Q_LOGGING_CATEGORY(lcBotocoreExport, "retrylab.core.botocoreexport")
} // namespace

namespace RetryLab::Core::BotocoreExport {

namespace {

using PythonSource::number;
using PythonSource::seconds;

// botocore/retries/standard.py: ExponentialBackoff(_BASE = 2, _MAX_BACKOFF = 20), rand(0, 1) as the base.
constexpr double botocoreBaseMs = 1000.0;
constexpr double botocoreMultiplier = 2.0;
constexpr double botocoreStandardCapMs = 20'000.0;

struct BotocoreParts
{
    int attempts = 1;
    QString mode;
    QString timeout; ///< seconds, empty for botocore's 60 s default
    QStringList notes;
};

BotocoreParts parts(const BackoffPolicy &p)
{
    BotocoreParts out;
    QStringList &notes = out.notes;
    out.mode = mode(p);
    // Adaptive mode is standard mode with the client rate limiter: the same delays and quota.
    const bool standard = out.mode != QLatin1String("legacy");
    const bool adaptive = out.mode == QLatin1String("adaptive");

    out.attempts = p.maxAttempts;
    if (p.maxAttempts == 0) {
        out.attempts = int(std::max<qint64>(1, previewSchedule(p, maxPreviewRetries, 0, 0).retriesWithinDeadline)) + 1;
        notes.append(Tr::tr("The policy is bounded only by its deadline; botocore needs a count, so "
                            "total_max_attempts=%1 was written (the most attempts that fit at the shortest waits).")
                         .arg(out.attempts));
    }
    if (p.deadlineMs > 0.0)
        notes.append(
            Tr::tr("botocore has no deadline; the policy gives up after %1.").arg(DurationText::format(p.deadlineMs)));

    const bool sameDelays = p.algorithm == BackoffAlgorithm::FullJitter && p.baseDelayMs == botocoreBaseMs
        && p.multiplier == botocoreMultiplier && (!standard || p.maxBackoffMs == botocoreStandardCapMs);
    if (!sameDelays) {
        notes.append(standard
                ? Tr::tr("botocore's delays are fixed by its mode: standard waits U[0, 1 s * 2^n] capped at 20 s "
                         "(full jitter); the policy's %1 from %2 ms, x%3, capped at %4 ms cannot be set.")
                      .arg(algorithmName(p.algorithm), number(p.baseDelayMs), number(p.multiplier),
                          number(p.maxBackoffMs))
                : Tr::tr("botocore's delays are fixed by its mode: legacy waits U[0, 1 s * 2^n] without a cap (full "
                         "jitter); the policy's %1 from %2 ms, x%3, capped at %4 ms cannot be set.")
                      .arg(algorithmName(p.algorithm), number(p.baseDelayMs), number(p.multiplier),
                          number(p.maxBackoffMs)));
    }

    const auto &budget = p.retryBudget;
    if (budget.kind == RetryBudgetKind::AwsStandard) {
        const RetryBudgetSettings defaults;
        if (budget.awsCapacity != defaults.awsCapacity || budget.awsRetryCost != defaults.awsRetryCost
            || budget.awsTimeoutCost != defaults.awsTimeoutCost
            || budget.awsSuccessRefund != defaults.awsSuccessRefund) {
            notes.append(Tr::tr("botocore's retry quota is fixed (500, a retry costs 5, a timeout 10, a success "
                                "refunds 1); the policy's numbers cannot be set."));
        }
    } else if (budget.kind == RetryBudgetKind::GrpcThrottling && !adaptive) {
        notes.append(Tr::tr("botocore has no gRPC-style retry throttling; legacy mode was written, without a quota."));
    }
    if (adaptive && budget.kind != RetryBudgetKind::AwsStandard) {
        notes.append(Tr::tr("botocore's adaptive mode comes with standard mode's retry quota (500, a retry costs "
                            "5), which the policy does not have."));
    }
    if (adaptive && !(p.rateLimiter == RateLimiterSettings{RateLimiterKind::AwsAdaptive})) {
        notes.append(Tr::tr("botocore's rate limiter is fixed (beta 0.7, scale 0.4, at least 0.5 requests/s); the "
                            "policy's beta %1, scale %2 and minimum %3 cannot be set.")
                         .arg(number(p.rateLimiter.beta), number(p.rateLimiter.scale), number(p.rateLimiter.minRate)));
    }

    const QList<int> statuses = PythonSource::sortedStatuses(p);
    const QList<int> botocoreStatuses{500, 502, 503, 504};
    QList<int> extra;
    QList<int> missing;
    for (int s : statuses) {
        if (!botocoreStatuses.contains(s) && s != 429)
            extra << s;
    }
    for (int s : botocoreStatuses) {
        if (!statuses.contains(s))
            missing << s;
    }
    if (!extra.isEmpty())
        notes.append(Tr::tr("botocore retries HTTP 500, 502, 503 and 504 and throttling error codes; it cannot "
                            "retry %1.")
                         .arg(HttpStatusList::format(extra)));
    if (!missing.isEmpty())
        notes.append(
            Tr::tr("botocore also retries HTTP %1, which the policy does not.").arg(HttpStatusList::format(missing)));
    if (statuses.contains(429))
        notes.append(Tr::tr("botocore retries a 429 only when its error code says throttling (Throttling, "
                            "TooManyRequestsException, SlowDown, ...)."));

    QStringList notRetried;
    for (NetworkFaultClass fault : allNetworkFaultClasses()) {
        if (PythonSource::givesUp(p, fault) && fault != NetworkFaultClass::Other)
            notRetried << networkFaultClassName(fault);
    }
    if (!notRetried.isEmpty())
        notes.append(Tr::tr("botocore retries every connection error and timeout; the policy gives up on %1.")
                         .arg(notRetried.join(QStringLiteral(", "))));
    const auto &c = p.classification;
    if (c.honourRetryAfter)
        notes.append(Tr::tr("botocore ignores Retry-After; the policy waits as long as it asks."));
    if (!c.retryNonIdempotent)
        notes.append(Tr::tr("botocore retries every operation, writes included; the policy retries POST and PATCH "
                            "only when marked idempotent."));
    if (p.attemptTimeoutMs > 0.0)
        out.timeout = seconds(p.attemptTimeoutMs);
    notes.append(SourceText::commonNotes(p, QStringLiteral("botocore"), SourceText::Breaker::Absent,
        SourceText::RateLimitReset::Absent, adaptive ? SourceText::Limiter::Exported : SourceText::Limiter::Absent));
    return out;
}

QString config(const BackoffPolicy &p, const BotocoreParts &b, bool program)
{
    QString s = QStringLiteral("config = Config(\n    retries={'total_max_attempts': %1, 'mode': %2},\n")
                    .arg(b.attempts)
                    .arg(PythonSource::stringLiteral(b.mode));
    if (!b.timeout.isEmpty()) {
        s += QStringLiteral("    connect_timeout=%1,\n    read_timeout=%1,\n").arg(b.timeout);
    }
    if (program) {
        s += QStringLiteral("    signature_version=UNSIGNED,\n    s3={'addressing_style': 'path'},\n"
                            "    user_agent_extra=%1,\n")
                 .arg(PythonSource::stringLiteral(QLatin1String(userAgentExtra)));
    }
    s += QStringLiteral(")\n");
    Q_UNUSED(p);
    return s;
}

QString code(const BackoffPolicy &p, const BotocoreParts &b, bool program, const QString &url)
{
    QString s = PythonSource::comment(QStringLiteral("Retry policy \"%1\" for botocore 1.29 (Debian: "
                                                     "python3-botocore), written by RetryLab.")
                                          .arg(p.name))
        + QLatin1Char('\n');
    if (!program) {
        s += QStringLiteral("from botocore.config import Config\n\n");
        s += config(p, b, false);
        s += QStringLiteral("# client = session.create_client('s3', config=config)\n");
        return s;
    }
    s += QStringLiteral("# Usage: python3 this-file.py [http://HOST:PORT/BUCKET/KEY]; one unsigned S3 GetObject,\n"
                        "# path-style; exit status 0 on success, 1 on failure.\n"
                        "import sys\nfrom urllib.parse import urlsplit\n\n"
                        "import botocore.session\nfrom botocore import UNSIGNED\nfrom botocore.config import Config\n"
                        "from botocore.exceptions import BotoCoreError, ClientError\n\n");
    s += PythonSource::urlLine(url) + QLatin1Char('\n');
    s += config(p, b, true);
    s += QStringLiteral("\n\ndef main():\n"
                        "    parts = urlsplit(URL)\n"
                        "    bucket, _, key = parts.path.lstrip('/').partition('/')\n"
                        "    client = botocore.session.get_session().create_client(\n"
                        "        's3', region_name='us-east-1', endpoint_url=f'{parts.scheme}://{parts.netloc}', "
                        "config=config\n"
                        "    )\n"
                        "    try:\n"
                        "        response = client.get_object(Bucket=bucket or 'retrylab', Key=key or 'object')\n"
                        "        response['Body'].read()\n"
                        "    except (BotoCoreError, ClientError) as error:\n"
                        "        print(f'failed: {error!r}', file=sys.stderr)\n"
                        "        return 1\n"
                        "    print(response['ResponseMetadata']['HTTPStatusCode'])\n"
                        "    return 0\n");
    s += PythonSource::mainGuard();
    return s;
}

} // namespace

QString mode(const BackoffPolicy &policy)
{
    // Adaptive is standard mode with the client-side rate limiter of the AWS SDKs.
    if (policy.rateLimiter.kind == RateLimiterKind::AwsAdaptive)
        return QStringLiteral("adaptive");
    return policy.retryBudget.kind == RetryBudgetKind::AwsStandard ? QStringLiteral("standard")
                                                                   : QStringLiteral("legacy");
}

BackoffPolicy standardModeBackoff()
{
    BackoffPolicy p;
    p.name = QStringLiteral("botocore standard");
    p.algorithm = BackoffAlgorithm::FullJitter;
    p.baseDelayMs = botocoreBaseMs;
    p.multiplier = botocoreMultiplier;
    p.maxBackoffMs = botocoreStandardCapMs;
    p.jitterMs = 0.0;
    p.retryBudget.kind = RetryBudgetKind::AwsStandard;
    return p;
}

PythonSource::Code snippet(const BackoffPolicy &policy)
{
    const BotocoreParts b = parts(policy);
    qCDebug(lcBotocoreExport) << policy.name << "snippet," << b.notes.size() << "notes";
    return {code(policy, b, false, {}), b.notes};
}

PythonSource::Code program(const BackoffPolicy &policy, const QString &url)
{
    const BotocoreParts b = parts(policy);
    qCDebug(lcBotocoreExport) << policy.name << "program," << b.notes.size() << "notes";
    return {code(policy, b, true, url), b.notes};
}

} // namespace RetryLab::Core::BotocoreExport
