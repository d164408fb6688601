#include "core/util/clock.h"
#include "tests/ui/session/sessionfixtures.h"
#include "ui/run/timelineruns.h"
#include "ui/run/timelineview.h"
#include "ui/session/run/runsession.h"
#include "ui/widgets/outcomestyle.h"

#include <QApplication>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTest>
#include <QWheelEvent>

using namespace RetryLab;
using namespace RetryLab::Fixtures;
using Hit = Ui::TimelineView::Hit;
using Ui::RunSession;
using Ui::TimelineView;

namespace {

// Rows, in the order fed:
//   0: request 1 attempt 1, 503 [0, 100] ms, retry planned in 200 ms
//   1: request 2 attempt 1, 200 [50, 80] ms
//   2: request 3 attempt 1, 503 [100, 150] ms, retry planned in 1000 ms and not started
//   3: request 1 attempt 2, 200 [300, 350] ms (planned 200, timer gave 200)
// Lanes: 0 = request 1, 1 = request 2, 2 = request 3. The clock stands at 400 ms.
void feedScene(RunSession &session, Core::ManualClock &clock)
{
    session.setClock(&clock);
    session.clear();
    session.recordAttempt(httpAttempt(1, 0, 0, 100, 503, 200));
    session.recordRetryScheduled(1, 1, 200, QStringLiteral("HTTP 503 (Exponential backoff)"), 3, 100 * ms);
    session.recordAttempt(httpAttempt(2, 0, 50, 80, 200));
    session.recordResult(result(2, RequestOutcome::Succeeded, 1, 50, 80));
    session.recordAttempt(httpAttempt(3, 0, 100, 150, 503, 1000));
    session.recordRetryScheduled(3, 1, 1000, QStringLiteral("HTTP 503 (Exponential backoff)"), 3, 150 * ms);
    AttemptRecord second = httpAttempt(1, 1, 300, 350, 200);
    second.plannedDelayMs = 200;
    second.actualDelayMs = 200;
    session.recordAttemptStarted(1, 1, 300 * ms);
    session.recordAttempt(second);
    session.recordResult(result(1, RequestOutcome::Succeeded, 2, 0, 350));
    clock.setNs(400 * ms);
    session.flush();
}

} // namespace

class TestTimelineView : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void hitAt_findsAttemptGapPendingLaneAndNothing();
    void hitAt_nearNarrowBar_barWins();
    void attemptRect_matchesTheTimeScale();
    void tooltips_showTheRecordAndTheDelays();
    void live_inFlightBarGrowsAndViewFollows();
    void live_manyRecords_repaintsCoalesced();
    void live_newLanesBelowTheFold_scrollIntoView_orAreMarkedWhenScrolledAway();
    void ctrlWheel_zoomsAboutPointer();
    void drag_pansAndStopsFollowing();
    void keys_zoomPanFitAndFollow();
    void click_emitsAttempt_doubleClick_zoomsToRequest();
    void tenThousandLanes_scrollAndHitStayExact();
    void palette_lightAndDark_barsInOutcomeColours_data();
    void palette_lightAndDark_barsInOutcomeColours();
    void fallbackAttempt_bandInTheFallbackColour();
    void hedgedAttempts_sideBySideInOneLane_winnerOutlined();
    void emptySession_showsNoLanes();
    void fit_showsTheLatestRun_thenTheWholeSession();
    void fit_afterANewSend_fitsTheNewRunNotTheLaneClickedBefore();
    void wholeSession_lastAttemptBeforeAnIdleStretch_staysInSight();
    void idleLabels_areLengthsThatFitTheirBand_data();
    void idleLabels_areLengthsThatFitTheirBand();

private:
    QPoint at(double ms, int lane) const;

    Core::ManualClock *m_clock = nullptr;
    RunSession *m_session = nullptr;
    TimelineView *m_view = nullptr;
};

void TestTimelineView::init()
{
    m_clock = new Core::ManualClock;
    m_session = new RunSession;
    feedScene(*m_session, *m_clock);
    m_view = new TimelineView;
    m_view->resize(1000, 400);
    m_view->setSession(m_session);
    m_view->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_view));
    m_view->setVisibleRange(0, 1000);
}

void TestTimelineView::cleanup()
{
    delete m_view;
    delete m_session;
    delete m_clock;
}

QPoint TestTimelineView::at(double ms, int lane) const
{
    const QRect time = m_view->timeArea();
    const Ui::TimeScale &scale = m_view->timeScale();
    return QPoint(time.left() + int(std::lround(scale.toPixel(ms))),
        m_view->laneArea().top() + lane * m_view->laneHeight() + m_view->laneHeight() / 2
            - m_view->verticalScrollBar()->value());
}

