#include "ui/monitor/monitoreditdialog.h"
#include "ui/monitor/monitorlistmodel.h"
#include "ui/monitor/monitorsview.h"
#include "ui/widgets/messagebar.h"
#include "ui/widgets/unitspinbox.h"

#include <QAction>
#include <QApplication>
#include <QContextMenuEvent>
#include <QFile>
#include <QFileDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

using namespace RetryLab;
using Core::MonitorState;
using Ui::MonitorListModel;
using Ui::MonitorsView;
using Action = MonitorsView::Action;

namespace {

Core::Monitor monitorNamed(const QString &name)
{
    Core::Monitor monitor;
    monitor.name = name;
    monitor.urlTemplate = QStringLiteral("https://%1.test/health").arg(name);
    monitor.request.url = QUrl(monitor.urlTemplate);
    monitor.intervalMs = 10'000.0;
    return monitor;
}

} // namespace

class TestMonitorsView : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void emptyState_saysHowToAdd_untilAMonitorArrives();
    void actions_enabledBySelectionAndState();
    void keys_emitEachActionsSignal_data();
    void keys_emitEachActionsSignal();
    void enterAndDoubleClick_showHistory();
    void pauseResumeCheckNow_onlyForMonitorsInTheRightState();
    void delete_thenUndo_addsItBack_redoDeletesAgain();
    void edit_okAsksToReplace_undoPutsTheOldOneBack();
    void editNewMonitor_and_addMonitors_areUndoable();
    void addFromFile_emitsTheChosenPath();
    void contextMenu_fromTheKeyboard_offersTheActions();
    void filter_and_sort();
    void showMessage_showsTheErrorInTheBar();
    void nextCheck_refreshedEverySecondWhileShown();
    void minimumSize_fitsTheSmallestWindowAtScaleOneAndAHalf();

private:
    void selectRow(const QString &name);

    MonitorsView *m_view = nullptr;
};

void TestMonitorsView::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
}

void TestMonitorsView::init()
{
    m_view = new MonitorsView;
    m_view->resize(900, 500);
    m_view->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_view));
    QApplication::setActiveWindow(m_view);
}

void TestMonitorsView::cleanup()
{
    delete m_view;
}

void TestMonitorsView::selectRow(const QString &name)
{
    QVERIFY(m_view->selectMonitor(name));
    m_view->table()->setFocus();
    QTRY_VERIFY(m_view->table()->hasFocus());
}

void TestMonitorsView::emptyState_saysHowToAdd_untilAMonitorArrives()
{
    auto *empty = m_view->findChild<QLabel *>(QStringLiteral("monitorsEmptyText"));
    QVERIFY(empty);
    QVERIFY(empty->isVisible());
    QVERIFY(!m_view->table()->isVisible());
    QVERIFY2(empty->text().contains(QStringLiteral("monitors file")), qPrintable(empty->text()));
    QVERIFY(empty->text().contains(QKeySequence(Qt::Key_Insert).toString(QKeySequence::NativeText)));
    m_view->model()->setMonitors({monitorNamed(QStringLiteral("a"))});
    QVERIFY(m_view->table()->isVisible());
    QVERIFY(!empty->isVisible());
    m_view->model()->setMonitors({});
    QVERIFY(empty->isVisible());
}

void TestMonitorsView::actions_enabledBySelectionAndState()
{
    m_view->model()->setMonitors({monitorNamed(QStringLiteral("a")), monitorNamed(QStringLiteral("b"))});
    for (const Action a :
        {Action::Edit, Action::Pause, Action::Resume, Action::Delete, Action::CheckNow, Action::ShowHistory})
        QVERIFY(!m_view->action(a)->isEnabled());
    QVERIFY(m_view->action(Action::AddFromCurrentRequest)->isEnabled());

    selectRow(QStringLiteral("a"));
    QVERIFY(m_view->action(Action::Edit)->isEnabled());
    QVERIFY(m_view->action(Action::Pause)->isEnabled());
    QVERIFY(!m_view->action(Action::Resume)->isEnabled());
    QVERIFY(m_view->action(Action::Delete)->isEnabled());

    m_view->model()->setState(QStringLiteral("a"), MonitorState::Paused);
    QVERIFY(!m_view->action(Action::Pause)->isEnabled());
    QVERIFY(m_view->action(Action::Resume)->isEnabled());
    QVERIFY(!m_view->action(Action::CheckNow)->isEnabled());

    m_view->table()->selectAll();
    QCOMPARE(m_view->selectedNames(), (QStringList{QStringLiteral("a"), QStringLiteral("b")}));
    QVERIFY(!m_view->action(Action::Edit)->isEnabled()); // one at a time
    QVERIFY(!m_view->action(Action::ShowHistory)->isEnabled());
    QVERIFY(m_view->action(Action::Pause)->isEnabled());
    QVERIFY(m_view->action(Action::Resume)->isEnabled());
}

