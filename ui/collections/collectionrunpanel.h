#pragma once

#include "core/record/runrecord.h"
#include "core/runner/collectionrunner.h"
#include "core/util/result.h"

#include <QWidget>

class QAction;
class QCheckBox;
class QLabel;
class QSortFilterProxyModel;
class QToolButton;
class QTreeView;

namespace RetryLab::Ui {

class CollectionRunModel;

/// The results of a collection run: a header with the collection's name, the
/// progress ("12/40"), how many requests passed, failed and passed only after
/// retries, and Stop while it runs; the tree of requests with their assertions,
/// tests and errors (CollectionRunModel), which "Failed only" narrows to what
/// failed. "Open attempts" (Enter on a request) hands the attempts of the
/// selected request to the timeline and the inspector (openRecord()); "Export…"
/// writes the run as the JSON report, JUnit XML or HAR, by the file's type.
///
/// It is fed by the host of the run (CollectionRunHost): runStarted(),
/// requestStarted(), requestFinished(), runFinished().
class CollectionRunPanel final : public QWidget
{
    Q_OBJECT

public:
    explicit CollectionRunPanel(QWidget *parent = nullptr);
    ~CollectionRunPanel() override;

    void runStarted(const QString &collectionName, int plannedRequests, int iterations);
    void requestStarted(int index, const QString &path, int iteration);
    void requestFinished(const Core::CollectionRequestRun &run);
    void runFinished(const Core::CollectionRunResult &result);

    bool isRunning() const { return m_running; }
    /// The run shown: what finished, or the requests that did so far.
    const Core::CollectionRunResult &result() const { return m_result; }

    CollectionRunModel *model() const { return m_model; }
    QTreeView *view() const { return m_view; }
    QCheckBox *failedOnlyBox() const { return m_failedOnly; }
    QAction *openAttemptsAction() const { return m_openAttempts; }
    QAction *exportAction() const { return m_export; }
    QAction *stopAction() const { return m_stop; }
    /// The header's texts: "12/40" and "3 passed · 1 failed · 2 retried".
    QString progressText() const;
    QString countsText() const;

    /// Shows only the requests that failed, with what failed in them.
    void setFailedOnly(bool failedOnly);
    /// Selects a request row (its run index); false when it is not shown.
    bool selectRequest(int runIndex);
    /// Emits openRecord() for the selected request (or the one of the selected verdict).
    void openAttempts();
    /// Writes the run to `path`: .xml JUnit, .har HAR, else the JSON report.
    Core::Result<qint64> exportTo(const QString &path) const;
    /// Asks for a file and writes the run there.
    void exportRun();

Q_SIGNALS:
    /// One request's attempts, as a run of their own, to open in the timeline and the inspector.
    void openRecord(const RetryLab::Core::RunRecord &record, const QString &title);
    /// Stop was pressed while the run goes on.
    void stopRequested();

private:
    void updateHeader();
    void updateActions();
    void handleContextMenu(const QPoint &position);
    QModelIndex currentSourceIndex() const;

    CollectionRunModel *m_model;
    QSortFilterProxyModel *m_filter;
    QTreeView *m_view;
    QLabel *m_title;
    QLabel *m_progress;
    QLabel *m_counts;
    QLabel *m_note;
    QCheckBox *m_failedOnly;
    QToolButton *m_stopButton;
    QAction *m_openAttempts;
    QAction *m_export;
    QAction *m_stop;
    Core::CollectionRunResult m_result;
    bool m_running = false;
    int m_planned = 0;
};

} // namespace RetryLab::Ui
