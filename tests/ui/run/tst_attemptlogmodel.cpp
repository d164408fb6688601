#include "tests/ui/session/sessionfixtures.h"
#include "ui/run/attemptlogmodel.h"
#include "ui/session/run/runsession.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

using namespace RetryLab;
using namespace RetryLab::Fixtures;
using Ui::AttemptLogModel;
using Ui::RunSession;

namespace {

// Counts the session's finished attempts that satisfy `test`, the slow obvious way.
template<typename Test>
qsizetype countRows(const RunSession &session, Test test)
{
    qsizetype n = 0;
    for (qsizetype f = 0; f < session.finishedCount(); ++f) {
        if (test(session.attemptRow(session.finishedRow(f))))
            ++n;
    }
    return n;
}

} // namespace

class TestAttemptLogModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void tester_liveAppendsFiltersSortsAndClear();
    void columns_showTheRecord();
    void roles_carryRawValues();
    void outcomeFilter_countsMatchRun_data();
    void outcomeFilter_countsMatchRun();
    void textFilter_matches_data();
    void textFilter_matches();
    void textFilter_hashNumber_matchesOneRequestOnly();
    void filter_liveAppend_insertsOnlyMatchingRows();
    void sort_byColumn_thenBackToFinishOrder();
    void sort_liveAppendIntoMiddle_keepsPersistentIndexes();
    void visibleFinishedIndexes_mapBothWays();
    void sessionCleared_resetsModel();
    void manyRows_appendThenFilterAndSort_correct();
};

void TestAttemptLogModel::tester_liveAppendsFiltersSortsAndClear()
{
    RunSession session;
    AttemptLogModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setSession(&session);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);

    syntheticRun(session, 40, 1);
    session.flush();
    QCOMPARE(inserted.count(), 1); // one batch, one insertion
    QCOMPARE(model.rowCount(), int(session.finishedCount()));

    model.setOutcomeFilter(AttemptLogModel::ShowFailures);
    syntheticRun(session, 40, 2, 5.0, 1000);
    session.flush();
    model.setTextFilter(QStringLiteral("503"));
    model.sort(AttemptLogModel::Duration, Qt::DescendingOrder);
    syntheticRun(session, 40, 3, 5.0, 2000);
    session.flush();
    model.sort(AttemptLogModel::Cause, Qt::AscendingOrder);
    syntheticRun(session, 40, 4, 5.0, 3000);
    session.flush();
    model.setTextFilter(QString());
    model.setOutcomeFilter(AttemptLogModel::ShowAll);
    model.sort(-1);
    session.clear();
    QCOMPARE(model.rowCount(), 0);
    syntheticRun(session, 10, 5);
    session.flush();
    QCOMPARE(model.rowCount(), int(session.finishedCount()));
    model.setSession(nullptr);
    QCOMPARE(model.rowCount(), 0);
}

