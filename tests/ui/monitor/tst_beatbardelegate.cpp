#include "core/record/attemptrecord.h"
#include "ui/monitor/beatbardelegate.h"
#include "ui/monitor/monitorlistmodel.h"
#include "ui/monitor/sparklinedelegate.h"
#include "ui/widgets/outcomestyle.h"

#include <QApplication>
#include <QHeaderView>
#include <QHelpEvent>
#include <QTableView>
#include <QTest>
#include <QToolTip>

#include <cmath>

using namespace RetryLab;
using Ui::BeatBarDelegate;
using Ui::MonitorListModel;

namespace {

constexpr int slotPitch = 6;

Core::StoredCheck beatCheck(qint64 startMs, int attempts, bool success, bool maintenance = false)
{
    Core::StoredCheck check;
    check.monitor = QStringLiteral("shop");
    check.startMs = startMs;
    check.endMs = startMs + 250;
    check.success = success;
    check.maintenance = maintenance;
    check.finalStatus = success ? 200 : 503;
    for (int i = 0; i < attempts; ++i) {
        Core::StoredAttempt attempt;
        attempt.index = i;
        attempt.success = success && i == attempts - 1;
        check.attempts.append(attempt);
    }
    if (!success)
        check.reason = QStringLiteral("HTTP 503 after 2 attempts");
    return check;
}

// The pixel drawn for the logical pixel `at`: the grab is in device pixels
// (QT_SCALE_FACTOR=1.5 makes a logical pixel one and a half of them).
QColor pixelAt(const QImage &image, const QPoint &at)
{
    const double ratio = image.devicePixelRatio();
    return image.pixelColor(int((at.x() + 0.5) * ratio), int((at.y() + 0.5) * ratio));
}

// The device pixels of a logical rect; at a fractional scale its edges are left out,
// since they are shared with the pixels around it.
QRect devicePixels(const QImage &image, const QRect &logical)
{
    const double ratio = image.devicePixelRatio();
    const int left = int(std::ceil(logical.left() * ratio));
    const int top = int(std::ceil(logical.top() * ratio));
    const int right = int(std::floor((logical.right() + 1) * ratio)) - 1;
    const int bottom = int(std::floor((logical.bottom() + 1) * ratio)) - 1;
    return QRect(QPoint(left, top), QPoint(right, bottom));
}

// The colours met walking up a cell's middle column, runs of one colour
// merged, and the background at either end left out.
QList<QColor> runsUp(const QImage &image, const QRect &cell, const QColor &base)
{
    QList<QColor> runs;
    const QRect pixels = devicePixels(image, cell);
    const int x = pixels.center().x();
    for (int y = pixels.bottom(); y >= pixels.top(); --y) {
        const QColor colour = image.pixelColor(x, y);
        if (runs.isEmpty() || runs.last() != colour)
            runs.append(colour);
    }
    while (!runs.isEmpty() && runs.first() == base)
        runs.removeFirst();
    while (!runs.isEmpty() && runs.last() == base)
        runs.removeLast();
    return runs;
}

} // namespace

class TestBeatBarDelegate : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void oneAttemptSuccess_isOneSuccessCell();
    void threeAttempts_showThreeSegments_failedThenSucceeded();
    void failedCheck_failureColourAndAMarkUnderIt();
    void maintenanceCheck_isHatched();
    void missingHistory_leavesEmptyCells();
    void tooltip_tellsTimeAttemptsAndOutcome();
    void sparkline_drawsTheDurations_andTheMedianText();

private:
    QImage grab() const;
    QRect cell(int slot) const;

    MonitorListModel *m_model = nullptr;
    QTableView *m_view = nullptr;
};

