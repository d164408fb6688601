#include "core/alerts/alertdispatcher.h"

#include "core/alerts/alertcommand.h"
#include "core/executor/retryexecutor.h"
#include "core/http/redactor.h"
#include "core/util/clock.h"
#include "core/util/coretr.h"

#include <QJsonDocument>
#include <QLoggingCategory>
#include <QProcessEnvironment>

#include <algorithm>
#include <chrono>
#include <utility>

namespace {
Q_LOGGING_CATEGORY(lcAlerts, "retrylab.core.alerts")
} // namespace

namespace RetryLab::Core {

AlertDispatcher::AlertDispatcher(RetryExecutor *executor, const Clock *clock, QObject *parent)
    : QObject(parent), m_executor(executor), m_clock(clock ? clock : &SteadyClock::instance())
{
    qRegisterMetaType<AlertEvent>();
    m_summaryTimer.setSingleShot(true);
    connect(&m_summaryTimer, &QTimer::timeout, this, &AlertDispatcher::flushSummaries);
    if (executor) {
        connect(executor, &RetryExecutor::attemptFinished, this, &AlertDispatcher::handleAttemptFinished);
        connect(executor, &RetryExecutor::requestFinished, this, &AlertDispatcher::handleRequestFinished);
        connect(executor, &QObject::destroyed, this, &AlertDispatcher::handleExecutorDestroyed);
    }
}

AlertDispatcher::~AlertDispatcher()
{
    // Nobody is left to hear how they ended; the executor must not carry them on.
    if (m_executor) {
        disconnect(m_executor, nullptr, this, nullptr);
        for (auto it = m_webhooks.constBegin(); it != m_webhooks.constEnd(); ++it)
            m_executor->cancel(it.key());
    }
    // The commands are children: their destructors kill what still runs.
    const auto commands = findChildren<AlertCommand *>(Qt::FindDirectChildrenOnly);
    for (AlertCommand *command : commands)
        disconnect(command, nullptr, this, nullptr);
}

void AlertDispatcher::setTargets(const QList<AlertTarget> &targets)
{
    m_targets = targets;
    QStringList names;
    for (const AlertTarget &target : targets)
        names.append(target.name);
    m_gate.retain(names);
    scheduleSummaries();
}

const AlertTarget *AlertDispatcher::findTarget(const QString &name) const
{
    const auto it = std::find_if(
        m_targets.cbegin(), m_targets.cend(), [&](const AlertTarget &target) { return target.name == name; });
    return it == m_targets.cend() ? nullptr : &*it;
}

void AlertDispatcher::raise(const AlertEvent &event, const QStringList &targetNames)
{
    flushSummaries();
    for (const QString &name : targetNames) {
        const AlertTarget *target = findTarget(name);
        if (!target) {
            noteFailed(name, event, tr("there is no alert target named \"%1\"").arg(name));
            continue;
        }
        const AlertGate::Decision decision = m_gate.admit(*target, event, m_clock->nowMs());
        switch (decision.verdict) {
        case AlertGate::Verdict::Send:
            send(*target, event);
            break;
        case AlertGate::Verdict::Duplicate:
            ++m_stats[name].duplicates;
            qCDebug(lcAlerts) << "held back" << event.dedupeKey() << "for" << name << ':' << decision.why;
            Q_EMIT suppressed(name, event, decision.why);
            break;
        case AlertGate::Verdict::RateLimited:
            ++m_stats[name].rateLimited;
            qCDebug(lcAlerts) << "held back" << event.dedupeKey() << "for" << name << ':' << decision.why;
            Q_EMIT suppressed(name, event, decision.why);
            break;
        }
    }
    scheduleSummaries();
}

void AlertDispatcher::flushSummaries()
{
    const QList<AlertGate::Summary> due
        = m_gate.dueSummaries(m_clock->nowMs(), m_clock->wallTime().toMSecsSinceEpoch());
    for (const AlertGate::Summary &summary : due) {
        const AlertTarget *target = findTarget(summary.target);
        if (!target)
            continue;
        ++m_stats[summary.target].summaries;
        send(*target, summary.event);
    }
    scheduleSummaries();
}

void AlertDispatcher::scheduleSummaries()
{
    const auto next = m_gate.nextSummaryDueMs();
    if (!next) {
        m_summaryTimer.stop();
        return;
    }
    // The clock may be a manual one that real time does not move: the timer
    // then finds nothing due, and the owner flushes after moving the clock.
    const qint64 waitMs = std::max<qint64>(0, *next - m_clock->nowMs());
    m_summaryTimer.start(std::chrono::milliseconds(waitMs));
}

void AlertDispatcher::send(const AlertTarget &target, const AlertEvent &event)
{
    switch (target.kind) {
    case AlertTarget::Kind::Webhook:
        sendWebhook(target, event);
        break;
    case AlertTarget::Kind::Command:
        runCommand(target, event);
        break;
    case AlertTarget::Kind::Desktop:
        Q_EMIT desktopNotification(event.title(), event.text());
        noteDelivered(target.name, event);
        break;
    }
}

void AlertDispatcher::sendWebhook(const AlertTarget &target, const AlertEvent &event)
{
    if (!m_executor) {
        noteFailed(target.name, event, tr("no executor carries webhooks"));
        return;
    }
    RequestSpec spec;
    spec.method = "POST";
    spec.url = target.url;
    spec.body = QJsonDocument(event.toJson()).toJson(QJsonDocument::Compact);
    // The alert is the same whichever attempt carries it: a receiver that saw
    // the key before drops the repeat.
    spec.idempotent = true;
    spec.headers = {
        {QByteArrayLiteral("Content-Type"), QByteArrayLiteral("application/json")},
        {QByteArrayLiteral("Idempotency-Key"), event.idempotencyKey()},
    };
    for (const auto &header : target.headers) {
        spec.headers.removeIf(
            [&](const auto &own) { return own.first.compare(header.first, Qt::CaseInsensitive) == 0; });
    }
    spec.headers.append(target.headers);
    spec.label = tr("alert %1 to %2").arg(alertKindName(event.kind), target.name);

    const quint64 id = m_executor->reserveId();
    m_webhooks.insert(id, {target.name, event});
    // Known before the submission, which may refuse it at once.
    m_executor->submitAs(id, spec, &target.policy);
}

void AlertDispatcher::runCommand(const AlertTarget &target, const AlertEvent &event)
{
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    event.addToEnvironment(environment);
    auto *command = new AlertCommand(target.command, environment, target.timeoutMs, this);
    ++m_commandsRunning;
    connect(command, &AlertCommand::finished, this, [this, command, name = target.name, event](const QString &problem) {
        --m_commandsRunning;
        command->deleteLater();
        if (problem.isEmpty())
            noteDelivered(name, event);
        else
            noteFailed(name, event, problem);
    });
    command->start();
}

void AlertDispatcher::handleAttemptFinished(const AttemptRecord &record)
{
    const auto it = m_webhooks.constFind(record.requestId);
    if (it != m_webhooks.constEnd())
        Q_EMIT deliveryAttempt(it->target, record);
}

void AlertDispatcher::handleRequestFinished(const RequestResult &result)
{
    const auto it = m_webhooks.constFind(result.requestId);
    if (it == m_webhooks.constEnd())
        return;
    const Delivery delivery = *it;
    m_webhooks.erase(it);
    Q_EMIT deliveryFinished(delivery.target, result);
    if (result.outcome == RequestOutcome::Succeeded) {
        noteDelivered(delivery.target, delivery.event);
        return;
    }
    noteFailed(delivery.target, delivery.event,
        tr("the webhook was not delivered (%1, %n attempt(s)): %2", nullptr, result.attempts)
            .arg(requestOutcomeName(result.outcome), Redactor().text(result.reason)));
}

void AlertDispatcher::handleExecutorDestroyed()
{
    const auto pending = std::exchange(m_webhooks, {});
    for (const Delivery &delivery : pending)
        noteFailed(delivery.target, delivery.event, tr("the executor carrying the webhook was destroyed"));
}

void AlertDispatcher::noteDelivered(const QString &target, const AlertEvent &event)
{
    ++m_stats[target].delivered;
    Q_EMIT delivered(target, event);
}

void AlertDispatcher::noteFailed(const QString &target, const AlertEvent &event, const QString &reason)
{
    ++m_stats[target].failed;
    qCWarning(lcAlerts).noquote() << "alert" << alertKindName(event.kind) << "of" << event.monitor << "to" << target
                                  << "failed:" << reason;
    Q_EMIT failed(target, event, reason);
}

} // namespace RetryLab::Core