void TestAttemptLogModel::columns_showTheRecord()
{
    RunSession session;
    Core::RequestSpec spec;
    spec.url = QUrl(QStringLiteral("http://127.0.0.1:8080/fail/2"));
    spec.label = QStringLiteral("demo");
    session.noteRequest(4, spec);
    AttemptRecord r = httpAttempt(4, 1, 100, 112.5, 503, 2000);
    session.recordAttempt(r);
    session.recordRetryScheduled(4, 2, 2000, QStringLiteral("HTTP 503 (Exponential backoff)"), 2, 113 * ms);
    AttemptRecord w = httpAttempt(4, 2, 2113, 2120, 200);
    w.step = QStringLiteral("write");
    session.recordAttempt(w);
    AttemptLogModel model;
    model.setSession(&session);
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.columnCount(), int(AttemptLogModel::ColumnCount));

    const auto text = [&model](int row, int column) { return model.index(row, column).data().toString(); };
    QCOMPARE(text(0, AttemptLogModel::Request), QStringLiteral("#4 demo"));
    QCOMPARE(text(0, AttemptLogModel::Attempt), QStringLiteral("2"));
    QCOMPARE(text(1, AttemptLogModel::Attempt), QStringLiteral("3 (write)"));
    QCOMPARE(text(0, AttemptLogModel::Status), QStringLiteral("503 Service Unavailable"));
    QCOMPARE(text(0, AttemptLogModel::Outcome), QStringLiteral("Failed, retried"));
    QCOMPARE(text(0, AttemptLogModel::Cause), QStringLiteral("http-503"));
    QCOMPARE(text(0, AttemptLogModel::Reason), r.reason);
    QCOMPARE(text(0, AttemptLogModel::NextDelay), QStringLiteral("2 s"));
    QCOMPARE(text(1, AttemptLogModel::NextDelay), QStringLiteral("\u2014"));
    QCOMPARE(text(0, AttemptLogModel::Duration), QStringLiteral("12.5 ms"));
    QCOMPARE(text(0, AttemptLogModel::Time),
        session.wallTimeOf(r.endNs).toLocalTime().toString(QStringLiteral("hh:mm:ss.zzz")));
    QVERIFY(model.index(0, AttemptLogModel::NextDelay)
                .data(Qt::ToolTipRole)
                .toString()
                .contains(QLatin1String("Exponential backoff")));
    QVERIFY(
        model.index(0, AttemptLogModel::Request).data(Qt::ToolTipRole).toString().contains(QLatin1String("/fail/2")));
    QCOMPARE(model.index(0, AttemptLogModel::Outcome).data(Qt::DecorationRole).typeId(), QMetaType::QColor);
    QCOMPARE(model.headerData(AttemptLogModel::Status, Qt::Horizontal).toString(), QStringLiteral("Status / error"));

    // How the request ended, on each of its rows: "running" until its result, then the outcome.
    QCOMPARE(text(0, AttemptLogModel::Ending), QStringLiteral("running"));
    QCOMPARE(model.headerData(AttemptLogModel::Ending, Qt::Horizontal).toString(), QStringLiteral("Request outcome"));
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    RequestResult ended = result(4, RequestOutcome::AttemptsExhausted, 3, 100, 2120);
    ended.reason = QStringLiteral("gave up after 3 attempts: HTTP 503");
    session.recordResult(ended);
    session.flush();
    QVERIFY(!changed.isEmpty());
    QCOMPARE(changed.last().at(0).value<QModelIndex>().column(), int(AttemptLogModel::Ending));
    QCOMPARE(text(0, AttemptLogModel::Ending), QStringLiteral("Gave up: attempt limit"));
    QCOMPARE(text(1, AttemptLogModel::Ending), QStringLiteral("Gave up: attempt limit"));
    QCOMPARE(model.index(1, AttemptLogModel::Ending).data(Qt::ToolTipRole).toString(), ended.reason);
    QCOMPARE(model.index(1, AttemptLogModel::Ending).data(Qt::DecorationRole).typeId(), QMetaType::QColor);
    QVERIFY(!model.headerData(AttemptLogModel::ColumnCount, Qt::Horizontal).isValid());
    QVERIFY(!model.index(5, 0).isValid());
    QVERIFY(!model.data(QModelIndex()).isValid());
}

void TestAttemptLogModel::roles_carryRawValues()
{
    RunSession session;
    session.recordAttempt(httpAttempt(9, 0, 10, 30, 503, 750));
    AttemptLogModel model;
    model.setSession(&session);
    const QModelIndex i = model.index(0, AttemptLogModel::NextDelay);
    QCOMPARE(i.data(AttemptLogModel::SortRole).toDouble(), 750.0);
    QCOMPARE(model.index(0, AttemptLogModel::Duration).data(AttemptLogModel::SortRole).toDouble(), 20.0 * ms);
    QCOMPARE(
        model.index(0, AttemptLogModel::Cause).data(AttemptLogModel::SortRole).toString(), QStringLiteral("http-503"));
    QCOMPARE(i.data(AttemptLogModel::OutcomeRole).toInt(), int(Core::AttemptOutcome::Retried));
    QCOMPARE(i.data(AttemptLogModel::FinishedIndexRole).toLongLong(), 0);
    QCOMPARE(i.data(AttemptLogModel::SessionRowRole).toLongLong(), 0);
    QCOMPARE(i.data(AttemptLogModel::RequestIdRole).toULongLong(), 9u);
}