void TestTimelineView::hitAt_findsAttemptGapPendingLaneAndNothing()
{
    QVERIFY(!m_view->followLive());
    QCOMPARE(m_view->timeScale().startMs, 0.0);
    QCOMPARE(m_view->timeScale().endMs, 1000.0);

    const auto check = [this](QPoint pos, Hit::Kind kind, qsizetype lane, qsizetype row) {
        const Hit hit = m_view->hitAt(pos);
        QCOMPARE(int(hit.kind), int(kind));
        QCOMPARE(hit.lane, lane);
        QCOMPARE(hit.row, row);
    };
    check(at(50, 0), Hit::Kind::Attempt, 0, 0);
    check(at(200, 0), Hit::Kind::Gap, 0, 3);
    check(at(325, 0), Hit::Kind::Attempt, 0, 3);
    check(at(700, 0), Hit::Kind::Lane, 0, -1);
    check(at(65, 1), Hit::Kind::Attempt, 1, 1);
    check(at(120, 2), Hit::Kind::Attempt, 2, 2);
    check(at(400, 2), Hit::Kind::PendingRetry, 2, 2); // 150 ms + 1000 ms planned, clock at 400 ms
    check(QPoint(5, at(0, 1).y()), Hit::Kind::Lane, 1, -1); // the label column
    check(QPoint(at(50, 0).x(), 2), Hit::Kind::Nothing, -1, -1); // the axis
    check(at(50, 3), Hit::Kind::Nothing, -1, -1); // below the last lane
    check(QPoint(at(50, 0).x(), m_view->viewport()->height() - 3), Hit::Kind::Nothing, -1, -1); // the legend
}

void TestTimelineView::hitAt_nearNarrowBar_barWins()
{
    // 2 px left of request 2's bar (30 ms wide here) still hits it, within the 3 px tolerance.
    const QPoint start = at(50, 1);
    QCOMPARE(int(m_view->hitAt(start - QPoint(2, 0)).kind), int(Hit::Kind::Attempt));
    QCOMPARE(int(m_view->hitAt(start - QPoint(12, 0)).kind), int(Hit::Kind::Lane));
}

void TestTimelineView::attemptRect_matchesTheTimeScale()
{
    const QRectF bar = m_view->attemptRect(3);
    QCOMPARE(bar.left(), m_view->timeArea().left() + m_view->timeScale().toPixel(300));
    QCOMPARE(bar.right(), m_view->timeArea().left() + m_view->timeScale().toPixel(350));
    QVERIFY(bar.contains(at(325, 0)));
    QCOMPARE(m_view->hitAt(bar.center().toPoint()).row, 3);
    QVERIFY(m_view->attemptRect(99).isEmpty());
}

void TestTimelineView::tooltips_showTheRecordAndTheDelays()
{
    const QString attempt = m_view->toolTipFor(m_view->hitAt(at(50, 0)));
    QVERIFY2(attempt.contains(QLatin1String("503 Service Unavailable")), qPrintable(attempt));
    QVERIFY(attempt.contains(QLatin1String("http-503")));
    QVERIFY(attempt.contains(QLatin1String("server error; transient")));
    QVERIFY(attempt.contains(QLatin1String("Failed, retried")));
    QVERIFY(attempt.contains(QLatin1String("took 100 ms")));
    QVERIFY(attempt.contains(QLatin1String("Next delay")));
    QVERIFY(attempt.contains(QLatin1String("200 ms: HTTP 503 (Exponential backoff)")));

    const QString gap = m_view->toolTipFor(m_view->hitAt(at(200, 0)));
    QVERIFY2(gap.contains(QLatin1String("Planned delay")), qPrintable(gap));
    QVERIFY(gap.contains(QLatin1String("Backoff before attempt")));
    QVERIFY(gap.contains(QLatin1String("Gap on the axis")));

    const QString pending = m_view->toolTipFor(m_view->hitAt(at(400, 2)));
    QVERIFY2(pending.contains(QLatin1String("Retry planned in")), qPrintable(pending));
    QVERIFY(pending.contains(QLatin1String("<b>Retry planned in</b></td><td>1 s<")));
    QVERIFY(pending.contains(QLatin1String("Attempts left")));

    const QString lane = m_view->toolTipFor(m_view->hitAt(QPoint(5, at(0, 1).y())));
    QVERIFY2(lane.contains(QLatin1String("succeeded")), qPrintable(lane));
    QVERIFY(m_view->toolTipFor(Hit{}).isEmpty());
}

