#pragma once

#include "ui/run/attemptlogmodel.h"

#include <QWidget>

class QAction;
class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QTableView;
class QTimer;
class QToolButton;

namespace RetryLab::Ui {

class RunSession;

/// The error log tab: the attempt table, an outcome chooser and a text filter, the
/// number of rows shown, and export actions. The view does not write files: it asks
/// for an export through exportRequested(), and the receiver takes the rows from
/// visibleFinishedIndexes() and the records from RunSession::runRecord().
class ErrorLogView final : public QWidget
{
    Q_OBJECT

public:
    enum class ExportFormat { Csv, Json };
    Q_ENUM(ExportFormat)

    explicit ErrorLogView(QWidget *parent = nullptr);

    /// Not owned.
    void setSession(RunSession *session);
    RunSession *session() const { return m_model->session(); }
    AttemptLogModel *model() const { return m_model; }
    QTableView *tableView() const { return m_table; }

    /// The rows shown (filtered and sorted), as session finished-attempt indexes.
    QList<qsizetype> visibleFinishedIndexes() const { return m_model->visibleFinishedIndexes(); }
    /// The selected rows, in display order.
    QList<qsizetype> selectedFinishedIndexes() const;

    /// Keeps the newest row in sight while rows arrive (on by default).
    void setFollowNewest(bool follow);
    bool followNewest() const;

    /// "Export all rows as CSV…", "… shown rows …", and the same for JSON.
    QList<QAction *> exportActions() const { return m_exportActions; }

    /// Applies the text field's filter now instead of after the typing pause.
    void applyTextFilter();
    /// Selects and scrolls to an attempt (a session row, e.g. a bar clicked in the
    /// timeline); false when it is not finished or hidden by the filter.
    bool showAttempt(qsizetype sessionRow);

Q_SIGNALS:
    void exportRequested(RetryLab::Ui::ErrorLogView::ExportFormat format, bool onlyVisibleRows);
    /// A row was double-clicked or activated with the keyboard.
    void attemptActivated(qsizetype sessionRow);
    /// The current row changed to an attempt (a click, the arrow keys, showAttempt()).
    void attemptSelected(qsizetype sessionRow);

private:
    void handleOutcomeChosen(int index);
    void handleRowsInserted();
    void updateCount();
    QAction *addExportAction(const QString &text, ExportFormat format, bool onlyVisible);

    AttemptLogModel *m_model;
    QTableView *m_table;
    QComboBox *m_outcome;
    QLineEdit *m_filter;
    QTimer *m_filterDelay;
    QLabel *m_count;
    QCheckBox *m_follow;
    QToolButton *m_exportButton;
    QList<QAction *> m_exportActions;
};

} // namespace RetryLab::Ui