void TestAttemptLogModel::outcomeFilter_countsMatchRun_data()
{
    QTest::addColumn<int>("filter");
    QTest::addRow("all") << int(AttemptLogModel::ShowAll);
    QTest::addRow("failures") << int(AttemptLogModel::ShowFailures);
    QTest::addRow("final failures") << int(AttemptLogModel::ShowFailed);
    QTest::addRow("retried") << int(AttemptLogModel::ShowRetried);
    QTest::addRow("successes") << int(AttemptLogModel::ShowSuccess);
    QTest::addRow("cancelled") << int(AttemptLogModel::ShowCancelled);
}

void TestAttemptLogModel::outcomeFilter_countsMatchRun()
{
    QFETCH(int, filter);
    RunSession session;
    const SyntheticCounts c = syntheticRun(session, 300);
    AttemptLogModel model;
    model.setSession(&session);
    QSignalSpy counts(&model, &AttemptLogModel::countsChanged);
    model.setOutcomeFilter(AttemptLogModel::OutcomeFilter(filter));
    qint64 expected = 0;
    if (filter & AttemptLogModel::ShowSuccess)
        expected += c.succeeded;
    if (filter & AttemptLogModel::ShowRetried)
        expected += c.retried;
    if (filter & AttemptLogModel::ShowFailed)
        expected += c.failed;
    QCOMPARE(model.rowCount(), int(expected));
    QCOMPARE(model.totalCount(), c.attempts);
    QCOMPARE(model.isFiltered(), filter != AttemptLogModel::ShowAll);
    QCOMPARE(counts.count(), filter != AttemptLogModel::ShowAll ? 1 : 0);
    for (int row = 0; row < model.rowCount(); ++row) {
        const int outcome = model.index(row, 0).data(AttemptLogModel::OutcomeRole).toInt();
        QVERIFY(filter & (1 << outcome));
    }
}

void TestAttemptLogModel::textFilter_matches_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QList<quint64>>("requests");
    QTest::addRow("status number") << QStringLiteral("503") << QList<quint64>{1};
    QTest::addRow("reason phrase, any case") << QStringLiteral("too MANY") << QList<quint64>{2};
    QTest::addRow("cause") << QStringLiteral("connection-refused") << QList<quint64>{3};
    QTest::addRow("error text") << QStringLiteral("Connection refused") << QList<quint64>{3};
    QTest::addRow("network error name") << QStringLiteral("ConnectionRefusedError") << QList<quint64>{3};
    QTest::addRow("reason") << QStringLiteral("transient") << QList<quint64>{1, 2, 3};
    QTest::addRow("label") << QStringLiteral("nightly") << QList<quint64>{2};
    QTest::addRow("url path") << QStringLiteral("/orders") << QList<quint64>{3};
    QTest::addRow("method") << QStringLiteral("PATCH") << QList<quint64>{3};
    QTest::addRow("retry note") << QStringLiteral("jitter backoff") << QList<quint64>{1};
    QTest::addRow("nothing") << QStringLiteral("no such text") << QList<quint64>{};
    QTest::addRow("surrounding spaces ignored") << QStringLiteral("  503 ") << QList<quint64>{1};
}

