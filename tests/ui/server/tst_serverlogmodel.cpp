#include "ui/widgets/serverlogmodel.h"

#include <QAbstractItemModelTester>
#include <QColor>
#include <QSignalSpy>
#include <QTest>
#include <QTimeZone>

using namespace RetryLab;
using Ui::ServerLogModel;

namespace {

Core::ServerLogEntry entry(quint64 sequence, std::optional<int> status = 503)
{
    Core::ServerLogEntry e;
    e.sequence = sequence;
    e.time = QDateTime::fromMSecsSinceEpoch(1'700'000'000'000 + qint64(sequence), QTimeZone::utc());
    e.peer = QStringLiteral("127.0.0.1:5000");
    e.method = "GET";
    e.target = QStringLiteral("/fail/3?key=k-%1").arg(sequence);
    e.action = status ? QStringLiteral("respond") : QStringLiteral("reset");
    e.detail = QStringLiteral("detail %1").arg(sequence);
    e.status = status;
    e.durationMs = 1.25;
    return e;
}

} // namespace

class TestServerLogModel final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void appends_areCoalescedIntoOneInsert();
    void flushesOnItsOwn();
    void bounded_keepsTheNewest();
    void boundedBeforeFlush_dropsOldestPending();
    void shrinkingTheBound_dropsRows();
    void clear_empties();
    void data_describesTheEntry();
};

void TestServerLogModel::appends_areCoalescedIntoOneInsert()
{
    ServerLogModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    for (quint64 i = 1; i <= 100; ++i)
        model.append(entry(i));
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.receivedCount(), quint64(100));
    model.flush();
    QCOMPARE(model.rowCount(), 100);
    QCOMPARE(inserted.count(), 1);
    QCOMPARE(model.entry(0).sequence, quint64(1));
    QCOMPARE(model.entry(99).sequence, quint64(100));
    model.flush(); // nothing pending: nothing happens
    QCOMPARE(inserted.count(), 1);
}

void TestServerLogModel::flushesOnItsOwn()
{
    ServerLogModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setUpdateInterval(10);
    QSignalSpy counts(&model, &ServerLogModel::countsChanged);
    model.append(entry(1));
    model.append(entry(2));
    QTRY_COMPARE(model.rowCount(), 2);
    QCOMPARE(counts.count(), 1);
}

void TestServerLogModel::bounded_keepsTheNewest()
{
    ServerLogModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setMaxRows(10);
    for (quint64 i = 1; i <= 8; ++i)
        model.append(entry(i));
    model.flush();
    for (quint64 i = 9; i <= 25; ++i)
        model.append(entry(i));
    model.flush();
    QCOMPARE(model.rowCount(), 10);
    QCOMPARE(model.droppedCount(), quint64(15));
    QCOMPARE(model.entry(0).sequence, quint64(16));
    QCOMPARE(model.entry(9).sequence, quint64(25));
}

void TestServerLogModel::boundedBeforeFlush_dropsOldestPending()
{
    ServerLogModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setMaxRows(5);
    for (quint64 i = 1; i <= 1000; ++i)
        model.append(entry(i));
    model.flush();
    QCOMPARE(model.rowCount(), 5);
    QCOMPARE(model.entry(0).sequence, quint64(996));
    QCOMPARE(model.droppedCount(), quint64(995));
    QCOMPARE(model.receivedCount(), quint64(1000));
}

void TestServerLogModel::shrinkingTheBound_dropsRows()
{
    ServerLogModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    for (quint64 i = 1; i <= 20; ++i)
        model.append(entry(i));
    model.flush();
    model.setMaxRows(7);
    QCOMPARE(model.rowCount(), 7);
    QCOMPARE(model.entry(0).sequence, quint64(14));
    model.setMaxRows(0); // clamped to one row
    QCOMPARE(model.maxRows(), 1);
    QCOMPARE(model.rowCount(), 1);
}

void TestServerLogModel::clear_empties()
{
    ServerLogModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.append(entry(1));
    model.flush();
    model.append(entry(2)); // pending, not shown yet
    model.clear();
    QCOMPARE(model.rowCount(), 0);
    model.flush();
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.receivedCount(), quint64(0));
}

void TestServerLogModel::data_describesTheEntry()
{
    ServerLogModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    Core::ServerLogEntry scripted = entry(7);
    scripted.testId = QStringLiteral("t3");
    scripted.instructionIndex = 1;
    scripted.clientAttempt = QStringLiteral("2");
    scripted.replayed = true;
    model.append(scripted);
    model.append(entry(8, std::nullopt));
    model.flush();

    const auto text = [&](int row, int column) { return model.index(row, column).data().toString(); };
    QCOMPARE(text(0, ServerLogModel::Sequence), QStringLiteral("7"));
    QCOMPARE(text(0, ServerLogModel::Method), QStringLiteral("GET"));
    QCOMPARE(text(0, ServerLogModel::Target), QStringLiteral("/fail/3?key=k-7"));
    QCOMPARE(text(0, ServerLogModel::Step), QStringLiteral("t3 step 2"));
    QCOMPARE(text(0, ServerLogModel::ClientAttempt), QStringLiteral("2 (resent)"));
    QCOMPARE(text(0, ServerLogModel::Status), QStringLiteral("503"));
    QCOMPARE(text(1, ServerLogModel::Status), QStringLiteral("\u2014"));
    QCOMPARE(text(1, ServerLogModel::Action), QStringLiteral("reset"));
    QVERIFY(model.index(0, ServerLogModel::Target).data(Qt::ToolTipRole).toString().contains(QLatin1String("resen")));
    QVERIFY(model.index(0, ServerLogModel::Status).data(Qt::DecorationRole).value<QColor>().isValid());
    QCOMPARE(model.headerData(ServerLogModel::Step, Qt::Horizontal).toString(), QStringLiteral("Script step"));
    QVERIFY(!model.index(5, 0).isValid());
}

QTEST_MAIN(TestServerLogModel)
#include "tst_serverlogmodel.moc"
