#include "core/export/googlehttpjavaexport.h"

#include "core/export/randomizedbackoff.h"
#include "core/util/coretr.h"
#include "core/util/durationtext.h"

#include <QCoreApplication>
#include <QLoggingCategory>

#include <algorithm>
#include <climits>
#include <cmath>

namespace {
Q_LOGGING_CATEGORY(lcGoogleHttpJavaExport, "retrylab.core.googlehttpjavaexport")
} // namespace

namespace RetryLab::Core::GoogleHttpJavaExport {

namespace {

using SourceText::number;

const QString library = QStringLiteral("google-http-java-client");

// An int number of milliseconds, as the Builder takes them.
QString millis(double ms)
{
    return QString::number(std::clamp<qint64>(std::llround(ms), 0, INT_MAX));
}

} // namespace

Code snippet(const BackoffPolicy &p)
{
    Code out;
    QStringList &notes = out.notes;
    const auto &c = p.classification;
    // setRandomizationFactor refuses 1: the largest double below it keeps the draw's range.
    const RandomizedBackOff::Parameters b = RandomizedBackOff::fromPolicy(p, {0.999, 1.0, 1.0}, library);
    notes.append(b.notes);

    bool anyNetwork = false;
    QStringList givenUp;
    for (NetworkFaultClass fault : allNetworkFaultClasses()) {
        if (SourceText::givesUp(p, fault))
            givenUp << networkFaultClassName(fault);
        else
            anyNetwork = true;
    }
    if (anyNetwork && !givenUp.isEmpty()) {
        notes.append(Tr::tr("HttpBackOffIOExceptionHandler retries every IOException; the policy gives up on %1.")
                         .arg(givenUp.join(QStringLiteral(", "))));
    }

    QString retries;
    if (p.maxAttempts > 0) {
        retries = QString::number(p.maxAttempts - 1);
    } else {
        retries = QStringLiteral("Integer.MAX_VALUE");
    }
    QString elapsed = millis(p.deadlineMs);
    if (p.deadlineMs > 0.0) {
        notes.append(Tr::tr("setMaxElapsedTimeMillis stops the retries once the deadline of %1 has passed; the "
                            "library does not give up early when the next wait would cross it, and an attempt may "
                            "run past it.")
                         .arg(DurationText::format(p.deadlineMs)));
    } else {
        elapsed = QStringLiteral("Integer.MAX_VALUE");
        notes.append(Tr::tr("ExponentialBackOff always has a maximum elapsed time; the policy has no deadline, so "
                            "Integer.MAX_VALUE ms (about 24 days) was written."));
    }

    QString s;
    s += SourceText::comment(QStringLiteral("// "),
             QStringLiteral("Retry policy \"%1\" for the Google HTTP Client Library for Java, written by RetryLab.")
                 .arg(p.name))
        + QLatin1Char('\n');
    s += QStringLiteral("import com.google.api.client.http.HttpBackOffIOExceptionHandler;\n"
                        "import com.google.api.client.http.HttpBackOffUnsuccessfulResponseHandler;\n"
                        "import com.google.api.client.http.HttpRequest;\n"
                        "import com.google.api.client.util.ExponentialBackOff;\n\n");
    s += QStringLiteral("final class RetryPolicy {\n    private RetryPolicy() {}\n\n");
    s += QStringLiteral("    /** Whether the policy retries an HTTP status. */\n"
                        "    static boolean isRetryableStatus(int status) {\n        return %1;\n    }\n\n")
             .arg(SourceText::statusCondition(SourceText::sortedStatuses(p), QStringLiteral("status")));
    s += QStringLiteral("    /** The policy's backoff; a new one for every request. */\n"
                        "    static ExponentialBackOff newBackOff() {\n"
                        "        return new ExponentialBackOff.Builder()\n");
    s += QStringLiteral("            .setInitialIntervalMillis(%1)\n").arg(millis(b.initialMs));
    s += QStringLiteral("            .setRandomizationFactor(%1)\n").arg(number(b.randomizationFactor));
    s += QStringLiteral("            .setMultiplier(%1)\n").arg(number(b.multiplier));
    s += QStringLiteral("            .setMaxIntervalMillis(%1)\n").arg(millis(b.maxIntervalMs));
    s += QStringLiteral("            .setMaxElapsedTimeMillis(%1)\n").arg(elapsed);
    s += QStringLiteral("            .build();\n    }\n\n");
    s += QStringLiteral("    /** Applies the policy to a request before it is executed. */\n"
                        "    static void apply(HttpRequest request) {\n");
    s += QStringLiteral("        request.setNumberOfRetries(%1);\n").arg(retries);
    if (p.attemptTimeoutMs > 0.0) {
        s += QStringLiteral("        request.setConnectTimeout(%1);\n        request.setReadTimeout(%1);\n")
                 .arg(millis(p.attemptTimeoutMs));
        notes.append(Tr::tr("The attempt timeout of %1 bounds each connect and each read, not a whole attempt.")
                         .arg(DurationText::format(p.attemptTimeoutMs)));
    } else {
        s += QStringLiteral("        request.setConnectTimeout(0);\n        request.setReadTimeout(0);\n");
    }
    s += QStringLiteral(
        "        request.setUnsuccessfulResponseHandler(\n"
        "            new HttpBackOffUnsuccessfulResponseHandler(newBackOff())\n"
        "                .setBackOffRequired(response -> isRetryableStatus(response.getStatusCode())));\n");
    if (anyNetwork)
        s += QStringLiteral(
            "        request.setIOExceptionHandler(new HttpBackOffIOExceptionHandler(newBackOff()));\n");
    s += QStringLiteral("    }\n}\n");

    if (p.maxAttempts == 0) {
        notes.append(Tr::tr("The policy is bounded only by its deadline; setNumberOfRetries(Integer.MAX_VALUE) lets "
                            "the maximum elapsed time stop the retries."));
    }
    if (c.honourRetryAfter) {
        notes.append(Tr::tr("google-http-java-client ignores Retry-After; the policy waits as long as it asks (up to "
                            "%1).")
                         .arg(DurationText::format(c.maxRetryAfterMs)));
    }
    notes.append(SourceText::idempotencyNotes(p, library));
    notes.append(SourceText::budgetNotes(p, library));
    notes.append(SourceText::commonNotes(p, library, SourceText::Breaker::Absent));
    out.text = s;
    qCDebug(lcGoogleHttpJavaExport) << p.name << notes.size() << "notes";
    return out;
}

} // namespace RetryLab::Core::GoogleHttpJavaExport
