#pragma once

#include "core/scenario/conformancerunner.h"

#include <QAbstractTableModel>
#include <QList>

class QIcon;

namespace RetryLab::Ui {

/// The conformance matrix as a table: a row per fault sequence, a column per
/// idempotency class. Before a run a cell shows what the policy's rules
/// expect; after, whether the cell passed, with the outcome and attempts. The
/// tooltip explains the verdict (or the expectation) step by step.
class ConformanceModel final : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Role {
        StateRole = Qt::UserRole + 1, ///< CellState as int
        OutcomeRole, ///< the RequestOutcome name once the cell ran
        AttemptsRole, ///< attempts made once the cell ran
        ExpectationRole, ///< "as expected" / "NOT as expected" once the cell ran
    };
    /// NotApplicable: a cell the matrix does not play (ConformanceCase::applies()).
    enum class CellState { Planned, Running, Passed, Failed, NotApplicable };
    Q_ENUM(CellState)

    explicit ConformanceModel(QObject *parent = nullptr);

    /// Every cell, row by row (ConformanceRunner::cells()); the model resets.
    void setCells(const QList<Core::ConformanceCellResult> &cells);
    /// One cell finished or changed.
    void updateCell(int index, const Core::ConformanceCellResult &cell);
    /// Cells that have not finished show as running (true) or as planned (false).
    void setRunning(bool running);

    const QList<Core::ConformanceCellResult> &cells() const { return m_cells; }
    /// The cell at an index of this model, or nullptr.
    const Core::ConformanceCellResult *cellAt(const QModelIndex &index) const;
    CellState stateOf(const Core::ConformanceCellResult &cell) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    /// The mark beside a finished cell: whether the outcome was the expected one.
    static QIcon expectationMark(bool expected);
    /// The outcome in a word or two, for a cell: "succeeded", "gave up", "exhausted".
    static QString outcomeWord(Core::RequestOutcome outcome);
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QList<Core::ConformanceCellResult> m_cells;
    QList<Core::IdempotencyClass> m_classes;
    bool m_running = false;
};

} // namespace RetryLab::Ui
