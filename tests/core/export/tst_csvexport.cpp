#include "core/export/csvexport.h"

#include "tests/core/export/exportsamples.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

#include <optional>

using namespace RetryLab::Core;

namespace {

// A strict RFC 4180 reader: records end with CRLF, fields are separated by
// commas, a quoted field may hold commas, CR, LF and doubled quotes, and a
// quote anywhere else is an error.
std::optional<QList<QStringList>> parseCsv(const QString &text, QString *error)
{
    QList<QStringList> records;
    QStringList record;
    QString field;
    qsizetype i = 0;
    const qsizetype n = text.size();
    while (i < n) {
        if (text.at(i) == QLatin1Char('"')) {
            if (!field.isEmpty()) {
                *error = QStringLiteral("quote inside an unquoted field at %1").arg(i);
                return std::nullopt;
            }
            ++i;
            while (true) {
                if (i >= n) {
                    *error = QStringLiteral("unterminated quoted field");
                    return std::nullopt;
                }
                if (text.at(i) == QLatin1Char('"')) {
                    if (i + 1 < n && text.at(i + 1) == QLatin1Char('"')) {
                        field += QLatin1Char('"');
                        i += 2;
                        continue;
                    }
                    ++i;
                    break;
                }
                field += text.at(i++);
            }
            if (i < n && text.at(i) != QLatin1Char(',') && text.at(i) != QLatin1Char('\r')) {
                *error = QStringLiteral("text after a closing quote at %1").arg(i);
                return std::nullopt;
            }
            continue;
        }
        const QChar c = text.at(i);
        if (c == QLatin1Char(',')) {
            record.append(field);
            field.clear();
            ++i;
        } else if (c == QLatin1Char('\r')) {
            if (i + 1 >= n || text.at(i + 1) != QLatin1Char('\n')) {
                *error = QStringLiteral("CR without LF at %1").arg(i);
                return std::nullopt;
            }
            record.append(field);
            field.clear();
            records.append(record);
            record.clear();
            i += 2;
        } else if (c == QLatin1Char('\n')) {
            *error = QStringLiteral("bare LF outside quotes at %1").arg(i);
            return std::nullopt;
        } else {
            field += c;
            ++i;
        }
    }
    if (!field.isEmpty() || !record.isEmpty()) {
        *error = QStringLiteral("the last record does not end with CRLF");
        return std::nullopt;
    }
    return records;
}

struct Table
{
    QStringList header;
    QList<QStringList> rows;

    QString cell(qsizetype row, const QString &column) const { return rows.at(row).at(header.indexOf(column)); }
};

Table parse(const QByteArray &csv)
{
    QString error;
    const auto records = parseCsv(QString::fromUtf8(csv), &error);
    if (!records) {
        qWarning("%s", qPrintable(error));
        return {};
    }
    return Table{records->value(0), records->mid(1)};
}

QString headerValueIn(const QString &jsonCell, const QString &name)
{
    const QJsonArray pairs = QJsonDocument::fromJson(jsonCell.toUtf8()).array();
    for (const QJsonValue &pair : pairs) {
        if (pair.toArray().at(0).toString() == name)
            return pair.toArray().at(1).toString();
    }
    return {};
}

} // namespace

class TestCsvExport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void quoteField_data();
    void quoteField();
    void reader_rejectsBrokenCsv();
    void headerRow_isStableAndEveryRowComplete();
    void rows_onePerAttemptInStartOrder();
    void hedging_saysWhichAttemptWonAndWhichWentBeside();
    void embeddedCommasQuotesAndLineBreaks_parseBack();
    void values_timesNumbersAndUnknowns();
    void formulas_areNeutralised();
    void redactedByDefault_noSecretAnywhere();
    void unredacted_containsSecretsAndSaysSo();
    void protocolAndTls_columns();
    void seed_eachRowNamesTheSeedThatReplaysIt();
    void emptyRun_isJustTheHeader();
    void file_isWritten();
};