void TestTimelineView::live_inFlightBarGrowsAndViewFollows()
{
    m_session->recordAttemptStarted(3, 1, 1150 * ms);
    m_clock->setNs(1200 * ms);
    m_session->flush();
    m_view->setFollowLive(true);
    const qsizetype row = m_session->attemptRowCount() - 1;
    QVERIFY(m_session->attemptRow(row).inFlight());
    const quint64 paints = m_view->paintCount();

    // Nothing reports anything while the attempt runs: the live timer redraws on its own.
    m_clock->setNs(2200 * ms);
    QTRY_VERIFY(m_view->paintCount() >= paints + 2);
    QTRY_VERIFY(m_view->timeScale().endMs >= 2200.0); // the live edge moved
    const QRectF after = m_view->attemptRect(row);
    const double msPerPx = 1.0 / m_view->timeScale().pixelsPerMs();
    QVERIFY(after.width() * msPerPx > 1000.0); // runs 1050 ms now
    QCOMPARE(int(m_view->hitAt(after.center().toPoint()).kind), int(Hit::Kind::Attempt));

    // Finished and idle: the timer stops.
    AttemptRecord done = httpAttempt(3, 1, 1150, 2200, 200);
    m_session->recordAttempt(done);
    m_session->recordResult(result(3, RequestOutcome::Succeeded, 2, 100, 2200));
    m_session->flush();
    QVERIFY(!m_session->hasActivity());
    QCOMPARE(m_session->attemptRow(row).outcome, Core::AttemptOutcome::Success);
}

void TestTimelineView::live_newLanesBelowTheFold_scrollIntoView_orAreMarkedWhenScrolledAway()
{
    m_session->recordResult(result(3, RequestOutcome::Succeeded, 1, 100, 150));
    m_view->setFollowLive(true);
    QScrollBar *vertical = m_view->verticalScrollBar();
    const int fit = m_view->laneArea().height() / m_view->laneHeight();
    // A batch: far more requests than the view has lanes for, in two steps.
    const auto addRequests = [this](quint64 from, quint64 to) {
        for (quint64 id = from; id < to; ++id)
            m_session->recordAttempt(httpAttempt(id, 0, 500 + double(id), 560 + double(id), 200));
        m_clock->setNs((700 + to) * ms);
        m_session->flush();
    };
    addRequests(4, 4 + 2 * fit);
    // The newest lane is in view, without anyone scrolling.
    QTRY_VERIFY(vertical->maximum() > 0);
    QTRY_COMPARE(vertical->value(), vertical->maximum());
    const qsizetype lanes = m_session->laneCount();
    const int newestTop = m_view->laneArea().top() + int(lanes - 1) * m_view->laneHeight() - vertical->value();
    QVERIFY(newestTop + m_view->laneHeight() <= m_view->laneArea().bottom() + 1);
    QCOMPARE(m_view->newLanesBelow(), 0);
    QVERIFY(m_view->newLanesMarker().isEmpty());

    // Scrolled up to read an earlier lane: it stays put, and the new lanes are counted below.
    vertical->setValue(0);
    addRequests(4 + 2 * fit, 4 + 2 * fit + 5);
    QTRY_COMPARE(m_view->newLanesBelow(), 5);
    QCOMPARE(vertical->value(), 0);
    const QRect marker = m_view->newLanesMarker();
    QVERIFY(!marker.isEmpty());
    // Drawn over the lanes, in the highlight colour.
    const QImage image = m_view->viewport()->grab().toImage();
    QCOMPARE(image.pixelColor(marker.center().x(), marker.top() + 2), m_view->palette().color(QPalette::Highlight));
    // A click on it goes to the newest, and following resumes.
    QTest::mouseClick(m_view->viewport(), Qt::LeftButton, {}, marker.center());
    QCOMPARE(vertical->value(), vertical->maximum());
    QCOMPARE(m_view->newLanesBelow(), 0);
    const int before = vertical->maximum();
    addRequests(4 + 2 * fit + 5, 4 + 2 * fit + 8);
    QTRY_VERIFY(vertical->maximum() > before);
    QTRY_COMPARE(vertical->value(), vertical->maximum());
    QCOMPARE(m_view->newLanesBelow(), 0);
}

