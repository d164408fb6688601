#include "core/export/csvexport.h"

#include "core/record/recordredactor.h"
#include "core/util/exportfile.h"

#include <QIODevice>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLocale>
#include <QLoggingCategory>

#include <algorithm>
#include <cmath>
#include <functional>

namespace {
Q_LOGGING_CATEGORY(lcCsvExport, "retrylab.core.csvexport")
} // namespace

namespace RetryLab::Core::CsvExport {

namespace {

QString number(double value)
{
    return std::isfinite(value) ? QString::number(value, 'f', QLocale::FloatingPointShortest) : QString();
}

QString instant(qint64 ns, const RunRecord &run)
{
    return ns < 0 ? QString() : number(double(ns - run.epochNs) / 1e6);
}

QString headerCell(const HeaderList &headers)
{
    QJsonArray array;
    for (const auto &[name, value] : headers)
        array.append(QJsonArray{QString::fromUtf8(name), QString::fromUtf8(value)});
    return QString::fromUtf8(QJsonDocument(array).toJson(QJsonDocument::Compact));
}

} // namespace

QStringList columns()
{
    return {
        // First, where a reader cannot miss it: "false" means the row holds credentials as sent.
        QStringLiteral("redacted"),
        QStringLiteral("request_id"),
        QStringLiteral("attempt_index"),
        QStringLiteral("step"),
        QStringLiteral("sequence_round"),
        QStringLiteral("label"),
        QStringLiteral("method"),
        QStringLiteral("url"),
        QStringLiteral("start_utc"),
        QStringLiteral("start_ms"),
        QStringLiteral("end_ms"),
        QStringLiteral("duration_ms"),
        QStringLiteral("queued_ms"),
        QStringLiteral("planned_delay_ms"),
        QStringLiteral("actual_delay_ms"),
        QStringLiteral("connection_started_ms"),
        QStringLiteral("request_sent_ms"),
        QStringLiteral("first_byte_ms"),
        QStringLiteral("finished_ms"),
        QStringLiteral("end"),
        QStringLiteral("http_status"),
        QStringLiteral("reason_phrase"),
        QStringLiteral("network_error"),
        QStringLiteral("error"),
        QStringLiteral("bytes_received"),
        QStringLiteral("expected_bytes"),
        QStringLiteral("decision"),
        QStringLiteral("cause"),
        QStringLiteral("reason"),
        QStringLiteral("retry_after_ms"),
        QStringLiteral("retry_after_raw"),
        QStringLiteral("next_delay_ms"),
        QStringLiteral("request_outcome"),
        QStringLiteral("request_headers"),
        QStringLiteral("response_headers"),
        QStringLiteral("protocol"),
        QStringLiteral("tls_protocol"),
        QStringLiteral("tls_cipher"),
        QStringLiteral("tls_peer_subject"),
        QStringLiteral("tls_errors"),
        QStringLiteral("tls_errors_ignored"),
        QStringLiteral("redirects"),
        QStringLiteral("fallback"),
        QStringLiteral("seed"),
        QStringLiteral("hedging"),
    };
}

// "302 GET http://a/x -> http://b/y in 1.2 ms (Authorization not sent: another origin); 301 ...",
// of hops already redacted.
QString redirectsCell(const QList<RedirectHop> &hops)
{
    QStringList parts;
    for (const RedirectHop &hop : hops) {
        QString part = hop.kind == RedirectHop::Kind::Token ? QStringLiteral("token ")
            : hop.kind == RedirectHop::Kind::Challenge      ? QStringLiteral("challenge ")
                                                            : QString();
        part += QString::number(hop.status) + QLatin1Char(' ') + QString::fromLatin1(hop.method) + QLatin1Char(' ')
            + hop.from.toString(QUrl::FullyEncoded) + QLatin1String(" -> ") + hop.to.toString(QUrl::FullyEncoded);
        if (hop.startNs >= 0 && hop.finishedNs >= hop.startNs)
            part += QStringLiteral(" in %1 ms").arg(double(hop.finishedNs - hop.startNs) / 1e6, 0, 'f', 3);
        QStringList dropped;
        for (const QByteArray &name : hop.droppedHeaders)
            dropped.append(QString::fromLatin1(name));
        if (!dropped.isEmpty())
            part += QStringLiteral(" (%1 not sent: another origin)").arg(dropped.join(QStringLiteral(", ")));
        if (!hop.followed)
            part += hop.kind == RedirectHop::Kind::Redirect ? QStringLiteral(" (not followed: %1)").arg(hop.note)
                                                            : QStringLiteral(" (%1)").arg(hop.note);
        parts.append(part);
    }
    return parts.join(QStringLiteral("; "));
}

QString neutralised(const QString &text)
{
    if (!text.isEmpty() && QStringView(u"=+-@\t\r").contains(text.front()))
        return QLatin1Char('\'') + text;
    return text;
}

QString quoteField(const QString &field)
{
    const bool needsQuotes = field.contains(QLatin1Char(',')) || field.contains(QLatin1Char('"'))
        || field.contains(QLatin1Char('\r')) || field.contains(QLatin1Char('\n'));
    if (!needsQuotes)
        return field;
    QString quoted = field;
    quoted.replace(QLatin1Char('"'), QLatin1String("\"\""));
    return QLatin1Char('"') + quoted + QLatin1Char('"');
}

namespace {

// The header row, then one row per attempt, each handed to `emit` as soon as it is made.
bool writeRows(const RunRecord &run, const ExportOptions &options, const std::function<bool(const QByteArray &)> &emit)
{
    const RecordRedactor redactor(options.redactCredentials, run);
    const QLatin1String lineEnd("\r\n");

    QHash<quint64, RequestOutcome> outcomes;
    for (const RequestResult &r : run.results)
        outcomes.insert(r.requestId, r.outcome);

    QList<const AttemptRecord *> rows;
    rows.reserve(run.attempts.size());
    for (const AttemptRecord &a : run.attempts)
        rows.append(&a);
    std::stable_sort(rows.begin(), rows.end(), [](const AttemptRecord *x, const AttemptRecord *y) {
        // Attempts that never started (startNs -1) sort first, as they do in the executor's queue.
        return x->startNs < y->startNs;
    });

    const QStringList names = columns();
    if (!emit(QString(names.join(QLatin1Char(',')) + lineEnd).toUtf8()))
        return false;

    // A request's label, redacted once per request rather than once per row; the pass is
    // handed the label alone, the only part of the request a row shows.
    QHash<quint64, QString> labels;
    const auto labelOf = [&](quint64 requestId) {
        auto label = labels.constFind(requestId);
        if (label == labels.cend()) {
            RequestSpec labelled;
            labelled.label = run.requests.value(requestId).label;
            label = labels.insert(requestId, redactor.redacted(labelled).label);
        }
        return *label;
    };

    for (const AttemptRecord *original : std::as_const(rows)) {
        // Redacted as a whole as its row is written, one attempt at a time; a CSV row has no bodies.
        const AttemptRecord a = redactor.redacted(*original, RecordRedactor::Bodies::Omit);
        const RequestSpec spec = run.requests.value(a.requestId);
        // One wall-clock start, derived from the monotonic one (the JSON report's "startUtc").
        const QDateTime startUtc
            = (a.startNs >= 0 && run.startedAt.isValid()) ? run.wallTimeOf(a.startNs) : a.startWall;
        QStringList fields{
            options.redactCredentials ? QStringLiteral("true") : QStringLiteral("false"),
            QString::number(a.requestId),
            QString::number(a.attemptIndex),
            a.step,
            QString::number(a.sequenceRound),
            neutralised(labelOf(a.requestId)),
            QString::fromUtf8(a.method),
            a.url.toString(QUrl::FullyEncoded),
            startUtc.isValid() ? startUtc.toUTC().toString(Qt::ISODateWithMs) : QString(),
            instant(a.startNs, run),
            instant(a.endNs, run),
            number(a.durationMs()),
            number(double(a.queuedNs) / 1e6),
            number(a.plannedDelayMs),
            number(a.actualDelayMs),
            instant(a.connectionStartedNs, run),
            instant(a.requestSentNs, run),
            instant(a.firstByteNs, run),
            instant(a.finishedNs, run),
            attemptEndName(a.end),
            a.httpStatus ? QString::number(*a.httpStatus) : QString(),
            neutralised(QString::fromUtf8(a.reasonPhrase)),
            // Empty for none, where the JSON report writes "NoError".
            a.networkError == QNetworkReply::NoError ? QString() : networkErrorName(a.networkError),
            neutralised(a.errorString),
            QString::number(a.bytesReceived),
            a.expectedBytes >= 0 ? QString::number(a.expectedBytes) : QString(),
            decisionName(a.decision),
            a.cause,
            neutralised(a.reason),
            a.retryAfterMs ? number(*a.retryAfterMs) : QString(),
            neutralised(QString::fromUtf8(a.retryAfterRaw)),
            a.nextDelayMs >= 0.0 ? number(a.nextDelayMs) : QString(),
            outcomes.contains(a.requestId) ? requestOutcomeName(outcomes.value(a.requestId)) : QString(),
            headerCell(a.requestHeaders),
            headerCell(a.responseHeaders),
            a.protocol,
            a.tls.protocol,
            a.tls.cipher,
            neutralised(a.tls.peerSubject),
            neutralised(a.tls.errors.join(QStringLiteral("; "))),
            a.tls.errorsIgnored ? QStringLiteral("true") : QStringLiteral("false"),
            neutralised(redirectsCell(a.redirects)),
            // 0: the request's URL; n: its n-th fallback endpoint (the url column names it).
            QString::number(a.fallback),
            // The seed that replays it: the window's Replay seed or `run --seed` draws the same
            // jitter and the same answers of the embedded server's /fail?p= and /delay?dist=.
            spec.seed ? QString::number(*spec.seed) : (run.seed ? QString::number(*run.seed) : QString()),
            // Under a hedging policy: "winner" for the answer kept, "hedged" for an attempt sent beside another.
            a.hedgeWinner ? QStringLiteral("winner") : (a.hedged ? QStringLiteral("hedged") : QString()),
        };
        Q_ASSERT(fields.size() == names.size());
        for (QString &field : fields)
            field = quoteField(field);
        if (!emit(QString(fields.join(QLatin1Char(',')) + lineEnd).toUtf8()))
            return false;
    }
    qCDebug(lcCsvExport) << "wrote" << rows.size() << "rows";
    return true;
}

} // namespace

QByteArray toCsv(const RunRecord &run, const ExportOptions &options)
{
    QByteArray out;
    writeRows(run, options, [&out](const QByteArray &row) {
        out += row;
        return true;
    });
    return out;
}

Result<qint64> writeFile(const QString &path, const RunRecord &run, const ExportOptions &options)
{
    // Row by row: a run of 100,000 attempts never sits in memory as one text.
    return ExportFile::writeWith(path, [&](QIODevice &device) {
        return writeRows(run, options, [&device](const QByteArray &row) { return device.write(row) == row.size(); });
    });
}

} // namespace RetryLab::Core::CsvExport
