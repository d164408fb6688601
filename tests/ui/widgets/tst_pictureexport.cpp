#include "core/util/clock.h"
#include "tests/ui/session/sessionfixtures.h"
#include "tests/ui/windowparts.h"
#include "ui/mainwindow.h"
#include "ui/presentationcontroller.h"
#include "ui/run/timelineview.h"
#include "ui/session/run/runsession.h"
#include "ui/widgets/messagebar.h"
#include "ui/widgets/outcomestyle.h"
#include "ui/widgets/pictureexport.h"

#include <QFile>
#include <QImage>
#include <QScrollBar>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace RetryLab;
using namespace RetryLab::Fixtures;
namespace PictureExport = RetryLab::Ui::PictureExport;

namespace {

// Two requests: a 503 retried then a 200, and a 200.
void feed(Ui::RunSession &session)
{
    session.recordAttempt(httpAttempt(1, 0, 0, 200, 503, 100));
    session.recordAttempt(httpAttempt(1, 1, 300, 500, 200));
    session.recordResult(result(1, RequestOutcome::Succeeded, 2, 0, 500));
    session.recordAttempt(httpAttempt(2, 0, 50, 450, 200));
    session.recordResult(result(2, RequestOutcome::Succeeded, 1, 50, 450));
    session.flush();
}

/// The fed session, drawn by a timeline of 700 x 300 on screen.
struct ShownTimeline
{
    Ui::RunSession session;
    Ui::TimelineView view; // after the session: it goes first

    ShownTimeline()
    {
        feed(session);
        view.resize(700, 300);
        view.setSession(&session);
        view.show();
    }
};

QByteArray contentOf(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace

class TestPictureExport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void kindOf_bySuffix();
    void png_holdsThePixelsShown();
    void svg_isADrawingWithItsText();
    void badPaths_areRefused_andNothingIsLost();
    void window_writesTheTabOnTop();

private:
    QTemporaryDir m_dir;
};

void TestPictureExport::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("RetryLab"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_pictureexport"));
}

void TestPictureExport::kindOf_bySuffix()
{
    QCOMPARE(PictureExport::kindOf(QStringLiteral("a/timeline.png")), PictureExport::Kind::Png);
    QCOMPARE(PictureExport::kindOf(QStringLiteral("T.SVG")), PictureExport::Kind::Svg);
    QVERIFY(!PictureExport::kindOf(QStringLiteral("timeline.bmp")));
    QVERIFY(!PictureExport::kindOf(QStringLiteral("timeline")));
}

void TestPictureExport::png_holdsThePixelsShown()
{
    ShownTimeline shown;
    Ui::TimelineView &view = shown.view;
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setVisibleRange(0.0, 600.0);
    const QString path = m_dir.filePath(QStringLiteral("timeline.png"));
    const auto written = PictureExport::write(view.viewport(), path, QStringLiteral("Timeline"));
    QVERIFY2(written, qPrintable(written.error()));
    QImage image(path);
    QVERIFY(!image.isNull());
    QCOMPARE(image.size(), view.viewport()->size() * view.viewport()->devicePixelRatio());
    const QPoint retried = view.attemptRect(0).center().toPoint();
    QCOMPARE(image.pixelColor(retried), Ui::outcomeColor(Core::AttemptOutcome::Retried));
}

void TestPictureExport::svg_isADrawingWithItsText()
{
    ShownTimeline shown;
    Ui::TimelineView &view = shown.view;
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QString path = m_dir.filePath(QStringLiteral("timeline.svg"));
    const auto written = PictureExport::write(view.viewport(), path, QStringLiteral("Timeline of a flaky run"));
    QVERIFY2(written, qPrintable(written.error()));
    const QByteArray svg = contentOf(path);
    QVERIFY2(svg.startsWith("<?xml"), svg.left(80).constData());
    QVERIFY(svg.contains("<svg"));
    const QSize size = view.viewport()->size();
    QVERIFY2(svg.contains(QStringLiteral("viewBox=\"0 0 %1 %2\"").arg(size.width()).arg(size.height()).toUtf8()),
        svg.left(600).constData());
    QVERIFY(svg.contains("<title>Timeline of a flaky run</title>"));
    // Vector: the bars are shapes and the labels text, not one embedded picture.
    QVERIFY(!svg.contains("<image"));
    QVERIFY(svg.contains(">#1<") || svg.contains(">#1 "));
    QVERIFY(svg.contains("2 requests"));
}

void TestPictureExport::badPaths_areRefused_andNothingIsLost()
{
    QWidget widget;
    widget.resize(100, 50);
    const auto bmp = PictureExport::write(&widget, m_dir.filePath(QStringLiteral("x.bmp")), QString());
    QVERIFY(!bmp);
    QVERIFY2(bmp.error().contains(QLatin1String(".png")) && bmp.error().contains(QLatin1String("x.bmp")),
        qPrintable(bmp.error()));
    QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("x.bmp"))));

    const QString missingFolder = m_dir.filePath(QStringLiteral("no/such/folder/x.png"));
    const auto nowhere = PictureExport::write(&widget, missingFolder, QString());
    QVERIFY(!nowhere);
    QVERIFY2(nowhere.error().contains(QLatin1String("x.png")), qPrintable(nowhere.error()));

    QVERIFY(!PictureExport::write(nullptr, m_dir.filePath(QStringLiteral("null.png")), QString()));

    // An earlier picture stays whole when a new one cannot be drawn.
    const QString earlier = m_dir.filePath(QStringLiteral("earlier.png"));
    QVERIFY(PictureExport::write(&widget, earlier, QString()));
    const QByteArray before = contentOf(earlier);
    QWidget empty;
    empty.resize(0, 0);
    QVERIFY(!PictureExport::write(&empty, earlier, QString()));
    QCOMPARE(contentOf(earlier), before);
}

