#include "core/util/exportfile.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace RetryLab::Core;

class TestExportFile : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void write_createsFileWithExactBytes();
    void write_replacesWholeFile();
    void write_missingDirectory_namesFileAndKeepsNothing();
    void write_toADirectory_fails();
    void write_emptyPath_fails();
    void checkWritable_data();
    void checkWritable();
};

void TestExportFile::write_createsFileWithExactBytes()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("report – Grüße.json"));
    QByteArray data("binary\0\r\n\xff", 11);
    const auto written = ExportFile::write(path, data);
    QVERIFY2(written.ok(), qPrintable(written.error()));
    QCOMPARE(written.value(), qint64(data.size()));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), data);
}

void TestExportFile::write_replacesWholeFile()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("out.csv"));
    QVERIFY(ExportFile::write(path, QByteArray(10'000, 'x')).ok());
    QVERIFY(ExportFile::write(path, "short").ok());
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), QByteArray("short"));
    // No temporary file is left next to it.
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{QStringLiteral("out.csv")});
}

void TestExportFile::write_missingDirectory_namesFileAndKeepsNothing()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("no/such/dir/out.har"));
    const auto written = ExportFile::write(path, "{}");
    QVERIFY(!written.ok());
    QVERIFY2(written.error().contains(QDir::toNativeSeparators(path)), qPrintable(written.error()));
    QVERIFY(!QFile::exists(path));
}

void TestExportFile::write_toADirectory_fails()
{
    QTemporaryDir dir;
    const auto written = ExportFile::write(dir.path(), "{}");
    QVERIFY(!written.ok());
    QVERIFY(!written.error().isEmpty());
    QVERIFY(QFileInfo(dir.path()).isDir());
}

void TestExportFile::write_emptyPath_fails()
{
    const auto written = ExportFile::write(QString(), "x");
    QVERIFY(!written.ok());
    QVERIFY(written.error().contains(QLatin1String("file name")));
}

void TestExportFile::checkWritable_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("problem"); // empty: writable
    QTest::addRow("new file") << QStringLiteral("new.json") << QString();
    QTest::addRow("existing file") << QStringLiteral("existing.json") << QString();
    QTest::addRow("a directory") << QStringLiteral("sub") << QStringLiteral("it is a directory");
    QTest::addRow("missing directory") << QStringLiteral("missing/x.json") << QStringLiteral("does not exist");
    QTest::addRow("no name") << QString() << QStringLiteral("no file name given");
}

void TestExportFile::checkWritable()
{
    QFETCH(QString, name);
    QFETCH(QString, problem);
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("sub")));
    QVERIFY(ExportFile::write(dir.filePath(QStringLiteral("existing.json")), "{}"));
    const auto writable = ExportFile::checkWritable(name.isEmpty() ? QString() : dir.filePath(name));
    if (problem.isEmpty()) {
        QVERIFY2(writable, qPrintable(writable.error()));
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("new.json")))); // a check writes nothing
    } else {
        QVERIFY(!writable);
        QVERIFY2(writable.error().contains(problem), qPrintable(writable.error()));
    }
}

QTEST_GUILESS_MAIN(TestExportFile)
#include "tst_exportfile.moc"