void TestAttemptLogModel::textFilter_matches()
{
    QFETCH(QString, text);
    QFETCH(QList<quint64>, requests);
    RunSession session;
    Core::RequestSpec plain;
    plain.url = QUrl(QStringLiteral("http://127.0.0.1:1/items"));
    session.noteRequest(1, plain);
    Core::RequestSpec labelled = plain;
    labelled.label = QStringLiteral("nightly batch");
    session.noteRequest(2, labelled);
    Core::RequestSpec other;
    other.method = "PATCH";
    other.url = QUrl(QStringLiteral("http://127.0.0.1:1/orders"));
    session.noteRequest(3, other);
    session.recordAttempt(httpAttempt(1, 0, 0, 1, 503, 100));
    session.recordRetryScheduled(1, 1, 100, QStringLiteral("HTTP 503 (Full jitter backoff)"), 1, 1 * ms);
    session.recordAttempt(httpAttempt(2, 0, 0, 1, 429, 100));
    AttemptRecord refused
        = networkAttempt(3, 0, 0, 1, QNetworkReply::ConnectionRefusedError, QStringLiteral("connection-refused"));
    refused.method = "PATCH";
    session.recordAttempt(refused);
    session.recordAttempt(httpAttempt(4, 0, 0, 1, 200));

    AttemptLogModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setSession(&session);
    model.setTextFilter(text);
    QList<quint64> shown;
    for (int row = 0; row < model.rowCount(); ++row)
        shown.append(model.index(row, 0).data(AttemptLogModel::RequestIdRole).toULongLong());
    QCOMPARE(shown, requests);
    QCOMPARE(model.textFilter(), text.trimmed());
}

void TestAttemptLogModel::textFilter_hashNumber_matchesOneRequestOnly()
{
    RunSession session;
    syntheticRun(session, 200);
    AttemptLogModel model;
    model.setSession(&session);
    model.setTextFilter(QStringLiteral("#17"));
    const qsizetype lane = session.laneOf(17);
    QCOMPARE(model.rowCount(), int(session.lane(lane).attempts));
    for (int row = 0; row < model.rowCount(); ++row)
        QCOMPARE(model.index(row, 0).data(AttemptLogModel::RequestIdRole).toULongLong(), 17u);
    // "#" followed by no number is plain text.
    model.setTextFilter(QStringLiteral("#x"));
    QCOMPARE(model.rowCount(), 0);
}

void TestAttemptLogModel::filter_liveAppend_insertsOnlyMatchingRows()
{
    RunSession session;
    AttemptLogModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setSession(&session);
    model.setTextFilter(QStringLiteral("429"));
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    session.recordAttempt(httpAttempt(1, 0, 0, 1, 503, 10));
    session.recordAttempt(httpAttempt(2, 0, 0, 1, 429, 10));
    session.recordAttempt(httpAttempt(3, 0, 0, 1, 429, 10));
    session.flush();
    QCOMPARE(inserted.count(), 1);
    QCOMPARE(inserted.first().at(1).toInt(), 0);
    QCOMPARE(inserted.first().at(2).toInt(), 1);
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.totalCount(), 3);
    session.recordAttempt(httpAttempt(4, 0, 0, 1, 200));
    session.flush();
    QCOMPARE(inserted.count(), 1); // nothing matching arrived
    QCOMPARE(model.totalCount(), 4);
}

