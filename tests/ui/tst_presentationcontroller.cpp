#include "tests/ui/session/sessionfixtures.h"
#include "ui/exportcontroller.h"
#include "ui/openedrun.h"
#include "ui/presentationcontroller.h"
#include "ui/run/attemptinspector.h"
#include "ui/run/errorlogview.h"
#include "ui/run/statisticsview.h"
#include "ui/run/timelineview.h"
#include "ui/session/run/runreplay.h"
#include "ui/session/run/runsession.h"
#include "ui/session/settings/settings.h"
#include "ui/widgets/messagebar.h"

#include <QAction>
#include <QDialog>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QMainWindow>
#include <QMenu>
#include <QScrollArea>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QVBoxLayout>

using namespace RetryLab;
using Ui::PresentationController;

// Presentation mode, replays and pictures on a small window of their own: two docks,
// the timeline and one scrolled page as tabs. What presentation hides and gives back,
// why a replay does not start, and the file a picture is suggested and written to.
class TestPresentationController final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void presentation_timelineAloneLarger_offGivesTheDocksBack();
    void resetLayout_floatedAndClosedDocks_backAsAtStart();
    void replay_nothingSent_saysSo();
    void replay_finishedRun_playsOnTheTimeline();
    void exportPicture_namedAfterTheTab_suffixOfTheChosenFilter();

private:
    struct Window
    {
        Ui::Settings settings;
        Ui::RunSession session; // before the window, whose views show it
        QMainWindow window;
        QTabWidget *tabs = new QTabWidget;
        Ui::TimelineView *timeline = new Ui::TimelineView;
        QScrollArea *page = new QScrollArea;
        QDockWidget *left = new QDockWidget(QStringLiteral("Left"), &window);
        QDockWidget *top = new QDockWidget(QStringLiteral("Top"), &window);
        Ui::ErrorLogView errorLog;
        Ui::StatisticsView statistics;
        Ui::AttemptInspector inspector;
        Ui::MessageBar *messages = new Ui::MessageBar;
        Ui::OpenedRun openedRun{&session, timeline, &errorLog, &statistics, &inspector, messages, &window};
        Ui::ExportController exports{&session, &errorLog, &settings, messages, &window};
        PresentationController controller{
            {&window, tabs, timeline, {left, top}, &session, &openedRun, &exports, messages}};
        QMenu view;
        QMenu file;

        Window()
        {
            timeline->setSession(&session);
            errorLog.setSession(&session);
            statistics.setSession(&session);
            page->setWidget(new QLabel(QStringLiteral("A page of forms and charts")));
            page->setWidgetResizable(true);
            tabs->addTab(timeline, QStringLiteral("Timeline"));
            tabs->addTab(page, QStringLiteral("Herd simulator"));
            auto *central = new QWidget;
            auto *layout = new QVBoxLayout(central);
            layout->addWidget(messages);
            layout->addWidget(tabs);
            window.setCentralWidget(central);
            left->setObjectName(QStringLiteral("left"));
            top->setObjectName(QStringLiteral("top"));
            left->setWidget(new QLabel(QStringLiteral("policy")));
            top->setWidget(new QLabel(QStringLiteral("request")));
            window.addDockWidget(Qt::LeftDockWidgetArea, left);
            window.addDockWidget(Qt::TopDockWidgetArea, top);
            controller.addViewActions(&view);
            controller.addPictureAction(&file);
            controller.addLayoutAction(&view);
            window.resize(900, 600);
        }
        QAction *action(const char *name) const { return view.findChild<QAction *>(QLatin1String(name)); }
    };

    QTemporaryDir m_dir;
};

void TestPresentationController::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("RetryLab"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_presentationcontroller"));
    QVERIFY(m_dir.isValid());
    QSettings().clear();
}

void TestPresentationController::presentation_timelineAloneLarger_offGivesTheDocksBack()
{
    Window w;
    w.window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w.window));
    w.tabs->setCurrentWidget(w.page);
    const double pointSize = w.window.font().pointSizeF();
    QAction *presentation = w.action("presentation");
    QVERIFY(presentation);
    QVERIFY(presentation->isCheckable());
    QCOMPARE(presentation->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));

    presentation->trigger();
    QVERIFY(w.controller.isPresentation());
    QCOMPARE(w.tabs->currentWidget(), w.timeline);
    QVERIFY(w.timeline->isPresentation());
    // The application's font: the widgets take it as its change event reaches them.
    QTRY_COMPARE(w.window.font().pointSizeF(), pointSize * 1.5);
    // Menus and dialogs are windows of their own: they grow too.
    QTRY_COMPARE(w.view.font().pointSizeF(), pointSize * 1.5);
    QDialog dialog(&w.window);
    QCOMPARE(dialog.font().pointSizeF(), pointSize * 1.5);
    QVERIFY(!w.left->isVisible());
    QVERIFY(!w.top->isVisible());

    // Off from elsewhere than the menu: the action follows.
    w.controller.setPresentation(false);
    QVERIFY(!presentation->isChecked());
    QVERIFY(!w.timeline->isPresentation());
    QTRY_COMPARE(w.window.font().pointSizeF(), pointSize);
    QTRY_COMPARE(w.view.font().pointSizeF(), pointSize);
    QTRY_COMPARE(dialog.font().pointSizeF(), pointSize);
    QTRY_VERIFY(w.left->isVisible());
    QVERIFY(w.top->isVisible());
}

