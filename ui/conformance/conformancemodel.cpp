#include "ui/conformance/conformancemodel.h"

#include "ui/widgets/outcomestyle.h"

#include "core/http/redactor.h"

#include <QColor>

namespace RetryLab::Ui {

ConformanceModel::ConformanceModel(QObject *parent)
    : QAbstractTableModel(parent), m_classes(Core::Conformance::idempotencyClasses())
{ }

void ConformanceModel::setCells(const QList<Core::ConformanceCellResult> &cells)
{
    beginResetModel();
    m_cells = cells;
    endResetModel();
}

void ConformanceModel::updateCell(int index, const Core::ConformanceCellResult &cell)
{
    if (index < 0 || index >= m_cells.size())
        return;
    m_cells[index] = cell;
    const int columns = static_cast<int>(m_classes.size());
    const QModelIndex changed = this->index(index / columns, index % columns);
    Q_EMIT dataChanged(changed, changed);
}

void ConformanceModel::setRunning(bool running)
{
    if (m_running == running)
        return;
    m_running = running;
    if (rowCount() > 0)
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
}

const Core::ConformanceCellResult *ConformanceModel::cellAt(const QModelIndex &index) const
{
    // No current cell is a normal state for a view, not a misuse worth a warning.
    if (!index.isValid() || !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return nullptr;
    const qsizetype i = qsizetype(index.row()) * m_classes.size() + index.column();
    return i < m_cells.size() ? &m_cells[i] : nullptr;
}

ConformanceModel::CellState ConformanceModel::stateOf(const Core::ConformanceCellResult &cell) const
{
    if (cell.done)
        return cell.verdict.passed ? CellState::Passed : CellState::Failed;
    return m_running ? CellState::Running : CellState::Planned;
}

int ConformanceModel::rowCount(const QModelIndex &parent) const
{
    if (parent.isValid() || m_classes.isEmpty())
        return 0;
    return static_cast<int>((m_cells.size() + m_classes.size() - 1) / m_classes.size());
}

int ConformanceModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_classes.size());
}

QVariant ConformanceModel::data(const QModelIndex &index, int role) const
{
    const Core::ConformanceCellResult *cell = cellAt(index);
    if (!cell)
        return {};
    const CellState state = stateOf(*cell);
    switch (role) {
    case Qt::DisplayRole:
        switch (state) {
        case CellState::Planned:
            return tr("expect %1").arg(cell->cell.expected.summary());
        case CellState::Running:
            return tr("running...");
        case CellState::Passed:
        case CellState::Failed:
            return tr("%1: %2 after %n attempt(s)", nullptr, cell->result.attempts)
                .arg(state == CellState::Passed ? tr("pass") : tr("FAIL"),
                    Core::requestOutcomeName(cell->result.outcome));
        }
        return {};
    case Qt::ToolTipRole: {
        // Verdicts quote reasons that came from the server; they are shown redacted.
        if (cell->done)
            return Core::Redactor::logLine(cell->verdict.message);
        return tr("expected: %1\n%2")
            .arg(cell->cell.expected.summary(), cell->cell.expected.explanation.join(QLatin1Char('\n')));
    }
    case Qt::BackgroundRole:
        if (state == CellState::Passed || state == CellState::Failed) {
            QColor colour = outcomeColor(
                state == CellState::Passed ? Core::AttemptOutcome::Success : Core::AttemptOutcome::Failed);
            colour.setAlpha(70);
            return colour;
        }
        return {};
    case StateRole:
        return int(state);
    case OutcomeRole:
        return cell->done ? QVariant(Core::requestOutcomeName(cell->result.outcome)) : QVariant();
    case AttemptsRole:
        return cell->done ? QVariant(cell->result.attempts) : QVariant();
    default:
        return {};
    }
}

QVariant ConformanceModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    if (orientation == Qt::Horizontal) {
        if (section < 0 || section >= m_classes.size())
            return {};
        return Core::Conformance::idempotencyTitle(m_classes[section]);
    }
    if (section < 0 || section >= rowCount())
        return {};
    const Core::FaultSequence &sequence = m_cells[qsizetype(section) * m_classes.size()].cell.sequence;
    if (role == Qt::ToolTipRole) {
        return sequence.steps.isEmpty() ? tr("the path answers %1 to every attempt").arg(sequence.thenStatus)
                                        : tr("server steps: %1, then the path answers %2")
                                              .arg(sequence.steps.join(QStringLiteral(", ")))
                                              .arg(sequence.thenStatus);
    }
    return sequence.title;
}

} // namespace RetryLab::Ui
