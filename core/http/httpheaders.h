#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QPair>

#include <optional>

namespace RetryLab::Core {

/// Header fields in the order they were sent or received; a name may repeat.
using HeaderList = QList<QPair<QByteArray, QByteArray>>;

/// The value of the first field called `name` (compared case-insensitively).
std::optional<QByteArray> headerValue(const HeaderList &headers, QByteArrayView name);

/// The reason phrase RFC 9110 gives a status ("Service Unavailable"), or the
/// name of its class ("Server Error") for a status it does not name.
QByteArray reasonPhrase(int status);

} // namespace RetryLab::Core
