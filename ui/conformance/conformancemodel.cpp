#include "ui/conformance/conformancemodel.h"

#include "ui/widgets/outcomestyle.h"

#include "core/http/redactor.h"

#include <QColor>
#include <QGuiApplication>
#include <QIcon>
#include <QPainter>
#include <QPalette>
#include <QPixmap>
#include <QPolygonF>

namespace RetryLab::Ui {

namespace {

// A tick in a green disc, or a cross in a red one: told apart by shape as well as colour.
QIcon drawMark(bool expected)
{
    QPixmap pixmap(32, 32);
    pixmap.fill(Qt::transparent);
    QPainter p(&pixmap);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(Qt::NoPen);
    p.setBrush(expected ? QColor(0x1a, 0x7f, 0x37) : QColor(0xc0, 0x1c, 0x28));
    p.drawEllipse(QRectF(1, 1, 30, 30));
    p.setPen(QPen(Qt::white, 4.5, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    if (expected) {
        p.drawPolyline(QPolygonF{QPointF(8, 16.5), QPointF(13.5, 22), QPointF(24, 10)});
    } else {
        p.drawLine(QPointF(10, 10), QPointF(22, 22));
        p.drawLine(QPointF(22, 10), QPointF(10, 22));
    }
    return QIcon(pixmap);
}

} // namespace

QString ConformanceModel::outcomeWord(Core::RequestOutcome outcome)
{
    switch (outcome) {
    case Core::RequestOutcome::Succeeded:
        return tr("succeeded");
    case Core::RequestOutcome::GaveUp:
        return tr("gave up");
    case Core::RequestOutcome::AttemptsExhausted:
        return tr("exhausted");
    case Core::RequestOutcome::DeadlineExceeded:
        return tr("deadline");
    case Core::RequestOutcome::Cancelled:
        return tr("cancelled");
    case Core::RequestOutcome::CircuitOpen:
        return tr("breaker open");
    case Core::RequestOutcome::BudgetExhausted:
        return tr("budget empty");
    case Core::RequestOutcome::InvalidRequest:
        return tr("invalid");
    }
    return {};
}

QIcon ConformanceModel::expectationMark(bool expected)
{
    static const QIcon pass = drawMark(true);
    static const QIcon fail = drawMark(false);
    return expected ? pass : fail;
}

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
    if (!cell.cell.applies())
        return CellState::NotApplicable;
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
        case CellState::NotApplicable:
            return tr("n/a");
        case CellState::Passed:
        case CellState::Failed:
            // What happened is the cell's content; whether it was expected is the mark
            // beside it, so that "gave up" never reads as a green success.
            // "gave up (1)": the outcome, and in brackets the attempts made (said in the tooltip).
            return tr("%1 (%2)").arg(outcomeWord(cell->result.outcome)).arg(cell->result.attempts);
        }
        return {};
    case Qt::DecorationRole:
        if (state == CellState::Passed || state == CellState::Failed)
            return expectationMark(state == CellState::Passed);
        return {};
    case ExpectationRole:
        if (state == CellState::Passed || state == CellState::Failed)
            return state == CellState::Passed ? tr("as expected") : tr("NOT as expected");
        return {};
    case Qt::ToolTipRole: {
        // Verdicts quote reasons that came from the server; they are shown redacted.
        if (state == CellState::NotApplicable)
            return Core::ConformanceCase::notApplicableReason();
        if (cell->done) {
            return tr("%1 after %n attempt(s), %2\n%3", nullptr, cell->result.attempts)
                .arg(Core::requestOutcomeTitle(cell->result.outcome),
                    state == CellState::Passed ? tr("as expected") : tr("NOT as expected"),
                    Core::Redactor::logLine(cell->verdict.message));
        }
        return tr("expected: %1\n%2")
            .arg(cell->cell.expected.summary(), cell->cell.expected.explanation.join(QLatin1Char('\n')));
    }
    case Qt::BackgroundRole:
        // The outcome's own colour, strong enough for a projector; dark text on it.
        if (state == CellState::Passed || state == CellState::Failed)
            return requestOutcomeColor(cell->result.outcome).lighter(165);
        return {};
    case Qt::ForegroundRole:
        if (state == CellState::Passed || state == CellState::Failed)
            return QColor(Qt::black);
        if (state == CellState::NotApplicable) // greyed, as a disabled item is
            return QGuiApplication::palette().color(QPalette::Disabled, QPalette::Text);
        return {};
    case StateRole:
        return int(state);
    case OutcomeRole:
        return state == CellState::Passed || state == CellState::Failed
            ? QVariant(Core::requestOutcomeName(cell->result.outcome))
            : QVariant();
    case AttemptsRole:
        return state == CellState::Passed || state == CellState::Failed ? QVariant(cell->result.attempts) : QVariant();
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
        const QString title = Core::Conformance::idempotencyTitle(m_classes[section]);
        // Two lines in the header, the method under the class: whole in a narrow column.
        return role == Qt::DisplayRole ? QString(title).replace(QStringLiteral(" ("), QStringLiteral("\n(")) : title;
    }
    if (section < 0 || section >= rowCount())
        return {};
    const Core::FaultSequence &sequence = m_cells[qsizetype(section) * m_classes.size()].cell.sequence;
    if (role == Qt::ToolTipRole) {
        // The title first: a narrow tab elides it in the header.
        if (sequence.readModifyWrite != Core::FaultSequence::ReadModifyWrite::None) {
            return tr("%1\na whole read-modify-write of a resource on /occ; server steps for its reads and writes in "
                      "turn: %2, then /occ answers as itself")
                .arg(sequence.title, sequence.steps.join(QStringLiteral(", ")));
        }
        return sequence.steps.isEmpty()
            ? tr("%1\nthe path answers %2 to every attempt").arg(sequence.title).arg(sequence.thenStatus)
            : tr("%1\nserver steps: %2, then the path answers %3")
                  .arg(sequence.title, sequence.steps.join(QStringLiteral(", ")))
                  .arg(sequence.thenStatus);
    }
    return sequence.title;
}

} // namespace RetryLab::Ui
