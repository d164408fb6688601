#pragma once

#include "core/http/httpheaders.h"
#include "core/policy/backoffpolicy.h"

#include <QJsonValue>
#include <QString>
#include <QStringList>
#include <QUrl>

#include <optional>

namespace RetryLab::Core {

/// Where alerts go, as an entry of the monitors file's "alerts" array names it
/// (AlertTargetJson): a webhook (a JSON POST through the retry executor, under
/// a policy of its own), a command (run without a shell, the event in its
/// environment) or the desktop (a notification in the window). Every kind is
/// deduplicated and rate-limited by AlertDispatcher.
struct AlertTarget
{
    enum class Kind { Webhook, Command, Desktop };

    /// The same alert (AlertEvent::dedupeKey()) goes to a target at most once in this long.
    static constexpr qint64 defaultMinIntervalMs = 60'000;
    /// Alerts a target takes in one minute; the rest are counted and summed up once the minute is over.
    static constexpr int defaultMaxPerMinute = 10;
    static constexpr qint64 rateWindowMs = 60'000;
    /// How long a command may run before it is killed.
    static constexpr qint64 defaultCommandTimeoutMs = 10'000;

    QString name;
    Kind kind = Kind::Desktop;
    qint64 minIntervalMs = defaultMinIntervalMs; ///< 0: no deduplication
    int maxPerMinute = defaultMaxPerMinute;

    // Webhook
    QUrl url; ///< http or https
    /// Sent with every delivery after RetryLab's own (a header named again
    /// replaces RetryLab's). Their values are credentials: never print them
    /// (Redactor).
    HeaderList headers;
    BackoffPolicy policy = defaultWebhookPolicy();
    QString policyOrigin; ///< "preset aws-standard", "inline"; empty: the default policy
    /// The "policy" value as the file gave it, written back by AlertTargetJson::toJson(); undefined: none given.
    QJsonValue policyJson = QJsonValue(QJsonValue::Undefined);

    // Command
    QStringList command; ///< the program's absolute path, then its arguments
    qint64 timeoutMs = defaultCommandTimeoutMs;

    /// A webhook's policy when its entry names none: full jitter from 1 s,
    /// doubling, at most 30 s, 5 attempts of at most 10 s each: a receiver
    /// restarting or briefly overloaded still gets the alert within a minute.
    static BackoffPolicy defaultWebhookPolicy();

    friend bool operator==(const AlertTarget &, const AlertTarget &) = default;
};

/// "webhook", "command", "desktop".
QString alertTargetKindName(AlertTarget::Kind kind);
std::optional<AlertTarget::Kind> alertTargetKindFromName(const QString &name);
QList<AlertTarget::Kind> alertTargetKinds();

} // namespace RetryLab::Core
