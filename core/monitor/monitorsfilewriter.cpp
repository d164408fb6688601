#include "core/monitor/monitorsfilewriter.h"

#include "core/alerts/alerttargetjson.h"
#include "core/auth/authjson.h"
#include "core/monitor/monitorsfile.h"
#include "core/policy/fallbacktriggers.h"
#include "core/policy/policyjson.h"
#include "core/policy/presets.h"
#include "core/record/transportjson.h"
#include "core/util/coretr.h"

#include <QDateTime>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QSaveFile>

namespace RetryLab::Core {

namespace {

Q_LOGGING_CATEGORY(lcMonitorsFileWriter, "retrylab.core.monitorsfilewriter")

QJsonValue policyToJson(const BackoffPolicy &policy)
{
    if (policy == singleAttemptPolicy())
        return QStringLiteral("none");
    for (const Presets::Preset &preset : Presets::all()) {
        if (preset.policy == policy)
            return preset.id;
    }
    return PolicyJson::toJsonObject(policy);
}

QJsonObject conditionToJson(const MonitorCondition &c)
{
    switch (c.kind) {
    case MonitorCondition::Kind::Status:
        return {{QStringLiteral("status"), c.statusText}};
    case MonitorCondition::Kind::ResponseTimeUnder:
        return {{QStringLiteral("responseTimeUnderMs"), c.maxMs}};
    case MonitorCondition::Kind::BodyContains:
        return {{QStringLiteral("bodyContains"), c.text}};
    case MonitorCondition::Kind::JsonPointerEquals:
        return {{QStringLiteral("jsonPointer"), c.pointer}, {QStringLiteral("equals"), c.expected}};
    case MonitorCondition::Kind::Header: {
        QJsonObject o{{QStringLiteral("header"), QString::fromLatin1(c.header)}};
        if (!c.pattern.isEmpty())
            o.insert(QStringLiteral("matches"), c.pattern);
        return o;
    }
    case MonitorCondition::Kind::CertificateValidDays:
        return {{QStringLiteral("certificateValidDays"), c.days}};
    }
    return {};
}

QString instantText(qint64 utcMs)
{
    return QDateTime::fromMSecsSinceEpoch(utcMs, Qt::UTC).toString(Qt::ISODateWithMs);
}

QJsonObject maintenanceToJson(const MaintenanceWindow &w)
{
    if (w.dailyFrom && w.dailyTo) {
        const QString daily = w.dailyFrom->toString(QStringLiteral("HH:mm")) + QLatin1Char('-')
            + w.dailyTo->toString(QStringLiteral("HH:mm"));
        return {{QStringLiteral("daily"), daily}};
    }
    return {{QStringLiteral("from"), instantText(w.fromMs.value_or(0))},
        {QStringLiteral("to"), instantText(w.toMs.value_or(0))}};
}

// The fields of a scenario's request entry that a monitor's request uses.
void writeRequest(const Monitor &monitor, QJsonObject &o)
{
    const RequestSpec &spec = monitor.request;
    o.insert(QStringLiteral("name"), monitor.name);
    if (!spec.label.isEmpty() && spec.label != monitor.name)
        o.insert(QStringLiteral("label"), spec.label);
    if (spec.kind == RequestSpec::Kind::ReadModifyWrite)
        o.insert(QStringLiteral("kind"), QStringLiteral("read-modify-write"));
    else
        o.insert(QStringLiteral("method"), QString::fromLatin1(spec.method));
    o.insert(QStringLiteral("url"), monitor.urlTemplate.isEmpty() ? spec.url.toString() : monitor.urlTemplate);
    if (!spec.headers.isEmpty()) {
        QJsonObject headers;
        for (const auto &[name, value] : spec.headers)
            headers.insert(QString::fromLatin1(name), QString::fromUtf8(value));
        o.insert(QStringLiteral("headers"), headers);
    }
    if (!spec.body.isEmpty())
        o.insert(QStringLiteral("body"), QString::fromUtf8(spec.body));
    if (spec.idempotent)
        o.insert(QStringLiteral("idempotent"), true);
    if (spec.attemptTimeoutMs)
        o.insert(QStringLiteral("attemptTimeoutMs"), *spec.attemptTimeoutMs);
    if (spec.transport != TransportOptions{})
        o.insert(QStringLiteral("transport"), TransportJson::toJson(spec.transport, TransportJson::Secrets::Write));
    // As the headers are: the file is the user's own, its credentials as the user gave them.
    if (!spec.auth.isNone())
        o.insert(QStringLiteral("auth"), AuthJson::toJson(spec.auth, AuthJson::Secrets::Write));
    if (!spec.fallbackUrls.isEmpty()) {
        QJsonArray fallbacks;
        for (const QUrl &url : spec.fallbackUrls)
            fallbacks.append(url.toString());
        o.insert(QStringLiteral("fallbacks"), fallbacks);
        if (!spec.fallbackOn.isEmpty())
            o.insert(QStringLiteral("fallbackOn"), FallbackTriggers::toJson(spec.fallbackOn));
    }
}

} // namespace

namespace MonitorsFileWriter {

QJsonObject monitorToJson(const Monitor &monitor)
{
    QJsonObject o;
    writeRequest(monitor, o);
    o.insert(QStringLiteral("intervalMs"), monitor.intervalMs);
    if (monitor.downIntervalMs)
        o.insert(QStringLiteral("downIntervalMs"), *monitor.downIntervalMs);
    o.insert(QStringLiteral("policy"), policyToJson(monitor.policy));
    o.insert(QStringLiteral("timeoutMs"), monitor.timeoutMs);
    if (!monitor.conditions.isEmpty()) {
        QJsonArray conditions;
        for (const MonitorCondition &c : monitor.conditions)
            conditions.append(conditionToJson(c));
        o.insert(QStringLiteral("conditions"), conditions);
    }
    o.insert(QStringLiteral("downAfter"), monitor.downAfter);
    o.insert(QStringLiteral("upAfter"), monitor.upAfter);
    if (!monitor.maintenance.isEmpty()) {
        QJsonArray windows;
        for (const MaintenanceWindow &w : monitor.maintenance)
            windows.append(maintenanceToJson(w));
        o.insert(QStringLiteral("maintenance"), windows);
    }
    if (monitor.objective)
        o.insert(QStringLiteral("objective"), *monitor.objective);
    if (!monitor.alerts.isEmpty())
        o.insert(QStringLiteral("alerts"), QJsonArray::fromStringList(monitor.alerts));
    if (monitor.paused)
        o.insert(QStringLiteral("paused"), true);
    return o;
}

QJsonObject toJson(const QList<Monitor> &monitors, const QList<AlertTarget> &alertTargets)
{
    QJsonObject file{{QStringLiteral("format"), QLatin1String(MonitorsFileReader::formatName)},
        {QStringLiteral("version"), MonitorsFileReader::formatVersion}};
    if (!alertTargets.isEmpty()) {
        QJsonArray targets;
        for (const AlertTarget &target : alertTargets)
            targets.append(AlertTargetJson::toJson(target));
        file.insert(QStringLiteral("alerts"), targets);
    }
    QJsonArray entries;
    for (const Monitor &monitor : monitors)
        entries.append(monitorToJson(monitor));
    file.insert(QStringLiteral("monitors"), entries);
    return file;
}

Result<void> writeFile(const QString &path, const QList<Monitor> &monitors, const QList<AlertTarget> &alertTargets)
{
    const QString shown = QDir::toNativeSeparators(path);
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return Result<void>::failure(Tr::tr("%1: %2").arg(shown, file.errorString()));
    // Headers may hold credentials: nobody but the owner reads the file, from its first byte on.
    if (!file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner)) {
        file.cancelWriting();
        return Result<void>::failure(Tr::tr("%1: cannot make it private: %2").arg(shown, file.errorString()));
    }
    const QByteArray bytes = QJsonDocument(toJson(monitors, alertTargets)).toJson(QJsonDocument::Indented);
    if (file.write(bytes) != bytes.size() || !file.commit())
        return Result<void>::failure(Tr::tr("%1: %2").arg(shown, file.errorString()));
    qCDebug(lcMonitorsFileWriter) << "wrote" << monitors.size() << "monitors to" << shown;
    return {};
}

} // namespace MonitorsFileWriter

} // namespace RetryLab::Core