void TestTimelineView::live_manyRecords_repaintsCoalesced()
{
    // Idle first, so that the live timer does not draw on its own.
    m_session->recordResult(result(3, RequestOutcome::Cancelled, 1, 100, 400));
    m_session->flush();
    QVERIFY(!m_session->hasActivity());
    QApplication::processEvents();
    const quint64 paints = m_view->paintCount();
    for (int i = 0; i < 20; ++i) {
        syntheticRun(*m_session, 100, quint64(i), 1.0, 1000 + i * 100);
        // Many records between two event-loop turns: the session coalesces them.
    }
    QSignalSpy updated(m_session, &RunSession::updated);
    QTRY_COMPARE(updated.count(), 1);
    QApplication::processEvents();
    QApplication::processEvents();
    QVERIFY2(m_view->paintCount() - paints <= 3, qPrintable(QString::number(m_view->paintCount() - paints)));
    QVERIFY(m_view->paintCount() > paints);
}

void TestTimelineView::ctrlWheel_zoomsAboutPointer()
{
    const QPoint pointer = at(300, 0);
    const double timeThere = m_view->timeScale().toTime(pointer.x() - m_view->timeArea().left());
    const double span = m_view->timeScale().spanMs();
    QWheelEvent wheel(QPointF(pointer), m_view->viewport()->mapToGlobal(QPointF(pointer)), QPoint(), QPoint(0, 120),
        Qt::NoButton, Qt::ControlModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(m_view->viewport(), &wheel);
    QVERIFY(m_view->timeScale().spanMs() < span);
    QCOMPARE(m_view->timeScale().toTime(pointer.x() - m_view->timeArea().left()), timeThere);
    QVERIFY(!m_view->followLive());

    // Shift+wheel pans.
    const double start = m_view->timeScale().startMs;
    QWheelEvent pan(QPointF(pointer), m_view->viewport()->mapToGlobal(QPointF(pointer)), QPoint(), QPoint(0, -120),
        Qt::NoButton, Qt::ShiftModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(m_view->viewport(), &pan);
    QVERIFY(m_view->timeScale().startMs > start);
}

void TestTimelineView::drag_pansAndStopsFollowing()
{
    m_view->setVisibleRange(100, 600);
    const double pxPerMs = m_view->timeScale().pixelsPerMs();
    QSignalSpy clicked(m_view, &TimelineView::attemptClicked);
    const QPoint from = at(400, 0);
    QTest::mousePress(m_view->viewport(), Qt::LeftButton, {}, from);
    QTest::mouseMove(m_view->viewport(), from - QPoint(40, 0));
    QTest::mouseMove(m_view->viewport(), from - QPoint(100, 0));
    QTest::mouseRelease(m_view->viewport(), Qt::LeftButton, {}, from - QPoint(100, 0));
    QCOMPARE(m_view->timeScale().startMs, 100.0 + 100.0 / pxPerMs);
    QCOMPARE(m_view->timeScale().spanMs(), 500.0);
    QVERIFY(!m_view->followLive());
    QCOMPARE(clicked.count(), 0); // a drag is not a click
}

void TestTimelineView::keys_zoomPanFitAndFollow()
{
    m_view->setFocus();
    QSignalSpy follow(m_view, &TimelineView::followLiveChanged);
    QTest::keyClick(m_view, Qt::Key_Plus);
    QCOMPARE(m_view->timeScale().spanMs(), 1000.0 / 1.5);
    const double start = m_view->timeScale().startMs;
    QTest::keyClick(m_view, Qt::Key_Right);
    QCOMPARE(m_view->timeScale().startMs, start + 0.1 * 1000.0 / 1.5);
    QTest::keyClick(m_view, Qt::Key_Minus);
    QCOMPARE(m_view->timeScale().spanMs(), 1000.0);
    QTest::keyClick(m_view, Qt::Key_Home);
    QVERIFY(m_view->followLive());
    QCOMPARE(m_view->timeScale().startMs, 0.0);
    QCOMPARE(m_view->timeScale().endMs, m_view->timeScale().boundEndMs);
    QTest::keyClick(m_view, Qt::Key_Left);
    QVERIFY(!m_view->followLive());
    QTest::keyClick(m_view, Qt::Key_End);
    QVERIFY(m_view->followLive());
    QCOMPARE(follow.count(), 3);
}

void TestTimelineView::click_emitsAttempt_doubleClick_zoomsToRequest()
{
    QSignalSpy clicked(m_view, &TimelineView::attemptClicked);
    QTest::mouseClick(m_view->viewport(), Qt::LeftButton, {}, at(325, 0));
    QCOMPARE(clicked.count(), 1);
    QCOMPARE(clicked.first().first().toLongLong(), 3);

    QTest::mouseDClick(m_view->viewport(), Qt::LeftButton, {}, at(700, 0));
    // Request 1 ran from 0 to 350 ms; 8 % padding each side (the start is clamped at 0).
    QCOMPARE(m_view->timeScale().startMs, 0.0);
    QCOMPARE(m_view->timeScale().endMs, 350.0 + 28.0 + 28.0);
}

void TestTimelineView::tenThousandLanes_scrollAndHitStayExact()
{
    m_session->clear();
    syntheticRun(*m_session, 10'000, 3, 20.0);
    m_session->flush();
    QCOMPARE(m_session->laneCount(), 10'000);
    QScrollBar *bar = m_view->verticalScrollBar();
    QTRY_COMPARE(bar->maximum(), 10'000 * m_view->laneHeight() - m_view->laneArea().height()); // at the next frame
    bar->setValue(bar->maximum());
    QVERIFY(m_view->firstVisibleLane() > 9'980);
    const qsizetype lane = 9'990;
    const RunSession::Lane &l = m_session->lane(lane);
    m_view->setVisibleRange(m_session->toRunMs(l.firstStartNs) - 100, m_session->toRunMs(l.firstStartNs) + 1000);
    const QRectF first = m_view->attemptRect(l.firstRow);
    QVERIFY(!first.isEmpty());
    const Hit hit = m_view->hitAt(first.center().toPoint());
    QCOMPARE(int(hit.kind), int(Hit::Kind::Attempt));
    QCOMPARE(hit.lane, lane);
    QCOMPARE(hit.row, qsizetype(l.firstRow));
    const QImage image = m_view->viewport()->grab().toImage();
    QCOMPARE(image.pixelColor(first.center().toPoint()), Ui::outcomeColor(m_session->attemptRow(l.firstRow).outcome));
}

void TestTimelineView::palette_lightAndDark_barsInOutcomeColours_data()
{
    QTest::addColumn<bool>("dark");
    QTest::addRow("light") << false;
    QTest::addRow("dark") << true;
}

void TestTimelineView::palette_lightAndDark_barsInOutcomeColours()
{
    QFETCH(bool, dark);
    QPalette palette = m_view->palette();
    if (dark) {
        palette.setColor(QPalette::Base, QColor(0x1e, 0x1f, 0x22));
        palette.setColor(QPalette::AlternateBase, QColor(0x1e, 0x1f, 0x22));
        palette.setColor(QPalette::Window, QColor(0x2b, 0x2d, 0x31));
        palette.setColor(QPalette::Text, QColor(0xe6, 0xe6, 0xe6));
        palette.setColor(QPalette::WindowText, QColor(0xe6, 0xe6, 0xe6));
    } else {
        palette.setColor(QPalette::AlternateBase, palette.color(QPalette::Base));
    }
    m_view->setPalette(palette);
    const QImage image = m_view->viewport()->grab().toImage();
    const auto colourAt = [&image](QPoint p) { return image.pixelColor(p); };
    QCOMPARE(colourAt(m_view->attemptRect(0).center().toPoint()), Ui::outcomeColor(Core::AttemptOutcome::Retried));
    QCOMPARE(colourAt(m_view->attemptRect(3).center().toPoint()), Ui::outcomeColor(Core::AttemptOutcome::Success));
    // Empty time in a lane shows the palette's base colour, whatever the palette.
    QCOMPARE(colourAt(at(700, 1) + QPoint(0, 4)), palette.color(QPalette::Base));
    QCOMPARE(Ui::isDarkPalette(palette), dark);
}

void TestTimelineView::fallbackAttempt_bandInTheFallbackColour()
{
    // Request 3 gives up, and its fallback answers on the same lane.
    AttemptRecord atFallback = httpAttempt(3, 1, 400, 450, 200);
    atFallback.fallback = 1;
    m_session->recordAttemptStarted(3, 1, 400 * ms);
    m_session->recordAttempt(atFallback);
    m_clock->setNs(500 * ms);
    m_session->flush();
    const qsizetype row = m_session->attemptRowCount() - 1;
    QCOMPARE(m_session->attemptRow(row).fallback, quint8(1));
    QCOMPARE(m_session->attemptRow(row).lane, quint32(2));
    const QImage image = m_view->viewport()->grab().toImage();
    const QRect bar = m_view->attemptRect(row).toRect();
    QCOMPARE(image.pixelColor(bar.center().x(), bar.top() + 1), Ui::fallbackColor()); // the band along the top
    QCOMPARE(image.pixelColor(bar.center().x(), bar.center().y() + 1), Ui::outcomeColor(Core::AttemptOutcome::Success));
    // The attempts at the request's own URL have no band.
    const QRect first = m_view->attemptRect(2).toRect();
    QCOMPARE(image.pixelColor(first.center().x(), first.top() + 1), Ui::outcomeColor(Core::AttemptOutcome::Retried));
}

void TestTimelineView::hedgedAttempts_sideBySideInOneLane_winnerOutlined()
{
    // Request 4 hedges: attempt 1 stalls from 500 ms, attempt 2 goes out at 600 ms beside it and
    // answers at 650 ms; attempt 1 is then cut. The records arrive winner first.
    m_session->recordAttemptStarted(4, 0, 500 * ms);
    m_session->recordAttemptStarted(4, 1, 600 * ms);
    QCOMPARE(m_session->inFlightCount(), 2);
    // Out beside the first: on a track of its own while both run.
    QVERIFY(m_session->attemptRow(m_session->attemptRowCount() - 1).hedged());
    AttemptRecord winner = httpAttempt(4, 1, 600, 650, 200);
    winner.hedged = true;
    winner.hedgeWinner = true;
    winner.plannedDelayMs = 100;
    winner.actualDelayMs = 100;
    AttemptRecord cut = httpAttempt(4, 0, 500, 650, 200);
    cut.httpStatus.reset();
    cut.end = AttemptEnd::Cancelled;
    cut.decision = Decision::GiveUp;
    cut.reason = QStringLiteral("cancelled; attempt 2 answered first");
    m_session->recordAttempt(winner);
    QCOMPARE(m_session->inFlightCount(), 1);
    m_session->recordAttempt(cut);
    QCOMPARE(m_session->inFlightCount(), 0);
    m_session->recordResult(result(4, RequestOutcome::Succeeded, 2, 500, 650));
    m_clock->setNs(700 * ms);
    m_session->flush();

    // Two rows in the lane, each filled by its own record: none left open.
    const qsizetype lane = m_session->laneCount() - 1;
    QCOMPARE(m_session->lane(lane).attempts, quint32(2));
    const qsizetype firstRow = m_session->lane(lane).firstRow;
    const qsizetype secondRow = m_session->attemptRow(firstRow).nextInLane;
    QCOMPARE(m_session->attemptRow(firstRow).end, quint8(AttemptEnd::Cancelled));
    QCOMPARE(m_session->attemptRow(firstRow).endNs, qint64(650 * ms));
    QVERIFY(m_session->attemptRow(secondRow).hedged());
    QVERIFY(m_session->attemptRow(secondRow).hedgeWinner());
    QVERIFY(!m_session->attemptRow(firstRow).hedged());

    // One above the other within the lane, overlapping in time.
    const QRectF first = m_view->attemptRect(firstRow);
    const QRectF second = m_view->attemptRect(secondRow);
    QVERIFY2(first.bottom() <= second.top(), qPrintable(QStringLiteral("%1 %2").arg(first.bottom()).arg(second.top())));
    QVERIFY(first.right() > second.left());
    QCOMPARE(m_view->hitAt(first.center().toPoint()).row, firstRow);
    QCOMPARE(m_view->hitAt(second.center().toPoint()).row, secondRow);
    QVERIFY(m_view->toolTipFor(m_view->hitAt(second.center().toPoint()))
                .contains(QStringLiteral("the answer the request kept")));

    const QImage image = m_view->viewport()->grab().toImage();
    const QRect bar = second.toRect();
    QCOMPARE(image.pixelColor(bar.center().x(), bar.top() + 1), Ui::hedgeWinnerColor());
    QCOMPARE(image.pixelColor(bar.center()), Ui::outcomeColor(Core::AttemptOutcome::Success));
    QCOMPARE(image.pixelColor(first.center().toPoint()), Ui::outcomeColor(Core::AttemptOutcome::Cancelled));
}

void TestTimelineView::emptySession_showsNoLanes()
{
    m_session->clear();
    m_session->flush();
    QVERIFY(m_view->followLive()); // a cleared session starts over, following
    QCOMPARE(m_view->verticalScrollBar()->maximum(), 0);
    QCOMPARE(int(m_view->hitAt(at(10, 0)).kind), int(Hit::Kind::Nothing));
    QVERIFY(!m_view->viewport()->grab().isNull());
    m_view->setSession(nullptr);
    QCOMPARE(int(m_view->hitAt(at(10, 0)).kind), int(Hit::Kind::Nothing));
}

void TestTimelineView::fit_afterANewSend_fitsTheNewRunNotTheLaneClickedBefore()
{
    m_session->recordResult(result(3, RequestOutcome::AttemptsExhausted, 1, 100, 150));
    m_clock->setNs(2'000 * ms);
    m_session->flush();
    // A request of the first run clicked while it is the only run.
    QTest::mouseClick(m_view->viewport(), Qt::LeftButton, {}, at(50, 0));
    QCOMPARE(m_view->selectedLane(), 0);
    // Then, after an idle minute, a batch of two.
    m_session->recordAttempt(httpAttempt(4, 0, 60'000, 60'040, 200));
    m_session->recordResult(result(4, RequestOutcome::Succeeded, 1, 60'000, 60'040));
    m_session->recordAttempt(httpAttempt(5, 0, 60'010, 60'090, 503, 100));
    m_session->recordResult(result(5, RequestOutcome::AttemptsExhausted, 1, 60'010, 60'090));
    m_clock->setNs(60'100 * ms);
    m_session->flush();

    QSignalSpy fitted(m_view, &Ui::TimelineView::fitted);
    m_view->zoomToFit();
    QVERIFY2(m_view->timeScale().startMs >= 59'000.0, qPrintable(QString::number(m_view->timeScale().startMs)));
    QVERIFY(m_view->followLive());
    QCOMPARE(fitted.size(), 1);
    QCOMPARE(fitted.at(0).at(0).toString(), QStringLiteral("the latest run, requests #4 to #5"));

    // Clicked after the send, the earlier request's run is what Fit shows.
    m_view->zoomToFit(); // the whole session, where the first run's bars are
    QTest::mouseClick(m_view->viewport(), Qt::LeftButton, {}, at(50, 0));
    QCOMPARE(m_view->selectedLane(), 0);
    m_view->zoomToFit();
    QVERIFY(!m_view->followLive());
    QVERIFY(m_view->timeScale().endMs < 1000.0);
    QCOMPARE(fitted.constLast().at(0).toString(), QStringLiteral("the run of request #1"));
}

void TestTimelineView::wholeSession_lastAttemptBeforeAnIdleStretch_staysInSight()
{
    // A long first run whose last request ends with a quick 200; five idle minutes; a second run.
    m_session->recordResult(result(3, RequestOutcome::Succeeded, 1, 100, 150));
    m_session->recordAttempt(httpAttempt(4, 0, 1'000, 100'000, 503));
    m_session->recordResult(result(4, RequestOutcome::AttemptsExhausted, 1, 1'000, 100'000));
    m_session->recordAttempt(httpAttempt(5, 0, 100'000, 100'002, 200));
    m_session->recordResult(result(5, RequestOutcome::Succeeded, 1, 100'000, 100'002));
    m_session->recordAttempt(httpAttempt(6, 0, 400'000, 400'050, 200));
    m_session->recordResult(result(6, RequestOutcome::Succeeded, 1, 400'000, 400'050));
    m_clock->setNs(400'100 * ms);
    m_session->flush();
    m_view->zoomToFit(); // the latest run
    m_view->zoomToFit(); // the whole session
    QCOMPARE(m_view->timeScale().gaps.size(), 1);
    const qsizetype last = m_session->lane(4).firstRow;
    const QRectF bar = m_view->attemptRect(last);
    QVERIFY(!bar.isEmpty());
    const QImage image = m_view->viewport()->grab().toImage();
    QCOMPARE(image.pixelColor(bar.center().toPoint()), Ui::outcomeColor(Core::AttemptOutcome::Success));
}

void TestTimelineView::idleLabels_areLengthsThatFitTheirBand_data()
{
    QTest::addColumn<double>("ms");
    QTest::addColumn<QString>("label");
    QTest::addRow("4.5 s") << 4'500.0 << QStringLiteral("4.5 s");
    QTest::addRow("58 s") << 58'200.0 << QStringLiteral("58 s");
    QTest::addRow("94 s, not 1:34") << 94'000.0 << QStringLiteral("94 s");
    QTest::addRow("5 min") << 300'000.0 << QStringLiteral("5 min");
    QTest::addRow("59 min") << 3'540'000.0 << QStringLiteral("59 min");
    QTest::addRow("1.5 h") << 5'400'000.0 << QStringLiteral("1.5 h");
}

void TestTimelineView::idleLabels_areLengthsThatFitTheirBand()
{
    QFETCH(double, ms);
    QFETCH(QString, label);
    const Ui::TimeScale::Gap gap{1'000.0, 1'000.0 + ms};
    QCOMPARE(Ui::TimelineRuns::lengthText(gap), label);
    // At a presentation's font too, the band holds its label.
    for (int points : {10, 15}) {
        QFont font = m_view->font();
        font.setPointSize(points);
        m_view->setFont(font);
        QVERIFY(m_view->timeScale().gapPx >= QFontMetrics(font).horizontalAdvance(label) + 6.0);
    }
}

void TestTimelineView::fit_showsTheLatestRun_thenTheWholeSession()
{
    // The scene's three requests end by 1150 ms at the latest (request 3 sleeps);
    // after an idle minute, a second send of two requests.
    m_session->recordResult(result(3, RequestOutcome::AttemptsExhausted, 1, 100, 150));
    m_session->recordAttempt(httpAttempt(4, 0, 60'000, 60'040, 200));
    m_session->recordResult(result(4, RequestOutcome::Succeeded, 1, 60'000, 60'040));
    m_session->recordAttempt(httpAttempt(5, 0, 60'010, 60'090, 503, 100));
    m_session->recordResult(result(5, RequestOutcome::AttemptsExhausted, 1, 60'010, 60'090));
    m_clock->setNs(60'100 * ms);
    m_session->flush();
    QCOMPARE(m_session->latestRunFirstLane(), 3);

    m_view->zoomToFit();
    QVERIFY(m_view->followLive());
    const double span = m_view->timeScale().spanMs();
    QVERIFY2(span < 1000.0, qPrintable(QString::number(span))); // the batch, not the idle minute
    QVERIFY(m_view->timeScale().startMs <= 60'000.0);
    QVERIFY(m_view->timeScale().startMs >= 59'000.0);
    // Each attempt of the latest run is wide enough to see and to click.
    QVERIFY(m_view->attemptRect(m_session->lane(3).firstRow).width() >= 20.0);

    m_view->zoomToFit(); // again: everything
    QCOMPARE(m_view->timeScale().startMs, 0.0);
    QCOMPARE(m_view->timeScale().endMs, m_view->timeScale().boundEndMs);
    // The idle minute drawn narrow and marked: both runs keep their width.
    const Ui::TimeScale &whole = m_view->timeScale();
    QCOMPARE(whole.gaps.size(), 1);
    QCOMPARE(whole.gaps.at(0).fromMs, 350.0); // request 1, the last of the first run, ended at 350 ms
    QCOMPARE(whole.gaps.at(0).toMs, 60'000.0);
    QCOMPARE(whole.toPixel(60'000.0) - whole.toPixel(350.0), whole.gapPx);
    QVERIFY2(whole.toPixel(60'090.0) - whole.toPixel(60'000.0) >= 20.0,
        qPrintable(QString::number(whole.toPixel(60'090.0) - whole.toPixel(60'000.0))));
    QVERIFY(!m_view->viewport()->grab().isNull());
    // Zoomed, everything is at scale again.
    m_view->zoomIn();
    QVERIFY(m_view->timeScale().gaps.isEmpty());

    // A request of the first run clicked: Fit shows that run, then again everything.
    m_view->zoomToFit(); // the latest run
    m_view->zoomToFit(); // everything
    QCOMPARE(m_view->timeScale().startMs, 0.0);
    QTest::mouseClick(m_view->viewport(), Qt::LeftButton, {}, at(50, 0));
    QCOMPARE(m_view->selectedLane(), 0);
    m_view->zoomToFit();
    QVERIFY(!m_view->followLive()); // a finished run does not grow
    QCOMPARE(m_view->timeScale().startMs, 0.0);
    QVERIFY2(m_view->timeScale().endMs >= 350.0 && m_view->timeScale().endMs < 1000.0,
        qPrintable(QString::number(m_view->timeScale().endMs)));
    QVERIFY(m_view->timeScale().gaps.isEmpty());
    m_view->zoomToFit();
    QVERIFY(m_view->followLive());
    QCOMPARE(m_view->timeScale().startMs, 0.0);
    QCOMPARE(m_view->timeScale().gaps.size(), 1);
    // Clicking where no lane is clears the selection: Fit is the latest run's again.
    QTest::mouseClick(m_view->viewport(), Qt::LeftButton, {}, at(100, 8));
    QCOMPARE(m_view->selectedLane(), -1);
    m_view->zoomToFit();
    QVERIFY(m_view->followLive());
    QVERIFY(m_view->timeScale().startMs >= 59'000.0);

    // A session that never fell idle is one run.
    m_session->clear();
    m_session->recordAttempt(httpAttempt(1, 0, 0, 100, 200));
    m_session->recordAttempt(httpAttempt(2, 0, 50, 150, 200));
    m_session->flush();
    QCOMPARE(m_session->latestRunFirstLane(), 0);
}

QTEST_MAIN(TestTimelineView)
#include "tst_timelineview.moc"