void TestAttemptLogModel::sort_byColumn_thenBackToFinishOrder()
{
    RunSession session;
    syntheticRun(session, 300);
    AttemptLogModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setSession(&session);

    for (int column = 0; column < AttemptLogModel::ColumnCount; ++column) {
        for (auto order : {Qt::AscendingOrder, Qt::DescendingOrder}) {
            model.sort(column, order);
            QCOMPARE(model.rowCount(), int(session.finishedCount()));
            for (int row = 1; row < model.rowCount(); ++row) {
                const QVariant a = model.index(row - 1, column).data(AttemptLogModel::SortRole);
                const QVariant b = model.index(row, column).data(AttemptLogModel::SortRole);
                int c = 0;
                if (a.typeId() == QMetaType::QString) {
                    c = a.toString().compare(b.toString(), Qt::CaseInsensitive);
                } else {
                    c = a.toDouble() < b.toDouble() ? -1 : (a.toDouble() > b.toDouble() ? 1 : 0);
                }
                if (order == Qt::AscendingOrder)
                    QVERIFY2(c <= 0, qPrintable(QStringLiteral("column %1 row %2").arg(column).arg(row)));
                else
                    QVERIFY2(c >= 0, qPrintable(QStringLiteral("column %1 row %2").arg(column).arg(row)));
                if (c == 0) {
                    // Ties keep the order of finishing.
                    QVERIFY(model.finishedIndexAt(row - 1) < model.finishedIndexAt(row));
                }
            }
        }
    }
    model.sort(-1);
    for (int row = 0; row < model.rowCount(); ++row)
        QCOMPARE(model.finishedIndexAt(row), row);
}

void TestAttemptLogModel::sort_liveAppendIntoMiddle_keepsPersistentIndexes()
{
    RunSession session;
    AttemptLogModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setSession(&session);
    session.recordAttempt(httpAttempt(1, 0, 0, 10, 200));
    session.recordAttempt(httpAttempt(2, 0, 0, 30, 200));
    session.recordAttempt(httpAttempt(3, 0, 0, 50, 200));
    session.flush();
    model.sort(AttemptLogModel::Duration, Qt::AscendingOrder);
    const QPersistentModelIndex longest = model.index(2, AttemptLogModel::Request);
    QCOMPARE(longest.data().toString(), QStringLiteral("#3"));

    // Durations 20 and 40 belong between the existing rows.
    QSignalSpy layout(&model, &QAbstractItemModel::layoutChanged);
    session.recordAttempt(httpAttempt(4, 0, 0, 20, 200));
    session.recordAttempt(httpAttempt(5, 0, 0, 40, 200));
    session.recordAttempt(httpAttempt(6, 0, 0, 5, 200));
    session.flush();
    QCOMPARE(layout.count(), 1);
    QList<quint64> ids;
    for (int row = 0; row < model.rowCount(); ++row)
        ids.append(model.index(row, 0).data(AttemptLogModel::RequestIdRole).toULongLong());
    QCOMPARE(ids, (QList<quint64>{6, 1, 4, 2, 5, 3}));
    QCOMPARE(longest.row(), 5);
    QCOMPARE(longest.data().toString(), QStringLiteral("#3"));

    // Rows that sort after everything are appended without a layout change.
    session.recordAttempt(httpAttempt(7, 0, 0, 90, 200));
    session.flush();
    QCOMPARE(layout.count(), 1);
    QCOMPARE(model.index(6, 0).data(AttemptLogModel::RequestIdRole).toULongLong(), 7u);

    // A new cause while sorted by cause: ranks are rebuilt, the order stays right.
    model.sort(AttemptLogModel::Cause, Qt::AscendingOrder);
    session.recordAttempt(httpAttempt(8, 0, 0, 1, 404));
    session.flush();
    QCOMPARE(model.index(0, AttemptLogModel::Cause).data().toString(), QStringLiteral("http-200"));
    QCOMPARE(model.index(7, AttemptLogModel::Cause).data().toString(), QStringLiteral("http-404"));
}

void TestAttemptLogModel::visibleFinishedIndexes_mapBothWays()
{
    RunSession session;
    syntheticRun(session, 100);
    AttemptLogModel model;
    model.setSession(&session);
    model.setOutcomeFilter(AttemptLogModel::ShowFailures);
    model.sort(AttemptLogModel::Duration, Qt::DescendingOrder);
    const QList<qsizetype> visible = model.visibleFinishedIndexes();
    QCOMPARE(visible.size(), model.rowCount());
    for (int row = 0; row < visible.size(); ++row) {
        QCOMPARE(model.rowOfFinishedIndex(visible.at(row)), row);
        QCOMPARE(model.index(row, 0).data(AttemptLogModel::FinishedIndexRole).toLongLong(), visible.at(row));
        QVERIFY(session.attemptRow(session.finishedRow(visible.at(row))).outcome != Core::AttemptOutcome::Success);
    }
    // A success is hidden by the filter.
    for (qsizetype f = 0; f < session.finishedCount(); ++f) {
        if (session.attemptRow(session.finishedRow(f)).outcome == Core::AttemptOutcome::Success) {
            QCOMPARE(model.rowOfFinishedIndex(f), -1);
            break;
        }
    }
    QCOMPARE(model.rowOfFinishedIndex(-1), -1);
    QCOMPARE(model.finishedIndexAt(model.rowCount()), -1);
}