void TestCsvExport::quoteField_data()
{
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("expected");
    QTest::addRow("plain") << QStringLiteral("abc") << QStringLiteral("abc");
    QTest::addRow("empty") << QString() << QString();
    QTest::addRow("comma") << QStringLiteral("a,b") << QStringLiteral("\"a,b\"");
    QTest::addRow("quote") << QStringLiteral("say \"hi\"") << QStringLiteral("\"say \"\"hi\"\"\"");
    QTest::addRow("CRLF") << QStringLiteral("a\r\nb") << QStringLiteral("\"a\r\nb\"");
    QTest::addRow("LF") << QStringLiteral("a\nb") << QStringLiteral("\"a\nb\"");
    QTest::addRow("CR") << QStringLiteral("a\rb") << QStringLiteral("\"a\rb\"");
    QTest::addRow("spaces kept") << QStringLiteral(" a ") << QStringLiteral(" a ");
    QTest::addRow("non-ASCII") << QStringLiteral("東京") << QStringLiteral("東京");
}

void TestCsvExport::quoteField()
{
    QFETCH(QString, field);
    QFETCH(QString, expected);
    QCOMPARE(CsvExport::quoteField(field), expected);
}

void TestCsvExport::reader_rejectsBrokenCsv()
{
    QString error;
    QVERIFY(parseCsv(QStringLiteral("a,b\r\n"), &error));
    QVERIFY(!parseCsv(QStringLiteral("a,b\n"), &error));
    QVERIFY(!parseCsv(QStringLiteral("a\"b\r\n"), &error));
    QVERIFY(!parseCsv(QStringLiteral("\"a\r\n"), &error));
    QVERIFY(!parseCsv(QStringLiteral("\"a\"b\r\n"), &error));
    QVERIFY(!parseCsv(QStringLiteral("a,b"), &error));
}

void TestCsvExport::headerRow_isStableAndEveryRowComplete()
{
    const QByteArray csv = CsvExport::toCsv(ExportSamples::sampleRun());
    QVERIFY(
        csv.startsWith("redacted,request_id,attempt_index,step,sequence_round,label,method,url,start_utc,start_ms,"));
    QVERIFY(csv.endsWith("\r\n"));
    const Table t = parse(csv);
    QCOMPARE(t.header, CsvExport::columns());
    QCOMPARE(t.header.size(), 45);
    // "redacted" comes first, where no reader misses it; new columns go at the end.
    QCOMPARE(t.header.indexOf(QStringLiteral("redacted")), 0);
    QCOMPARE(t.header.mid(35),
        (QStringList{QStringLiteral("protocol"), QStringLiteral("tls_protocol"), QStringLiteral("tls_cipher"),
            QStringLiteral("tls_peer_subject"), QStringLiteral("tls_errors"), QStringLiteral("tls_errors_ignored"),
            QStringLiteral("redirects"), QStringLiteral("fallback"), QStringLiteral("seed"),
            QStringLiteral("hedging")}));
    for (const QStringList &row : t.rows)
        QCOMPARE(row.size(), t.header.size());
}

void TestCsvExport::seed_eachRowNamesTheSeedThatReplaysIt()
{
    RunRecord run = ExportSamples::sampleRun();
    QVERIFY(!run.requests.isEmpty());
    run.seed.reset();
    for (RequestSpec &spec : run.requests)
        spec.seed.reset();
    Table t = parse(CsvExport::toCsv(run));
    QVERIFY(!t.rows.isEmpty());
    QCOMPARE(t.cell(0, QStringLiteral("seed")), QString()); // nothing to replay it with
    run.seed = 77;
    t = parse(CsvExport::toCsv(run));
    for (qsizetype row = 0; row < t.rows.size(); ++row)
        QCOMPARE(t.cell(row, QStringLiteral("seed")), QStringLiteral("77"));
    // A request's own seed (the window's run seed) goes before the run's.
    for (RequestSpec &spec : run.requests)
        spec.seed = 18446744073709551615ULL;
    t = parse(CsvExport::toCsv(run));
    for (qsizetype row = 0; row < t.rows.size(); ++row)
        QCOMPARE(t.cell(row, QStringLiteral("seed")), QStringLiteral("18446744073709551615"));
}

