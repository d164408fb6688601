#include "core/executor/operationpoller.h"

#include "core/executor/retryexecutor.h"
#include "core/executor/threadedexecutor.h"
#include "core/util/coretr.h"
#include "core/util/durationtext.h"
#include "core/util/jsonpointer.h"
#include "core/util/jsonreader.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QTimer>

#include <cmath>
#include <limits>

namespace {
Q_LOGGING_CATEGORY(lcPoller, "retrylab.core.poller", QtInfoMsg)
} // namespace

namespace RetryLab::Core {

namespace {

// A value of the policy, as it was written.
QString duration(double ms)
{
    return DurationText::format(ms, DurationText::Style::Exact);
}

} // namespace

QString operationPollStateName(OperationPoll::State state)
{
    switch (state) {
    case OperationPoll::State::NotDone:
        return QStringLiteral("not-done");
    case OperationPoll::State::Done:
        return QStringLiteral("done");
    case OperationPoll::State::OperationFailed:
        return QStringLiteral("operation-failed");
    case OperationPoll::State::RequestFailed:
        return QStringLiteral("request-failed");
    case OperationPoll::State::Unreadable:
        return QStringLiteral("unreadable");
    }
    return {};
}

QString operationEndingName(OperationResult::Ending ending)
{
    switch (ending) {
    case OperationResult::Ending::Done:
        return QStringLiteral("done");
    case OperationResult::Ending::OperationFailed:
        return QStringLiteral("operation-failed");
    case OperationResult::Ending::RequestFailed:
        return QStringLiteral("request-failed");
    case OperationResult::Ending::Unreadable:
        return QStringLiteral("unreadable");
    case OperationResult::Ending::TotalTimeout:
        return QStringLiteral("total-timeout");
    case OperationResult::Ending::PollLimit:
        return QStringLiteral("poll-limit");
    case OperationResult::Ending::Cancelled:
        return QStringLiteral("cancelled");
    }
    return {};
}

int OperationResult::pollCount() const
{
    int count = 0;
    for (const OperationPoll &poll : polls)
        count += poll.isPoll() ? 1 : 0;
    return count;
}

int OperationResult::attemptCount() const
{
    int count = 0;
    for (const OperationPoll &poll : polls)
        count += int(poll.attempts.size());
    return count;
}

template<typename E>
void OperationPoller::attach(E *executor)
{
    if (!executor)
        return;
    m_executor.object = executor;
    m_executor.submit = [executor](const RequestSpec &spec, const BackoffPolicy *policy) {
        return policy ? executor->submit(spec, *policy) : executor->submit(spec);
    };
    m_executor.cancel = [executor](quint64 id) { executor->cancel(id); };
    m_executor.nowNs = [executor] { return executor->nowNs(); };
    connect(executor, &E::attemptFinished, this, &OperationPoller::handleAttemptFinished);
    connect(executor, &E::requestFinished, this, &OperationPoller::handleRequestFinished);
}

OperationPoller::OperationPoller(ThreadedExecutor *executor, QObject *parent)
    : OperationPoller(static_cast<RetryExecutor *>(nullptr), parent)
{
    attach(executor);
}

OperationPoller::OperationPoller(RetryExecutor *executor, QObject *parent)
    : QObject(parent), m_delayTimer(new QTimer(this)), m_deadlineTimer(new QTimer(this))
{
    qRegisterMetaType<OperationPoll>();
    qRegisterMetaType<OperationResult>();
    // Polls are as late as the timer: a coarse one could be 5 % late, which a short wait shows.
    for (QTimer *timer : {m_delayTimer, m_deadlineTimer}) {
        timer->setSingleShot(true);
        timer->setTimerType(Qt::PreciseTimer);
    }
    connect(m_delayTimer, &QTimer::timeout, this, &OperationPoller::handleDelayElapsed);
    connect(m_deadlineTimer, &QTimer::timeout, this, &OperationPoller::handleDeadline);
    attach(executor);
}

OperationPoller::~OperationPoller()
{
    // The cancelled request's end must not reach a poller half destroyed.
    const bool cancel = m_running && m_inFlight && m_executor;
    m_running = false;
    if (cancel)
        m_executor.cancel(m_current.requestId);
}

Result<void> OperationPoller::start(const RequestSpec &first, const RequestSpec &poll, const PollingPolicy &policy)
{
    if (m_running)
        return Result<void>::failure(tr("an operation is being polled already"));
    if (!m_executor)
        return Result<void>::failure(tr("there is no executor to send the polls"));
    if (const auto valid = validatePollingPolicy(policy); !valid) {
        const Error error = valid.errorDetail();
        return Result<void>::failure(error.path.isEmpty()
                ? tr("the polling policy cannot be used: %1").arg(error.message)
                : tr("the polling policy cannot be used: %1: %2").arg(error.path, error.message));
    }
    m_first = first;
    m_poll = poll;
    m_policy = policy;
    m_result = {};
    m_running = true;
    m_result.startNs = m_executor.nowNs();
    if (policy.totalTimeoutMs > 0.0)
        m_deadlineTimer->start(int(std::ceil(policy.totalTimeoutMs)));
    send(0, 0.0);
    return {};
}

void OperationPoller::cancel()
{
    if (m_running)
        stop(OperationResult::Ending::Cancelled, tr("cancelled by the user"));
}

void OperationPoller::stop(OperationResult::Ending ending, const QString &reason)
{
    // A poll on the wire ends with the operation: kept as failed, its request cancelled.
    const bool inFlight = m_inFlight;
    const quint64 id = m_current.requestId;
    if (inFlight) {
        m_current.state = OperationPoll::State::RequestFailed;
        m_result.polls.append(m_current);
    }
    finish(ending, reason);
    if (inFlight && m_executor)
        m_executor.cancel(id);
}

void OperationPoller::send(int index, double delayMs)
{
    m_current = {};
    m_current.index = index;
    m_current.delayMs = delayMs;
    m_inFlight = true;
    m_current.requestId
        = m_executor.submit(index == 0 ? m_first : m_poll, m_requestPolicy ? &*m_requestPolicy : nullptr);
    qCDebug(lcPoller) << "request" << index << "is executor request" << m_current.requestId;
    Q_EMIT pollStarted(index, m_current.requestId);
}

void OperationPoller::handleAttemptFinished(const AttemptRecord &record)
{
    if (m_running && m_inFlight && record.requestId == m_current.requestId)
        m_current.attempts.append(record);
}

void OperationPoller::handleRequestFinished(const RequestResult &result)
{
    if (!m_running || !m_inFlight || result.requestId != m_current.requestId)
        return;
    m_inFlight = false;
    m_current.request = result;
    m_result.body = result.body;
    const QString what = m_current.isPoll() ? tr("poll %1").arg(m_current.index) : tr("the first request");
    if (result.outcome != RequestOutcome::Succeeded) {
        m_current.state = OperationPoll::State::RequestFailed;
        m_result.polls.append(m_current);
        Q_EMIT pollFinished(m_current);
        finish(OperationResult::Ending::RequestFailed,
            tr("%1 failed after %n attempt(s): %2: %3", nullptr, result.attempts)
                .arg(what, requestOutcomeName(result.outcome), result.reason));
        return;
    }
    m_current.state = readAnswer(result.body);
    m_result.polls.append(m_current);
    Q_EMIT pollFinished(m_current);
    switch (m_current.state) {
    case OperationPoll::State::Done:
        finish(OperationResult::Ending::Done,
            tr("done after %n poll(s) in %1", nullptr, m_result.pollCount())
                .arg(DurationText::format((m_executor.nowNs() - m_result.startNs) / 1e6)));
        return;
    case OperationPoll::State::OperationFailed:
        finish(OperationResult::Ending::OperationFailed, m_result.reason);
        return;
    case OperationPoll::State::Unreadable:
        finish(OperationResult::Ending::Unreadable, tr("%1: %2").arg(what, m_result.reason));
        return;
    case OperationPoll::State::RequestFailed:
    case OperationPoll::State::NotDone:
        break;
    }

    const int polls = m_result.pollCount();
    if (m_policy.maxPolls > 0 && polls >= m_policy.maxPolls) {
        finish(OperationResult::Ending::PollLimit,
            tr("not done after %n poll(s), the most the polling policy allows", nullptr, polls));
        return;
    }
    const double delayMs = m_policy.delayBeforePoll(polls);
    if (m_policy.totalTimeoutMs > 0.0) {
        const double elapsedMs = (m_executor.nowNs() - m_result.startNs) / 1e6;
        if (elapsedMs + delayMs >= m_policy.totalTimeoutMs) {
            // Waiting for a poll that would come too late only delays the same answer.
            finish(OperationResult::Ending::TotalTimeout,
                tr("not done within the total timeout of %1: poll %2 would be sent at %3")
                    .arg(duration(m_policy.totalTimeoutMs))
                    .arg(polls + 1)
                    .arg(DurationText::format(elapsedMs + delayMs)));
            return;
        }
    }
    m_current = {};
    m_current.index = polls + 1;
    m_current.delayMs = delayMs;
    Q_EMIT pollScheduled(polls + 1, delayMs);
    m_delayTimer->start(int(std::ceil(delayMs)));
}

void OperationPoller::handleDelayElapsed()
{
    if (!m_running || !m_executor)
        return;
    send(m_current.index, m_current.delayMs);
}

void OperationPoller::handleDeadline()
{
    if (!m_running)
        return;
    // Counted with the poll on the wire, which stop() records.
    const int polls = m_result.pollCount() + (m_inFlight && m_current.isPoll() ? 1 : 0);
    stop(OperationResult::Ending::TotalTimeout,
        tr("not done within the total timeout of %1 (%n poll(s))", nullptr, polls)
            .arg(duration(m_policy.totalTimeoutMs)));
}

OperationPoll::State OperationPoller::readAnswer(const QByteArray &body)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(body, &parseError);
    if (parseError.error != QJsonParseError::NoError || !doc.isObject()) {
        m_result.reason = tr("the answer is not a JSON object, so it does not say whether the operation is done");
        return OperationPoll::State::Unreadable;
    }
    const QJsonValue document(doc.object());
    // proto3's JSON leaves out a false boolean: no "done" is not done.
    const auto done = JsonPointer::get(document, m_policy.donePointer);
    if (!done)
        return OperationPoll::State::NotDone;
    if (!done->isBool()) {
        m_result.reason = tr("\"%1\" is %2, not true or false").arg(m_policy.donePointer, JsonReader::describe(*done));
        return OperationPoll::State::Unreadable;
    }
    if (!done->toBool())
        return OperationPoll::State::NotDone;
    if (m_policy.errorPointer.isEmpty())
        return OperationPoll::State::Done;
    const auto error = JsonPointer::get(document, m_policy.errorPointer);
    if (!error || error->isNull())
        return OperationPoll::State::Done;
    const QJsonObject object = error->toObject();
    const QJsonValue code = object.value(QStringLiteral("code"));
    if (code.isDouble() && std::isfinite(code.toDouble()) && code.toDouble() == std::trunc(code.toDouble())
        && std::abs(code.toDouble()) < double(std::numeric_limits<qint64>::max()))
        m_result.errorCode = qint64(code.toDouble());
    m_result.errorMessage = object.value(QStringLiteral("message")).toString();
    const QString detail = m_result.errorCode ? tr("code %1").arg(*m_result.errorCode) : tr("no code");
    m_result.reason = m_result.errorMessage.isEmpty()
        ? tr("the operation failed (%1)").arg(detail)
        : tr("the operation failed (%1): %2").arg(detail, m_result.errorMessage);
    return OperationPoll::State::OperationFailed;
}

void OperationPoller::finish(OperationResult::Ending ending, const QString &reason)
{
    m_running = false;
    m_inFlight = false;
    m_delayTimer->stop();
    m_deadlineTimer->stop();
    m_result.ending = ending;
    m_result.reason = reason;
    m_result.endNs = m_executor ? m_executor.nowNs() : m_result.startNs;
    qCDebug(lcPoller) << "operation ended:" << operationEndingName(ending) << reason;
    Q_EMIT finished(m_result);
}

} // namespace RetryLab::Core
