#include "ui/monitor/monitorsview.h"

#include "ui/monitor/beatbardelegate.h"
#include "ui/monitor/monitoreditdialog.h"
#include "ui/monitor/monitorlistmodel.h"
#include "ui/monitor/sparklinedelegate.h"
#include "ui/widgets/messagebar.h"

#include <QAction>
#include <QContextMenuEvent>
#include <QDateTime>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QLoggingCategory>
#include <QMenu>
#include <QSortFilterProxyModel>
#include <QStackedWidget>
#include <QStyle>
#include <QTableView>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QUndoCommand>
#include <QUndoStack>
#include <QVBoxLayout>

#include <algorithm>

namespace RetryLab::Ui {

Q_LOGGING_CATEGORY(lcMonitorsView, "retrylab.ui.monitorsview")

namespace {

// Adding and deleting are the same step in two directions.
class MonitorsAddCommand final : public QUndoCommand
{
public:
    MonitorsAddCommand(MonitorsView *view, QList<Core::Monitor> monitors, bool add, const QString &text)
        : QUndoCommand(text), m_view(view), m_monitors(std::move(monitors)), m_add(add)
    { }

    void redo() override { apply(m_add); }
    void undo() override { apply(!m_add); }

private:
    void apply(bool add)
    {
        for (const Core::Monitor &monitor : std::as_const(m_monitors)) {
            if (add)
                Q_EMIT m_view->addRequested(monitor);
            else
                Q_EMIT m_view->removeRequested(monitor.name);
        }
    }

    MonitorsView *m_view;
    QList<Core::Monitor> m_monitors;
    bool m_add;
};

class MonitorReplaceCommand final : public QUndoCommand
{
public:
    MonitorReplaceCommand(MonitorsView *view, Core::Monitor before, Core::Monitor after)
        : QUndoCommand(MonitorsView::tr("Edit monitor %1").arg(before.name)), m_view(view), m_before(std::move(before)),
          m_after(std::move(after))
    { }

    void redo() override { Q_EMIT m_view->replaceRequested(m_before.name, m_after); }
    void undo() override { Q_EMIT m_view->replaceRequested(m_after.name, m_before); }

private:
    MonitorsView *m_view;
    Core::Monitor m_before;
    Core::Monitor m_after;
};

} // namespace

MonitorsView::MonitorsView(QWidget *parent)
    : QWidget(parent), m_model(new MonitorListModel(this)), m_proxy(new QSortFilterProxyModel(this)),
      m_messages(new MessageBar(this)), m_toolBar(new QToolBar(this)), m_filter(new QLineEdit(this)),
      m_pages(new QStackedWidget(this)), m_table(new QTableView(this)), m_emptyText(new QLabel(this)),
      m_contextMenu(new QMenu(this)), m_undo(new QUndoStack(this)), m_clock(new QTimer(this))
{
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(MonitorListModel::SortRole);
    m_proxy->setFilterKeyColumn(MonitorListModel::Name);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);

    m_table->setObjectName(QStringLiteral("monitorsTable"));
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(MonitorListModel::Name, Qt::AscendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->hide();
    m_table->setItemDelegateForColumn(MonitorListModel::RecentChecks, new BeatBarDelegate(m_table));
    m_table->setItemDelegateForColumn(MonitorListModel::Latency, new SparklineDelegate(m_table));
    QHeaderView *header = m_table->horizontalHeader();
    header->setStretchLastSection(true);
    // Fixed widths, from the header's texts: sizing a thousand rows to their contents would read every cell.
    const QFontMetrics headerFont = header->fontMetrics();
    const int padding = 2 * style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, header) + 8;
    for (int column = 0; column < MonitorListModel::ColumnCount; ++column) {
        const QString title = m_model->headerData(column, Qt::Horizontal).toString();
        m_table->setColumnWidth(column, headerFont.horizontalAdvance(title) + padding);
    }
    int stateWidth = 0;
    for (const Core::MonitorState state :
        {Core::MonitorState::Pending, Core::MonitorState::Up, Core::MonitorState::Down, Core::MonitorState::Paused})
        stateWidth = std::max(stateWidth, fontMetrics().horizontalAdvance(MonitorListModel::stateText(state)));
    m_table->setColumnWidth(MonitorListModel::State, stateWidth + m_table->iconSize().width() + 32);
    m_table->setColumnWidth(MonitorListModel::Name, 22 * fontMetrics().averageCharWidth());
    // The grid line takes a pixel of the section; the rest is five pixels a check.
    m_table->setColumnWidth(MonitorListModel::RecentChecks, 4 + MonitorListModel::beatCount * 5 + 1);
    m_table->setColumnWidth(MonitorListModel::Latency, fontMetrics().horizontalAdvance(QStringLiteral("999 ms")) + 64);
    m_table->setContextMenuPolicy(Qt::CustomContextMenu);
    m_table->setAccessibleName(tr("Monitors"));