void TestCsvExport::protocolAndTls_columns()
{
    const RunRecord run = ExportSamples::transportRun();
    const QByteArray csv = CsvExport::toCsv(run, ExportOptions{false});
    for (const QString &secret : ExportSamples::transportSecrets())
        QVERIFY2(!csv.contains(secret.toUtf8()), qPrintable(secret));
    const Table t = parse(csv);
    qsizetype first = -1;
    qsizetype second = -1;
    for (qsizetype i = 0; i < t.rows.size(); ++i) {
        if (t.cell(i, QStringLiteral("request_id")) == QLatin1String("1")) {
            if (t.cell(i, QStringLiteral("attempt_index")) == QLatin1String("0"))
                first = i;
            if (t.cell(i, QStringLiteral("attempt_index")) == QLatin1String("1"))
                second = i;
        }
    }
    QVERIFY(first >= 0 && second >= 0);
    QCOMPARE(t.cell(first, QStringLiteral("protocol")), QStringLiteral("HTTP/2"));
    QCOMPARE(t.cell(first, QStringLiteral("tls_protocol")), QStringLiteral("TLSv1.3"));
    QCOMPARE(t.cell(first, QStringLiteral("tls_cipher")), QStringLiteral("TLS_AES_256_GCM_SHA384"));
    QCOMPARE(t.cell(first, QStringLiteral("tls_peer_subject")), QStringLiteral("CN=api.example.com, O=Example"));
    QCOMPARE(t.cell(first, QStringLiteral("tls_errors")), QStringLiteral("The certificate has expired"));
    QCOMPARE(t.cell(first, QStringLiteral("tls_errors_ignored")), QStringLiteral("true"));
    QCOMPARE(t.cell(second, QStringLiteral("protocol")), QString());
    QCOMPARE(t.cell(second, QStringLiteral("tls_errors_ignored")), QStringLiteral("false"));
    // Text from the server that looks like a formula is neutralised; quotes and commas parse back.
    QCOMPARE(t.cell(second, QStringLiteral("tls_errors")), QStringLiteral("'=The host name did not match, \"quoted\""));
}

void TestCsvExport::rows_onePerAttemptInStartOrder()
{
    const Table t = parse(CsvExport::toCsv(ExportSamples::sampleRun()));
    QCOMPARE(t.rows.size(), 10);
    QStringList order;
    for (qsizetype i = 0; i < t.rows.size(); ++i)
        order.append(
            t.cell(i, QStringLiteral("request_id")) + QLatin1Char('/') + t.cell(i, QStringLiteral("attempt_index")));
    QCOMPARE(order,
        (QStringList{QStringLiteral("1/0"), QStringLiteral("2/0"), QStringLiteral("3/0"), QStringLiteral("3/1"),
            QStringLiteral("4/0"), QStringLiteral("3/2"), QStringLiteral("3/3"), QStringLiteral("1/1"),
            QStringLiteral("1/2"), QStringLiteral("1/3")}));
}

void TestCsvExport::hedging_saysWhichAttemptWonAndWhichWentBeside()
{
    RunRecord run = ExportSamples::sampleRun();
    run.attempts[0].hedgeWinner = true;
    run.attempts[1].hedged = true;
    const Table t = parse(CsvExport::toCsv(run));
    QStringList cells;
    for (qsizetype i = 0; i < t.rows.size(); ++i)
        cells.append(t.cell(i, QStringLiteral("hedging")));
    QCOMPARE(cells.count(QStringLiteral("winner")), 1);
    QCOMPARE(cells.count(QStringLiteral("hedged")), 1);
    QCOMPARE(cells.count(QString()), t.rows.size() - 2);
}

