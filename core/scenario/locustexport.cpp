#include "core/scenario/locustexport.h"

#include "core/policy/policyjson.h"
#include "core/util/coretr.h"
#include "core/util/version.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QUrl>

namespace RetryLab::Core::LocustExport {

namespace {

/// JSON for a Python raw triple-quoted string: a quote becomes \u0027, so that no
/// text of the scenario can close the string.
QByteArray embedded(const QJsonDocument &document)
{
    QByteArray json = document.toJson(QJsonDocument::Compact);
    json.replace('\'', "\\u0027");
    return json;
}

/// The URL as the generated file sends it: a path on Locust's --host for "{server}/...", else as written.
QString locustUrl(const QString &urlTemplate)
{
    const QString placeholder = Scenario::serverPlaceholder();
    if (urlTemplate.startsWith(placeholder)) {
        const QString rest = urlTemplate.mid(placeholder.size());
        return rest.isEmpty() ? QStringLiteral("/") : rest;
    }
    return urlTemplate;
}

/// How requests (Locust's HttpSession) reaches the server: "verify" (true, false, or a CA file),
/// "insecureHosts", "cert" ([certificate, key]), "proxy" (a URL), "trustEnv" (the system's proxy).
Result<QJsonObject> transportObject(const TransportOptions &t, const QString &where, QStringList &notes)
{
    using R = Result<QJsonObject>;
    using T = TransportOptions;
    if (t.httpVersion != T::HttpVersion::Http1)
        return R::failure(Tr::tr("%1: HTTP/2 is not carried: Locust's HttpUser speaks HTTP/1.1").arg(where));
    if (!t.clientKeyPassphrase.isEmpty())
        return R::failure(
            Tr::tr("%1: a key passphrase is never written to a file; give the workers a key without one").arg(where));
    const QString certificate = t.clientCertificatePath.toLower();
    if (certificate.endsWith(QLatin1String(".p12")) || certificate.endsWith(QLatin1String(".pfx"))) {
        return R::failure(
            Tr::tr("%1: a PKCS#12 client certificate is not carried; give a PEM certificate and key").arg(where));
    }
    if (!t.proxyPassword.isEmpty()) {
        return R::failure(Tr::tr("%1: a proxy password is never written to a file; set HTTPS_PROXY on the workers "
                                 "and use the system's proxy")
                              .arg(where));
    }
    QJsonObject o;
    if (!t.caBundlePath.isEmpty()) {
        o.insert(QStringLiteral("verify"), t.caBundlePath);
        notes.append(Tr::tr("%1 trusts only its CA file %2, not the system's CAs as well (requests replaces them)")
                         .arg(where, t.caBundlePath));
    }
    if (!t.insecureHosts.isEmpty()) {
        o.insert(QStringLiteral("insecureHosts"), QJsonArray::fromStringList(t.insecureHosts));
        notes.append(
            Tr::tr("%1 ignores certificate errors of %2").arg(where, t.insecureHosts.join(QStringLiteral(", "))));
    }
    if (!t.clientCertificatePath.isEmpty()) {
        o.insert(QStringLiteral("cert"),
            QJsonArray{t.clientCertificatePath, t.clientKeyPath.isEmpty() ? t.clientCertificatePath : t.clientKeyPath});
    }
    if (t.tlsFloor != T::TlsFloor::Any)
        notes.append(Tr::tr("%1: the TLS floor is not carried (the workers' OpenSSL defaults apply)").arg(where));
    if (!t.caBundlePath.isEmpty() || !t.clientCertificatePath.isEmpty())
        notes.append(Tr::tr("%1: its files must be at the same paths on every worker").arg(where));
    switch (t.proxyMode) {
    case T::ProxyMode::None:
        break;
    case T::ProxyMode::System:
        o.insert(QStringLiteral("trustEnv"), true);
        break;
    case T::ProxyMode::Http:
    case T::ProxyMode::Socks5: {
        QUrl proxy;
        proxy.setScheme(t.proxyMode == T::ProxyMode::Http ? QStringLiteral("http") : QStringLiteral("socks5h"));
        proxy.setHost(t.proxyHost);
        proxy.setPort(t.proxyPort);
        proxy.setUserName(t.proxyUser);
        o.insert(QStringLiteral("proxy"), proxy.toString());
        if (t.proxyMode == T::ProxyMode::Socks5)
            notes.append(Tr::tr("%1: a SOCKS5 proxy needs PySocks on the workers (python3-socks)").arg(where));
        break;
    }
    }
    return o;
}

} // namespace

Result<Generated> locustfile(const Scenario &scenario, const BackoffPolicy &policy, const QString &runId, quint64 seed)
{
    using R = Result<Generated>;
    QJsonArray entries;
    QStringList notes;
    for (qsizetype i = 0; i < scenario.requests.size(); ++i) {
        const ScenarioRequest &r = scenario.requests.at(i);
        const QString where = Tr::tr("requests[%1] (%2)").arg(i).arg(r.name);
        if (r.script) {
            return R::failure(Tr::tr("%1: the embedded server's scripted steps (\"script\") cannot be played by "
                                     "Locust's workers against another server; give the faults to the service or "
                                     "to retrylab serve instead")
                                  .arg(where));
        }
        QJsonObject headers;
        for (const auto &[name, value] : r.spec.headers)
            headers.insert(QString::fromLatin1(name), QString::fromUtf8(value));
        QJsonObject entry{
            {QStringLiteral("name"), r.name},
            {QStringLiteral("method"), QString::fromLatin1(r.spec.method.trimmed().toUpper())},
            {QStringLiteral("url"), locustUrl(r.urlTemplate)},
            {QStringLiteral("headers"), headers},
            {QStringLiteral("body"), QString::fromUtf8(r.spec.body)},
            {QStringLiteral("idempotent"), r.spec.idempotent},
            {QStringLiteral("count"), r.count},
            {QStringLiteral("concurrency"), r.concurrency},
        };
        if (r.spec.attemptTimeoutMs)
            entry.insert(QStringLiteral("attemptTimeoutMs"), *r.spec.attemptTimeoutMs);
        if (!r.spec.transport.isDefault()) {
            auto transport = transportObject(r.spec.transport, where, notes);
            if (!transport)
                return R(transport.errorDetail());
            entry.insert(QStringLiteral("transport"), *transport);
        }
        if (!r.fallbackTemplates.isEmpty()) {
            QJsonArray fallbacks;
            for (const QString &fallback : r.fallbackTemplates)
                fallbacks.append(locustUrl(fallback));
            entry.insert(QStringLiteral("fallbacks"), fallbacks);
            if (!r.spec.fallbackOn.isEmpty())
                notes.append(Tr::tr("%1: its list of the faults that lead to a fallback (\"fallbackOn\") is not "
                                    "carried: the Locust file moves on to a fallback whenever the policy gives up")
                                 .arg(where));
        }
        if (r.spec.kind == RequestSpec::Kind::ReadModifyWrite) {
            const ReadModifyWriteShape &shape = r.spec.readModifyWrite;
            entry.insert(QStringLiteral("increment"), r.spec.increment);
            entry.insert(QStringLiteral("readModifyWrite"),
                QJsonObject{{QStringLiteral("readMethod"), QString::fromLatin1(shape.readMethod.trimmed().toUpper())},
                    {QStringLiteral("writeMethod"), QString::fromLatin1(shape.writeMethod.trimmed().toUpper())},
                    {QStringLiteral("writeUrl"),
                        r.writeUrlTemplate.isEmpty() ? QString() : locustUrl(r.writeUrlTemplate)},
                    {QStringLiteral("valuePointer"), shape.valuePointer},
                    {QStringLiteral("etagPointer"), shape.etagPointer},
                    {QStringLiteral("writeEnvelope"), shape.writeEnvelope}});
        }
        entries.append(entry);
    }
    if (entries.isEmpty())
        return R::failure(Tr::tr("the scenario has no requests"));

    Generated generated;
    generated.notes = notes;
    if (policy.circuitBreaker.enabled)
        generated.notes.append(Tr::tr("the policy's circuit breaker is not carried: every user retries on its own"));
    if (policy.retryBudget.kind != RetryBudgetKind::None)
        generated.notes.append(Tr::tr("the policy's retry budget is not carried: no user runs out of retries"));
    if (!policy.classification.networkDelayFactors.isEmpty())
        generated.notes.append(Tr::tr("the delay factors per network fault are not carried: faults wait the backoff"));
    if (!policy.classification.statusDelayFactors.isEmpty())
        generated.notes.append(Tr::tr("the delay factors per status are not carried: every status waits the backoff"));

    QFile file(QStringLiteral(":/locust/locustfile.py"));
    if (!file.open(QIODevice::ReadOnly))
        return R::failure(Tr::tr("the Locust template is missing from this build"));
    QByteArray text = file.readAll();
    QString header
        = Tr::tr("A Locust file made by RetryLab %1 from the scenario \"%2\" and the policy \"%3\" (run %4, "
                 "seed %5), tested with Locust %6.")
              .arg(QStringLiteral(RETRYLAB_VERSION), scenario.name.simplified(), policy.name.simplified(), runId)
              .arg(seed)
              .arg(QLatin1String(testedLocustVersion));
    for (const QString &note : std::as_const(generated.notes))
        header += QStringLiteral("\n# Not carried: ") + note + QLatin1Char('.');
    const QJsonObject meta{{QStringLiteral("run"), runId},
        {QStringLiteral("retrylab"), QStringLiteral(RETRYLAB_VERSION)}, {QStringLiteral("seed"), QString::number(seed)},
        {QStringLiteral("locust"), QLatin1String(testedLocustVersion)}};
    text.replace("@HEADER@", header.toUtf8());
    text.replace("@META@", embedded(QJsonDocument(meta)));
    text.replace("@POLICY@", embedded(QJsonDocument(PolicyJson::toJsonObject(policy))));
    text.replace("@ENTRIES@", embedded(QJsonDocument(entries)));
    generated.locustfile = text;
    return generated;
}

} // namespace RetryLab::Core::LocustExport
