#include "core/http/serverlogentry.h"

#include "core/http/fieldname.h"
#include "core/http/redactor.h"
#include "core/util/terminaltext.h"

#include <QCryptographicHash>

#include <algorithm>

namespace RetryLab::Core {

QJsonObject ServerLogEntry::toJson() const
{
    QJsonObject o{
        {QStringLiteral("sequence"), static_cast<qint64>(sequence)},
        {QStringLiteral("time"), time.toString(Qt::ISODateWithMs)},
        {QStringLiteral("peer"), peer},
        {QStringLiteral("method"), QString::fromLatin1(method)},
        {QStringLiteral("target"), target},
        {QStringLiteral("action"), action},
        {QStringLiteral("detail"), detail},
        {QStringLiteral("bytesSent"), bytesSent},
        {QStringLiteral("durationMs"), durationMs},
    };
    if (!tls.isEmpty())
        o.insert(QStringLiteral("tls"), tls);
    if (!testId.isEmpty())
        o.insert(QStringLiteral("testId"), testId);
    if (instructionIndex >= 0)
        o.insert(QStringLiteral("instructionIndex"), instructionIndex);
    if (!clientAttempt.isEmpty())
        o.insert(QStringLiteral("clientAttempt"), clientAttempt);
    if (replayed)
        o.insert(QStringLiteral("replayed"), true);
    if (status)
        o.insert(QStringLiteral("status"), *status);
    if (!identityHeaders.isEmpty()) {
        QJsonObject headers;
        for (const auto &[name, value] : identityHeaders)
            headers.insert(QString::fromLatin1(name), QString::fromLatin1(value));
        o.insert(QStringLiteral("identityHeaders"), headers);
    }
    if (!bodyDigest.isEmpty())
        o.insert(QStringLiteral("bodyDigest"), QString::fromLatin1(bodyDigest));
    if (!retryAfter.isEmpty())
        o.insert(QStringLiteral("retryAfter"), QString::fromLatin1(retryAfter));
    return o;
}

std::optional<QByteArray> ServerLogEntry::identityHeader(QByteArrayView name) const
{
    for (const auto &[key, value] : identityHeaders) {
        if (key == name)
            return value;
    }
    return std::nullopt;
}

const QList<QByteArray> &ServerLogEntry::identityHeaderNames()
{
    static const QList<QByteArray> names{
        "user-agent",
        "amz-sdk-invocation-id",
        "amz-sdk-request",
        "x-goog-api-client",
        "x-retry-request-id",
        "x-retry-attempt",
        "idempotency-key",
        "grpc-previous-rpc-attempts",
        "x-request-id",
    };
    return names;
}

QList<QPair<QByteArray, QByteArray>> ServerLogEntry::identityHeadersOf(
    const QList<QPair<QByteArray, QByteArray>> &headers)
{
    QList<QPair<QByteArray, QByteArray>> identity;
    const QList<QByteArray> &names = identityHeaderNames();
    // The lengths of the names, one bit each: a header of another length (Host, Accept, most)
    // is none of them, and is passed over without a comparison.
    static const quint64 lengths = [&names] {
        quint64 bits = 0;
        for (const QByteArray &name : names) {
            Q_ASSERT(name.size() < 64);
            bits |= quint64(1) << name.size();
        }
        return bits;
    }();
    for (const auto &[name, value] : headers) {
        if (name.size() >= 64 || !((lengths >> name.size()) & 1))
            continue;
        const auto known = std::find_if(names.cbegin(), names.cend(),
            [&name](const QByteArray &identityName) { return sameFieldName(name, identityName); });
        if (known != names.cend())
            identity.append({*known, value});
    }
    return identity;
}

QByteArray ServerLogEntry::bodyDigestOf(QByteArrayView body)
{
    if (body.isEmpty())
        return {};
    return QCryptographicHash::hash(body, QCryptographicHash::Sha256).toHex().left(16);
}

QByteArray ServerLogEntry::requestDigestOf(QByteArrayView target, const QList<QPair<QByteArray, QByteArray>> &headers)
{
    // Made only when a credential adds to the target: most requests carry none, and the
    // target alone is digested as it is.
    QByteArray withCredentials;
    for (const auto &[name, value] : headers) {
        if (sameFieldName(name, "cookie") || !Redactor::isSensitiveHeader(name))
            continue;
        QByteArrayView counted = value;
        if (const qsizetype signature = counted.indexOf("Signature="); signature >= 0)
            counted = counted.first(signature);
        if (withCredentials.isNull())
            withCredentials = target.toByteArray();
        withCredentials += '\n';
        withCredentials += name.toLower();
        withCredentials += ':';
        withCredentials += counted;
    }
    const QByteArrayView input = withCredentials.isNull() ? target : QByteArrayView(withCredentials);
    // A keep-alive client polling or retrying asks the same thing again and again, and a
    // SHA-256 costs more than the rest of logging a request: the last digest of the thread
    // is kept with what it was made of.
    thread_local QByteArray lastInput;
    thread_local QByteArray lastDigest;
    if (input == lastInput && !lastDigest.isNull())
        return lastDigest;
    lastDigest = QCryptographicHash::hash(input, QCryptographicHash::Sha256).toHex().left(16);
    lastInput = input.toByteArray();
    return lastDigest;
}

QString ServerLogEntry::summary() const
{
    // Built by concatenation: the target and the detail are the client's text,
    // and a "%1" in them must stay a "%1" (no positional substitution of user
    // data). Control characters in them are escaped for the terminal.
    using TerminalText::escaped;
    QString line = QLatin1Char('#') + QString::number(sequence) + QLatin1Char(' ')
        + time.toString(QStringLiteral("HH:mm:ss.zzz")) + QLatin1Char(' ')
        + (method.isEmpty() ? QStringLiteral("-") : escaped(QString::fromLatin1(method))) + QLatin1Char(' ')
        + (target.isEmpty() ? QStringLiteral("-") : escaped(target)) + QLatin1String(" -> ")
        + (status ? QString::number(*status) : QStringLiteral("---")) + QLatin1Char(' ') + action + QLatin1String(" (")
        + QString::number(durationMs, 'f', 1) + QLatin1String(" ms, ") + QString::number(bytesSent)
        + QLatin1String(" B)");
    if (!tls.isEmpty())
        line += QLatin1String(" tls=") + tls;
    if (!testId.isEmpty())
        line += QLatin1String(" test=") + escaped(testId);
    if (!clientAttempt.isEmpty())
        line += QLatin1String(" attempt=") + escaped(clientAttempt);
    if (replayed)
        line += QStringLiteral(" (resent by the client library)");
    if (!detail.isEmpty())
        line += QLatin1String(": ") + escaped(detail);
    return line;
}

} // namespace RetryLab::Core
