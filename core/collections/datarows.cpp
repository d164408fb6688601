#include "core/collections/datarows.h"

#include "core/collections/jsontext.h"
#include "core/util/boundedfile.h"
#include "core/util/coretr.h"
#include "core/util/jsonreader.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QSet>

namespace RetryLab::Core {

namespace {

constexpr qint64 maxDataFileBytes = 64LL * 1024 * 1024;

// One CSV record: its fields and the line it starts on (1-based).
struct CsvRecord
{
    QStringList fields;
    int line = 1;
};

// As jsonSyntaxError() words its errors: the place at the start of the message, no path.
Error csvError(int line, const QString &message)
{
    return {QString(), Tr::tr("line %1: %2").arg(line).arg(message)};
}

// Splits the text into records by RFC 4180. A record that is one empty field
// (a blank line) is dropped.
Result<QList<CsvRecord>> csvRecords(const QString &text)
{
    QList<CsvRecord> records;
    CsvRecord record;
    QString field;
    int line = 1;
    bool quoted = false; // inside a quoted field
    bool wasQuoted = false; // the current field was quoted and its quotes are closed
    int quoteLine = 1;
    const qsizetype size = text.size();

    const auto endRecord = [&]() {
        record.fields.append(field);
        field.clear();
        wasQuoted = false;
        if (!(record.fields.size() == 1 && record.fields.constFirst().isEmpty()))
            records.append(record);
        record = CsvRecord{};
    };

    for (qsizetype i = 0; i < size; ++i) {
        const QChar c = text.at(i);
        if (quoted) {
            if (c == u'"') {
                if (i + 1 < size && text.at(i + 1) == u'"') {
                    field += u'"';
                    ++i;
                } else {
                    quoted = false;
                    wasQuoted = true;
                }
            } else {
                if (c == u'\n' || (c == u'\r' && !(i + 1 < size && text.at(i + 1) == u'\n')))
                    ++line;
                field += c;
            }
            continue;
        }
        if (c == u',') {
            record.fields.append(field);
            field.clear();
            wasQuoted = false;
        } else if (c == u'\r' || c == u'\n') {
            if (c == u'\r' && i + 1 < size && text.at(i + 1) == u'\n')
                ++i;
            endRecord();
            ++line;
            record.line = line;
        } else if (c == u'"') {
            if (wasQuoted)
                return Result<QList<CsvRecord>>(
                    csvError(line, Tr::tr("a quote inside a quoted field must be doubled")));
            if (!field.isEmpty()) {
                return Result<QList<CsvRecord>>(csvError(line,
                    Tr::tr("a quote inside a field that does not start with one (quote the whole field and "
                           "double the quote)")));
            }
            quoted = true;
            quoteLine = line;
        } else {
            if (wasQuoted) {
                return Result<QList<CsvRecord>>(
                    csvError(line, Tr::tr("text after the closing quote of a field (a comma must follow it)")));
            }
            field += c;
        }
    }
    if (quoted)
        return Result<QList<CsvRecord>>(csvError(quoteLine, Tr::tr("the quoted field that starts here never ends")));
    if (!field.isEmpty() || wasQuoted || !record.fields.isEmpty())
        endRecord();
    return records;
}

} // namespace

Result<DataRows> DataRows::fromCsv(const QByteArray &data)
{
    using R = Result<DataRows>;
    QByteArray bytes = data;
    if (bytes.startsWith("\xEF\xBB\xBF"))
        bytes.remove(0, 3);
    const auto records = csvRecords(QString::fromUtf8(bytes));
    if (!records)
        return R(records.errorDetail());
    if (records->isEmpty())
        return R(csvError(1, Tr::tr("the data file is empty; its first line must name the variables")));

    DataRows out;
    const CsvRecord &header = records->constFirst();
    for (qsizetype column = 0; column < header.fields.size(); ++column) {
        const QString name = header.fields.at(column).trimmed();
        if (name.isEmpty()) {
            return R(csvError(header.line, Tr::tr("column %1 of the header has no name").arg(column + 1)));
        }
        if (out.columns.contains(name))
            return R(csvError(header.line, Tr::tr("\"%1\" names two columns").arg(name)));
        out.columns.append(name);
    }
    for (qsizetype r = 1; r < records->size(); ++r) {
        const CsvRecord &record = records->at(r);
        if (record.fields.size() > out.columns.size()) {
            return R(csvError(record.line,
                Tr::tr("%1 fields, but the header names %2 variables")
                    .arg(record.fields.size())
                    .arg(out.columns.size())));
        }
        Row row;
        for (qsizetype column = 0; column < record.fields.size(); ++column)
            row.insert(out.columns.at(column), record.fields.at(column));
        out.rows.append(row);
    }
    return out;
}

Result<DataRows> DataRows::fromJson(const QByteArray &data)
{
    using R = Result<DataRows>;
    if (data.trimmed().isEmpty())
        return R(csvError(1, Tr::tr("the data file is empty; it must hold a JSON array of objects")));
    QJsonParseError parseError{};
    const QJsonDocument document = QJsonDocument::fromJson(data, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return R(jsonSyntaxError(data, parseError));
    if (!document.isArray())
        return R::failure(Tr::tr("a data file must hold a JSON array of objects, one per iteration"));

    DataRows out;
    const QJsonArray array = document.array();
    const JsonReader reader(array);
    for (qsizetype i = 0; i < array.size(); ++i) {
        if (!array.at(i).isObject())
            return R::failure(
                reader.pathOf(i), Tr::tr("must be an object, not %1").arg(JsonReader::describe(array.at(i))));
        const QJsonObject object = array.at(i).toObject();
        Row row;
        for (auto it = object.constBegin(); it != object.constEnd(); ++it) {
            row.insert(it.key(), JsonText::variableText(it.value()));
            if (!out.columns.contains(it.key()))
                out.columns.append(it.key());
        }
        out.rows.append(row);
    }
    return out;
}

Result<DataRows> DataRows::fromData(const QByteArray &data, const QString &fileName)
{
    const QString suffix = QFileInfo(fileName).suffix().toLower();
    if (suffix == QLatin1String("json"))
        return fromJson(data);
    if (suffix == QLatin1String("csv"))
        return fromCsv(data);
    QByteArray start = data.trimmed();
    if (start.startsWith("\xEF\xBB\xBF"))
        start = start.mid(3).trimmed();
    return start.startsWith('[') ? fromJson(data) : fromCsv(data);
}

Result<DataRows> DataRows::readFile(const QString &path)
{
    const auto data = BoundedFile::read(path, {maxDataFileBytes, Tr::tr("a data file")});
    if (!data)
        return Result<DataRows>(data.errorDetail());
    auto rows = fromData(*data, path);
    if (!rows) {
        const Error error = rows.errorDetail();
        return Result<DataRows>(Error{QString(), QStringLiteral("%1: %2").arg(path, error.text()), error.offset});
    }
    return rows;
}

} // namespace RetryLab::Core
