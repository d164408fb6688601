#pragma once

#include "core/util/randomsource.h"

#include <QString>
#include <QStringList>

#include <optional>

namespace RetryLab::Core {

class Clock;

/// Postman's dynamic variables: {{$guid}}, {{$timestamp}}, {{$randomEmail}}...
/// stand for a value made up where they appear, a new one at every reference,
/// so that a collection written for Postman or newman runs here unchanged.
/// The values are drawn from a seeded RandomSource (the same seed gives the
/// same values in the same order, so a run can be replayed) and the time ones
/// read the injected clock's wall time. The names and word lists are plain
/// English; the values are plausible, not Postman's own (its faker data).
class DynamicVariables final
{
public:
    /// `clock` must outlive this object; null: the system clock.
    explicit DynamicVariables(quint64 seed = RandomSource::freshSeed(), const Clock *clock = nullptr);

    /// Every name this knows, with its '$' ("$guid", "$randomInt", ...).
    static QStringList names();
    static bool isKnown(const QString &name);
    /// Whether `text` holds a {{$name}} reference at all (known or not).
    static bool mentions(const QString &text);

    quint64 seed() const { return m_random.seed(); }

    /// A new value for `name` ("$guid"), or nothing when the name is unknown.
    std::optional<QString> value(const QString &name);
    /// `text` with every {{$name}} (spaces allowed inside the braces) replaced by
    /// a new value. An unknown one stays as written and its name ("$nope") is
    /// added to `unknown` (when given), once.
    QString expand(const QString &text, QStringList *unknown = nullptr);

private:
    QString pick(const QStringList &list);
    QString uuid();

    RandomSource m_random;
    const Clock *m_clock;
};

} // namespace RetryLab::Core
