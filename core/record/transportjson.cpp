#include "core/record/transportjson.h"

#include "core/util/coretr.h"
#include "core/util/jsonreader.h"

#include <QJsonArray>

namespace RetryLab::Core::TransportJson {

namespace {

using TlsFloor = TransportOptions::TlsFloor;
using ProxyMode = TransportOptions::ProxyMode;
using HttpVersion = TransportOptions::HttpVersion;
using IpFamily = TransportOptions::IpFamily;

const QList<TlsFloor> allFloors{TlsFloor::Any, TlsFloor::Tls12, TlsFloor::Tls13};
const QList<ProxyMode> allModes{ProxyMode::None, ProxyMode::System, ProxyMode::Http, ProxyMode::Socks5};
const QList<HttpVersion> allVersions{HttpVersion::Http1, HttpVersion::Http2, HttpVersion::Http2PriorKnowledge};
const QList<IpFamily> allFamilies{IpFamily::Any, IpFamily::V4, IpFamily::V6};

// A name from `all`; absent, null or "" keeps the default.
template<typename T>
T named(JsonReader &r, const QString &key, const QList<T> &all, QString (*nameOf)(T), T fallback)
{
    const QJsonValue v = r.value(key);
    if (v.isUndefined() || v.isNull() || v == QJsonValue(QString()))
        return fallback;
    return r.named(key, all, nameOf).value_or(fallback);
}

QString text(JsonReader &r, const QString &key)
{
    if (r.value(key).isNull())
        return {};
    return r.string(key).value_or(QString());
}

} // namespace

QString tlsFloorName(TlsFloor floor)
{
    switch (floor) {
    case TlsFloor::Tls12:
        return QStringLiteral("tls1.2");
    case TlsFloor::Tls13:
        return QStringLiteral("tls1.3");
    case TlsFloor::Any:
        break;
    }
    return QStringLiteral("any");
}

QString proxyModeName(ProxyMode mode)
{
    switch (mode) {
    case ProxyMode::System:
        return QStringLiteral("system");
    case ProxyMode::Http:
        return QStringLiteral("http");
    case ProxyMode::Socks5:
        return QStringLiteral("socks5");
    case ProxyMode::None:
        break;
    }
    return QStringLiteral("none");
}

QString httpVersionName(HttpVersion version)
{
    switch (version) {
    case HttpVersion::Http2:
        return QStringLiteral("http2");
    case HttpVersion::Http2PriorKnowledge:
        return QStringLiteral("http2-prior-knowledge");
    case HttpVersion::Http1:
        break;
    }
    return QStringLiteral("http1.1");
}

QString ipFamilyName(IpFamily family)
{
    switch (family) {
    case IpFamily::V4:
        return QStringLiteral("ipv4");
    case IpFamily::V6:
        return QStringLiteral("ipv6");
    case IpFamily::Any:
        break;
    }
    return QStringLiteral("any");
}

QJsonObject toJson(const TransportOptions &t, Secrets secrets)
{
    QJsonObject o{
        {QStringLiteral("caBundlePath"), t.caBundlePath},
        {QStringLiteral("clientCertificatePath"), t.clientCertificatePath},
        {QStringLiteral("clientKeyPath"), t.clientKeyPath},
        {QStringLiteral("tlsFloor"), tlsFloorName(t.tlsFloor)},
        {QStringLiteral("insecureHosts"), QJsonArray::fromStringList(t.insecureHosts)},
        {QStringLiteral("proxyMode"), proxyModeName(t.proxyMode)},
        {QStringLiteral("proxyHost"), t.proxyHost},
        {QStringLiteral("proxyPort"), int(t.proxyPort)},
        {QStringLiteral("httpVersion"), httpVersionName(t.httpVersion)},
    };
    // The connection's keys only when they differ from the default: files written before stay as they were.
    if (t.connectTimeoutMs)
        o.insert(QStringLiteral("connectTimeoutMs"), *t.connectTimeoutMs);
    if (!t.resolve.isEmpty()) {
        QJsonArray pins;
        for (const HostPin &pin : t.resolve)
            pins.append(pin.text());
        o.insert(QStringLiteral("resolve"), pins);
    }
    if (t.ipFamily != IpFamily::Any)
        o.insert(QStringLiteral("ipFamily"), ipFamilyName(t.ipFamily));
    if (!t.keepAlive)
        o.insert(QStringLiteral("keepAlive"), false);
    if (secrets == Secrets::Write) {
        o.insert(QStringLiteral("clientKeyPassphrase"), t.clientKeyPassphrase);
        o.insert(QStringLiteral("proxyUser"), t.proxyUser);
        o.insert(QStringLiteral("proxyPassword"), t.proxyPassword);
    }
    return o;
}

TransportOptions read(JsonReader &r)
{
    r.rejectUnknown({QStringLiteral("caBundlePath"), QStringLiteral("clientCertificatePath"),
        QStringLiteral("clientKeyPath"), QStringLiteral("clientKeyPassphrase"), QStringLiteral("tlsFloor"),
        QStringLiteral("insecureHosts"), QStringLiteral("proxyMode"), QStringLiteral("proxyHost"),
        QStringLiteral("proxyPort"), QStringLiteral("proxyUser"), QStringLiteral("proxyPassword"),
        QStringLiteral("httpVersion"), QStringLiteral("connectTimeoutMs"), QStringLiteral("resolve"),
        QStringLiteral("ipFamily"), QStringLiteral("keepAlive")});
    TransportOptions o;
    o.caBundlePath = text(r, QStringLiteral("caBundlePath"));
    o.clientCertificatePath = text(r, QStringLiteral("clientCertificatePath"));
    o.clientKeyPath = text(r, QStringLiteral("clientKeyPath"));
    o.clientKeyPassphrase = text(r, QStringLiteral("clientKeyPassphrase"));
    o.tlsFloor = named(r, QStringLiteral("tlsFloor"), allFloors, &tlsFloorName, TlsFloor::Any);
    if (!r.value(QStringLiteral("insecureHosts")).isNull())
        o.insecureHosts = r.strings(QStringLiteral("insecureHosts")).value_or(QStringList());
    o.proxyMode = named(r, QStringLiteral("proxyMode"), allModes, &proxyModeName, ProxyMode::None);
    o.proxyHost = text(r, QStringLiteral("proxyHost"));
    if (!r.value(QStringLiteral("proxyPort")).isNull())
        o.proxyPort = quint16(r.integer(QStringLiteral("proxyPort"), 0, 65535).value_or(0));
    o.proxyUser = text(r, QStringLiteral("proxyUser"));
    o.proxyPassword = text(r, QStringLiteral("proxyPassword"));
    o.httpVersion = named(r, QStringLiteral("httpVersion"), allVersions, &httpVersionName, HttpVersion::Http1);
    if (!r.value(QStringLiteral("connectTimeoutMs")).isNull()
        && !r.value(QStringLiteral("connectTimeoutMs")).isUndefined()) {
        // More than 0: a connect timeout of 0 would fail every attempt at once.
        const std::optional<double> ms = r.number(QStringLiteral("connectTimeoutMs"), 0.0);
        if (ms && *ms <= 0.0)
            r.fail(QStringLiteral("connectTimeoutMs"), Tr::tr("expected milliseconds above 0, or null for none"));
        else
            o.connectTimeoutMs = ms;
    }
    if (!r.value(QStringLiteral("resolve")).isNull()) {
        for (const QString &entry : r.strings(QStringLiteral("resolve")).value_or(QStringList())) {
            Result<HostPin> pin = HostPin::parse(entry);
            if (pin)
                o.resolve.append(*pin);
            else
                r.fail(QStringLiteral("resolve"), pin.error());
        }
    }
    o.ipFamily = named(r, QStringLiteral("ipFamily"), allFamilies, &ipFamilyName, IpFamily::Any);
    if (!r.value(QStringLiteral("keepAlive")).isNull())
        o.keepAlive = r.boolean(QStringLiteral("keepAlive")).value_or(true);
    return o;
}

} // namespace RetryLab::Core::TransportJson
