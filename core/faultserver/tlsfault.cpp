#include "core/faultserver/tlsfault.h"

#include "core/util/coretr.h"

#include <QRegularExpression>

namespace RetryLab::Core::TlsFaults {

namespace {

struct Row
{
    TlsFault fault;
    const char *name;
};
constexpr Row names[] = {
    {TlsFault::Pass, "pass"},
    {TlsFault::UnknownCa, "unknown-ca"},
    {TlsFault::SelfSigned, "self-signed"},
    {TlsFault::Expired, "expired"},
    {TlsFault::WrongHost, "wrong-host"},
    {TlsFault::HandshakeCut, "tls-cut"},
    {TlsFault::Alert, "tls-alert"},
    {TlsFault::PlainHttp, "plain-http"},
};

constexpr int maxRepeat = 1000;

} // namespace

QList<TlsFault> all()
{
    QList<TlsFault> out;
    for (const Row &row : names) {
        if (row.fault != TlsFault::Pass)
            out.append(row.fault);
    }
    return out;
}

QString name(TlsFault fault)
{
    for (const Row &row : names) {
        if (row.fault == fault)
            return QString::fromLatin1(row.name);
    }
    return {};
}

std::optional<TlsFault> fromName(const QString &text)
{
    const QString wanted = text.trimmed().toLower();
    for (const Row &row : names) {
        if (wanted == QLatin1String(row.name))
            return row.fault;
    }
    return std::nullopt;
}

QString description(TlsFault fault)
{
    switch (fault) {
    case TlsFault::Pass:
        return Tr::tr("a normal handshake with the server's certificate, signed by its CA (GET /_control/ca.pem)");
    case TlsFault::UnknownCa:
        return Tr::tr("a certificate for 127.0.0.1 and localhost signed by a CA that nobody trusts");
    case TlsFault::SelfSigned:
        return Tr::tr("a self-signed certificate for 127.0.0.1 and localhost");
    case TlsFault::Expired:
        return Tr::tr("a certificate signed by the server's CA for the right names that expired a day ago");
    case TlsFault::WrongHost:
        return Tr::tr("a valid certificate signed by the server's CA for another host name (wrong-host.invalid)");
    case TlsFault::HandshakeCut:
        return Tr::tr("read the ClientHello, send part of a ServerHello, then reset the connection (RST)");
    case TlsFault::Alert:
        return Tr::tr("read the ClientHello and answer with a fatal handshake_failure alert, then close");
    case TlsFault::PlainHttp:
        return Tr::tr("answer the ClientHello in plain HTTP (400 Bad Request), then close: an http server on an "
                      "https URL");
    }
    return {};
}

bool presentsCertificate(TlsFault fault)
{
    return fault != TlsFault::HandshakeCut && fault != TlsFault::Alert && fault != TlsFault::PlainHttp;
}

Result<QList<TlsFault>> parseScript(const QStringList &steps)
{
    static const QRegularExpression repeat(QStringLiteral("^(.*)\\*\\s*(\\d{1,9})$"));
    QList<TlsFault> out;
    for (qsizetype i = 0; i < steps.size(); ++i) {
        QString text = steps[i].trimmed();
        int count = 1;
        if (const auto m = repeat.match(text); m.hasMatch()) {
            count = m.captured(2).toInt();
            if (count < 1 || count > maxRepeat) {
                return Result<QList<TlsFault>>::failure(Tr::tr("handshake step %1 (\"%2\"): the repeat count must be "
                                                               "from 1 to %3")
                                                            .arg(i + 1)
                                                            .arg(steps[i].trimmed())
                                                            .arg(maxRepeat));
            }
            text = m.captured(1).trimmed();
        }
        const auto fault = fromName(text);
        if (!fault) {
            QStringList known;
            for (const Row &row : names)
                known.append(QString::fromLatin1(row.name));
            return Result<QList<TlsFault>>::failure(Tr::tr("handshake step %1: unknown step \"%2\"; known steps: %3")
                                                        .arg(i + 1)
                                                        .arg(text, known.join(QStringLiteral(", "))));
        }
        if (out.size() + count > maxScriptSteps) {
            return Result<QList<TlsFault>>::failure(
                Tr::tr("a handshake script can hold at most %1 steps").arg(maxScriptSteps));
        }
        for (int k = 0; k < count; ++k)
            out.append(*fault);
    }
    return out;
}

} // namespace RetryLab::Core::TlsFaults
