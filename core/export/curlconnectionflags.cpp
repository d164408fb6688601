#include "core/export/curlconnectionflags.h"

#include "core/export/curlretryflags.h"

namespace RetryLab::Core::CurlConnectionFlags {

namespace {

// A -F value: curl reads ';' and '"' in a file name specially, so a name holding them is quoted.
QString formFileName(const QByteArray &name)
{
    QByteArray escaped = name;
    escaped.replace('\\', "\\\\").replace('"', "\\\"");
    return QStringLiteral("\"%1\"").arg(QString::fromUtf8(escaped));
}

} // namespace

QStringList connectionArguments(const TransportOptions &t)
{
    QStringList args;
    if (t.connectTimeoutMs && *t.connectTimeoutMs > 0.0)
        args << QStringLiteral("--connect-timeout") << CurlRetryFlags::decimalSeconds(*t.connectTimeoutMs);
    for (const HostPin &pin : t.resolve)
        args << QStringLiteral("--resolve") << pin.text();
    if (t.ipFamily == TransportOptions::IpFamily::V4)
        args << QStringLiteral("--ipv4");
    else if (t.ipFamily == TransportOptions::IpFamily::V6)
        args << QStringLiteral("--ipv6");
    if (!t.keepAlive)
        args << QStringLiteral("--no-keepalive");
    return args;
}

QStringList bodyArguments(const RequestSpec &request)
{
    QStringList args;
    const BodySource &source = request.bodySource;
    switch (source.kind) {
    case BodySource::Kind::Inline:
        break;
    case BodySource::Kind::File:
        if (request.method.trimmed().toUpper() == "PUT")
            args << QStringLiteral("-T") << source.filePath;
        else
            args << QStringLiteral("--data-binary") << QLatin1Char('@') + source.filePath;
        break;
    case BodySource::Kind::Multipart:
        for (const FormPart &part : source.parts) {
            const QString name = QString::fromUtf8(part.name);
            if (!part.isFile()) {
                // --form-string: the value as it is, whatever it starts with.
                if (part.contentType.isEmpty()) {
                    args << QStringLiteral("--form-string") << name + QLatin1Char('=') + QString::fromUtf8(part.value);
                } else {
                    args << QStringLiteral("-F")
                         << QStringLiteral("%1=%2;type=%3")
                                .arg(name, QString::fromUtf8(part.value), QString::fromUtf8(part.contentType));
                }
                continue;
            }
            QString value = name + QStringLiteral("=@") + part.filePath;
            if (!part.contentType.isEmpty())
                value += QStringLiteral(";type=") + QString::fromUtf8(part.contentType);
            if (!part.fileName.isEmpty())
                value += QStringLiteral(";filename=") + formFileName(part.fileName);
            args << QStringLiteral("-F") << value;
        }
        break;
    }
    return args;
}

bool impliesMethod(const RequestSpec &request, const QByteArray &method)
{
    switch (request.bodySource.kind) {
    case BodySource::Kind::Inline:
        return false;
    case BodySource::Kind::File:
        return method == "PUT" || method == "POST";
    case BodySource::Kind::Multipart:
        return method == "POST";
    }
    return false;
}

} // namespace RetryLab::Core::CurlConnectionFlags