    m_emptyText->setObjectName(QStringLiteral("monitorsEmptyText"));
    m_emptyText->setWordWrap(true);
    m_emptyText->setAlignment(Qt::AlignCenter);
    m_emptyText->setMargin(12);
    m_pages->addWidget(m_table);
    m_pages->addWidget(m_emptyText);

    m_filter->setObjectName(QStringLiteral("monitorsFilter"));
    m_filter->setClearButtonEnabled(true);
    m_filter->setAccessibleName(tr("Filter monitors by name"));

    buildActions();
    m_filter->setPlaceholderText(tr("Filter by name"));
    m_filter->setToolTip(action(Action::Filter)->toolTip());
    m_filter->setMinimumWidth(16 * fontMetrics().averageCharWidth());
    m_emptyText->setText(tr("No monitors yet. A monitor sends a request every interval and keeps how each check "
                            "went.\n\nAdd one from the request you are composing (%1), from a request saved in a "
                            "collection (%2), or from a monitors file (%3).")
                             .arg(action(Action::AddFromCurrentRequest)->shortcut().toString(QKeySequence::NativeText),
                                 action(Action::AddFromCollection)->shortcut().toString(QKeySequence::NativeText),
                                 action(Action::AddFromFile)->shortcut().toString(QKeySequence::NativeText)));

    auto *top = new QHBoxLayout;
    top->setContentsMargins(0, 0, 0, 0);
    top->addWidget(m_toolBar, 1);
    top->addWidget(m_filter);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(m_messages);
    layout->addLayout(top);
    layout->addWidget(m_pages, 1);
    setFocusProxy(m_table);

    connect(m_filter, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, &MonitorsView::updateActions);
    connect(m_model, &QAbstractItemModel::dataChanged, this, [this](const QModelIndex &topLeft) {
        // Only a state change can change what the actions may do.
        if (topLeft.column() == MonitorListModel::State)
            updateActions();
    });
    for (const auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved})
        connect(m_model, signal, this, [this] {
            updateEmptyState();
            updateActions();
        });
    connect(m_model, &QAbstractItemModel::modelReset, this, &MonitorsView::updateEmptyState);
    connect(m_table, &QAbstractItemView::activated, this, &MonitorsView::showHistoryOfCurrent);
    connect(m_table, &QWidget::customContextMenuRequested, this, &MonitorsView::showContextMenu);
    m_clock->setInterval(1000);
    connect(m_clock, &QTimer::timeout, this, [this] { m_model->setNow(QDateTime::currentMSecsSinceEpoch()); });
    updateEmptyState();
    updateActions();
}

QAction *MonitorsView::makeAction(const QString &text, const QKeySequence &shortcut, const QString &tip)
{
    auto *action = new QAction(text, this);
    action->setShortcut(shortcut);
    // Only while the tab has the focus: other tabs keep these keys.
    action->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    action->setToolTip(shortcut.isEmpty() ? tip : tr("%1 (%2)").arg(tip, shortcut.toString(QKeySequence::NativeText)));
    addAction(action);
    m_actions.append(action);
    return action;
}