void TestCsvExport::embeddedCommasQuotesAndLineBreaks_parseBack()
{
    const Table t = parse(CsvExport::toCsv(ExportSamples::sampleRun()));
    QVERIFY(!t.rows.isEmpty());
    const QString headers = t.cell(0, QStringLiteral("request_headers"));
    QCOMPARE(headerValueIn(headers, QStringLiteral("X-Note")), QString::fromUtf8(ExportSamples::noteHeaderValue()));
    QCOMPARE(
        headerValueIn(headers, QStringLiteral("X-Unicode")), QString::fromUtf8(ExportSamples::unicodeHeaderValue()));
    QCOMPARE(t.cell(1, QStringLiteral("reason_phrase")), QStringLiteral("'-Internal, \"Error\"\r\nsplit"));
    QCOMPARE(t.cell(0, QStringLiteral("label")), QStringLiteral("batch 1/3 – Übersicht"));
    QCOMPARE(t.cell(4, QStringLiteral("label")), QStringLiteral("東京 stream"));
    QCOMPARE(headerValueIn(t.cell(4, QStringLiteral("request_headers")), QStringLiteral("X-Huge")).size(), 200 * 1024);
}

void TestCsvExport::values_timesNumbersAndUnknowns()
{
    const Table t = parse(CsvExport::toCsv(ExportSamples::sampleRun()));
    QVERIFY(!t.rows.isEmpty());
    QCOMPARE(t.cell(0, QStringLiteral("start_utc")), QStringLiteral("2025-03-04T05:06:07.089Z"));
    QCOMPARE(t.cell(0, QStringLiteral("start_ms")), QStringLiteral("0"));
    QCOMPARE(t.cell(0, QStringLiteral("end_ms")), QStringLiteral("120.5"));
    QCOMPARE(t.cell(0, QStringLiteral("duration_ms")), QStringLiteral("120.5"));
    QCOMPARE(t.cell(0, QStringLiteral("queued_ms")), QStringLiteral("1.5"));
    QCOMPARE(t.cell(0, QStringLiteral("connection_started_ms")), QStringLiteral("1.25"));
    QCOMPARE(t.cell(0, QStringLiteral("http_status")), QStringLiteral("503"));
    QCOMPARE(t.cell(0, QStringLiteral("decision")), QStringLiteral("retry-after-delay"));
    QCOMPARE(t.cell(0, QStringLiteral("retry_after_ms")), QStringLiteral("1000"));
    QCOMPARE(t.cell(0, QStringLiteral("next_delay_ms")), QStringLiteral("1234.5"));
    QCOMPARE(t.cell(0, QStringLiteral("request_outcome")), QStringLiteral("succeeded"));

    // The refused attempt: no status, no timing points after the connect, an error.
    QCOMPARE(t.cell(7, QStringLiteral("end")), QStringLiteral("network-error"));
    QCOMPARE(t.cell(7, QStringLiteral("http_status")), QString());
    QCOMPARE(t.cell(7, QStringLiteral("request_sent_ms")), QString());
    QCOMPARE(t.cell(7, QStringLiteral("network_error")), QStringLiteral("ConnectionRefusedError"));
    QCOMPARE(t.cell(7, QStringLiteral("planned_delay_ms")), QStringLiteral("1234.5"));
    QCOMPARE(t.cell(7, QStringLiteral("actual_delay_ms")), QStringLiteral("1239.75"));
    QVERIFY(t.cell(7, QStringLiteral("error")).startsWith(QLatin1String("Connection refused")));
    // No network error is an empty cell (the JSON report names it "NoError").
    qsizetype withoutError = 0;
    for (qsizetype row = 0; row < t.rows.size(); ++row) {
        QVERIFY(t.cell(row, QStringLiteral("network_error")) != QLatin1String("NoError"));
        withoutError += t.cell(row, QStringLiteral("network_error")).isEmpty() ? 1 : 0;
    }
    QVERIFY(withoutError > 0);

    // Huge values are written in full, never in exponent notation.
    QCOMPARE(t.cell(4, QStringLiteral("bytes_received")), QString::number(qint64(1) << 60));
    QCOMPARE(t.cell(4, QStringLiteral("expected_bytes")), QString::number((qint64(1) << 62) + 1));
    QCOMPARE(t.cell(4, QStringLiteral("end_ms")), QStringLiteral("86400300"));
    QCOMPARE(t.cell(4, QStringLiteral("planned_delay_ms")), QStringLiteral("86400000"));
    QCOMPARE(t.cell(4, QStringLiteral("request_outcome")), QStringLiteral("deadline-exceeded"));
    QCOMPARE(t.cell(2, QStringLiteral("step")), QStringLiteral("read"));
    QCOMPARE(t.cell(6, QStringLiteral("sequence_round")), QStringLiteral("1"));
}

