#include "core/faultserver/storageinstruction.h"

#include "core/faultserver/requesttarget.h"
#include "core/util/coretr.h"

#include <QRegularExpression>

namespace RetryLab::Core {

namespace {

const QLatin1String objectsGet("storage.objects.get");
const QLatin1String objectsInsert("storage.objects.insert");

// The testbench's instructions that this server does not play: refused by
// name, so that a conformance run says what is missing instead of "unknown".
bool isTestbenchOnly(const QString &text)
{
    static const QRegularExpression known(QStringLiteral(
        "^(return-broken-stream-final-chunk-after-[0-9]+B|redirect-send-token-[a-z-]+|"
        "redirect-send-handle-and-token-[a-z-]+|redirect-expect-token-[a-z-]+|return-[0-9]+-if-dp-enforced|"
        "return-unreachable-buckets-.+)$"));
    return known.match(text).hasMatch();
}

} // namespace

Result<StorageInstruction> StorageInstruction::parse(const QString &text, const QString &operation)
{
    const QString shown = RequestTarget::shortened(text);
    const auto fail = [&](const QString &why) {
        return Result<StorageInstruction>::failure(Tr::tr("instruction \"%1\" for %2: %3").arg(shown, operation, why));
    };
    // Exact spelling, as the testbench's regular expressions read it: no case folding, no spaces.
    static const QRegularExpression returnCode(QStringLiteral("^return-([0-9]{1,3})$"));
    static const QRegularExpression returnAfter(QStringLiteral("^return-([0-9]{1,3})-after-([0-9]{1,8})K$"));
    static const QRegularExpression brokenAfter(QStringLiteral("^return-broken-stream-after-([0-9]{1,8})K$"));
    static const QRegularExpression stallAfter(QStringLiteral("^stall-for-([0-9]{1,4})s-after-([0-9]{1,8})K$"));

    StorageInstruction i;
    i.text = text;
    const auto statusOf = [&](const QString &digits) -> std::optional<int> {
        const int code = digits.toInt();
        if (code < 400 || code > 599)
            return std::nullopt;
        return code;
    };
    const auto kibOf = [&](const QString &digits) -> std::optional<qint64> {
        const qint64 kib = digits.toLongLong();
        if (kib > maxAfterKiB)
            return std::nullopt;
        return kib * 1024;
    };

    if (text == QLatin1String("return-reset-connection")) {
        i.kind = Kind::ResetConnection;
        return i;
    }
    if (text == QLatin1String("return-broken-stream")) {
        i.kind = Kind::BrokenStream;
        return i;
    }
    if (const auto m = returnCode.match(text); m.hasMatch()) {
        const auto code = statusOf(m.captured(1));
        if (!code)
            return fail(Tr::tr("the status must be from 400 to 599"));
        i.kind = Kind::Return;
        i.status = *code;
        return i;
    }
    if (const auto m = returnAfter.match(text); m.hasMatch()) {
        const auto code = statusOf(m.captured(1));
        if (!code)
            return fail(Tr::tr("the status must be from 400 to 599"));
        const auto bytes = kibOf(m.captured(2));
        if (!bytes)
            return fail(Tr::tr("the size must be at most %1K").arg(maxAfterKiB));
        if (operation != objectsInsert)
            return fail(Tr::tr("it counts uploaded bytes, so it applies to storage.objects.insert only"));
        i.kind = Kind::ReturnAfterBytes;
        i.status = *code;
        i.afterBytes = *bytes;
        return i;
    }
    if (const auto m = brokenAfter.match(text); m.hasMatch()) {
        const auto bytes = kibOf(m.captured(1));
        if (!bytes)
            return fail(Tr::tr("the size must be at most %1K").arg(maxAfterKiB));
        if (operation != objectsGet)
            return fail(Tr::tr("it cuts a download, so it applies to storage.objects.get only"));
        i.kind = Kind::BrokenStreamAfterBytes;
        i.afterBytes = *bytes;
        return i;
    }
    if (const auto m = stallAfter.match(text); m.hasMatch()) {
        const int seconds = m.captured(1).toInt();
        if (seconds < 1 || seconds > maxStallSeconds)
            return fail(Tr::tr("the stall must be from 1 to %1 s").arg(maxStallSeconds));
        const auto bytes = kibOf(m.captured(2));
        if (!bytes)
            return fail(Tr::tr("the size must be at most %1K").arg(maxAfterKiB));
        if (operation != objectsGet && operation != objectsInsert)
            return fail(Tr::tr("it stalls a transfer, so it applies to storage.objects.get and "
                               "storage.objects.insert only"));
        i.kind = Kind::StallAfterBytes;
        i.stallSeconds = seconds;
        i.afterBytes = *bytes;
        return i;
    }
    if (isTestbenchOnly(text))
        return fail(Tr::tr("the storage-testbench knows this instruction, but RetryLab's fault server does not "
                           "play it"));
    return fail(Tr::tr("unknown instruction (known: return-<code>, return-reset-connection, return-broken-stream, "
                       "return-broken-stream-after-<N>K, return-<code>-after-<N>K, stall-for-<S>s-after-<N>K)"));
}

} // namespace RetryLab::Core
