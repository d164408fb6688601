#pragma once

#include "core/util/result.h"

#include <QString>
#include <QStringList>

namespace RetryLab::Core {

/// One fault of Cloud Storage's retry test API (the storage-testbench's
/// "instructions"), as POST /retry_test names it for one operation
/// ("storage.objects.get": ["return-503", "return-reset-connection"]).
///
/// The grammar, as the testbench plays it over HTTP:
///   return-<code>                   answer <code> (400-599) with a JSON error body
///   return-reset-connection         reset the TCP connection (RST) instead of answering
///   return-broken-stream            send 4 bytes of the answer's body, then close
///   return-broken-stream-after-<N>K storage.objects.get: send N KiB of the media, then close
///   return-<code>-after-<N>K        storage.objects.insert: take N KiB of the upload
///                                   (a resumable upload keeps them), then answer <code>
///   stall-for-<S>s-after-<N>K       storage.objects.get: stall S s (1-300) after N KiB of
///                                   the media; storage.objects.insert: stall S s once N KiB
///                                   of the upload arrived, then go on
/// An "after" instruction whose threshold the transfer never reaches stays
/// unused, as in the testbench. Instructions the testbench knows but this server
/// does not play (redirect-*, return-*-if-dp-enforced, ...) are refused by name.
struct StorageInstruction
{
    enum class Kind {
        Return,
        ResetConnection,
        BrokenStream,
        BrokenStreamAfterBytes,
        ReturnAfterBytes,
        StallAfterBytes,
    };

    Kind kind = Kind::Return;
    int status = 0; ///< Return, ReturnAfterBytes
    qint64 afterBytes = 0; ///< the *AfterBytes kinds: N KiB in bytes
    int stallSeconds = 0; ///< StallAfterBytes
    QString text; ///< as given, the testbench's spelling

    /// What return-broken-stream sends of the body before the close (the testbench's 4).
    static constexpr qint64 brokenStreamBytes = 4;
    static constexpr qint64 maxAfterKiB = 1024 * 1024; ///< 1 GiB
    static constexpr int maxStallSeconds = 300;

    /// Reads one instruction for `operation` ("storage.objects.get"); the error
    /// names the instruction and says what is wrong (unknown, out of range, or not
    /// one this operation can play).
    static Result<StorageInstruction> parse(const QString &text, const QString &operation);

    friend bool operator==(const StorageInstruction &, const StorageInstruction &) = default;
};

} // namespace RetryLab::Core