void TestPresentationController::resetLayout_floatedAndClosedDocks_backAsAtStart()
{
    Window w;
    w.window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w.window));
    w.controller.keepDefaultLayout(3);
    const Qt::DockWidgetArea leftArea = w.window.dockWidgetArea(w.left);

    w.left->setFloating(true);
    w.top->close();
    w.action("presentation")->setChecked(true);
    QVERIFY(w.controller.isPresentation());

    w.action("resetLayout")->trigger();
    QVERIFY(!w.controller.isPresentation());
    QVERIFY(!w.left->isFloating());
    QCOMPARE(w.window.dockWidgetArea(w.left), leftArea);
    QTRY_VERIFY(w.top->isVisible());
    QVERIFY(w.left->isVisible());
}

void TestPresentationController::replay_nothingSent_saysSo()
{
    Window w;
    w.tabs->setCurrentWidget(w.page);
    QAction *replay = w.action("replayRun");
    QVERIFY(replay);
    QCOMPARE(replay->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R));
    replay->trigger();
    QCOMPARE(w.messages->messages(), QStringList{QStringLiteral("Nothing to replay yet: send a request first.")});
    QVERIFY(!w.openedRun.isOpen());
    QCOMPARE(w.tabs->currentWidget(), w.page);
}

void TestPresentationController::replay_finishedRun_playsOnTheTimeline()
{
    Window w;
    Fixtures::syntheticRun(w.session, 3);
    w.session.flush();
    QVERIFY(!w.session.hasActivity());
    w.tabs->setCurrentWidget(w.page);
    w.controller.replayRun();
    QVERIFY(w.openedRun.isOpen());
    QCOMPARE(w.tabs->currentWidget(), w.timeline);
    QCOMPARE(w.timeline->session(), w.openedRun.replay()->session());
    QVERIFY(w.openedRun.replay()->isPlaying());

    // Again while it is shown: it starts over.
    w.openedRun.replay()->seek(1e9);
    QVERIFY(w.openedRun.replay()->atEnd());
    w.controller.replayRun();
    QVERIFY(!w.openedRun.replay()->atEnd());
    QVERIFY(w.openedRun.replay()->isPlaying());
}

void TestPresentationController::exportPicture_namedAfterTheTab_suffixOfTheChosenFilter()
{
    Window w;
    w.window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w.window));
    w.tabs->setCurrentWidget(w.page);
    QString suggested;
    w.exports.setFileChooser([&](QFileDialog::AcceptMode, const QString &, const QString &suggestion,
                                 const QString &filters, QString *selected) {
        suggested = suggestion;
        *selected = filters.split(QStringLiteral(";;")).constLast(); // the SVG drawing
        return m_dir.filePath(QStringLiteral("slide"));
    });
    QAction *picture = w.file.findChild<QAction *>(QStringLiteral("exportPicture"));
    QVERIFY(picture);
    // Suggested in the export folder, as the run's exports are.
    const QString folder = m_dir.filePath(QStringLiteral("exports"));
    QVERIFY(QDir().mkpath(folder));
    w.settings.setExportDirectory(folder);
    picture->trigger();
    QCOMPARE(suggested, QDir(folder).filePath(QStringLiteral("herd-simulator.png")));
    QFile written(m_dir.filePath(QStringLiteral("slide.svg")));
    QVERIFY(written.open(QIODevice::ReadOnly));
    QVERIFY(written.readAll().contains("<svg"));
    QVERIFY(w.messages->messages().constLast().startsWith(QLatin1String("Wrote ")));
    // And the folder written to is the next export's.
    QCOMPARE(w.settings.exportDirectory(), m_dir.path());

    // On the timeline the filters also say what part of the run: the whole of it, or what
    // the view shows. Chosen so, a name without a suffix gets the filter's.
    Fixtures::feedHandComputedRun(w.session);
    w.session.flush();
    w.tabs->setCurrentWidget(w.timeline);
    w.timeline->setVisibleRange(0.0, 500.0);
    QStringList offered;
    w.exports.setFileChooser(
        [&](QFileDialog::AcceptMode, const QString &, const QString &, const QString &filters, QString *selected) {
            offered = filters.split(QStringLiteral(";;"));
            *selected = offered.value(2);
            return m_dir.filePath(QStringLiteral("part"));
        });
    picture->trigger();
    QCOMPARE(offered.size(), 4);
    QVERIFY2(offered.at(0).contains(QLatin1String("whole run")) && offered.at(2).contains(QLatin1String("in view")),
        qPrintable(offered.join(QLatin1Char('|'))));
    QVERIFY(QFile::exists(m_dir.filePath(QStringLiteral("part.png"))));
    QVERIFY2(w.messages->messages().constLast().contains(QLatin1String("requests 1 to 4 of 4, from 0")),
        qPrintable(w.messages->messages().constLast()));
}

QTEST_MAIN(TestPresentationController)
#include "tst_presentationcontroller.moc"
