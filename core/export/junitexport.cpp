#include "core/export/junitexport.h"

#include "core/record/recordredactor.h"
#include "core/util/exportfile.h"

#include <QHostInfo>
#include <QLoggingCategory>
#include <QXmlStreamWriter>

#include <algorithm>
#include <cmath>

namespace {
Q_LOGGING_CATEGORY(lcJUnitExport, "retrylab.core.junitexport")
} // namespace

namespace RetryLab::Core::JUnitExport {

namespace {

// XML 1.0 allows tab, LF, CR and characters from U+0020 on, minus U+FFFE / U+FFFF
// and unpaired surrogates; anything else would make the file unreadable.
QString xmlSafe(const QString &text)
{
    QString out;
    out.reserve(text.size());
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        const char16_t u = c.unicode();
        if (c.isHighSurrogate() && i + 1 < text.size() && text.at(i + 1).isLowSurrogate()) {
            out += c;
            out += text.at(++i);
            continue;
        }
        const bool allowed
            = u == 0x9 || u == 0xA || u == 0xD || (u >= 0x20 && u != 0xFFFE && u != 0xFFFF && !c.isSurrogate());
        out += allowed ? c : QChar(QChar::ReplacementCharacter);
    }
    return out;
}

QString seconds(double ms)
{
    return QString::number(std::isfinite(ms) && ms > 0.0 ? ms / 1000.0 : 0.0, 'f', 3);
}

double caseTotalMs(const Suite &suite)
{
    double sum = 0.0;
    for (const ExpectationResult &r : suite.results) {
        if (std::isfinite(r.durationMs) && r.durationMs > 0.0)
            sum += r.durationMs;
    }
    return sum;
}

double suiteMs(const Suite &suite)
{
    return suite.durationMs >= 0.0 ? suite.durationMs : caseTotalMs(suite);
}

qsizetype failures(const Suite &suite)
{
    return std::count_if(suite.results.cbegin(), suite.results.cend(), [](const auto &r) { return !r.passed; });
}

// The suites as the file shows them: every text that can carry a credential redacted, once, before writing.
QList<Suite> redactedSuites(QList<Suite> suites, const RecordRedactor &redactor)
{
    if (!redactor.isEnabled())
        return suites;
    for (Suite &suite : suites) {
        suite.name = redactor.redactedText(suite.name);
        suite.policyName = redactor.redactedText(suite.policyName);
        for (ExpectationResult &result : suite.results)
            result = redactor.redacted(result);
    }
    return suites;
}

QString idList(const QList<quint64> &ids)
{
    QStringList parts;
    for (quint64 id : ids)
        parts.append(QString::number(id));
    return parts.join(QStringLiteral(", "));
}

} // namespace

Suite suiteFor(const QString &name, const RunRecord &run, const QList<ExpectationResult> &results)
{
    Suite suite;
    suite.name = name;
    suite.results = results;
    suite.timestamp = run.startedAt;
    suite.policyName = run.policy.name;
    suite.certificateErrorsIgnored = run.certificateErrorsIgnored();
    suite.insecureHosts = run.hostsWithCertificateErrorsIgnored();
    suite.seed = run.commonSeed();
    // Every policy the run used, not only the first.
    for (const BackoffPolicy &used : run.policies) {
        if (!used.name.isEmpty() && used.name != run.policy.name
            && !suite.policyName.split(QStringLiteral(", ")).contains(used.name))
            suite.policyName += QStringLiteral(", ") + used.name;
    }
    qint64 last = -1;
    for (const RequestResult &r : run.results)
        last = std::max(last, r.endNs);
    for (const AttemptRecord &a : run.attempts)
        last = std::max(last, a.endNs);
    if (last >= run.epochNs)
        suite.durationMs = double(last - run.epochNs) / 1e6;
    return suite;
}

