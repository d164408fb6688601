#include "core/util/exportfile.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

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
    void write_toADevice_writesInPlace();
    void write_toAFifo_feedsItsReader();
    void write_toAFifoNobodyReads_failsInsteadOfWaiting();
    void write_overAReadOnlyFile_keepsItsPermissions();
    void write_fullDisk_saysSo();
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
    QVERIFY(written.error().contains(QLatin1String("it is a directory")));
    QVERIFY(QFileInfo(dir.path()).isDir());
    QVERIFY(!ExportFile::checkWritable(dir.path()).ok());
}

namespace {
bool isCharacterDevice(const char *path)
{
    struct stat info = {};
    return ::stat(path, &info) == 0 && S_ISCHR(info.st_mode);
}
} // namespace

void TestExportFile::write_toADevice_writesInPlace()
{
    // A rename over /dev/null would replace the device with a regular file (as root, for every program).
    QVERIFY(isCharacterDevice("/dev/null"));
    QVERIFY(ExportFile::checkWritable(QStringLiteral("/dev/null")).ok());
    const auto written = ExportFile::write(QStringLiteral("/dev/null"), QByteArray(100'000, 'x'));
    QVERIFY2(written.ok(), qPrintable(written.error()));
    QCOMPARE(*written, qint64(100'000));
    QVERIFY(isCharacterDevice("/dev/null"));
}

void TestExportFile::write_toAFifo_feedsItsReader()
{
    QTemporaryDir dir;
    const QString fifo = dir.filePath(QStringLiteral("report.fifo"));
    QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
    QProcess reader;
    reader.start(QStringLiteral("cat"), {fifo});
    QVERIFY(reader.waitForStarted(5000));
    const QByteArray data = QByteArray("{\"format\": \"retrylab-run\"}\n").repeated(1000);
    const auto written = ExportFile::write(fifo, data);
    QVERIFY2(written.ok(), qPrintable(written.error()));
    QVERIFY(reader.waitForFinished(10'000));
    QCOMPARE(reader.readAllStandardOutput(), data);
    struct stat info = {};
    QVERIFY(::stat(QFile::encodeName(fifo).constData(), &info) == 0 && S_ISFIFO(info.st_mode));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::System | QDir::NoDotAndDotDot).size(), 1);
}

void TestExportFile::write_toAFifoNobodyReads_failsInsteadOfWaiting()
{
    QTemporaryDir dir;
    const QString fifo = dir.filePath(QStringLiteral("lonely.fifo"));
    QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
    const auto written = ExportFile::write(fifo, "x");
    QVERIFY(!written.ok());
    QCOMPARE(written.error(),
        QStringLiteral("cannot write %1: no process reads this FIFO (start the reader first)").arg(fifo));
    const auto checked = ExportFile::checkWritable(fifo);
    QVERIFY(!checked.ok());
    QVERIFY2(checked.error().contains(QLatin1String("no process reads this FIFO")), qPrintable(checked.error()));
}

void TestExportFile::write_overAReadOnlyFile_keepsItsPermissions()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("kept.json"));
    QVERIFY(ExportFile::write(path, "old"));
    const QFileDevice::Permissions readOnly = QFileDevice::ReadOwner | QFileDevice::ReadGroup | QFileDevice::ReadOther;
    QVERIFY(QFile::setPermissions(path, readOnly));
    // As root the file may be replaced; otherwise the check refuses it. Either way it stays 0444.
    if (ExportFile::checkWritable(path).ok())
        QVERIFY(ExportFile::write(path, "new"));
    QCOMPARE(
        QFile::permissions(path) & ~(QFileDevice::ReadUser | QFileDevice::WriteUser | QFileDevice::ExeUser), readOnly);
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
    QTest::addRow("dangling link") << QStringLiteral(
        "dangling.json") << QStringLiteral("it is a symbolic link to /nonexistent-dir/x.json, which does not exist");
}

void TestExportFile::checkWritable()
{
    QFETCH(QString, name);
    QFETCH(QString, problem);
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("sub")));
    QVERIFY(ExportFile::write(dir.filePath(QStringLiteral("existing.json")), "{}"));
    QVERIFY(QFile::link(QStringLiteral("/nonexistent-dir/x.json"), dir.filePath(QStringLiteral("dangling.json"))));
    const auto writable = ExportFile::checkWritable(name.isEmpty() ? QString() : dir.filePath(name));
    if (problem.isEmpty()) {
        QVERIFY2(writable, qPrintable(writable.error()));
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("new.json")))); // a check writes nothing
    } else {
        QVERIFY(!writable);
        QVERIFY2(writable.error().contains(problem), qPrintable(writable.error()));
    }
}

void TestExportFile::write_fullDisk_saysSo()
{
    // /dev/full answers every write with ENOSPC.
    const auto device = ExportFile::write(QStringLiteral("/dev/full"), QByteArray(100'000, 'x'));
    QVERIFY(!device.ok());
    QVERIFY2(device.error().contains(QLatin1String("No space left on device")), qPrintable(device.error()));

    // A regular file on a full file system: the previous file stays, and the error says why.
    QTemporaryDir dir;
    QProcess mount;
    mount.start(QStringLiteral("mount"),
        {QStringLiteral("-t"), QStringLiteral("tmpfs"), QStringLiteral("-o"), QStringLiteral("size=64k"),
            QStringLiteral("tmpfs"), dir.path()});
    if (!mount.waitForFinished(10'000) || mount.exitCode() != 0)
        QSKIP("cannot mount a small tmpfs here (not root); /dev/full covered the device case");
    const QString path = dir.filePath(QStringLiteral("report.json"));
    QVERIFY(ExportFile::write(path, "previous").ok());
    const auto full = ExportFile::write(path, QByteArray(1024 * 1024, 'x'));
    QFile previous(path);
    const QByteArray kept = previous.open(QIODevice::ReadOnly) ? previous.readAll() : QByteArray();
    previous.close();
    QProcess::execute(QStringLiteral("umount"), {dir.path()});
    QVERIFY(!full.ok());
    QVERIFY2(full.error().contains(QLatin1String("No space left on device")), qPrintable(full.error()));
    QCOMPARE(kept, QByteArray("previous"));
}

QTEST_GUILESS_MAIN(TestExportFile)
#include "tst_exportfile.moc"
