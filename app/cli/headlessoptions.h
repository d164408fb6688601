#pragma once

#include "core/export/junitexport.h"
#include "core/record/expectationresult.h"
#include "core/record/runrecord.h"
#include "core/util/result.h"

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QFlags>
#include <QString>
#include <QStringList>

#include <optional>

namespace RetryLab::Cli {

/// The options the headless commands share, with one name and one meaning
/// everywhere (`--seed` and `--quiet` as `retrylab serve` has them), and the
/// parsing, checking and writing that goes with them.
class HeadlessOptions final
{
public:
    enum Option {
        Seed = 0x1, ///< --seed S
        Quiet = 0x2, ///< -q, --quiet
        NoRedact = 0x4, ///< --no-redact
        ReportFiles = 0x8, ///< --report, --har, --csv, --junit
    };
    Q_DECLARE_FLAGS(Options, Option)

    /// Adds the chosen options (and --help) to `parser`. `quietText` says what
    /// --quiet leaves out for this command.
    HeadlessOptions(QCommandLineParser &parser, Options options, const QString &quietText);

    /// Parses `arguments` (program, command, options...) as `retrylab COMMAND`.
    /// The usage error, if any.
    Core::Result<void> parse(QCommandLineParser &parser, const QStringList &arguments);
    bool helpRequested() const { return m_help; }

    std::optional<quint64> seed() const { return m_seed; }
    /// The seed to run with: --seed, else `given` (a scenario file's), else a
    /// fresh one from the system's random source, drawn once and kept.
    quint64 runSeed(std::optional<quint64> given = std::nullopt);
    /// "seed 42", or for a drawn seed "seed 831 (drawn; --seed 831 repeats it)".
    QString seedText(quint64 seed) const;
    bool quiet() const { return m_quiet; }
    bool redact() const { return m_redact; }
    QString reportPath() const { return m_reportPath; }
    QString harPath() const { return m_harPath; }
    QString csvPath() const { return m_csvPath; }
    QString junitPath() const { return m_junitPath; }
    bool writesRunFiles() const { return !m_reportPath.isEmpty() || !m_harPath.isEmpty() || !m_csvPath.isEmpty(); }

    /// Checks, before anything runs, that every output file can be written
    /// (its directory exists and is writable, it is not a directory).
    Core::Result<void> checkOutputFiles() const;
    /// Writes the requested files: a line per file written into `written`, a
    /// message per file that could not be into `errors`. False if one failed.
    bool writeFiles(const Core::RunRecord &run, const QList<Core::ExpectationResult> &expectations,
        const QList<Core::JUnitExport::Suite> &suites, QStringList *written, QStringList *errors) const;

    /// The warning --no-redact prints on stderr.
    static QString noRedactWarning();

private:
    QString m_command;
    Options m_options;
    QCommandLineOption m_helpOption;
    QCommandLineOption m_seedOption;
    QCommandLineOption m_quietOption;
    QCommandLineOption m_noRedactOption;
    QCommandLineOption m_reportOption;
    QCommandLineOption m_harOption;
    QCommandLineOption m_csvOption;
    QCommandLineOption m_junitOption;

    bool m_help = false;
    std::optional<quint64> m_seed;
    std::optional<quint64> m_drawnSeed;
    bool m_quiet = false;
    bool m_redact = true;
    QString m_reportPath;
    QString m_harPath;
    QString m_csvPath;
    QString m_junitPath;
};

Q_DECLARE_OPERATORS_FOR_FLAGS(HeadlessOptions::Options)

} // namespace RetryLab::Cli
