#pragma once

#include "core/record/attemptrecord.h"
#include "core/record/runrecord.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

namespace RetryLab::Core {

/// Replaces the values of secret environment variables with REDACTED in what
/// leaves the window (exports, "Copy as curl"), whether credential redaction
/// is on or off: a value the user marked secret is never written, wherever it
/// ended up (a query parameter the redactor does not know, a body, an echo in
/// a response). Values are matched as typed and percent-encoded.
namespace SecretMask {

/// The secrets as they are looked for (as typed and percent-encoded, the
/// longest first; one under three characters is not looked for), made once
/// for many records.
using Forms = QList<QByteArray>;
Forms forms(const QStringList &secrets);

QString text(const QString &text, const QStringList &secrets);
QByteArray bytes(const QByteArray &bytes, const QStringList &secrets);
void apply(RequestSpec *spec, const QStringList &secrets);
void apply(RequestSpec *spec, const Forms &forms);
void apply(AttemptRecord *attempt, const Forms &forms);
void apply(RunRecord *record, const QStringList &secrets);

} // namespace SecretMask

} // namespace RetryLab::Core
