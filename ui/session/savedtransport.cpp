#include "ui/session/savedtransport.h"

#include "core/record/transportjson.h"
#include "core/util/jsonreader.h"

namespace RetryLab::Ui::SavedTransport {

using Core::TransportOptions;

TransportOptions withoutSessionOnly(TransportOptions options)
{
    options.clientKeyPassphrase.clear();
    options.proxyPassword.clear();
    options.insecureHosts.clear();
    return options;
}

QJsonObject toJson(const TransportOptions &options)
{
    // The file format's spelling (Core::TransportJson), without the secrets and
    // without the exemptions; the proxy's user name is kept, so that only its
    // password has to be typed again.
    QJsonObject object = Core::TransportJson::toJson(withoutSessionOnly(options), Core::TransportJson::Secrets::Leave);
    object.remove(QStringLiteral("insecureHosts"));
    if (!options.proxyUser.isEmpty())
        object.insert(QStringLiteral("proxyUser"), options.proxyUser);
    return object;
}

Core::Result<TransportOptions> fromJson(const QJsonObject &object, const QString &path)
{
    Core::JsonReader reader(object, path);
    const TransportOptions options = Core::TransportJson::read(reader);
    if (reader.failed())
        return Core::Result<TransportOptions>(reader.firstError());
    // A hand-edited file cannot switch certificate checks off, nor hold secrets.
    return withoutSessionOnly(options);
}

} // namespace RetryLab::Ui::SavedTransport