void MonitorsView::buildActions()
{
    // In the order of Action. The keys avoid the window's own (Ctrl+Shift+P presents,
    // Ctrl+Shift+R replays): a key bound twice in reach of the focus fires neither.
    QAction *addCurrent = makeAction(tr("Add from &Current Request"), QKeySequence(Qt::Key_Insert),
        tr("Monitor the request being composed, under its policy"));
    QAction *addCollection = makeAction(tr("Add from C&ollection…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L),
        tr("Monitor a request saved in a collection, or every request of a folder"));
    QAction *addFile = makeAction(tr("Add from Monitors &File…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O),
        tr("Add the monitors of a monitors file"));
    QAction *edit = makeAction(tr("&Edit…"), QKeySequence(Qt::Key_F2), tr("Edit the monitor"));
    QAction *pause = makeAction(tr("&Pause"), QKeySequence(Qt::CTRL | Qt::Key_P), tr("Stop checking"));
    QAction *resume = makeAction(tr("&Resume"), QKeySequence(Qt::CTRL | Qt::Key_U), tr("Check again"));
    QAction *remove = makeAction(tr("&Delete"), QKeySequence::Delete, tr("Delete the monitor (undo brings it back)"));
    QAction *checkNow = makeAction(tr("Check &Now"), QKeySequence(Qt::Key_F5), tr("Run a check now"));
    QAction *history = makeAction(tr("Show &History"), QKeySequence(Qt::CTRL | Qt::Key_H),
        tr("Show the monitor's checks, incidents and availability"));
    QAction *undo = m_undo->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    undo->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    addAction(undo);
    m_actions.append(undo);
    QAction *redo = m_undo->createRedoAction(this, tr("&Redo"));
    redo->setShortcut(QKeySequence::Redo);
    redo->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    addAction(redo);
    m_actions.append(redo);
    QAction *filter = makeAction(tr("&Filter"), QKeySequence::Find, tr("Filter the monitors by name"));

    connect(addCurrent, &QAction::triggered, this, &MonitorsView::addFromCurrentRequestRequested);
    connect(addCollection, &QAction::triggered, this, &MonitorsView::addFromCollectionRequested);
    connect(addFile, &QAction::triggered, this, &MonitorsView::chooseMonitorsFile);
    connect(edit, &QAction::triggered, this, &MonitorsView::editSelected);
    connect(remove, &QAction::triggered, this, &MonitorsView::deleteSelected);
    connect(history, &QAction::triggered, this, &MonitorsView::showHistoryOfCurrent);
    connect(filter, &QAction::triggered, this, [this] {
        m_filter->setFocus(Qt::ShortcutFocusReason);
        m_filter->selectAll();
    });
    const auto each = [this](QAction *action, void (MonitorsView::*signal)(const QString &), bool wantPaused) {
        connect(action, &QAction::triggered, this, [this, signal, wantPaused] {
            for (const QString &name : selectedNames()) {
                const bool paused = m_model->stateAt(m_model->rowOf(name)) == Core::MonitorState::Paused;
                if (paused == wantPaused)
                    Q_EMIT(this->*signal)(name);
            }
        });
    };
    each(pause, &MonitorsView::pauseRequested, false);
    each(resume, &MonitorsView::resumeRequested, true);
    each(checkNow, &MonitorsView::checkNowRequested, false);

    auto *addMenu = new QMenu(tr("Add Monitor"), this);
    addMenu->addActions({addCurrent, addCollection, addFile});
    auto *addButton = new QToolButton(m_toolBar);
    addButton->setText(tr("&Add"));
    addButton->setToolTip(tr("Add monitors"));
    addButton->setMenu(addMenu);
    addButton->setPopupMode(QToolButton::InstantPopup);
    m_toolBar->addWidget(addButton);
    m_toolBar->addActions({edit, pause, resume, checkNow, history, remove});
    m_toolBar->setToolButtonStyle(Qt::ToolButtonTextOnly);

    m_contextMenu->addActions({checkNow, history, edit});
    m_contextMenu->addSeparator();
    m_contextMenu->addActions({pause, resume});
    m_contextMenu->addSeparator();
    m_contextMenu->addMenu(addMenu);
    m_contextMenu->addSeparator();
    m_contextMenu->addActions({remove, undo});
}

QAction *MonitorsView::action(Action which) const
{
    return m_actions.value(static_cast<int>(which));
}

QStringList MonitorsView::selectedNames() const
{
    QList<QModelIndex> rows = m_table->selectionModel()->selectedRows();
    std::sort(rows.begin(), rows.end(), [](const QModelIndex &a, const QModelIndex &b) { return a.row() < b.row(); });
    QStringList names;
    for (const QModelIndex &row : rows)
        names.append(row.data(MonitorListModel::NameRole).toString());
    return names;
}

bool MonitorsView::selectMonitor(const QString &name)
{
    const int row = m_model->rowOf(name);
    if (row < 0)
        return false;
    const QModelIndex index = m_proxy->mapFromSource(m_model->index(row, MonitorListModel::Name));
    if (!index.isValid())
        return false;
    m_table->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_table->scrollTo(index);
    return true;
}

void MonitorsView::showMessage(const QString &text)
{
    m_messages->showMessage(FieldMessage::Kind::Error, text);
}

void MonitorsView::updateActions()
{
    const QStringList names = selectedNames();
    int paused = 0;
    for (const QString &name : names)
        paused += m_model->stateAt(m_model->rowOf(name)) == Core::MonitorState::Paused ? 1 : 0;
    const auto count = static_cast<int>(names.size());
    action(Action::Edit)->setEnabled(count == 1);
    action(Action::ShowHistory)->setEnabled(count == 1);
    action(Action::Delete)->setEnabled(count > 0);
    action(Action::Pause)->setEnabled(count > paused);
    action(Action::Resume)->setEnabled(paused > 0);
    action(Action::CheckNow)->setEnabled(count > paused);
}

void MonitorsView::updateEmptyState()
{
    m_pages->setCurrentWidget(m_model->rowCount() == 0 ? static_cast<QWidget *>(m_emptyText) : m_table);
    m_filter->setEnabled(m_model->rowCount() > 0);
}

void MonitorsView::showContextMenu(const QPoint &pos)
{
    QPoint at = pos;
    // From the keyboard (the menu key), the point is not over a row: open at the current one.
    if (!m_table->indexAt(pos).isValid() && m_table->currentIndex().isValid())
        at = m_table->visualRect(m_table->currentIndex()).center();
    m_contextMenu->popup(m_table->viewport()->mapToGlobal(at));
}

void MonitorsView::chooseMonitorsFile()
{
    // Not the static call: it would block the event loop while it is open.
    auto *dialog
        = new QFileDialog(this, tr("Add Monitors from File"), QString(), tr("Monitors files (*.json);;All files (*)"));
    dialog->setObjectName(QStringLiteral("monitorsFileDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setFileMode(QFileDialog::ExistingFile);
    dialog->setAcceptMode(QFileDialog::AcceptOpen);
    connect(dialog, &QFileDialog::fileSelected, this, &MonitorsView::importRequested);
    dialog->open();
}

QStringList MonitorsView::takenNamesBut(const QString &name) const
{
    QStringList names = m_model->names();
    names.removeAll(name);
    return names;
}

void MonitorsView::editSelected()
{
    const QStringList names = selectedNames();
    if (names.size() != 1)
        return;
    const Core::Monitor before = m_model->monitorAt(m_model->rowOf(names.constFirst()));
    auto *dialog = new MonitorEditDialog(before, takenNamesBut(before.name), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this,
        [this, dialog, before] { m_undo->push(new MonitorReplaceCommand(this, before, dialog->monitor())); });
    dialog->open();
}

void MonitorsView::editNewMonitor(const Core::Monitor &draft)
{
    auto *dialog = new MonitorEditDialog(draft, m_model->names(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog] { addMonitors({dialog->monitor()}); });
    dialog->open();
}

void MonitorsView::addMonitors(const QList<Core::Monitor> &monitors)
{
    if (monitors.isEmpty())
        return;
    const QString text = monitors.size() == 1 ? tr("Add monitor %1").arg(monitors.constFirst().name)
                                              : tr("Add %n monitor(s)", nullptr, int(monitors.size()));
    m_undo->push(new MonitorsAddCommand(this, monitors, true, text));
}

void MonitorsView::deleteSelected()
{
    const QStringList names = selectedNames();
    if (names.isEmpty())
        return;
    QList<Core::Monitor> monitors;
    for (const QString &name : names)
        monitors.append(m_model->monitorAt(m_model->rowOf(name)));
    const QString text = names.size() == 1 ? tr("Delete monitor %1").arg(names.constFirst())
                                           : tr("Delete %n monitor(s)", nullptr, int(names.size()));
    qCDebug(lcMonitorsView) << "delete" << names;
    m_undo->push(new MonitorsAddCommand(this, monitors, false, text));
    m_messages->showMessage(FieldMessage::Kind::Note,
        tr("%1. %2 brings it back.").arg(text, action(Action::Undo)->shortcut().toString(QKeySequence::NativeText)));
}

void MonitorsView::showHistoryOfCurrent()
{
    const QStringList names = selectedNames();
    if (names.size() == 1)
        Q_EMIT historyRequested(names.constFirst());
}

void MonitorsView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    m_model->setNow(QDateTime::currentMSecsSinceEpoch());
    m_clock->start();
}

void MonitorsView::hideEvent(QHideEvent *event)
{
    QWidget::hideEvent(event);
    m_clock->stop();
}

} // namespace RetryLab::Ui