void TestBeatBarDelegate::init()
{
    m_model = new MonitorListModel;
    Core::Monitor monitor;
    monitor.name = QStringLiteral("shop");
    m_model->setMonitors({monitor});
    // Slots, newest last: 36 maintenance, 37 failed after 2 attempts, 38 three
    // attempts that ended well, 39 one attempt.
    m_model->addCheck(beatCheck(1000, 1, true, true));
    m_model->addCheck(beatCheck(2000, 2, false));
    m_model->addCheck(beatCheck(3000, 3, true));
    m_model->addCheck(beatCheck(4000, 1, true));

    m_view = new QTableView;
    m_view->setModel(m_model);
    m_view->setItemDelegateForColumn(MonitorListModel::RecentChecks, new BeatBarDelegate(m_view));
    m_view->setItemDelegateForColumn(MonitorListModel::Latency, new Ui::SparklineDelegate(m_view));
    m_view->setColumnWidth(MonitorListModel::RecentChecks, 4 + MonitorListModel::beatCount * slotPitch);
    m_view->setColumnWidth(MonitorListModel::Latency, 160);
    m_view->verticalHeader()->setDefaultSectionSize(34);
    m_view->setSelectionMode(QAbstractItemView::NoSelection);
    m_view->resize(1000, 200);
    m_view->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_view));
}

void TestBeatBarDelegate::cleanup()
{
    delete m_view;
    delete m_model;
}

QImage TestBeatBarDelegate::grab() const
{
    return m_view->viewport()->grab().toImage();
}

QRect TestBeatBarDelegate::cell(int slot) const
{
    return BeatBarDelegate::cellRect(m_view->visualRect(m_model->index(0, MonitorListModel::RecentChecks)), slot);
}

void TestBeatBarDelegate::oneAttemptSuccess_isOneSuccessCell()
{
    const QRect one = cell(39);
    QVERIFY(one.width() >= 4);
    QVERIFY(one.height() >= 12);
    QCOMPARE(runsUp(grab(), one, m_view->palette().color(QPalette::Base)),
        (QList<QColor>{Ui::outcomeColor(Core::AttemptOutcome::Success)}));
    const QRect item = m_view->visualRect(m_model->index(0, MonitorListModel::RecentChecks));
    QCOMPARE(pixelAt(grab(), BeatBarDelegate::markRect(item, 39).center()), m_view->palette().color(QPalette::Base));
}

void TestBeatBarDelegate::threeAttempts_showThreeSegments_failedThenSucceeded()
{
    const QColor failure = Ui::outcomeColor(Core::AttemptOutcome::Failed);
    const QColor success = Ui::outcomeColor(Core::AttemptOutcome::Success);
    const QColor base = m_view->palette().color(QPalette::Base);
    // Bottom to top: attempt 1 failed, a gap, attempt 2 failed, a gap, attempt 3 succeeded.
    QCOMPARE(runsUp(grab(), cell(38), base), (QList<QColor>{failure, base, failure, base, success}));
}

void TestBeatBarDelegate::failedCheck_failureColourAndAMarkUnderIt()
{
    const QColor failure = Ui::outcomeColor(Core::AttemptOutcome::Failed);
    const QColor base = m_view->palette().color(QPalette::Base);
    const QImage image = grab();
    QCOMPARE(runsUp(image, cell(37), base), (QList<QColor>{failure, base, failure}));
    const QRect item = m_view->visualRect(m_model->index(0, MonitorListModel::RecentChecks));
    const QRect mark = BeatBarDelegate::markRect(item, 37);
    QVERIFY(mark.height() >= 2);
    // The mark is in the text colour: a shape, not a colour, says "failed".
    QCOMPARE(pixelAt(image, mark.center()), m_view->palette().color(QPalette::Text));
    QCOMPARE(pixelAt(image, BeatBarDelegate::markRect(item, 38).center()), base);
}

void TestBeatBarDelegate::maintenanceCheck_isHatched()
{
    const QImage image = grab();
    const QRect hatched = cell(36);
    const QColor grey = Ui::outcomeColor(Core::AttemptOutcome::Cancelled);
    const QColor text = m_view->palette().color(QPalette::Text);
    int greys = 0;
    int lines = 0;
    const QRect pixels = devicePixels(image, hatched);
    for (int y = pixels.top(); y <= pixels.bottom(); ++y) {
        for (int x = pixels.left(); x <= pixels.right(); ++x) {
            const QColor colour = image.pixelColor(x, y);
            QVERIFY2(colour == grey || colour == text, qPrintable(colour.name()));
            (colour == grey ? greys : lines) += 1;
        }
    }
    QVERIFY(greys > 0);
    QVERIFY(lines > 0);
    const QRect item = m_view->visualRect(m_model->index(0, MonitorListModel::RecentChecks));
    QCOMPARE(pixelAt(image, BeatBarDelegate::markRect(item, 36).center()), m_view->palette().color(QPalette::Base));
}

