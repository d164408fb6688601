#include "core/collections/datarows.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace RetryLab;
using Core::DataRows;
using Row = Core::DataRows::Row;

namespace {

Row rowOf(std::initializer_list<std::pair<const char *, QString>> fields)
{
    Row row;
    for (const auto &[name, value] : fields)
        row.insert(QString::fromLatin1(name), value);
    return row;
}

} // namespace

class TestDataRows final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void csv_headerNamesTheVariables();
    void csv_quotesCommasNewlinesAndDoubledQuotes();
    void csv_crlfBomAndNoFinalNewline();
    void csv_blankLinesAreSkippedAndShortRowsLeaveVariablesOut();
    void csv_errors_nameTheLine_data();
    void csv_errors_nameTheLine();
    void json_arrayOfFlatObjects();
    void json_errors_nameThePathOrLine_data();
    void json_errors_nameThePathOrLine();
    void fromData_choosesByNameThenByContent();
    void readFile_readsAndNamesTheFile();
};

void TestDataRows::csv_headerNamesTheVariables()
{
    const auto data = DataRows::fromCsv("user,password\nalice,s3cret\nbob,hunter2\n");
    QVERIFY2(data, qPrintable(data.error()));
    QCOMPARE(data->columns, (QStringList{QStringLiteral("user"), QStringLiteral("password")}));
    QCOMPARE(data->rows.size(), 2);
    QCOMPARE(data->rows.at(0), rowOf({{"user", QStringLiteral("alice")}, {"password", QStringLiteral("s3cret")}}));
    QCOMPARE(data->rows.at(1), rowOf({{"user", QStringLiteral("bob")}, {"password", QStringLiteral("hunter2")}}));
}

void TestDataRows::csv_quotesCommasNewlinesAndDoubledQuotes()
{
    const auto data = DataRows::fromCsv("name,note,empty\n"
                                        "\"Smith, Ann\",\"said \"\"hi\"\"\nthen left\",\"\"\n"
                                        "\"Zoë\", spaced ,\n");
    QVERIFY2(data, qPrintable(data.error()));
    QCOMPARE(data->rows.size(), 2);
    QCOMPARE(data->rows.at(0),
        rowOf({{"name", QStringLiteral("Smith, Ann")}, {"note", QStringLiteral("said \"hi\"\nthen left")},
            {"empty", QString()}}));
    // Spaces of an unquoted field are part of it (RFC 4180); a trailing comma is an empty last field.
    QCOMPARE(data->rows.at(1),
        rowOf({{"name", QStringLiteral("Zoë")}, {"note", QStringLiteral(" spaced ")}, {"empty", QString()}}));
}

void TestDataRows::csv_crlfBomAndNoFinalNewline()
{
    const auto data = DataRows::fromCsv("\xEF\xBB\xBFid,body\r\n1,\"a\r\nb\"\r\n2,c");
    QVERIFY2(data, qPrintable(data.error()));
    // The byte order mark is not part of the first name.
    QCOMPARE(data->columns, (QStringList{QStringLiteral("id"), QStringLiteral("body")}));
    QCOMPARE(data->rows.size(), 2);
    QCOMPARE(data->rows.at(0), rowOf({{"id", QStringLiteral("1")}, {"body", QStringLiteral("a\r\nb")}}));
    QCOMPARE(data->rows.at(1), rowOf({{"id", QStringLiteral("2")}, {"body", QStringLiteral("c")}}));
}

void TestDataRows::csv_blankLinesAreSkippedAndShortRowsLeaveVariablesOut()
{
    const auto data = DataRows::fromCsv("a,b,c\n\n1,2,3\n\n4\n");
    QVERIFY2(data, qPrintable(data.error()));
    QCOMPARE(data->rows.size(), 2);
    QCOMPARE(data->rows.at(1), rowOf({{"a", QStringLiteral("4")}}));

    const auto headerOnly = DataRows::fromCsv("a,b\n");
    QVERIFY(headerOnly);
    QVERIFY(headerOnly->rows.isEmpty());
}

void TestDataRows::csv_errors_nameTheLine_data()
{
    QTest::addColumn<QByteArray>("csv");
    QTest::addColumn<QString>("error");
    QTest::addRow("empty") << QByteArray() << "line 1: the data file is empty; its first line must name the variables";
    QTest::addRow("only a byte order mark and blank lines")
        << QByteArray("\xEF\xBB\xBF\n\r\n") << "line 1: the data file is empty; its first line must name the variables";
    QTest::addRow("too many fields") << QByteArray("a,b\n1,2\n\"x\ny\",2,3\n")
                                     << "line 3: 3 fields, but the header names 2 variables";
    QTest::addRow("too many fields, CRLF")
        << QByteArray("a\r\n1\r\n2\r\n3,4\r\n") << "line 4: 2 fields, but the header names 1 variables";
    QTest::addRow("unterminated quote") << QByteArray("a,b\n1,\"open\n\nstill open\n")
                                        << "line 2: the quoted field that starts here never ends";
    QTest::addRow("text after closing quote") << QByteArray("a\n\"x\"y\n")
                                              << "line 2: text after the closing quote of a field (a comma must "
                                                 "follow it)";
    QTest::addRow("quote inside unquoted field")
        << QByteArray("a\n5\" screen\n")
        << "line 2: a quote inside a field that does not start with one (quote the whole field and double the quote)";
    QTest::addRow("unnamed column") << QByteArray("a,,c\n1,2,3\n") << "line 1: column 2 of the header has no name";
    QTest::addRow("column named twice") << QByteArray("a,b,a\n") << "line 1: \"a\" names two columns";
}

