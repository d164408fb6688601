#pragma once

#include "core/policy/backoffpolicy.h"
#include "core/scenario/storageconformancerunner.h"

#include <QAbstractTableModel>
#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTableView;

namespace RetryLab::Ui {

/// Google's Cloud Storage retry cases as a matrix: a row per case and
/// instruction list, a column per method the fault server serves; each cell
/// what the case expects, then pass or fail with the attempts. Words and marks,
/// never colour alone.
class StorageConformanceModel final : public QAbstractTableModel
{
    Q_OBJECT

public:
    explicit StorageConformanceModel(QObject *parent = nullptr);

    void setRuns(const QList<Core::StorageConformanceRun> &runs);
    void updateRun(int index, const Core::StorageConformanceRun &run);
    /// The run a cell shows, or -1 for a method not in that case.
    int runAt(const QModelIndex &index) const;
    const QList<Core::StorageConformanceRun> &runs() const { return m_runs; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Row
    {
        int caseId = 0;
        int listIndex = 0;
    };
    QList<Core::StorageConformanceRun> m_runs;
    QList<Row> m_rows;
    QStringList m_methods;
    QHash<QPair<int, int>, int> m_cells; ///< (row, column) -> run
};

/// The Conformance tab's second suite: Google's Cloud Storage retry conformance
/// cases (resources/conformance/retry_tests.json) played under the chosen policy
/// against a fault server of their own (Core::StorageConformanceRunner).
class StorageConformanceView final : public QWidget
{
    Q_OBJECT

public:
    explicit StorageConformanceView(QWidget *parent = nullptr);
    ~StorageConformanceView() override;

    /// The policy the next run takes (the Conformance tab's choice); held while a run goes.
    void setPolicy(const Core::BackoffPolicy &policy);
    StorageConformanceModel *model() const { return m_model; }
    const Core::StorageConformanceRunner &runner() const { return *m_runner; }
    bool isRunning() const { return m_runner->isRunning(); }

public Q_SLOTS:
    void run();
    void cancel();

Q_SIGNALS:
    void finished(int passed, int total);

private:
    void showSelected();
    void updateStatus();

    Core::StorageConformanceRunner *m_runner;
    StorageConformanceModel *m_model;
    Core::BackoffPolicy m_policy;
    QString m_loadError;
    QLabel *m_status;
    QLabel *m_notPlayed;
    QPushButton *m_runButton;
    QPushButton *m_cancelButton;
    QTableView *m_table;
    QPlainTextEdit *m_details;
};

} // namespace RetryLab::Ui
