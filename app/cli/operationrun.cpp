#include "app/cli/operationrun.h"

#include "app/cli/clitr.h"
#include "app/cli/commands.h"
#include "app/cli/console.h"
#include "app/cli/interruptwatcher.h"
#include "core/executor/operationpoller.h"
#include "core/executor/retryexecutor.h"
#include "core/http/redactor.h"
#include "core/policy/pollingpolicyjson.h"
#include "core/util/durationtext.h"

#include <QDir>
#include <QEventLoop>
#include <QFileInfo>
#include <QLoggingCategory>

#include <cstdio>

namespace {
Q_LOGGING_CATEGORY(lcOperation, "retrylab.cli.operation", QtInfoMsg)
} // namespace

namespace RetryLab::Cli {

namespace OperationRun {

namespace {

// "poll 3 after 2.25 s" or "first request".
QString pollName(const Core::OperationPoll &poll)
{
    if (!poll.isPoll())
        return Tr::tr("first request");
    return Tr::tr("poll %1 after %2").arg(poll.index).arg(Core::DurationText::format(poll.delayMs));
}

QString pollLine(const Core::OperationPoll &poll)
{
    const int attempts = int(poll.attempts.size());
    const QString count = Tr::tr("(%n attempt(s))", nullptr, attempts);
    switch (poll.state) {
    case Core::OperationPoll::State::NotDone:
        return Tr::tr("%1: done=false %2").arg(pollName(poll), count);
    case Core::OperationPoll::State::Done:
    case Core::OperationPoll::State::OperationFailed:
        return Tr::tr("%1: done=true %2").arg(pollName(poll), count);
    case Core::OperationPoll::State::RequestFailed:
        return Tr::tr("%1: failed %2: %3").arg(pollName(poll), count, poll.request.reason);
    case Core::OperationPoll::State::Unreadable:
        return Tr::tr("%1: not an operation %2").arg(pollName(poll), count);
    }
    return {};
}

QString endLine(const Core::OperationResult &result)
{
    const QString attempts = Tr::tr("%n attempt(s) in all", nullptr, result.attemptCount());
    if (result.succeeded())
        return Tr::tr("operation %1 (%2)").arg(result.reason, attempts);
    return Tr::tr("operation failed (%1): %2 (%3)")
        .arg(Core::operationEndingName(result.ending), result.reason, attempts);
}

} // namespace

Core::Result<NamedPollingPolicy> readPollingPolicy(const QString &text)
{
    NamedPollingPolicy named;
    if (QFileInfo(text).isFile()) {
        auto policy = Core::PollingPolicyJson::readFile(text);
        if (!policy)
            return Core::Result<NamedPollingPolicy>::failure(Tr::tr("--poll %1").arg(policy.error()));
        named.policy = std::move(policy).value();
        named.origin = QDir::toNativeSeparators(text);
        return named;
    }
    if (const auto preset = Core::PollingPolicy::preset(text)) {
        named.policy = *preset;
        named.origin = Tr::tr("preset %1").arg(text);
        return named;
    }
    return Core::Result<NamedPollingPolicy>::failure(
        Tr::tr("--poll \"%1\" is neither a polling policy file nor a preset (presets: %2)")
            .arg(text, Core::PollingPolicy::presetIds().join(QStringLiteral(", "))));
}

int run(const Settings &settings, Console &console)
{
    Core::RetryExecutor executor;
    executor.setPolicy(settings.retryPolicy);
    executor.setSeed(settings.seed);
    executor.setConcurrencyLimit(1);
    executor.setResponseBodyLimit(settings.bodyLimit);
    Core::OperationPoller poller(&executor);

    // Each poll GETs the operation's URL, whatever started it.
    Core::RequestSpec poll = settings.first;
    poll.method = "GET";
    poll.body.clear();
    poll.idempotent = true;
    // A GET has no body to describe: the first request's Content-Type and Content-Length stay with it.
    poll.headers.removeIf([](const QPair<QByteArray, QByteArray> &header) {
        return header.first.compare("Content-Type", Qt::CaseInsensitive) == 0
            || header.first.compare("Content-Length", Qt::CaseInsensitive) == 0;
    });

    if (settings.live) {
        QObject::connect(&executor, &Core::RetryExecutor::retryScheduled, &poller,
            [&console](quint64, int nextAttemptIndex, double delayMs, const QString &reason, int) {
                console.print(Tr::tr("  attempt %1 failed: %2; retry in %3")
                                  .arg(nextAttemptIndex)
                                  .arg(reason, Core::DurationText::format(delayMs)));
            });
        QObject::connect(&poller, &Core::OperationPoller::pollFinished, &poller,
            [&console](const Core::OperationPoll &p) { console.print(pollLine(p)); });
    }

    QEventLoop loop;
    Core::OperationResult result;
    QObject::connect(&poller, &Core::OperationPoller::finished, &loop, [&](const Core::OperationResult &r) {
        result = r;
        loop.quit();
    });
    InterruptWatcher interrupt;
    QObject::connect(&interrupt, &InterruptWatcher::interrupted, &poller, [&] {
        console.error(Tr::tr("retrylab request: interrupted; cancelling (press Ctrl+C again to quit at once)"));
        poller.cancel();
    });
    if (const auto started = poller.start(settings.first, poll, settings.polling.policy); !started) {
        console.error(Tr::tr("retrylab request: %1").arg(started.error()));
        return ExitUsage;
    }
    loop.exec();

    if (settings.live)
        console.print(endLine(result));
    else if (!result.succeeded())
        console.error(Tr::tr("retrylab request: %1").arg(endLine(result)));
    // The last answer's body, as `request` prints its response.
    Core::HeaderList headers;
    if (!result.polls.isEmpty() && !result.polls.constLast().attempts.isEmpty())
        headers = result.polls.constLast().attempts.constLast().responseHeaders;
    const QByteArray body = Core::Redactor(settings.redact).body(result.body, headers);
    if (!body.isEmpty()) {
        std::fwrite(body.constData(), 1, size_t(body.size()), stdout);
        if (!body.endsWith('\n'))
            std::fputc('\n', stdout);
        std::fflush(stdout);
    }
    if (body != result.body)
        console.error(Tr::tr("note: credentials in the body are masked; --no-redact gives it as it came"));
    qCDebug(lcOperation) << "operation ended:" << Core::operationEndingName(result.ending) << result.pollCount()
                         << "polls";
    return result.succeeded() ? ExitOk : ExitFailed;
}

} // namespace OperationRun

} // namespace RetryLab::Cli
