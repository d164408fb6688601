#include "app/cli/headlessoptions.h"

#include "app/cli/subcommand.h"

#include "app/cli/clitr.h"
#include "core/export/csvexport.h"
#include "core/export/harexport.h"
#include "core/export/reportjson.h"
#include "core/util/exportfile.h"
#include "core/util/randomsource.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace RetryLab::Cli {

HeadlessOptions::HeadlessOptions(QCommandLineParser &parser, Options options, const QString &quietText)
    : m_options(options), m_helpOption({QStringLiteral("h"), QStringLiteral("help")}, Tr::tr("Show this help.")),
      m_seedOption(QStringLiteral("seed"),
          Tr::tr("Seed for jitter and for the embedded server's random faults, so that a run can be repeated."),
          Tr::tr("S")),
      m_quietOption({QStringLiteral("q"), QStringLiteral("quiet")}, quietText),
      m_noRedactOption(QStringLiteral("no-redact"),
          Tr::tr("Print and export credentials (Authorization, cookies, API keys, tokens, passwords) as they are. "
                 "Redacted by default.")),
      m_reportOption(QStringLiteral("report"), Tr::tr("Write the JSON report (policy, requests, attempts, verdicts)."),
          Tr::tr("F.json")),
      m_harOption(QStringLiteral("har"), Tr::tr("Write every attempt as HAR 1.2, for a browser's network panel."),
          Tr::tr("F.har")),
      m_csvOption(QStringLiteral("csv"), Tr::tr("Write one CSV row per attempt (RFC 4180)."), Tr::tr("F.csv")),
      m_junitOption(
          QStringLiteral("junit"), Tr::tr("Write the verdicts as JUnit XML, one test case each."), Tr::tr("F.xml"))
{
    parser.addOption(m_helpOption);
    if (options & Seed)
        parser.addOption(m_seedOption);
    if (options & Quiet)
        parser.addOption(m_quietOption);
    if (options & NoRedact)
        parser.addOption(m_noRedactOption);
    if (options & ReportFiles)
        parser.addOptions({m_reportOption, m_harOption, m_csvOption, m_junitOption});
}

quint64 HeadlessOptions::runSeed(std::optional<quint64> given)
{
    if (m_seed)
        return *m_seed;
    if (given)
        return *given;
    if (!m_drawnSeed)
        m_drawnSeed = Core::RandomSource::freshSeed();
    return *m_drawnSeed;
}

QString HeadlessOptions::seedText(quint64 seed) const
{
    if (!m_seed && m_drawnSeed == seed)
        return Tr::tr("seed %1 (drawn; --seed %1 repeats it)").arg(seed);
    return Tr::tr("seed %1").arg(seed);
}

Core::Result<void> HeadlessOptions::parse(QCommandLineParser &parser, const QStringList &arguments)
{
    m_command = arguments.value(1);
    if (!parser.parse(subcommandArguments(arguments))) {
        return Core::Result<void>::failure(parser.errorText());
    }
    m_help = parser.isSet(m_helpOption);
    if (m_help)
        return {};

    if ((m_options & Seed) && parser.isSet(m_seedOption)) {
        const QString text = parser.value(m_seedOption);
        bool ok = false;
        const quint64 value = text.toULongLong(&ok);
        if (!ok || text.startsWith(QLatin1Char('-')) || text.startsWith(QLatin1Char('+'))) {
            return Core::Result<void>::failure(
                Tr::tr("--seed must be a whole number from 0 to 18446744073709551615 (got \"%1\")").arg(text));
        }
        m_seed = value;
    }
    m_quiet = (m_options & Quiet) && parser.isSet(m_quietOption);
    m_redact = !((m_options & NoRedact) && parser.isSet(m_noRedactOption));
    if (m_options & ReportFiles) {
        m_reportPath = parser.value(m_reportOption);
        m_harPath = parser.value(m_harOption);
        m_csvPath = parser.value(m_csvOption);
        m_junitPath = parser.value(m_junitOption);
        const QList<QPair<const QCommandLineOption *, QString>> files{{&m_reportOption, m_reportPath},
            {&m_harOption, m_harPath}, {&m_csvOption, m_csvPath}, {&m_junitOption, m_junitPath}};
        for (const auto &[option, path] : files) {
            if (parser.isSet(*option) && path.isEmpty()) {
                return Core::Result<void>::failure(Tr::tr("--%1 needs a file name").arg(option->names().constFirst()));
            }
            if (parser.values(*option).size() > 1) {
                return Core::Result<void>::failure(
                    Tr::tr("--%1 is given more than once").arg(option->names().constFirst()));
            }
        }
        QStringList seen;
        for (const auto &[option, path] : files) {
            if (path.isEmpty())
                continue;
            const QString absolute = QFileInfo(path).absoluteFilePath();
            if (seen.contains(absolute)) {
                return Core::Result<void>::failure(
                    Tr::tr("--%1 names a file that another option writes too: %2")
                        .arg(option->names().constFirst(), QDir::toNativeSeparators(path)));
            }
            seen.append(absolute);
        }
    }
    return {};
}

Core::Result<void> HeadlessOptions::checkOutputFiles() const
{
    const QList<QPair<QString, QString>> files{{QStringLiteral("report"), m_reportPath},
        {QStringLiteral("har"), m_harPath}, {QStringLiteral("csv"), m_csvPath}, {QStringLiteral("junit"), m_junitPath}};
    for (const auto &[option, path] : files) {
        if (path.isEmpty())
            continue;
        if (const auto writable = Core::ExportFile::checkWritable(path); !writable) {
            return Core::Result<void>::failure(Tr::tr("--%1 %2: cannot write there: %3")
                                                   .arg(option, QDir::toNativeSeparators(path), writable.error()));
        }
    }
    return {};
}

bool HeadlessOptions::writeFiles(const Core::RunRecord &run, const QList<Core::ExpectationResult> &expectations,
    const QList<Core::JUnitExport::Suite> &suites, QStringList *written, QStringList *errors) const
{
    const Core::ExportOptions exportOptions{m_redact};
    const auto note = [&](const QString &what, const QString &path, const Core::Result<qint64> &result) {
        if (result)
            written->append(
                Tr::tr("Wrote the %1 to %2 (%3 bytes)").arg(what, QDir::toNativeSeparators(path)).arg(*result));
        else
            errors->append(Tr::tr("cannot write the %1: %2").arg(what, result.error()));
    };
    if (!m_reportPath.isEmpty())
        note(Tr::tr("JSON report"), m_reportPath,
            Core::ReportJson::writeFile(m_reportPath, run, exportOptions, expectations));
    if (!m_harPath.isEmpty())
        note(Tr::tr("HAR"), m_harPath, Core::HarExport::writeFile(m_harPath, run, exportOptions));
    if (!m_csvPath.isEmpty())
        note(Tr::tr("CSV"), m_csvPath, Core::CsvExport::writeFile(m_csvPath, run, exportOptions));
    if (!m_junitPath.isEmpty())
        note(Tr::tr("JUnit XML"), m_junitPath, Core::JUnitExport::writeFile(m_junitPath, suites, exportOptions));
    return errors->isEmpty();
}

QString HeadlessOptions::noRedactWarning()
{
    return Tr::tr("warning: --no-redact: credentials (Authorization, cookies, API keys, tokens, passwords) are printed "
                  "and exported as they are; do not share the output");
}

} // namespace RetryLab::Cli
