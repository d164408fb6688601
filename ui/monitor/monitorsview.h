#pragma once

#include "core/monitor/monitor.h"

#include <QList>
#include <QStringList>
#include <QWidget>

QT_BEGIN_NAMESPACE
class QAction;
class QLabel;
class QLineEdit;
class QMenu;
class QSortFilterProxyModel;
class QStackedWidget;
class QTableView;
class QTimer;
class QToolBar;
class QUndoStack;
QT_END_NAMESPACE

namespace RetryLab::Ui {

class MessageBar;
class MonitorListModel;

/// The Monitors tab: the monitors' table (sortable, filtered by name), the
/// actions on them with shortcuts, a toolbar and a context menu, an empty-state
/// text while there is none, and a message bar for the errors reported to it.
/// It runs nothing itself: every action is a signal, and whoever runs the
/// monitors feeds model() with what happened. Deleting and editing go through
/// its undo stack: undoing a delete asks to add the monitor back, undoing an
/// edit asks to put the old monitor back.
class MonitorsView final : public QWidget
{
    Q_OBJECT

public:
    enum class Action {
        AddFromCurrentRequest,
        AddFromCollection,
        AddFromFile,
        Edit,
        Pause,
        Resume,
        Delete,
        CheckNow,
        ShowHistory,
        Undo,
        Redo,
        Filter,
    };

    explicit MonitorsView(QWidget *parent = nullptr);

    MonitorListModel *model() const { return m_model; }
    QTableView *table() const { return m_table; }
    QUndoStack *undoStack() const { return m_undo; }
    QAction *action(Action which) const;
    /// The names of the selected monitors, in the table's order.
    QStringList selectedNames() const;
    /// Selects the monitor's row (and makes it current); false when unknown or filtered out.
    bool selectMonitor(const QString &name);

    /// Shows an error (a monitor the engine refused, a file that could not be read).
    void showMessage(const QString &text);
    MessageBar *messageBar() const { return m_messages; }

    /// Opens the editor on a monitor not yet added (one made by monitorFromRequest,
    /// or from one saved request); OK asks for it with addRequested(), undoably.
    void editNewMonitor(const Core::Monitor &draft);
    /// Asks for several monitors at once (a collection's folder) as one undoable step.
    void addMonitors(const QList<Core::Monitor> &monitors);

Q_SIGNALS:
    void addFromCurrentRequestRequested();
    void addFromCollectionRequested();
    void importRequested(const QString &path);
    void addRequested(const Core::Monitor &monitor);
    void replaceRequested(const QString &name, const Core::Monitor &monitor);
    void removeRequested(const QString &name);
    void pauseRequested(const QString &name);
    void resumeRequested(const QString &name);
    void checkNowRequested(const QString &name);
    void historyRequested(const QString &name);

protected:
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;

private:
    QAction *makeAction(const QString &text, const QKeySequence &shortcut, const QString &tip);
    void buildActions();
    void updateActions();
    void updateEmptyState();
    void showContextMenu(const QPoint &pos);
    void chooseMonitorsFile();
    void editSelected();
    void deleteSelected();
    void showHistoryOfCurrent();
    QStringList takenNamesBut(const QString &name) const;

    MonitorListModel *m_model;
    QSortFilterProxyModel *m_proxy;
    MessageBar *m_messages;
    QToolBar *m_toolBar;
    QLineEdit *m_filter;
    QStackedWidget *m_pages;
    QTableView *m_table;
    QLabel *m_emptyText;
    QMenu *m_contextMenu;
    QUndoStack *m_undo;
    QTimer *m_clock;
    QList<QAction *> m_actions; ///< by Action
};

} // namespace RetryLab::Ui
