#pragma once

#include "core/record/transportoptions.h"
#include "core/util/result.h"

#include <QJsonObject>

namespace RetryLab::Core {

/// TransportOptions as the settings file keeps them (with a request draft, and as
/// the default of new requests in Preferences), in the spelling of every other
/// file (TransportJson). The file is plain text, so what is written is
/// what may be kept on disk:
///   - the key's passphrase and the proxy's password are never written: they are
///     kept while RetryLab runs and typed again after a restart;
///   - the hosts whose certificate errors are ignored are never written either:
///     that choice is made again, explicitly, in every session, so that it can
///     never be switched on by a file.
/// Paths, the TLS floor, the proxy's mode, host, port and user name, and the
/// HTTP version are kept.
namespace SavedTransport {

QJsonObject toJson(const TransportOptions &options);
/// Reads what toJson() wrote; the error names the field ("transport.proxyPort").
/// Unknown fields are refused (a misspelt one must not be dropped silently);
/// secrets and exempt hosts in a hand-edited file are dropped.
Result<TransportOptions> fromJson(const QJsonObject &object, const QString &path = {});

/// The options without what toJson() leaves out (passphrase, password, exempt hosts).
TransportOptions withoutSessionOnly(TransportOptions options);

} // namespace SavedTransport

} // namespace RetryLab::Core
