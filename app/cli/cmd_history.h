#pragma once

#include "core/policy/backoffpolicy.h"
#include "core/util/result.h"

#include <QString>
#include <QStringList>

#include <optional>

/// `retrylab history [options]`: what the monitors kept, read back: per monitor
/// and agent, the availability of checks beside that of single attempts, attempts
/// per check, latency, incidents (hidden ones too), MTBF and MTTR, an objective's
/// budget and burn rates, and what another policy would have made of the window.
namespace RetryLab::Cli::HistoryCommand {

enum class Format { Text, Json, Csv };

struct Options
{
    QString help; ///< --help: the text to print instead of running
    QString database; ///< --db; empty: the default file
    QString monitor;
    QString agent;
    qint64 sinceMs = 0;
    qint64 untilMs = 0;
    QString sinceText; ///< as given, for the report
    QString untilText;
    std::optional<Core::BackoffPolicy> whatIf;
    QString whatIfOrigin;
    quint64 seed = 1;
    std::optional<double> objective;
    Format format = Format::Text;
};

/// `nowMs` is when relative times ("24h") are counted back from.
Core::Result<Options> parse(const QStringList &arguments, qint64 nowMs);
Core::Result<Options> parse(const QStringList &arguments);
int run(const Options &options);
/// A time as the options take it: ISO 8601 with its zone ("2026-11-29T02:00:00Z"),
/// a date (midnight UTC), "now", or a span back from `nowMs`: "90s", "15m", "24h", "30d", "2w".
Core::Result<qint64> readTime(const QString &text, qint64 nowMs);

} // namespace RetryLab::Cli::HistoryCommand
