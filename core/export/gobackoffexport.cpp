#include "core/export/gobackoffexport.h"

#include "core/export/randomizedbackoff.h"
#include "core/util/coretr.h"
#include "core/util/durationtext.h"

#include <QCoreApplication>
#include <QLoggingCategory>

#include <cmath>

namespace {
Q_LOGGING_CATEGORY(lcGoBackoffExport, "retrylab.core.gobackoffexport")
} // namespace

namespace RetryLab::Core::GoBackoffExport {

namespace {

using SourceText::number;

const QString library = QStringLiteral("cenkalti/backoff");

// Whole microseconds times time.Microsecond: a constant Go accepts as a Duration.
QString goDuration(double ms)
{
    return QStringLiteral("%1 * time.Microsecond").arg(std::llround(std::max(0.0, ms) * 1000.0));
}

QString boolText(bool value)
{
    return value ? QStringLiteral("true") : QStringLiteral("false");
}

// One branch of isRetryableError: `condition` stands for the fault class.
QString errorCheck(const BackoffPolicy &p, NetworkFaultClass fault, const QString &condition)
{
    return QStringLiteral("\tif %1 { // %2\n\t\treturn %3\n\t}\n")
        .arg(condition, networkFaultClassName(fault), boolText(!SourceText::givesUp(p, fault)));
}

QString code(const BackoffPolicy &p, bool program, const QString &url, QStringList &notes)
{
    const RandomizedBackOff::Parameters b = RandomizedBackOff::fromPolicy(p, {1.0, 0.0, 0.0}, library);
    notes.append(b.notes);
    const bool deadline = p.deadlineMs > 0.0;

    QString s;
    s += SourceText::comment(QStringLiteral("// "),
             QStringLiteral("Retry policy \"%1\" for github.com/cenkalti/backoff/v4, written by RetryLab.").arg(p.name))
        + QLatin1Char('\n');
    if (program) {
        s += QStringLiteral("// Usage: go run this-file.go [URL]; exit status 0 on success, 1 on failure.\n"
                            "package main\n\n");
    } else {
        s += QStringLiteral("package retrypolicy\n\n");
    }
    s += QStringLiteral("import (\n");
    if (deadline)
        s += QStringLiteral("\t\"context\"\n");
    s += QStringLiteral("\t\"crypto/tls\"\n\t\"errors\"\n\t\"fmt\"\n\t\"io\"\n\t\"net\"\n\t\"net/http\"\n");
    if (program)
        s += QStringLiteral("\t\"os\"\n");
    s += QStringLiteral("\t\"syscall\"\n\t\"time\"\n\n\t\"github.com/cenkalti/backoff/v4\"\n)\n\n");
    if (program)
        s += QStringLiteral("const defaultURL = %1\n\n").arg(stringLiteral(url));
    s += QStringLiteral("const userAgent = %1\n\n").arg(stringLiteral(QLatin1String(userAgent)));

    s += QStringLiteral("// isRetryableStatus reports whether the policy retries an HTTP status.\n"
                        "func isRetryableStatus(status int) bool {\n\treturn %1\n}\n\n")
             .arg(SourceText::statusCondition(SourceText::sortedStatuses(p), QStringLiteral("status")));

    s += QStringLiteral("// isRetryableError reports whether the policy retries an attempt that got no answer.\n"
                        "func isRetryableError(err error) bool {\n");
    s += QStringLiteral("\tvar dnsErr *net.DNSError\n\tvar certErr *tls.CertificateVerificationError\n"
                        "\tvar recordErr tls.RecordHeaderError\n\tvar netErr net.Error\n");
    s += errorCheck(p, NetworkFaultClass::HostNotFound, QStringLiteral("errors.As(err, &dnsErr)"));
    s += errorCheck(p, NetworkFaultClass::ConnectionRefused, QStringLiteral("errors.Is(err, syscall.ECONNREFUSED)"));
    s += errorCheck(
        p, NetworkFaultClass::TlsFailure, QStringLiteral("errors.As(err, &certErr) || errors.As(err, &recordErr)"));
    s += errorCheck(p, NetworkFaultClass::Timeout, QStringLiteral("errors.As(err, &netErr) && netErr.Timeout()"));
    s += errorCheck(p, NetworkFaultClass::BrokenStream, QStringLiteral("errors.Is(err, io.ErrUnexpectedEOF)"));
    s += errorCheck(p, NetworkFaultClass::ConnectionReset,
        QStringLiteral("errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF)"));
    s += QStringLiteral("\treturn %1 // other\n}\n\n").arg(boolText(!SourceText::givesUp(p, NetworkFaultClass::Other)));
    if (SourceText::givesUp(p, NetworkFaultClass::ProtocolFailure)
        != SourceText::givesUp(p, NetworkFaultClass::Other)) {
        notes.append(Tr::tr("Go's net/http has no error of its own for an answer that is not HTTP; the export treats "
                            "protocol-failure as the other faults."));
    }

    s += QStringLiteral("// newBackOff returns the policy's backoff; use a new one for every request.\n"
                        "func newBackOff() backoff.BackOff {\n\tb := backoff.NewExponentialBackOff()\n");
    s += QStringLiteral("\tb.InitialInterval = %1\n").arg(goDuration(b.initialMs));
    s += QStringLiteral("\tb.RandomizationFactor = %1\n").arg(number(b.randomizationFactor));
    s += QStringLiteral("\tb.Multiplier = %1\n").arg(number(b.multiplier));
    s += QStringLiteral("\tb.MaxInterval = %1\n").arg(goDuration(b.maxIntervalMs));
    if (deadline)
        s += QStringLiteral("\tb.MaxElapsedTime = %1\n").arg(goDuration(p.deadlineMs));
    else
        s += QStringLiteral("\tb.MaxElapsedTime = 0 // no deadline: never stop on time\n");
    s += QStringLiteral("\tb.Reset()\n");
    if (p.maxAttempts > 0)
        s += QStringLiteral("\treturn backoff.WithMaxRetries(b, %1)\n}\n\n").arg(p.maxAttempts - 1);
    else
        s += QStringLiteral("\treturn b\n}\n\n");

    if (p.attemptTimeoutMs > 0.0)
        s += QStringLiteral("// The attempt timeout.\nvar client = &http.Client{Timeout: %1}\n\n")
                 .arg(goDuration(p.attemptTimeoutMs));
    else
        s += QStringLiteral("var client = &http.Client{}\n\n");

    s += QStringLiteral("// get sends one GET under the policy: the last answer, or the error when there was none.\n"
                        "func get(url string) (*http.Response, error) {\n");
    if (deadline) {
        s += QStringLiteral("\t// The deadline bounds every attempt and wait.\n"
                            "\tctx, cancel := context.WithTimeout(context.Background(), %1)\n\tdefer cancel()\n")
                 .arg(goDuration(p.deadlineMs));
    }
    s += QStringLiteral("\tvar last *http.Response\n\toperation := func() error {\n\t\tlast = nil\n");
    if (deadline)
        s += QStringLiteral("\t\trequest, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)\n");
    else
        s += QStringLiteral("\t\trequest, err := http.NewRequest(http.MethodGet, url, nil)\n");
    s += QStringLiteral("\t\tif err != nil {\n\t\t\treturn backoff.Permanent(err)\n\t\t}\n"
                        "\t\trequest.Header.Set(\"User-Agent\", userAgent)\n"
                        "\t\tresponse, err := client.Do(request)\n"
                        "\t\tif err == nil {\n"
                        "\t\t\t// Read the body here, so that one cut short is a failed attempt.\n"
                        "\t\t\t_, err = io.Copy(io.Discard, response.Body)\n"
                        "\t\t\tresponse.Body.Close()\n"
                        "\t\t}\n"
                        "\t\tif err != nil {\n"
                        "\t\t\tif isRetryableError(err) {\n\t\t\t\treturn err\n\t\t\t}\n"
                        "\t\t\treturn backoff.Permanent(err)\n"
                        "\t\t}\n"
                        "\t\tlast = response\n"
                        "\t\tif isRetryableStatus(response.StatusCode) {\n"
                        "\t\t\treturn fmt.Errorf(\"HTTP %d\", response.StatusCode)\n"
                        "\t\t}\n"
                        "\t\treturn nil\n"
                        "\t}\n");
    if (deadline)
        s += QStringLiteral("\terr := backoff.Retry(operation, backoff.WithContext(newBackOff(), ctx))\n");
    else
        s += QStringLiteral("\terr := backoff.Retry(operation, newBackOff())\n");
    s += QStringLiteral("\tif last != nil {\n\t\treturn last, nil\n\t}\n\treturn nil, err\n}\n");

    if (program) {
        s += QStringLiteral("\nfunc main() {\n"
                            "\turl := defaultURL\n"
                            "\tif len(os.Args) > 1 {\n\t\turl = os.Args[1]\n\t}\n"
                            "\tresponse, err := get(url)\n"
                            "\tif err != nil {\n"
                            "\t\tfmt.Fprintf(os.Stderr, \"failed: %v\\n\", err)\n"
                            "\t\tos.Exit(1)\n"
                            "\t}\n"
                            "\tfmt.Println(response.StatusCode)\n"
                            "\tif response.StatusCode >= 400 {\n\t\tos.Exit(1)\n\t}\n"
                            "}\n");
    }

    const auto &c = p.classification;
    if (p.maxAttempts == 1)
        notes.append(Tr::tr("The policy makes a single attempt: WithMaxRetries(b, 0) never retries."));
    if (c.honourRetryAfter) {
        notes.append(Tr::tr("cenkalti/backoff v4 ignores Retry-After; the policy waits as long as it asks (up to %1).")
                         .arg(DurationText::format(c.maxRetryAfterMs)));
    }
    notes.append(SourceText::idempotencyNotes(p, library));
    notes.append(SourceText::budgetNotes(p, library));
    notes.append(SourceText::commonNotes(p, library, SourceText::Breaker::Absent));
    return s;
}

} // namespace

QString stringLiteral(const QString &text)
{
    QString out = QStringLiteral("\"");
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        const char16_t u = c.unicode();
        if (c == QLatin1Char('\\') || c == QLatin1Char('"')) {
            out += QLatin1Char('\\') + c;
        } else if (u < 0x20 || u == 0x7f) {
            out += QStringLiteral("\\x%1").arg(u, 2, 16, QLatin1Char('0'));
        } else if (c.isHighSurrogate() && i + 1 < text.size() && text.at(i + 1).isLowSurrogate()) {
            out += c;
            out += text.at(++i);
        } else if (c.isSurrogate()) {
            out += QStringLiteral("\\ufffd"); // Go strings hold no lone surrogate
        } else if ((u >= 0x80 && u < 0xa0) || c.category() == QChar::Separator_Line
            || c.category() == QChar::Separator_Paragraph) {
            out += QStringLiteral("\\u%1").arg(u, 4, 16, QLatin1Char('0'));
        } else {
            out += c;
        }
    }
    out += QLatin1Char('"');
    return out;
}

Code snippet(const BackoffPolicy &policy)
{
    Code out;
    out.text = code(policy, false, {}, out.notes);
    qCDebug(lcGoBackoffExport) << policy.name << "snippet," << out.notes.size() << "notes";
    return out;
}

Code program(const BackoffPolicy &policy, const QString &url)
{
    Code out;
    out.text = code(policy, true, url, out.notes);
    qCDebug(lcGoBackoffExport) << policy.name << "program," << out.notes.size() << "notes";
    return out;
}

} // namespace RetryLab::Core::GoBackoffExport
