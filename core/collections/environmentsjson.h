#pragma once

#include "core/collections/environment.h"
#include "core/util/result.h"

#include <QByteArray>
#include <QList>
#include <QString>

namespace RetryLab::Core {

/// The environments file (CollectionStore's environments.json, which
/// `retrylab request --env` reads too): every environment and the one selected
/// last, with a format version. Secret values are in it only for environments
/// that opted in (Environment::toJson).
namespace EnvironmentsJson {

inline constexpr int formatVersion = 1;

QByteArray toJson(const QList<Environment> &environments, const QString &active);

struct Read
{
    /// Names are unique.
    QList<Environment> environments;
    /// The environment selected last; empty when none was, or it was left out.
    QString active;
    /// Environments and fields that could not be read and were left out, each
    /// with its path ("environments[1].variables[0].name") and why; the rest was read.
    QList<Error> leftOut;

    /// The environment named `name`; null when there is none.
    const Environment *find(const QString &name) const;
};

/// Refused as a whole when the bytes are not a JSON object or were written by
/// a newer format (the error's path is then "formatVersion"); otherwise every
/// readable environment is kept and the rest is listed.
Result<Read> fromJson(const QByteArray &json);

} // namespace EnvironmentsJson

} // namespace RetryLab::Core