void TestMonitorsView::keys_emitEachActionsSignal_data()
{
    QTest::addColumn<QKeyCombination>("key");
    QTest::addColumn<QByteArray>("signal");
    QTest::addRow("Insert: add from request")
        << QKeyCombination(Qt::Key_Insert) << QByteArray(SIGNAL(addFromCurrentRequestRequested()));
    QTest::addRow("Ctrl+Shift+L: add from collection")
        << QKeyCombination(Qt::CTRL | Qt::SHIFT, Qt::Key_L) << QByteArray(SIGNAL(addFromCollectionRequested()));
    QTest::addRow("F5: check now") << QKeyCombination(Qt::Key_F5) << QByteArray(SIGNAL(checkNowRequested(QString)));
    QTest::addRow("Ctrl+P: pause") << QKeyCombination(Qt::CTRL, Qt::Key_P)
                                   << QByteArray(SIGNAL(pauseRequested(QString)));
    QTest::addRow("Ctrl+H: history") << QKeyCombination(Qt::CTRL, Qt::Key_H)
                                     << QByteArray(SIGNAL(historyRequested(QString)));
    QTest::addRow("Delete: remove") << QKeyCombination(Qt::Key_Delete) << QByteArray(SIGNAL(removeRequested(QString)));
}

void TestMonitorsView::keys_emitEachActionsSignal()
{
    QFETCH(QKeyCombination, key);
    QFETCH(QByteArray, signal);
    m_view->model()->setMonitors({monitorNamed(QStringLiteral("a")), monitorNamed(QStringLiteral("b"))});
    selectRow(QStringLiteral("b"));
    QSignalSpy spy(m_view, signal.constData());
    QTest::keyClick(m_view->table(), key.key(), key.keyboardModifiers());
    QCOMPARE(spy.count(), 1);
    if (!spy.first().isEmpty())
        QCOMPARE(spy.first().first().toString(), QStringLiteral("b"));
}

void TestMonitorsView::enterAndDoubleClick_showHistory()
{
    m_view->model()->setMonitors({monitorNamed(QStringLiteral("a")), monitorNamed(QStringLiteral("b"))});
    selectRow(QStringLiteral("a"));
    QSignalSpy history(m_view, &MonitorsView::historyRequested);
    QTest::keyClick(m_view->table(), Qt::Key_Return);
    QCOMPARE(history.count(), 1);
    QCOMPARE(history.first().first().toString(), QStringLiteral("a"));
    const QRect b = m_view->table()->visualRect(m_view->table()->model()->index(1, MonitorListModel::Name));
    QTest::mouseClick(m_view->table()->viewport(), Qt::LeftButton, {}, b.center());
    QTest::mouseDClick(m_view->table()->viewport(), Qt::LeftButton, {}, b.center());
    QCOMPARE(history.count(), 2);
    QCOMPARE(history.last().first().toString(), QStringLiteral("b"));
}

void TestMonitorsView::pauseResumeCheckNow_onlyForMonitorsInTheRightState()
{
    m_view->model()->setMonitors({monitorNamed(QStringLiteral("a")), monitorNamed(QStringLiteral("b"))});
    m_view->model()->setState(QStringLiteral("a"), MonitorState::Paused);
    m_view->model()->setState(QStringLiteral("b"), MonitorState::Up);
    m_view->table()->setFocus();
    m_view->table()->selectAll();
    QSignalSpy pause(m_view, &MonitorsView::pauseRequested);
    QSignalSpy resume(m_view, &MonitorsView::resumeRequested);
    QSignalSpy check(m_view, &MonitorsView::checkNowRequested);
    m_view->action(Action::Pause)->trigger();
    m_view->action(Action::Resume)->trigger();
    m_view->action(Action::CheckNow)->trigger();
    QCOMPARE(pause.count(), 1);
    QCOMPARE(pause.first().first().toString(), QStringLiteral("b"));
    QCOMPARE(resume.count(), 1);
    QCOMPARE(resume.first().first().toString(), QStringLiteral("a"));
    QCOMPARE(check.count(), 1);
    QCOMPARE(check.first().first().toString(), QStringLiteral("b"));
    // Resume from the keyboard.
    selectRow(QStringLiteral("a"));
    QTest::keyClick(m_view->table(), Qt::Key_U, Qt::ControlModifier);
    QCOMPARE(resume.count(), 2);
}

