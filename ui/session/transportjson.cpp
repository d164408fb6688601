#include "ui/session/transportjson.h"

#include "core/util/jsonreader.h"

#include <QList>

namespace RetryLab::Ui::TransportJson {

using Core::TransportOptions;

namespace {

const QList<TransportOptions::TlsFloor> allFloors{
    TransportOptions::TlsFloor::Any, TransportOptions::TlsFloor::Tls12, TransportOptions::TlsFloor::Tls13};
const QList<TransportOptions::ProxyMode> allProxyModes{TransportOptions::ProxyMode::None,
    TransportOptions::ProxyMode::System, TransportOptions::ProxyMode::Http, TransportOptions::ProxyMode::Socks5};
const QList<TransportOptions::HttpVersion> allVersions{TransportOptions::HttpVersion::Http1,
    TransportOptions::HttpVersion::Http2, TransportOptions::HttpVersion::Http2PriorKnowledge};

} // namespace

QString tlsFloorName(TransportOptions::TlsFloor floor)
{
    switch (floor) {
    case TransportOptions::TlsFloor::Tls12:
        return QStringLiteral("tls1.2");
    case TransportOptions::TlsFloor::Tls13:
        return QStringLiteral("tls1.3");
    case TransportOptions::TlsFloor::Any:
        break;
    }
    return QStringLiteral("any");
}

QString proxyModeName(TransportOptions::ProxyMode mode)
{
    switch (mode) {
    case TransportOptions::ProxyMode::System:
        return QStringLiteral("system");
    case TransportOptions::ProxyMode::Http:
        return QStringLiteral("http");
    case TransportOptions::ProxyMode::Socks5:
        return QStringLiteral("socks5");
    case TransportOptions::ProxyMode::None:
        break;
    }
    return QStringLiteral("none");
}

QString httpVersionName(TransportOptions::HttpVersion version)
{
    switch (version) {
    case TransportOptions::HttpVersion::Http2:
        return QStringLiteral("http2");
    case TransportOptions::HttpVersion::Http2PriorKnowledge:
        return QStringLiteral("http2-prior-knowledge");
    case TransportOptions::HttpVersion::Http1:
        break;
    }
    return QStringLiteral("http1.1");
}

TransportOptions withoutSessionOnly(TransportOptions options)
{
    options.clientKeyPassphrase.clear();
    options.proxyPassword.clear();
    options.insecureHosts.clear();
    return options;
}

QJsonObject toJson(const TransportOptions &t)
{
    QJsonObject object;
    const auto put = [&object](const QString &key, const QString &value) {
        if (!value.isEmpty())
            object.insert(key, value);
    };
    put(QStringLiteral("caBundlePath"), t.caBundlePath);
    put(QStringLiteral("clientCertificatePath"), t.clientCertificatePath);
    put(QStringLiteral("clientKeyPath"), t.clientKeyPath);
    object.insert(QStringLiteral("tlsFloor"), tlsFloorName(t.tlsFloor));
    object.insert(QStringLiteral("proxyMode"), proxyModeName(t.proxyMode));
    put(QStringLiteral("proxyHost"), t.proxyHost);
    if (t.proxyPort != 0)
        object.insert(QStringLiteral("proxyPort"), int(t.proxyPort));
    put(QStringLiteral("proxyUser"), t.proxyUser);
    object.insert(QStringLiteral("httpVersion"), httpVersionName(t.httpVersion));
    return object;
}

Core::Result<TransportOptions> fromJson(const QJsonObject &object, const QString &path)
{
    Core::JsonReader reader(object, path);
    reader.rejectUnknown({QStringLiteral("caBundlePath"), QStringLiteral("clientCertificatePath"),
        QStringLiteral("clientKeyPath"), QStringLiteral("tlsFloor"), QStringLiteral("proxyMode"),
        QStringLiteral("proxyHost"), QStringLiteral("proxyPort"), QStringLiteral("proxyUser"),
        QStringLiteral("httpVersion")});
    TransportOptions t;
    t.caBundlePath = reader.string(QStringLiteral("caBundlePath")).value_or(QString());
    t.clientCertificatePath = reader.string(QStringLiteral("clientCertificatePath")).value_or(QString());
    t.clientKeyPath = reader.string(QStringLiteral("clientKeyPath")).value_or(QString());
    t.tlsFloor = reader.named(QStringLiteral("tlsFloor"), allFloors, &tlsFloorName).value_or(t.tlsFloor);
    t.proxyMode = reader.named(QStringLiteral("proxyMode"), allProxyModes, &proxyModeName).value_or(t.proxyMode);
    t.proxyHost = reader.string(QStringLiteral("proxyHost")).value_or(QString());
    t.proxyPort = static_cast<quint16>(reader.integer(QStringLiteral("proxyPort"), 0, 65535).value_or(0));
    t.proxyUser = reader.string(QStringLiteral("proxyUser")).value_or(QString());
    t.httpVersion = reader.named(QStringLiteral("httpVersion"), allVersions, &httpVersionName).value_or(t.httpVersion);
    return reader.result(t);
}

} // namespace RetryLab::Ui::TransportJson
