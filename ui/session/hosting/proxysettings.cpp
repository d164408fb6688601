#include "ui/session/hosting/proxysettings.h"

#include "core/util/jsonreader.h"

#include <QJsonDocument>

namespace RetryLab::Ui {

using namespace RetryLab::Core;

QJsonObject ProxySettings::toJson() const
{
    return {{QStringLiteral("name"), name}, {QStringLiteral("upstream"), upstream.toString()},
        {QStringLiteral("port"), int(port)}, {QStringLiteral("keepHost"), keepHost},
        {QStringLiteral("caBundle"), caBundlePath}, {QStringLiteral("record"), recordDirectory},
        {QStringLiteral("forward"), forward}, {QStringLiteral("faults"), rules.toJson()}};
}

Result<ProxySettings> ProxySettings::fromJson(const QJsonObject &object)
{
    JsonReader r(object);
    r.rejectUnknown(
        {QStringLiteral("name"), QStringLiteral("upstream"), QStringLiteral("port"), QStringLiteral("keepHost"),
            QStringLiteral("caBundle"), QStringLiteral("record"), QStringLiteral("forward"), QStringLiteral("faults")});
    ProxySettings s;
    s.name = r.string(QStringLiteral("name")).value_or(QString());
    s.forward = r.boolean(QStringLiteral("forward")).value_or(false);
    const auto upstream = r.string(QStringLiteral("upstream"), s.forward ? Presence::Optional : Presence::Required);
    if (upstream)
        s.upstream = QUrl(*upstream);
    s.port = quint16(r.integer(QStringLiteral("port"), 0, 65535).value_or(0));
    s.keepHost = r.boolean(QStringLiteral("keepHost")).value_or(false);
    s.caBundlePath = r.string(QStringLiteral("caBundle")).value_or(QString());
    s.recordDirectory = r.string(QStringLiteral("record")).value_or(QString());
    if (r.failed())
        return Result<ProxySettings>(r.firstError());
    if (object.contains(QStringLiteral("faults"))) {
        const auto rules
            = FaultRuleList::fromJson(QJsonDocument(object.value(QStringLiteral("faults")).toObject()).toJson());
        if (!rules)
            return Result<ProxySettings>(rules.errorDetail().under(QStringLiteral("faults")));
        s.rules = *rules;
    }
    return s;
}

bool ProxySettings::operator==(const ProxySettings &other) const
{
    return name == other.name && upstream == other.upstream && port == other.port && keepHost == other.keepHost
        && caBundlePath == other.caBundlePath && recordDirectory == other.recordDirectory && forward == other.forward
        && rules.rules == other.rules.rules && rules.seed == other.rules.seed;
}

} // namespace RetryLab::Ui