void TestAttemptLogModel::sessionCleared_resetsModel()
{
    RunSession session;
    AttemptLogModel model;
    model.setSession(&session);
    syntheticRun(session, 20);
    session.flush();
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    session.clear();
    QCOMPARE(reset.count(), 1);
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.totalCount(), 0);
}

void TestAttemptLogModel::manyRows_appendThenFilterAndSort_correct()
{
    // A hundred thousand rows in ten live batches: enough for every index the model keeps to
    // be exercised at scale under the sanitizers in a few seconds of CPU. A million is
    // bench_views' (bench/README.md), where the time is measured.
    RunSession session;
    AttemptLogModel model;
    model.setSession(&session);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);

    SyntheticCounts total;
    qint64 firstId = 1;
    int batches = 0;
    while (session.finishedCount() < 100'000) {
        const SyntheticCounts c = syntheticRun(session, 10'000, quint64(firstId), 2.0, firstId);
        total.attempts += c.attempts;
        total.failed += c.failed;
        total.retried += c.retried;
        total.succeeded += c.succeeded;
        firstId += 10'000;
        session.flush();
        ++batches;
    }
    QCOMPARE(inserted.count(), batches);
    QCOMPARE(model.rowCount(), int(session.finishedCount()));
    QVERIFY(model.rowCount() >= 100'000);
    QCOMPARE(qint64(model.rowCount()), total.attempts);
    QCOMPARE(model.index(model.rowCount() - 1, AttemptLogModel::Attempt).data().isValid(), true);

    model.setOutcomeFilter(AttemptLogModel::ShowFailed);
    QCOMPARE(qint64(model.rowCount()), total.failed);
    model.setOutcomeFilter(AttemptLogModel::ShowAll);

    model.setTextFilter(QStringLiteral("429"));
    QCOMPARE(qsizetype(model.rowCount()), countRows(session, [](const auto &row) { return row.httpStatus == 429; }));
    model.setTextFilter(QStringLiteral("refused"));
    QCOMPARE(qint64(model.rowCount()), 3 * total.failed); // every refused request tried three times
    model.setTextFilter(QStringLiteral("#55555"));
    QCOMPARE(model.rowCount(), int(session.lane(session.laneOf(55'555)).attempts));

    model.setTextFilter(QString());
    model.sort(AttemptLogModel::Duration, Qt::DescendingOrder);
    QCOMPARE(model.rowCount(), int(session.finishedCount()));
    double previous = model.index(0, AttemptLogModel::Duration).data(AttemptLogModel::SortRole).toDouble();
    for (int row = 1; row < model.rowCount(); row += 997) {
        const double d = model.index(row, AttemptLogModel::Duration).data(AttemptLogModel::SortRole).toDouble();
        QVERIFY(d <= previous);
        previous = d;
    }

    // More rows arrive while sorted and filtered.
    model.setOutcomeFilter(AttemptLogModel::ShowFailed);
    const int before = model.rowCount();
    const SyntheticCounts more = syntheticRun(session, 1000, 7, 2.0, firstId);
    session.flush();
    QCOMPARE(qint64(model.rowCount()), qint64(before) + more.failed);
}

QTEST_MAIN(TestAttemptLogModel)
#include "tst_attemptlogmodel.moc"
