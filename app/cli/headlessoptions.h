#pragma once

#include "core/export/junitexport.h"
#include "core/record/expectationresult.h"
#include "core/record/runrecord.h"
#include "core/util/result.h"

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QFlags>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace RetryLab::Cli {

/// The options the headless commands share, with one name and one meaning
/// everywhere (`--seed` and `--quiet` as `retrylab serve` has them), as the
/// values a command's Options holds, with the checking and writing of the
/// files they name. HeadlessOptions::Table puts them on a command's parser and
/// reads them back.
struct HeadlessOptions
{
    enum Option {
        Seed = 0x1, ///< --seed S
        Quiet = 0x2, ///< -q, --quiet
        NoRedact = 0x4, ///< --no-redact
        ReportFiles = 0x8, ///< --report, --har, --csv, --junit
    };
    Q_DECLARE_FLAGS(OptionSet, Option)

    class Table;

    std::optional<quint64> seed; ///< --seed; see RunSeed for the seed a run uses
    bool quiet = false;
    bool redact = true;
    QString reportPath;
    QString harPath;
    QString csvPath;
    QString junitPath;

    bool writesRunFiles() const { return !reportPath.isEmpty() || !harPath.isEmpty() || !csvPath.isEmpty(); }

    /// Checks, before anything runs, that every output file can be written
    /// (its directory exists and is writable, it is not a directory).
    Core::Result<void> checkOutputFiles() const;
    /// Writes the requested files: a line per file written into `written`, a
    /// message per file that could not be into `errors`. False if one failed.
    bool writeFiles(const Core::RunRecord &run, const QList<Core::ExpectationResult> &expectations,
        const QList<Core::JUnitExport::Suite> &suites, QStringList *written, QStringList *errors) const;

    /// The warning --no-redact prints on stderr.
    static QString noRedactWarning();

    bool operator==(const HeadlessOptions &) const = default;
};

Q_DECLARE_OPERATORS_FOR_FLAGS(HeadlessOptions::OptionSet)

/// The shared options of a command's QCommandLineParser (--help always, the
/// others as chosen), and their values read back once the parser has parsed.
class HeadlessOptions::Table final
{
public:
    /// `quietText` says what --quiet leaves out for this command.
    Table(OptionSet options, const QString &quietText);

    /// The options to add to the parser, --help first.
    QList<QCommandLineOption> options() const;
    bool helpRequested(const QCommandLineParser &parser) const { return parser.isSet(m_helpOption); }
    /// The values, or the usage error that names the option.
    Core::Result<HeadlessOptions> read(const QCommandLineParser &parser) const;

private:
    Core::Result<void> readFiles(const QCommandLineParser &parser, HeadlessOptions &values) const;

    OptionSet m_options;
    QCommandLineOption m_helpOption;
    QCommandLineOption m_seedOption;
    QCommandLineOption m_quietOption;
    QCommandLineOption m_noRedactOption;
    QCommandLineOption m_reportOption;
    QCommandLineOption m_harOption;
    QCommandLineOption m_csvOption;
    QCommandLineOption m_junitOption;
};

} // namespace RetryLab::Cli