QByteArray toXml(const QList<Suite> &given, const ExportOptions &options)
{
    const QList<Suite> suites = redactedSuites(given, RecordRedactor(options.redactCredentials));

    qsizetype tests = 0;
    qsizetype failed = 0;
    double totalMs = 0.0;
    for (const Suite &suite : suites) {
        tests += suite.results.size();
        failed += failures(suite);
        totalMs += suiteMs(suite);
    }

    QByteArray xml;
    QXmlStreamWriter w(&xml);
    w.setAutoFormatting(true);
    w.writeStartDocument();
    if (!options.redactCredentials)
        w.writeComment(QLatin1Char(' ')
            + xmlSafe(ExportOptions::credentialsWarning()).replace(QLatin1String("--"), QLatin1String("- -"))
            + QLatin1Char(' '));
    for (const Suite &suite : suites) {
        if (suite.certificateErrorsIgnored > 0) {
            w.writeComment(QLatin1Char(' ')
                + xmlSafe(ExportOptions::insecureWarning(suite.certificateErrorsIgnored, suite.insecureHosts))
                      .replace(QLatin1String("--"), QLatin1String("- -"))
                + QLatin1Char(' '));
        }
    }
    w.writeStartElement(QStringLiteral("testsuites"));
    w.writeAttribute(QStringLiteral("name"), QStringLiteral("RetryLab"));
    w.writeAttribute(QStringLiteral("tests"), QString::number(tests));
    w.writeAttribute(QStringLiteral("failures"), QString::number(failed));
    w.writeAttribute(QStringLiteral("errors"), QStringLiteral("0"));
    w.writeAttribute(QStringLiteral("skipped"), QStringLiteral("0"));
    w.writeAttribute(QStringLiteral("time"), seconds(totalMs));

    const QString host = xmlSafe(QHostInfo::localHostName());
    for (qsizetype s = 0; s < suites.size(); ++s) {
        const Suite &suite = suites.at(s);
        const QString suiteName = xmlSafe(suite.name);
        w.writeStartElement(QStringLiteral("testsuite"));
        w.writeAttribute(QStringLiteral("name"), suiteName);
        w.writeAttribute(QStringLiteral("id"), QString::number(s));
        w.writeAttribute(QStringLiteral("tests"), QString::number(suite.results.size()));
        w.writeAttribute(QStringLiteral("failures"), QString::number(failures(suite)));
        w.writeAttribute(QStringLiteral("errors"), QStringLiteral("0"));
        w.writeAttribute(QStringLiteral("skipped"), QStringLiteral("0"));
        w.writeAttribute(QStringLiteral("time"), seconds(suiteMs(suite)));
        // The JUnit schema's timestamp has no zone; it is UTC.
        if (suite.timestamp.isValid())
            w.writeAttribute(
                QStringLiteral("timestamp"), suite.timestamp.toUTC().toString(QStringLiteral("yyyy-MM-ddTHH:mm:ss")));
        w.writeAttribute(QStringLiteral("hostname"), host.isEmpty() ? QStringLiteral("localhost") : host);

        w.writeStartElement(QStringLiteral("properties"));
        const auto property = [&w](const QString &name, const QString &value) {
            w.writeEmptyElement(QStringLiteral("property"));
            w.writeAttribute(QStringLiteral("name"), name);
            w.writeAttribute(QStringLiteral("value"), value);
        };
        property(QStringLiteral("policy"), xmlSafe(suite.policyName));
        if (suite.seed)
            property(QStringLiteral("seed"), QString::number(*suite.seed));
        property(
            QStringLiteral("redacted"), options.redactCredentials ? QStringLiteral("true") : QStringLiteral("false"));
        if (!options.redactCredentials)
            property(QStringLiteral("credentialsWarning"), xmlSafe(ExportOptions::credentialsWarning()));
        if (suite.certificateErrorsIgnored > 0) {
            property(QStringLiteral("certificateErrorsIgnored"), QString::number(suite.certificateErrorsIgnored));
            property(QStringLiteral("insecureWarning"),
                xmlSafe(ExportOptions::insecureWarning(suite.certificateErrorsIgnored, suite.insecureHosts)));
        }
        for (const auto &[name, value] : suite.properties)
            property(xmlSafe(name), xmlSafe(value));
        w.writeEndElement(); // properties

        for (const ExpectationResult &r : suite.results) {
            w.writeStartElement(QStringLiteral("testcase"));
            w.writeAttribute(QStringLiteral("name"), xmlSafe(r.name));
            w.writeAttribute(QStringLiteral("classname"), QStringLiteral("retrylab.") + suiteName);
            w.writeAttribute(QStringLiteral("time"), seconds(r.durationMs));
            const QString message = xmlSafe(r.message);
            if (!r.passed) {
                w.writeStartElement(QStringLiteral("failure"));
                w.writeAttribute(QStringLiteral("message"), message.section(QLatin1Char('\n'), 0, 0));
                w.writeAttribute(QStringLiteral("type"), QStringLiteral("ExpectationFailed"));
                w.writeCharacters(message);
                w.writeEndElement();
            }
            QString out;
            if (!r.requestIds.isEmpty())
                out += QStringLiteral("requests: %1\n").arg(idList(r.requestIds));
            if (r.passed && !message.isEmpty())
                out += message + QLatin1Char('\n');
            if (!out.isEmpty())
                w.writeTextElement(QStringLiteral("system-out"), out);
            w.writeEndElement(); // testcase
        }
        w.writeEndElement(); // testsuite
    }
    w.writeEndElement(); // testsuites
    w.writeEndDocument();
    if (w.hasError())
        qCWarning(lcJUnitExport) << "the XML writer reported an error";
    return xml;
}

Result<qint64> writeFile(const QString &path, const QList<Suite> &suites, const ExportOptions &options)
{
    return ExportFile::write(path, toXml(suites, options));
}

} // namespace RetryLab::Core::JUnitExport
