#pragma once

#include "core/util/result.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>

namespace RetryLab::Core {

/// A data file of a collection run (newman's -d): one row of variables per
/// iteration. CSV (RFC 4180: a header row naming the variables; fields quoted
/// with '"', a quote inside doubled, commas and line breaks allowed inside
/// quotes; CRLF or LF; a UTF-8 byte order mark) or JSON (an array of flat
/// objects; a value that is not a string is taken as compact JSON text).
/// Errors name the line at the start of the message ("line 4: ...", for CSV
/// and for JSON syntax) or, for JSON, the element in Error::path ("[3]").
struct DataRows
{
    using Row = QHash<QString, QString>;

    /// The variables, in the order of the CSV header (JSON: of first appearance).
    QStringList columns;
    /// One per iteration. A CSV row with fewer fields than the header leaves
    /// the last variables out of its row (a reference to one is then undefined
    /// for that iteration); blank lines are skipped.
    QList<Row> rows;

    static Result<DataRows> fromCsv(const QByteArray &data);
    static Result<DataRows> fromJson(const QByteArray &data);
    /// CSV or JSON by the file's name (".json", else ".csv"); a name with
    /// neither is read as JSON when its first character is '[', else as CSV.
    static Result<DataRows> fromData(const QByteArray &data, const QString &fileName);
    /// The file at `path` (at most 64 MiB), read as fromData() does; errors
    /// start with the file's name.
    static Result<DataRows> readFile(const QString &path);
};

} // namespace RetryLab::Core
