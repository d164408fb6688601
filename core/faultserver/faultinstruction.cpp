#include "core/faultserver/faultinstruction.h"
#include "core/util/coretr.h"
#include "core/util/terminaltext.h"

#include <QCoreApplication>
#include <QRegularExpression>

namespace RetryLab::Core {

namespace {

// Digits only, at most nine of them, so that the value fits an int before the range check.
std::optional<int> smallNumber(const QString &digits)
{
    if (digits.isEmpty() || digits.size() > 9)
        return std::nullopt;
    bool ok = false;
    const int value = digits.toInt(&ok);
    return ok ? std::optional<int>(value) : std::nullopt;
}

QString knownForms()
{
    QStringList forms;
    for (const auto &syntax : FaultInstruction::grammar())
        forms.append(syntax.form);
    return forms.join(QStringLiteral(", "));
}

} // namespace

QString FaultInstruction::toString() const
{
    switch (kind) {
    case Kind::Pass:
        return QStringLiteral("pass");
    case Kind::Respond:
        if (aborted)
            return QStringLiteral("aborted");
        if (retryAfterSeconds)
            return QStringLiteral("return-%1-after-%2s").arg(status).arg(*retryAfterSeconds);
        return QStringLiteral("return-%1").arg(status);
    case Kind::Delay:
        return QStringLiteral("delay-%1ms").arg(milliseconds);
    case Kind::Reset:
        return QStringLiteral("reset");
    case Kind::ResetAfterHeaders:
        return QStringLiteral("reset-after-headers");
    case Kind::Empty:
        return QStringLiteral("empty");
    case Kind::Stall:
        return QStringLiteral("stall");
    case Kind::BrokenStream:
        return QStringLiteral("broken-stream");
    case Kind::Garbage:
        return QStringLiteral("garbage");
    case Kind::Drip:
        if (milliseconds == defaultDripIntervalMs)
            return QStringLiteral("drip");
        return QStringLiteral("drip-%1ms").arg(milliseconds);
    }
    return {};
}

bool FaultInstruction::isConnectionFault() const
{
    switch (kind) {
    case Kind::Reset:
    case Kind::ResetAfterHeaders:
    case Kind::Empty:
    case Kind::Stall:
    case Kind::BrokenStream:
    case Kind::Garbage:
        return true;
    default:
        return false;
    }
}

Result<FaultInstruction> FaultInstruction::parse(const QString &input)
{
    const QString text = input.trimmed().toLower();
    FaultInstruction instruction;

    static const QRegularExpression respond(QStringLiteral("^return-(\\d+)(?:-after-(\\d+)s)?$"));
    static const QRegularExpression delay(QStringLiteral("^delay-(\\d+)ms$"));
    static const QRegularExpression drip(QStringLiteral("^drip(?:-(\\d+)ms)?$"));

    if (const auto m = respond.match(text); m.hasMatch()) {
        const auto status = smallNumber(m.captured(1));
        if (!status || *status < 200 || *status > 599) {
            return Result<FaultInstruction>::failure(
                Tr::tr("\"%1\": the status must be from 200 to 599").arg(input.trimmed()));
        }
        instruction.kind = Kind::Respond;
        instruction.status = *status;
        if (m.hasCaptured(2)) {
            const auto seconds = smallNumber(m.captured(2));
            if (!seconds || *seconds > maxRetryAfterSeconds) {
                return Result<FaultInstruction>::failure(Tr::tr("\"%1\": Retry-After must be from 0 to %2 seconds")
                                                             .arg(input.trimmed())
                                                             .arg(maxRetryAfterSeconds));
            }
            instruction.retryAfterSeconds = *seconds;
        }
        return instruction;
    }
    if (const auto m = delay.match(text); m.hasMatch()) {
        const auto ms = smallNumber(m.captured(1));
        if (!ms || *ms > maxDelayMs) {
            return Result<FaultInstruction>::failure(
                Tr::tr("\"%1\": the delay must be from 0 to %2 ms").arg(input.trimmed()).arg(maxDelayMs));
        }
        instruction.kind = Kind::Delay;
        instruction.milliseconds = *ms;
        return instruction;
    }
    if (const auto m = drip.match(text); m.hasMatch()) {
        instruction.kind = Kind::Drip;
        instruction.milliseconds = defaultDripIntervalMs;
        if (m.hasCaptured(1)) {
            const auto ms = smallNumber(m.captured(1));
            if (!ms || *ms > maxDripIntervalMs) {
                return Result<FaultInstruction>::failure(Tr::tr("\"%1\": the drip interval must be from 0 to %2 ms")
                                                             .arg(input.trimmed())
                                                             .arg(maxDripIntervalMs));
            }
            instruction.milliseconds = *ms;
        }
        return instruction;
    }

    if (text == QLatin1String("aborted")) {
        instruction.kind = Kind::Respond;
        instruction.status = 409;
        instruction.aborted = true;
        return instruction;
    }
    static const QList<QPair<QString, Kind>> plain{
        {QStringLiteral("pass"), Kind::Pass},
        {QStringLiteral("reset"), Kind::Reset},
        {QStringLiteral("reset-after-headers"), Kind::ResetAfterHeaders},
        {QStringLiteral("empty"), Kind::Empty},
        {QStringLiteral("stall"), Kind::Stall},
        {QStringLiteral("broken-stream"), Kind::BrokenStream},
        {QStringLiteral("garbage"), Kind::Garbage},
    };
    for (const auto &[name, kind] : plain) {
        if (text == name) {
            instruction.kind = kind;
            return instruction;
        }
    }
    if (text.isEmpty())
        return Result<FaultInstruction>::failure(Tr::tr("an instruction is empty"));
    return Result<FaultInstruction>::failure(
        Tr::tr("unknown instruction \"%1\"; known forms: %2").arg(TerminalText::elided(input.trimmed()), knownForms()));
}

Result<QList<FaultInstruction>> FaultInstruction::parseList(const QStringList &texts)
{
    static const QRegularExpression repeat(QStringLiteral("^(.*)\\*\\s*(\\d+)$"));
    QList<FaultInstruction> out;
    for (qsizetype i = 0; i < texts.size(); ++i) {
        QString text = texts[i].trimmed();
        int count = 1;
        if (const auto m = repeat.match(text); m.hasMatch()) {
            const auto n = smallNumber(m.captured(2));
            if (!n || *n < 1 || *n > maxRepeat) {
                return Result<QList<FaultInstruction>>::failure(
                    Tr::tr("instruction %1 (\"%2\"): the repeat count must be from 1 to %3")
                        .arg(i + 1)
                        .arg(texts[i].trimmed())
                        .arg(maxRepeat));
            }
            count = *n;
            text = m.captured(1).trimmed();
        }
        const Result<FaultInstruction> one = parse(text);
        if (!one) {
            return Result<QList<FaultInstruction>>::failure(Tr::tr("instruction %1: %2").arg(i + 1).arg(one.error()));
        }
        if (out.size() + count > maxInstructions) {
            return Result<QList<FaultInstruction>>::failure(
                Tr::tr("a script can hold at most %1 instructions").arg(maxInstructions));
        }
        for (int k = 0; k < count; ++k)
            out.append(*one);
    }
    return out;
}

QList<FaultInstruction::Syntax> FaultInstruction::grammar()
{
    return {
        {QStringLiteral("return-<code>"), QStringLiteral("return-503"),
            Tr::tr("answer with HTTP status <code> (200-599)")},
        {QStringLiteral("return-<code>-after-<N>s"), QStringLiteral("return-429-after-2s"),
            Tr::tr("answer with <code> and \"Retry-After: N\" (0-%1 s)").arg(maxRetryAfterSeconds)},
        {QStringLiteral("aborted"), QStringLiteral("aborted"),
            Tr::tr("answer 409 with {\"error\": {\"status\": \"ABORTED\"}}, as Cloud IAM refuses a write whose etag is "
                   "stale")},
        {QStringLiteral("delay-<N>ms"), QStringLiteral("delay-1500ms"),
            Tr::tr("wait N ms (0-%1), then answer as the path would").arg(maxDelayMs)},
        {QStringLiteral("pass"), QStringLiteral("pass"), Tr::tr("answer as the path would (a step without a fault)")},
        {QStringLiteral("reset"), QStringLiteral("reset"),
            Tr::tr("read the request, then reset the TCP connection (RST) without an answer")},
        {QStringLiteral("reset-after-headers"), QStringLiteral("reset-after-headers"),
            Tr::tr("send a 200 status and headers announcing a body, then reset the connection")},
        {QStringLiteral("empty"), QStringLiteral("empty"), Tr::tr("close the connection without sending anything")},
        {QStringLiteral("stall"), QStringLiteral("stall"),
            Tr::tr("read the request and never answer; the connection stays open until the client gives up")},
        {QStringLiteral("broken-stream"), QStringLiteral("broken-stream"),
            Tr::tr("announce %1 body bytes, send %2, then close").arg(brokenAnnouncedBytes).arg(brokenSentBytes)},
        {QStringLiteral("garbage"), QStringLiteral("garbage"), Tr::tr("send bytes that are not HTTP, then close")},
        {QStringLiteral("drip[-<N>ms]"), QStringLiteral("drip-250ms"),
            Tr::tr("answer 200 with a %1-byte body sent one byte every N ms (default %2, 0-%3)")
                .arg(dripBytes)
                .arg(defaultDripIntervalMs)
                .arg(maxDripIntervalMs)},
        {QStringLiteral("<step>*<K>"), QStringLiteral("reset*4"),
            Tr::tr("repeat a step K times (1-%1)").arg(maxRepeat)},
    };
}

} // namespace RetryLab::Core