void TestDataRows::csv_errors_nameTheLine()
{
    QFETCH(QByteArray, csv);
    QFETCH(QString, error);
    const auto data = DataRows::fromCsv(csv);
    QVERIFY(!data);
    QCOMPARE(data.error(), error);
}

void TestDataRows::json_arrayOfFlatObjects()
{
    const auto data = DataRows::fromJson(R"([
        {"user": "alice", "age": 30, "admin": true, "tags": ["a", "b"], "address": {"city": "Oslo"}, "none": null},
        {"user": "bob", "extra": "x"}
    ])");
    QVERIFY2(data, qPrintable(data.error()));
    QCOMPARE(data->rows.size(), 2);
    QCOMPARE(data->rows.at(0),
        rowOf({{"user", QStringLiteral("alice")}, {"age", QStringLiteral("30")}, {"admin", QStringLiteral("true")},
            {"tags", QStringLiteral(R"(["a","b"])")}, {"address", QStringLiteral(R"({"city":"Oslo"})")},
            {"none", QStringLiteral("null")}}));
    QCOMPARE(data->rows.at(1), rowOf({{"user", QStringLiteral("bob")}, {"extra", QStringLiteral("x")}}));
    QCOMPARE(data->columns.size(), 7);
    QVERIFY(data->columns.contains(QStringLiteral("extra")));

    const auto none = DataRows::fromJson("[]");
    QVERIFY(none);
    QVERIFY(none->rows.isEmpty());
}

void TestDataRows::json_errors_nameThePathOrLine_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("message");
    QTest::addRow("empty") << QByteArray(" \n") << QString()
                           << "line 1: the data file is empty; it must hold a JSON array of objects";
    QTest::addRow("not an array") << QByteArray(R"({"user": "alice"})") << QString()
                                  << "a data file must hold a JSON array of objects, one per iteration";
    QTest::addRow("element not an object") << QByteArray(R"([{"a": 1}, {"a": 2}, "three"])") << "[2]"
                                           << "must be an object, not a string";
    QTest::addRow("syntax") << QByteArray("[\n  {\"a\": 1},\n  {\"a\" 2}\n]") << QString() << "line 3, column ";
}

void TestDataRows::json_errors_nameThePathOrLine()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, path);
    QFETCH(QString, message);
    const auto data = DataRows::fromJson(json);
    QVERIFY(!data);
    QCOMPARE(data.errorDetail().path, path);
    QVERIFY2(data.errorDetail().message.startsWith(message), qPrintable(data.errorDetail().message));
}

void TestDataRows::fromData_choosesByNameThenByContent()
{
    const QByteArray json = R"([{"a": "1"}])";
    QCOMPARE(DataRows::fromData(json, QStringLiteral("rows.JSON"))->rows.at(0), rowOf({{"a", QStringLiteral("1")}}));
    QCOMPARE(DataRows::fromData(json, QStringLiteral("rows"))->rows.at(0), rowOf({{"a", QStringLiteral("1")}}));
    QCOMPARE(DataRows::fromData("\xEF\xBB\xBF a\n1\n", QStringLiteral("rows.txt"))->columns,
        QStringList{QStringLiteral("a")});
    // A .csv is CSV even when it starts with a bracket.
    const auto csv = DataRows::fromData("[x]\n1\n", QStringLiteral("rows.csv"));
    QVERIFY2(csv, qPrintable(csv.error()));
    QCOMPARE(csv->rows.at(0), rowOf({{"[x]", QStringLiteral("1")}}));
}

void TestDataRows::readFile_readsAndNamesTheFile()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString good = dir.filePath(QStringLiteral("users.csv"));
    QFile file(good);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("user\nalice\n");
    file.close();
    const auto data = DataRows::readFile(good);
    QVERIFY2(data, qPrintable(data.error()));
    QCOMPARE(data->rows, QList<Row>{rowOf({{"user", QStringLiteral("alice")}})});

    const QString bad = dir.filePath(QStringLiteral("bad.json"));
    QFile badFile(bad);
    QVERIFY(badFile.open(QIODevice::WriteOnly));
    badFile.write("[1]");
    badFile.close();
    const auto refused = DataRows::readFile(bad);
    QVERIFY(!refused);
    QCOMPARE(refused.error(), bad + QStringLiteral(": [0]: must be an object, not a number"));

    const auto missing = DataRows::readFile(dir.filePath(QStringLiteral("none.csv")));
    QVERIFY(!missing);
    QVERIFY2(missing.error().contains(QLatin1String("none.csv")), qPrintable(missing.error()));
}

QTEST_GUILESS_MAIN(TestDataRows)
#include "tst_datarows.moc"
