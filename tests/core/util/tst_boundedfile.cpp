#include "core/util/boundedfile.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace RetryLab::Core;

class TestBoundedFile : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

    QString write(const QString &name, const QByteArray &bytes)
    {
        const QString path = m_dir.filePath(name);
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size())
            return {};
        return path;
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void regularFile_upToTheLimit()
    {
        const QString path = write(QStringLiteral("ten.txt"), "0123456789");
        const auto whole = BoundedFile::read(path, {10, QStringLiteral("a test file")});
        QVERIFY2(whole.ok(), qPrintable(whole.error()));
        QCOMPARE(*whole, QByteArray("0123456789"));
        const auto over = BoundedFile::read(path, {9, QStringLiteral("a test file")});
        QVERIFY(!over.ok());
        QCOMPARE(over.error(),
            QStringLiteral("%1 is larger than 9 bytes, the most a test file may be")
                .arg(QDir::toNativeSeparators(path)));
        const auto empty = BoundedFile::read(write(QStringLiteral("empty"), {}), {9, QStringLiteral("a test file")});
        QVERIFY(empty.ok());
        QVERIFY(empty->isEmpty());
    }

    void missingAndFolders_areNamed()
    {
        const QString missing = m_dir.filePath(QStringLiteral("nothing-here.json"));
        QCOMPARE(BoundedFile::read(missing, {100, QStringLiteral("x")}).error(),
            QStringLiteral("cannot read %1: no such file").arg(QDir::toNativeSeparators(missing)));
        QCOMPARE(BoundedFile::read(m_dir.path(), {100, QStringLiteral("x")}).error(),
            QStringLiteral("cannot read %1: it is a folder, not a file").arg(QDir::toNativeSeparators(m_dir.path())));
        QCOMPARE(
            BoundedFile::read(QString(), {100, QStringLiteral("x")}).error(), QStringLiteral("no file name given"));
    }

    void fifo_isRefusedWithoutWaitingForAWriter()
    {
        // Opening a FIFO for reading blocks until somebody writes: it must not be opened.
        const QString fifo = m_dir.filePath(QStringLiteral("pipe"));
        QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
        const auto read = BoundedFile::read(fifo, {100, QStringLiteral("x")});
        QVERIFY(!read.ok());
        QCOMPARE(read.error(),
            QStringLiteral("cannot read %1: it is a FIFO (named pipe), not a regular file")
                .arg(QDir::toNativeSeparators(fifo)));
        QCOMPARE(BoundedFile::notARegularFile(fifo), read.error());
        QVERIFY(BoundedFile::notARegularFile(write(QStringLiteral("plain"), "x")).isEmpty());
    }

    void device_isRefused_orReadOnlyToTheLimitWhenAsked()
    {
        // /dev/zero says its size is 0 and never ends.
        const QString zero = QStringLiteral("/dev/zero");
        QCOMPARE(BoundedFile::read(zero, {1024, QStringLiteral("x")}).error(),
            QStringLiteral("cannot read /dev/zero: it is a device, not a regular file"));
        const auto asked
            = BoundedFile::read(zero, {1024 * 1024, QStringLiteral("a body")}, BoundedFile::Accept::AnyReadable);
        QVERIFY(!asked.ok());
        QCOMPARE(asked.error(), QStringLiteral("/dev/zero is larger than 1 MiB, the most a body may be"));
        const auto null = BoundedFile::read(
            QStringLiteral("/dev/null"), {10, QStringLiteral("x")}, BoundedFile::Accept::AnyReadable);
        QVERIFY(null.ok());
        QVERIFY(null->isEmpty());
    }

    void sizeText_namesTheLimit()
    {
        QCOMPARE(BoundedFile::sizeText(4 * 1024 * 1024), QStringLiteral("4 MiB"));
        QCOMPARE(BoundedFile::sizeText(512 * 1024), QStringLiteral("512 KiB"));
        QCOMPARE(BoundedFile::sizeText(1000), QStringLiteral("1000 bytes"));
        QCOMPARE(BoundedFile::sizeText(1), QStringLiteral("1 byte"));
    }
};

QTEST_GUILESS_MAIN(TestBoundedFile)
#include "tst_boundedfile.moc"
