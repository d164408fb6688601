#include "core/executor/threadedexecutor.h"
#include "core/faultserver/faultserver.h"
#include "ui/run/attemptlogmodel.h"
#include "ui/run/statisticsview.h"
#include "ui/run/timelineview.h"
#include "ui/session/run/runsession.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

using namespace RetryLab;
using Ui::AttemptLogModel;
using Ui::RunSession;

class TestLiveRun : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void executorRun_reachesSessionLogTimelineAndStatistics();
};

void TestLiveRun::initTestCase()
{
    QLocale::setDefault(QLocale::c());
}

void TestLiveRun::executorRun_reachesSessionLogTimelineAndStatistics()
{
    // The embedded fault server answers 503 twice, then 200.
    Core::FaultServer server;
    QVERIFY2(server.listen(), qPrintable(server.errorString()));
    const QUrl url(server.baseUrl().toString() + QStringLiteral("/fail/2?key=live"));

    Core::ThreadedExecutor executor;
    Core::BackoffPolicy policy;
    policy.name = QStringLiteral("Live test");
    policy.algorithm = Core::BackoffAlgorithm::Exponential;
    policy.baseDelayMs = 40;
    policy.multiplier = 2;
    policy.maxBackoffMs = 1000;
    policy.maxAttempts = 5;
    policy.attemptTimeoutMs = 5000;
    executor.setPolicy(policy);

    RunSession session;
    session.attach(&executor);
    AttemptLogModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setSession(&session);
    Ui::TimelineView timeline;
    timeline.resize(900, 300);
    timeline.setSession(&session);
    timeline.show();
    QVERIFY(QTest::qWaitForWindowExposed(&timeline));
    Ui::StatisticsView statistics;
    statistics.setRefreshInterval(20);
    statistics.setSession(&session);

    QSignalSpy started(&executor, &Core::ThreadedExecutor::attemptStarted);
    QSignalSpy updates(&session, &RunSession::updated);
    Core::RequestSpec spec;
    spec.url = url;
    spec.label = QStringLiteral("fails twice");
    const quint64 id = session.submit(spec);
    QVERIFY(id > 0);

    // The lane is there at once; its attempts arrive from the executor's thread.
    QCOMPARE(session.laneTitle(0), QStringLiteral("#%1 fails twice").arg(id));
    QTRY_COMPARE_WITH_TIMEOUT(session.resultCount(), 1, 10'000);
    session.flush();

    QCOMPARE(server.handledCount(), 3u);
    QCOMPARE(started.count(), 3);
    QVERIFY(updates.count() >= 1);
    // Rows are the started attempts, filled in when they finished: none twice.
    QCOMPARE(session.attemptRowCount(), 3);
    QCOMPARE(session.finishedCount(), 3);
    QCOMPARE(session.inFlightCount(), 0);
    QVERIFY(!session.hasActivity());
    const RunSession::Lane &lane = session.lane(0);
    QVERIFY(lane.finished);
    QCOMPARE(lane.outcome, quint8(Core::RequestOutcome::Succeeded));
    const QList<qint16> statuses{
        session.attemptRow(0).httpStatus, session.attemptRow(1).httpStatus, session.attemptRow(2).httpStatus};
    QCOMPARE(statuses, (QList<qint16>{503, 503, 200}));
    QCOMPARE(session.attemptRow(0).outcome, Core::AttemptOutcome::Retried);
    QCOMPARE(session.attemptRow(2).outcome, Core::AttemptOutcome::Success);
    // Exponential without jitter: 40 ms, then 80 ms, planned and waited.
    QCOMPARE(session.attemptRow(0).nextDelayMs, 40.0F);
    QCOMPARE(session.attemptRow(1).plannedDelayMs, 40.0F);
    QCOMPARE(session.attemptRow(2).plannedDelayMs, 80.0F);
    QVERIFY(session.attemptRow(2).actualDelayMs >= 79.0F);
    QVERIFY(session.attemptRow(1).startNs - session.attemptRow(0).endNs >= 39'000'000);
    QVERIFY(session.string(session.attemptRow(0).retryNote).contains(QLatin1String("503")));

    // The log.
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.index(0, AttemptLogModel::Status).data().toString(), QStringLiteral("503 Service Unavailable"));
    QCOMPARE(model.index(2, AttemptLogModel::Status).data().toString(), QStringLiteral("200 OK"));
    QCOMPARE(model.index(1, AttemptLogModel::Attempt).data().toString(), QStringLiteral("2"));
    QCOMPARE(model.index(0, AttemptLogModel::NextDelay).data().toString(), QStringLiteral("40 ms"));

    // The timeline: every attempt has a bar, and the bar is where the record says.
    timeline.zoomToFit();
    for (qsizetype row = 0; row < 3; ++row) {
        const QRectF bar = timeline.attemptRect(row);
        QVERIFY(!bar.isEmpty());
        const auto hit = timeline.hitAt(bar.center().toPoint());
        QCOMPARE(int(hit.kind), int(Ui::TimelineView::Hit::Kind::Attempt));
        QCOMPARE(hit.row, row);
    }
    const QPoint gap((timeline.attemptRect(0).right() + timeline.attemptRect(1).left()) / 2,
        int(timeline.attemptRect(0).center().y()));
    QCOMPARE(int(timeline.hitAt(gap).kind), int(Ui::TimelineView::Hit::Kind::Gap));
    QVERIFY(timeline.toolTipFor(timeline.hitAt(timeline.attemptRect(0).center().toPoint()))
                .contains(QLatin1String("503 Service Unavailable")));

    // The statistics.
    QTRY_COMPARE(statistics.figureText(Ui::StatisticsView::Figure::SuccessRate), QStringLiteral("100.0 %"));
    QCOMPARE(statistics.figureText(Ui::StatisticsView::Figure::RetryAmplification), QStringLiteral("3.00\u00d7"));
    QCOMPARE(statistics.figureText(Ui::StatisticsView::Figure::Errors), QStringLiteral("2 / 0"));

    // And what the exports get.
    const Core::RunRecord record = session.runRecord();
    QCOMPARE(record.policy.name, QStringLiteral("Live test"));
    QCOMPARE(record.attempts.size(), 3);
    QCOMPARE(record.results.size(), 1);
    QCOMPARE(record.results.first().attempts, 3);
    QCOMPARE(record.requests.value(id).url, url);
    QCOMPARE(record.attempts.at(2).responseHeaders.isEmpty(), false); // originals, not rebuilt
    QVERIFY(session.isRecordComplete());
}

QTEST_MAIN(TestLiveRun)
#include "tst_liverun.moc"