void TestPictureExport::window_writesTheTabOnTop()
{
    QFile::remove(QSettings().fileName());
    Ui::MainWindow window;
    window.resize(1200, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.showTab(Ui::MainWindow::Tab::Statistics);
    const QString path = m_dir.filePath(QStringLiteral("statistics.svg"));
    const auto written = presentationOf(window)->exportPicture(path);
    QVERIFY2(written, qPrintable(written.error()));
    const QByteArray svg = contentOf(path);
    QVERIFY(svg.contains("Attempts per request")); // a chart's title, as text
    QVERIFY(svg.contains("Latest run")); // what the figures count
    QVERIFY2(messageBarOf(window)->shownText().contains(QLatin1String("statistics.svg")),
        qPrintable(messageBarOf(window)->shownText()));

    // The timeline's picture is the whole run, every lane, at print resolution: not the
    // dozen lanes the view has room for.
    syntheticRun(*sessionOf(window), 60);
    sessionOf(window)->flush();
    window.showTab(Ui::MainWindow::Tab::Timeline);
    Ui::TimelineView *timeline = timelineViewOf(window);
    QVERIFY(timeline->laneArea().height() < 60 * timeline->laneHeight());
    const QString png = m_dir.filePath(QStringLiteral("timeline.png"));
    QVERIFY(presentationOf(window)->exportPicture(png));
    const QImage picture(png);
    QVERIFY2(picture.height() >= 60 * timeline->laneHeight() * Ui::PictureExport::printScale,
        qPrintable(QStringLiteral("%1 px for 60 lanes of %2").arg(picture.height()).arg(timeline->laneHeight())));
    QVERIFY(picture.width() >= 1100 * Ui::PictureExport::printScale);
    QVERIFY2(messageBarOf(window)->shownText().contains(QLatin1String("the whole run, 60 request")),
        qPrintable(messageBarOf(window)->shownText()));

    // Or the part chosen in the view: zoomed to a stretch of time and scrolled to lane 21,
    // the picture holds those lanes over that time, at print resolution all the same.
    timeline->setVisibleRange(100.0, 200.0);
    timeline->verticalScrollBar()->setValue(20 * timeline->laneHeight());
    QCOMPARE(timeline->firstVisibleLane(), 20);
    const int inView = (timeline->laneArea().height() + timeline->laneHeight() - 1) / timeline->laneHeight();
    const QString part = m_dir.filePath(QStringLiteral("part.png"));
    using Part = Ui::PresentationController::TimelinePart;
    QVERIFY(presentationOf(window)->exportPicture(part, Part::Shown));
    const QImage partPicture(part);
    QVERIFY2(partPicture.height() >= inView * timeline->laneHeight() * Ui::PictureExport::printScale
            && partPicture.height() < picture.height(),
        qPrintable(QStringLiteral("%1 px for %2 lanes, %3 for all")
                       .arg(partPicture.height())
                       .arg(inView)
                       .arg(picture.height())));
    QVERIFY(partPicture.width() >= 1100 * Ui::PictureExport::printScale);
    QVERIFY2(messageBarOf(window)->shownText().contains(
                 QStringLiteral("requests 21 to %1 of 60, from 0.1").arg(std::min(60, 20 + inView))),
        qPrintable(messageBarOf(window)->shownText()));
    // As an SVG its lanes are the 21st on, not the first.
    const QString partSvg = m_dir.filePath(QStringLiteral("part.svg"));
    QVERIFY(presentationOf(window)->exportPicture(partSvg, Part::Shown));
    const QByteArray drawing = contentOf(partSvg);
    QVERIFY(drawing.contains(">#21"));
    QVERIFY(!drawing.contains(">#1 ") && !drawing.contains(">#1<"));
    // The live view is left as it was.
    QCOMPARE(timeline->firstVisibleLane(), 20);
    QCOMPARE(timeline->timeScale().startMs, 100.0);

    // Scrolled to the last lanes of a view three lanes tall, the picture holds those, not the
    // lanes above them that a taller picture would have room for.
    window.resize(1200, 300); // as short as the window goes
    QTRY_VERIFY(timeline->laneArea().height() < 4 * timeline->laneHeight());
    timeline->verticalScrollBar()->setValue(timeline->verticalScrollBar()->maximum());
    const int last = timeline->firstVisibleLane();
    QVERIFY(last > 50);
    const QString tail = m_dir.filePath(QStringLiteral("tail.svg"));
    QVERIFY(presentationOf(window)->exportPicture(tail, Part::Shown));
    const QByteArray tailDrawing = contentOf(tail);
    QVERIFY(tailDrawing.contains(QStringLiteral(">#%1").arg(last + 1).toUtf8()));
    QVERIFY2(!tailDrawing.contains(QStringLiteral(">#%1").arg(last).toUtf8()),
        qPrintable(QStringLiteral("lane %1 drawn above the first in view").arg(last)));
    QFile::remove(QSettings().fileName());
}

QTEST_MAIN(TestPictureExport)
#include "tst_pictureexport.moc"
