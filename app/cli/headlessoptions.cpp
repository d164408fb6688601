#include "app/cli/headlessoptions.h"

#include "app/cli/clitr.h"
#include "core/export/csvexport.h"
#include "core/export/harexport.h"
#include "core/export/reportjson.h"
#include "core/util/exportfile.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace RetryLab::Cli {

Core::Result<void> HeadlessOptions::checkOutputFiles() const
{
    const QList<QPair<QString, QString>> files{{QStringLiteral("report"), reportPath}, {QStringLiteral("har"), harPath},
        {QStringLiteral("csv"), csvPath}, {QStringLiteral("junit"), junitPath}};
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
    const Core::ExportOptions exportOptions{redact};
    const auto note = [&](const QString &what, const QString &path, const Core::Result<qint64> &result) {
        if (result)
            written->append(
                Tr::tr("Wrote the %1 to %2 (%3 bytes)").arg(what, QDir::toNativeSeparators(path)).arg(*result));
        else
            errors->append(Tr::tr("cannot write the %1: %2").arg(what, result.error()));
    };
    if (!reportPath.isEmpty())
        note(Tr::tr("JSON report"), reportPath,
            Core::ReportJson::writeFile(reportPath, run, exportOptions, expectations));
    if (!harPath.isEmpty())
        note(Tr::tr("HAR"), harPath, Core::HarExport::writeFile(harPath, run, exportOptions));
    if (!csvPath.isEmpty())
        note(Tr::tr("CSV"), csvPath, Core::CsvExport::writeFile(csvPath, run, exportOptions));
    if (!junitPath.isEmpty())
        note(Tr::tr("JUnit XML"), junitPath, Core::JUnitExport::writeFile(junitPath, suites, exportOptions));
    return errors->isEmpty();
}

QString HeadlessOptions::noRedactWarning()
{
    return Tr::tr("warning: --no-redact: credentials (Authorization, cookies, API keys, tokens, passwords) are printed "
                  "and exported as they are; do not share the output");
}

HeadlessOptions::Table::Table(OptionSet options, const QString &quietText)
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
{ }

QList<QCommandLineOption> HeadlessOptions::Table::options() const
{
    QList<QCommandLineOption> added{m_helpOption};
    if (m_options & Seed)
        added.append(m_seedOption);
    if (m_options & Quiet)
        added.append(m_quietOption);
    if (m_options & NoRedact)
        added.append(m_noRedactOption);
    if (m_options & ReportFiles)
        added.append({m_reportOption, m_harOption, m_csvOption, m_junitOption});
    return added;
}

Core::Result<HeadlessOptions> HeadlessOptions::Table::read(const QCommandLineParser &parser) const
{
    HeadlessOptions values;
    if ((m_options & Seed) && parser.isSet(m_seedOption)) {
        const QString text = parser.value(m_seedOption);
        bool ok = false;
        const quint64 value = text.toULongLong(&ok);
        if (!ok || text.startsWith(QLatin1Char('-')) || text.startsWith(QLatin1Char('+'))) {
            return Core::Result<HeadlessOptions>::failure(
                Tr::tr("--seed must be a whole number from 0 to 18446744073709551615 (got \"%1\")").arg(text));
        }
        values.seed = value;
    }
    values.quiet = (m_options & Quiet) && parser.isSet(m_quietOption);
    values.redact = !((m_options & NoRedact) && parser.isSet(m_noRedactOption));
    if (m_options & ReportFiles) {
        if (const auto files = readFiles(parser, values); !files)
            return files.errorDetail();
    }
    return values;
}

Core::Result<void> HeadlessOptions::Table::readFiles(const QCommandLineParser &parser, HeadlessOptions &values) const
{
    values.reportPath = parser.value(m_reportOption);
    values.harPath = parser.value(m_harOption);
    values.csvPath = parser.value(m_csvOption);
    values.junitPath = parser.value(m_junitOption);
    const QList<QPair<const QCommandLineOption *, QString>> files{{&m_reportOption, values.reportPath},
        {&m_harOption, values.harPath}, {&m_csvOption, values.csvPath}, {&m_junitOption, values.junitPath}};
    for (const auto &[option, path] : files) {
        if (parser.isSet(*option) && path.isEmpty())
            return Core::Result<void>::failure(Tr::tr("--%1 needs a file name").arg(option->names().constFirst()));
        if (parser.values(*option).size() > 1)
            return Core::Result<void>::failure(
                Tr::tr("--%1 is given more than once").arg(option->names().constFirst()));
    }
    QStringList seen;
    for (const auto &[option, path] : files) {
        if (path.isEmpty())
            continue;
        const QString absolute = QFileInfo(path).absoluteFilePath();
        if (seen.contains(absolute)) {
            return Core::Result<void>::failure(Tr::tr("--%1 names a file that another option writes too: %2")
                                                   .arg(option->names().constFirst(), QDir::toNativeSeparators(path)));
        }
        seen.append(absolute);
    }
    return {};
}

} // namespace RetryLab::Cli
