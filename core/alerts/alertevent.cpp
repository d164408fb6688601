#include "core/alerts/alertevent.h"

#include "core/util/coretr.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcessEnvironment>

namespace RetryLab::Core {

namespace {

QString isoUtc(qint64 wallMs)
{
    return QDateTime::fromMSecsSinceEpoch(wallMs, Qt::UTC).toString(Qt::ISODateWithMs);
}

// The state in words for people; monitorStateName() is the machine word of files.
QString stateWord(MonitorState state)
{
    switch (state) {
    case MonitorState::Pending:
        return Tr::tr("pending");
    case MonitorState::Up:
        return Tr::tr("up");
    case MonitorState::Down:
        return Tr::tr("down");
    case MonitorState::Paused:
        return Tr::tr("paused");
    }
    return Tr::tr("pending");
}

QString rateText(double rate)
{
    return QString::number(rate, 'g', 3);
}

} // namespace

QString alertKindName(AlertEvent::Kind kind)
{
    switch (kind) {
    case AlertEvent::Kind::StateChange:
        return QStringLiteral("state-change");
    case AlertEvent::Kind::HiddenIncident:
        return QStringLiteral("hidden-incident");
    case AlertEvent::Kind::BurnRate:
        return QStringLiteral("burn-rate");
    case AlertEvent::Kind::Suppressed:
        return QStringLiteral("alerts-suppressed");
    }
    return QStringLiteral("state-change");
}

QString AlertEvent::formatName()
{
    return QStringLiteral("retrylab-alert");
}

AlertEvent AlertEvent::stateChange(const StateEvent &change)
{
    AlertEvent event;
    event.kind = Kind::StateChange;
    event.monitor = change.monitor;
    event.agent = change.agent;
    event.atMs = change.atMs;
    event.from = change.from;
    event.to = change.to;
    event.reason = change.reason;
    return event;
}

QString AlertEvent::dedupeKey() const
{
    QJsonArray parts{alertKindName(kind), monitor, agent};
    switch (kind) {
    case Kind::StateChange:
        parts.append(monitorStateName(from));
        parts.append(monitorStateName(to));
        break;
    case Kind::HiddenIncident:
        parts.append(QString::number(incidentStartMs));
        break;
    case Kind::BurnRate:
        parts.append(QString::number(longWindowMs));
        parts.append(QString::number(shortWindowMs));
        parts.append(QString::number(burnThreshold, 'g', 17));
        break;
    case Kind::Suppressed:
        // A summary is never a repeat of another.
        parts.append(QString::number(atMs));
        break;
    }
    return QString::fromUtf8(QJsonDocument(parts).toJson(QJsonDocument::Compact));
}

QByteArray AlertEvent::idempotencyKey() const
{
    QCryptographicHash hash(QCryptographicHash::Sha256);
    hash.addData(dedupeKey().toUtf8());
    hash.addData(QByteArrayView("\n"));
    hash.addData(QByteArray::number(atMs));
    return hash.result().toHex().left(32);
}

QString AlertEvent::title() const
{
    const QString who = agent.isEmpty() ? monitor : Tr::tr("%1 (agent %2)").arg(monitor, agent);
    switch (kind) {
    case Kind::StateChange:
        return Tr::tr("%1 is %2").arg(who, stateWord(to));
    case Kind::HiddenIncident:
        return Tr::tr("Retries hid an incident of %1").arg(who);
    case Kind::BurnRate:
        return Tr::tr("%1 burns its error budget at %2× (threshold %3×)")
            .arg(who, rateText(burnRate), rateText(burnThreshold));
    case Kind::Suppressed:
        return Tr::tr("%n alert(s) suppressed", nullptr, suppressedCount);
    }
    return who;
}

QString AlertEvent::text() const
{
    const QString when = Tr::tr("at %1").arg(isoUtc(atMs));
    return reason.isEmpty() ? when : reason + QLatin1Char('\n') + when;
}

QJsonObject AlertEvent::toJson() const
{
    QJsonObject o{
        {QStringLiteral("format"), formatName()},
        {QStringLiteral("version"), formatVersion},
        {QStringLiteral("event"), alertKindName(kind)},
        {QStringLiteral("monitor"), monitor},
        {QStringLiteral("agent"), agent},
        {QStringLiteral("at"), isoUtc(atMs)},
        {QStringLiteral("title"), title()},
        {QStringLiteral("reason"), reason},
    };
    switch (kind) {
    case Kind::StateChange:
        o.insert(QStringLiteral("from"), monitorStateName(from));
        o.insert(QStringLiteral("to"), monitorStateName(to));
        break;
    case Kind::HiddenIncident:
        o.insert(QStringLiteral("incidentStart"), isoUtc(incidentStartMs));
        if (incidentEndMs > 0)
            o.insert(QStringLiteral("incidentEnd"), isoUtc(incidentEndMs));
        o.insert(QStringLiteral("failedAttempts"), failedAttempts);
        o.insert(QStringLiteral("retriedChecks"), retriedChecks);
        break;
    case Kind::BurnRate:
        o.insert(QStringLiteral("burnRate"), burnRate);
        o.insert(QStringLiteral("threshold"), burnThreshold);
        o.insert(QStringLiteral("longWindowMs"), longWindowMs);
        o.insert(QStringLiteral("shortWindowMs"), shortWindowMs);
        if (objective > 0.0)
            o.insert(QStringLiteral("objective"), objective);
        break;
    case Kind::Suppressed:
        o.insert(QStringLiteral("suppressed"), suppressedCount);
        o.insert(QStringLiteral("since"), isoUtc(suppressedSinceMs));
        o.insert(QStringLiteral("monitors"), QJsonArray::fromStringList(suppressedMonitors));
        break;
    }
    return o;
}

QStringList AlertEvent::environment() const
{
    const bool change = kind == Kind::StateChange;
    const QList<std::pair<QString, QString>> variables{
        {QStringLiteral("RETRYLAB_EVENT"), alertKindName(kind)},
        {QStringLiteral("RETRYLAB_MONITOR"), monitor},
        {QStringLiteral("RETRYLAB_AGENT"), agent},
        {QStringLiteral("RETRYLAB_FROM"), change ? monitorStateName(from) : QString()},
        {QStringLiteral("RETRYLAB_TO"), change ? monitorStateName(to) : QString()},
        {QStringLiteral("RETRYLAB_REASON"), reason},
        {QStringLiteral("RETRYLAB_TITLE"), title()},
        {QStringLiteral("RETRYLAB_AT"), isoUtc(atMs)},
        {QStringLiteral("RETRYLAB_EVENT_JSON"),
            QString::fromUtf8(QJsonDocument(toJson()).toJson(QJsonDocument::Compact))},
    };
    QStringList out;
    out.reserve(variables.size());
    for (const auto &[name, value] : variables)
        out.append(name + QLatin1Char('=') + value);
    return out;
}

void AlertEvent::addToEnvironment(QProcessEnvironment &environment) const
{
    for (const QString &variable : this->environment()) {
        const qsizetype equals = variable.indexOf(QLatin1Char('='));
        environment.insert(variable.left(equals), variable.mid(equals + 1));
    }
}

} // namespace RetryLab::Core
