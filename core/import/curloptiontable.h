#pragma once

#include <QString>
#include <QStringList>

#include <span>

namespace RetryLab::Core {

/// Every option curl has, as far as reading a command line needs: its long
/// name, its one-letter form and whether it takes a value. The importer
/// understands a few dozen of them; this table is what lets it skip the value
/// of any other (`-F name=value`, `--resolve h:443:127.0.0.1`) instead of
/// mistaking it for a second URL, and tell curl's options from typing errors.
namespace CurlOptionTable {

struct Entry
{
    const char *longName; ///< without the dashes: "data-binary"
    char shortName; ///< 'd', or 0 when there is none
    const char *valueName; ///< "<data>", as curl's help writes it; null for a switch

    constexpr bool takesValue() const { return valueName != nullptr; }
};

/// The table, sorted by long name.
std::span<const Entry> all();

const Entry *findExact(QLatin1StringView longName);

struct LongMatch
{
    const Entry *entry = nullptr; ///< null: no option, or an ambiguous start
    bool negated = false; ///< written --no-NAME (booleans only)
    QStringList candidates; ///< the options an ambiguous start could mean
};

/// A long name as curl reads it: exact, `no-` + a boolean's name, or the one
/// option that starts with it (`--retry-conn` is `--retry-connrefused`).
LongMatch findLong(QLatin1StringView name);

const Entry *findShort(char letter);

} // namespace CurlOptionTable

} // namespace RetryLab::Core
