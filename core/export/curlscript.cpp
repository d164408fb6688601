#include "core/export/curlscript.h"

#include "core/export/curlretryflags.h"
#include "core/util/shellwords.h"

#include <QLoggingCategory>

namespace {
Q_LOGGING_CATEGORY(lcCurlScript, "retrylab.core.curlscript")
} // namespace

namespace RetryLab::Core::CurlScript {

SourceText::Code program(const BackoffPolicy &policy, const QString &url)
{
    const CurlRetryFlags::Flags flags = CurlRetryFlags::fromPolicy(policy);
    QStringList words;
    for (const QString &a : flags.arguments)
        words << ShellWords::quote(a);

    QString s = QStringLiteral("#!/bin/sh\n");
    s += SourceText::comment(QStringLiteral("# "),
             QStringLiteral("Retry policy \"%1\" as curl's retry flags, written by RetryLab.").arg(policy.name))
        + QLatin1Char('\n');
    s += QStringLiteral("# Usage: sh this-file.sh [URL]; prints the final status, exit status 0 when it is below "
                        "400, 1 otherwise.\n");
    s += QStringLiteral("url=%1\nif [ $# -gt 0 ]; then\n    url=$1\nfi\n").arg(ShellWords::quote(url));
    // The body goes to a file of its own: before a retry curl truncates its output, which
    // /dev/null refuses (curl: (23) Failed to truncate file), and then it does not retry.
    s += QStringLiteral("body=$(mktemp) || exit 1\n"
                        "trap 'rm -f \"$body\"' EXIT\n");
    s += QStringLiteral("status=$(curl --silent --show-error --output \"$body\" --write-out '%{http_code}' \\\n"
                        "    --user-agent %1 \\\n")
             .arg(ShellWords::quote(QLatin1String(userAgent)));
    if (!words.isEmpty())
        s += QStringLiteral("    %1 \\\n").arg(words.join(QLatin1Char(' ')));
    s += QStringLiteral("    --url \"$url\")\n"
                        "code=$?\n"
                        "if [ \"$code\" -ne 0 ]; then\n"
                        "    echo \"failed: curl exit status $code\" >&2\n"
                        "    exit 1\n"
                        "fi\n"
                        "echo \"$status\"\n"
                        "if [ \"$status\" -ge 100 ] && [ \"$status\" -lt 400 ]; then\n"
                        "    exit 0\n"
                        "fi\n"
                        "exit 1\n");
    qCDebug(lcCurlScript) << policy.name << flags.arguments;
    return {s, flags.notes};
}

} // namespace RetryLab::Core::CurlScript