void TestMonitorsView::delete_thenUndo_addsItBack_redoDeletesAgain()
{
    m_view->model()->setMonitors({monitorNamed(QStringLiteral("a")), monitorNamed(QStringLiteral("b"))});
    selectRow(QStringLiteral("b"));
    QSignalSpy removed(m_view, &MonitorsView::removeRequested);
    QSignalSpy added(m_view, &MonitorsView::addRequested);
    QTest::keyClick(m_view->table(), Qt::Key_Delete);
    QCOMPARE(removed.count(), 1);
    QCOMPARE(removed.first().first().toString(), QStringLiteral("b"));
    QVERIFY(m_view->messageBar()->shownText().contains(QStringLiteral("Delete monitor b")));
    // The engine removes it; the view hears of it.
    m_view->model()->setMonitors({monitorNamed(QStringLiteral("a"))});
    m_view->table()->setFocus();

    QTest::keyClick(m_view->table(), Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(added.count(), 1);
    const auto back = added.first().first().value<Core::Monitor>();
    QCOMPARE(back.name, QStringLiteral("b"));
    QCOMPARE(back.urlTemplate, QStringLiteral("https://b.test/health"));
    QCOMPARE(back.intervalMs, 10'000.0);

    m_view->undoStack()->redo();
    QCOMPARE(removed.count(), 2);
}

void TestMonitorsView::edit_okAsksToReplace_undoPutsTheOldOneBack()
{
    m_view->model()->setMonitors({monitorNamed(QStringLiteral("a")), monitorNamed(QStringLiteral("b"))});
    selectRow(QStringLiteral("a"));
    QSignalSpy replaced(m_view, &MonitorsView::replaceRequested);
    QTest::keyClick(m_view->table(), Qt::Key_F2);
    auto *dialog = m_view->findChild<Ui::MonitorEditDialog *>();
    QVERIFY(dialog);
    QTRY_VERIFY(dialog->isVisible());
    // The other monitors' names are taken.
    dialog->findChild<QLineEdit *>(QStringLiteral("monitorName"))->setText(QStringLiteral("b"));
    QVERIFY(!dialog->problem().isEmpty());
    dialog->findChild<QLineEdit *>(QStringLiteral("monitorName"))->setText(QStringLiteral("a2"));
    dialog->findChild<Ui::UnitSpinBox *>(QStringLiteral("monitorInterval"))->setValue(30);
    dialog->accept();
    QCOMPARE(replaced.count(), 1);
    QCOMPARE(replaced.first().at(0).toString(), QStringLiteral("a"));
    const auto after = replaced.first().at(1).value<Core::Monitor>();
    QCOMPARE(after.name, QStringLiteral("a2"));
    QCOMPARE(after.intervalMs, 30'000.0);

    m_view->undoStack()->undo();
    QCOMPARE(replaced.count(), 2);
    QCOMPARE(replaced.last().at(0).toString(), QStringLiteral("a2"));
    QCOMPARE(replaced.last().at(1).value<Core::Monitor>().intervalMs, 10'000.0);
    QCOMPARE(replaced.last().at(1).value<Core::Monitor>().name, QStringLiteral("a"));
}

void TestMonitorsView::editNewMonitor_and_addMonitors_areUndoable()
{
    m_view->model()->setMonitors({monitorNamed(QStringLiteral("a"))});
    QSignalSpy added(m_view, &MonitorsView::addRequested);
    QSignalSpy removed(m_view, &MonitorsView::removeRequested);
    m_view->editNewMonitor(monitorNamed(QStringLiteral("a")));
    auto *dialog = m_view->findChild<Ui::MonitorEditDialog *>();
    QVERIFY(dialog);
    QVERIFY(dialog->problem().contains(QStringLiteral("Another monitor"))); // "a" is taken
    dialog->findChild<QLineEdit *>(QStringLiteral("monitorName"))->setText(QStringLiteral("new"));
    dialog->accept();
    QCOMPARE(added.count(), 1);
    QCOMPARE(added.first().first().value<Core::Monitor>().name, QStringLiteral("new"));

    m_view->addMonitors({monitorNamed(QStringLiteral("x")), monitorNamed(QStringLiteral("y"))});
    QCOMPARE(added.count(), 3);
    m_view->undoStack()->undo();
    QCOMPARE(removed.count(), 2);
    QCOMPARE(removed.at(0).first().toString(), QStringLiteral("x"));
    QCOMPARE(removed.at(1).first().toString(), QStringLiteral("y"));
}

void TestMonitorsView::addFromFile_emitsTheChosenPath()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("monitors.json"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("{}");
    file.close();
    QSignalSpy import(m_view, &MonitorsView::importRequested);
    m_view->setFocus();
    QTest::keyClick(m_view->table(), Qt::Key_O, Qt::ControlModifier | Qt::ShiftModifier);
    auto *dialog = m_view->findChild<QFileDialog *>(QStringLiteral("monitorsFileDialog"));
    QVERIFY(dialog);
    dialog->setDirectory(dir.path());
    dialog->selectFile(path);
    static_cast<QDialog *>(dialog)->accept(); // as its Open button does
    QCOMPARE(import.count(), 1);
    QCOMPARE(import.first().first().toString(), path);
}

void TestMonitorsView::contextMenu_fromTheKeyboard_offersTheActions()
{
    m_view->model()->setMonitors({monitorNamed(QStringLiteral("a"))});
    selectRow(QStringLiteral("a"));
    QContextMenuEvent menuKey(
        QContextMenuEvent::Keyboard, QPoint(-1, -1), m_view->table()->viewport()->mapToGlobal(QPoint(-1, -1)));
    QApplication::sendEvent(m_view->table()->viewport(), &menuKey);
    QTRY_VERIFY(QApplication::activePopupWidget());
    auto *menu = qobject_cast<QMenu *>(QApplication::activePopupWidget());
    QVERIFY(menu);
    for (const Action a :
        {Action::CheckNow, Action::ShowHistory, Action::Edit, Action::Pause, Action::Resume, Action::Delete})
        QVERIFY(menu->actions().contains(m_view->action(a)));
    // It opens over the current row.
    const QRect row = m_view->table()->visualRect(m_view->table()->currentIndex());
    QVERIFY(menu->geometry().contains(
        m_view->table()->viewport()->mapToGlobal(row.center()) + QPoint(menu->width() / 2, 1)));
    QSignalSpy check(m_view, &MonitorsView::checkNowRequested);
    menu->setActiveAction(m_view->action(Action::CheckNow));
    QTest::keyClick(menu, Qt::Key_Return);
    QCOMPARE(check.count(), 1);
}

void TestMonitorsView::filter_and_sort()
{
    m_view->model()->setMonitors({monitorNamed(QStringLiteral("shop")), monitorNamed(QStringLiteral("auth")),
        monitorNamed(QStringLiteral("shipping"))});
    QAbstractItemModel *shown = m_view->table()->model();
    QCOMPARE(shown->index(0, MonitorListModel::Name).data().toString(), QStringLiteral("auth"));
    m_view->table()->setFocus();
    QTest::keyClick(m_view->table(), Qt::Key_F, Qt::ControlModifier);
    auto *filter = m_view->findChild<QLineEdit *>(QStringLiteral("monitorsFilter"));
    QTRY_VERIFY(filter->hasFocus());
    QTest::keyClicks(filter, QStringLiteral("SH"));
    QCOMPARE(shown->rowCount(), 2);
    QVERIFY(!m_view->selectMonitor(QStringLiteral("auth")));
    filter->clear();

    m_view->model()->setState(QStringLiteral("shipping"), MonitorState::Down);
    m_view->model()->setState(QStringLiteral("shop"), MonitorState::Up);
    m_view->table()->sortByColumn(MonitorListModel::State, Qt::AscendingOrder);
    QCOMPARE(shown->index(0, MonitorListModel::Name).data().toString(), QStringLiteral("shipping"));
}

void TestMonitorsView::showMessage_showsTheErrorInTheBar()
{
    m_view->showMessage(QStringLiteral("monitors.json: monitors[0].intervalMs: missing"));
    QVERIFY(m_view->messageBar()->isVisible());
    QCOMPARE(m_view->messageBar()->shownText(), QStringLiteral("monitors.json: monitors[0].intervalMs: missing"));
}

void TestMonitorsView::nextCheck_refreshedEverySecondWhileShown()
{
    m_view->model()->setMonitors({monitorNamed(QStringLiteral("a"))});
    m_view->model()->setNow(0);
    QTRY_VERIFY_WITH_TIMEOUT(m_view->model()->now() > 0, 3000);
}

void TestMonitorsView::minimumSize_fitsTheSmallestWindowAtScaleOneAndAHalf()
{
    m_view->model()->setMonitors({monitorNamed(QStringLiteral("a"))});
    const QSize fits(1024 * 2 / 3, 640 * 2 / 3 - 80); // less the window's menu, tabs and status bar
    const QSize minimum = m_view->minimumSizeHint();
    QVERIFY2(minimum.width() <= fits.width() && minimum.height() <= fits.height(),
        qPrintable(QStringLiteral("%1x%2").arg(minimum.width()).arg(minimum.height())));
}

QTEST_MAIN(TestMonitorsView)
#include "tst_monitorsview.moc"
