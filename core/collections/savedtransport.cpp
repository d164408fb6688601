#include "core/collections/savedtransport.h"

#include "core/record/transportjson.h"
#include "core/util/jsonreader.h"

namespace RetryLab::Core::SavedTransport {

TransportOptions withoutSessionOnly(TransportOptions options)
{
    options.clientKeyPassphrase.clear();
    options.proxyPassword.clear();
    options.insecureHosts.clear();
    return options;
}

QJsonObject toJson(const TransportOptions &options)
{
    // The file format's spelling (TransportJson), without the secrets and
    // without the exemptions; the proxy's user name is kept, so that only its
    // password has to be typed again.
    QJsonObject object = TransportJson::toJson(withoutSessionOnly(options), TransportJson::Secrets::Leave);
    object.remove(QStringLiteral("insecureHosts"));
    if (!options.proxyUser.isEmpty())
        object.insert(QStringLiteral("proxyUser"), options.proxyUser);
    return object;
}

Result<TransportOptions> fromJson(const QJsonObject &object, const QString &path)
{
    JsonReader reader(object, path);
    const TransportOptions options = TransportJson::read(reader);
    if (reader.failed())
        return Result<TransportOptions>(reader.firstError());
    // A hand-edited file cannot switch certificate checks off, nor hold secrets.
    return withoutSessionOnly(options);
}

} // namespace RetryLab::Core::SavedTransport
