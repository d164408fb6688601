#pragma once

#include "core/record/attemptrecord.h"

#include <QStringList>

namespace RetryLab::Core {

/// curl's arguments for how a request connects and where its body comes from
/// when it is not held in memory: --connect-timeout, --resolve, -4/-6,
/// --no-keepalive, and -T / --data-binary @FILE / -F for a BodySource.
namespace CurlConnectionFlags {

/// --connect-timeout S, --resolve HOST:PORT:ADDRESS (each), --ipv4/--ipv6, --no-keepalive.
QStringList connectionArguments(const TransportOptions &transport);

/// The body's arguments for a BodySource that is not Inline: `-T FILE` for a
/// PUT (curl's own method for it), `--data-binary @FILE` otherwise, `-F` per
/// form part. Empty for an inline body.
QStringList bodyArguments(const RequestSpec &request);

/// Whether curl, given bodyArguments(), sends `method` without -X.
bool impliesMethod(const RequestSpec &request, const QByteArray &method);

} // namespace CurlConnectionFlags

} // namespace RetryLab::Core