void TestCsvExport::formulas_areNeutralised()
{
    const Table t = parse(CsvExport::toCsv(ExportSamples::sampleRun()));
    QVERIFY(!t.rows.isEmpty());
    QCOMPARE(t.cell(1, QStringLiteral("label")), QStringLiteral("'=cmd|' /C calc'!A0, \"label\""));
    // Numbers are not text: a negative number stays a number.
    RunRecord run = ExportSamples::sampleRun();
    run.attempts[0].queuedNs = -2'000'000;
    const Table negative = parse(CsvExport::toCsv(run));
    QCOMPARE(negative.cell(0, QStringLiteral("queued_ms")), QStringLiteral("-2"));
}

void TestCsvExport::redactedByDefault_noSecretAnywhere()
{
    const QByteArray csv = CsvExport::toCsv(ExportSamples::sampleRun());
    for (const QString &secret : ExportSamples::secrets())
        QVERIFY2(!csv.contains(secret.toUtf8()), qPrintable(secret));
    const Table t = parse(csv);
    QCOMPARE(t.cell(0, QStringLiteral("redacted")), QStringLiteral("true"));
    QCOMPARE(headerValueIn(t.cell(0, QStringLiteral("request_headers")), QStringLiteral("Authorization")),
        QStringLiteral("Bearer REDACTED"));
    QVERIFY(t.cell(0, QStringLiteral("url")).contains(QLatin1String("access_token=REDACTED")));
    QVERIFY(t.cell(0, QStringLiteral("url")).contains(QLatin1String("note=a%2Cb%22c")));
}

void TestCsvExport::unredacted_containsSecretsAndSaysSo()
{
    const QByteArray csv = CsvExport::toCsv(ExportSamples::sampleRun(), ExportOptions{false});
    // Bodies are not part of the CSV; every other planted secret must be there.
    for (const QString &secret : ExportSamples::secrets()) {
        if (secret == QLatin1String("SECRET-BODY-6") || secret == QLatin1String("SECRET-FORM-9"))
            continue;
        QVERIFY2(csv.contains(secret.toUtf8()), qPrintable(secret));
    }
    const Table t = parse(csv);
    for (qsizetype i = 0; i < t.rows.size(); ++i)
        QCOMPARE(t.cell(i, QStringLiteral("redacted")), QStringLiteral("false"));
}

void TestCsvExport::emptyRun_isJustTheHeader()
{
    const QByteArray csv = CsvExport::toCsv(RunRecord{});
    QCOMPARE(csv, CsvExport::columns().join(QLatin1Char(',')).toUtf8() + "\r\n");
}

void TestCsvExport::file_isWritten()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("attempts.csv"));
    const auto written = CsvExport::writeFile(path, ExportSamples::sampleRun());
    QVERIFY2(written.ok(), qPrintable(written.error()));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), CsvExport::toCsv(ExportSamples::sampleRun()));
}

QTEST_GUILESS_MAIN(TestCsvExport)
#include "tst_csvexport.moc"