void TestBeatBarDelegate::missingHistory_leavesEmptyCells()
{
    const QImage image = grab();
    for (const int slot : {0, 20, 35}) {
        const QRect empty = cell(slot);
        QCOMPARE(pixelAt(image, empty.center()), m_view->palette().color(QPalette::Base));
        // An outline in the Mid colour, somewhere along its left edge.
        const QRect pixels = devicePixels(image, empty.adjusted(-1, 0, 0, 0));
        bool outlined = false;
        for (int x = pixels.left(); x <= pixels.left() + 2; ++x)
            outlined = outlined
                || image.pixelColor(x, pixels.center().y()).rgb() == m_view->palette().color(QPalette::Mid).rgb();
        QVERIFY(outlined);
    }
}

void TestBeatBarDelegate::tooltip_tellsTimeAttemptsAndOutcome()
{
    const QModelIndex index = m_model->index(0, MonitorListModel::RecentChecks);
    const QRect item = m_view->visualRect(index);
    const QString retried = BeatBarDelegate::toolTipAt(item, index, cell(38).center());
    QVERIFY2(retried.contains(QStringLiteral("succeeded after 2 failed attempt(s)")), qPrintable(retried));
    QVERIFY2(retried.contains(QStringLiteral("3 attempt(s), 250 ms")), qPrintable(retried));
    QVERIFY2(retried.contains(QStringLiteral("HTTP 200")), qPrintable(retried));
    const QString failed = BeatBarDelegate::toolTipAt(item, index, cell(37).center());
    QVERIFY2(failed.contains(QStringLiteral("failed")), qPrintable(failed));
    QVERIFY2(failed.contains(QStringLiteral("HTTP 503 after 2 attempts")), qPrintable(failed));
    QVERIFY(BeatBarDelegate::toolTipAt(item, index, cell(36).center()).contains(QStringLiteral("maintenance")));
    QCOMPARE(BeatBarDelegate::toolTipAt(item, index, cell(3).center()), QStringLiteral("No check yet"));

    // The view asks the delegate through a tooltip event on its viewport.
    const QPoint at = cell(37).center();
    QHelpEvent help(QEvent::ToolTip, at, m_view->viewport()->mapToGlobal(at));
    QApplication::sendEvent(m_view->viewport(), &help);
    QTRY_VERIFY(QToolTip::isVisible());
    QCOMPARE(QToolTip::text(), failed);
    QToolTip::hideText();
}

void TestBeatBarDelegate::sparkline_drawsTheDurations_andTheMedianText()
{
    const QModelIndex latency = m_model->index(0, MonitorListModel::Latency);
    QCOMPARE(latency.data().toString(), QStringLiteral("250 ms"));
    const QRect item = m_view->visualRect(latency);
    const int textWidth = m_view->fontMetrics().horizontalAdvance(latency.data().toString()) + 3;
    const QRect line = Ui::SparklineDelegate::lineRect(item, textWidth);
    QVERIFY(line.width() > 40);
    // Every check took 250 ms: a flat line along the top of the area.
    const QImage image = grab();
    const QColor base = m_view->palette().color(QPalette::Base);
    int drawn = 0;
    for (int x = line.left() + 2; x < line.right() - 2; ++x) {
        bool ink = false;
        for (int y = line.top() - 1; y <= line.top() + 1; ++y)
            ink = ink || pixelAt(image, QPoint(x, y)) != base;
        drawn += ink ? 1 : 0;
    }
    QVERIFY2(drawn > line.width() / 2, qPrintable(QString::number(drawn)));
    int below = 0;
    for (int x = line.left() + 2; x < line.right() - 2; ++x)
        below += pixelAt(image, QPoint(x, line.bottom())) != base ? 1 : 0;
    QCOMPARE(below, 0);
}

QTEST_MAIN(TestBeatBarDelegate)
#include "tst_beatbardelegate.moc"
