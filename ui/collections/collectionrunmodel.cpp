#include "ui/collections/collectionrunmodel.h"

#include "core/runner/collectionrunreport.h"
#include "core/util/durationtext.h"
#include "ui/widgets/outcomestyle.h"

#include <algorithm>

namespace RetryLab::Ui {

namespace {

// A child's internal id is its request's row + 1; a request row's is 0.
constexpr quintptr requestRowId = 0;

QColor verdictColor(CollectionRunModel::Verdict verdict)
{
    switch (verdict) {
    case CollectionRunModel::Verdict::Running:
        return outcomeColor(Core::AttemptOutcome::InFlight);
    case CollectionRunModel::Verdict::Passed:
        return outcomeColor(Core::AttemptOutcome::Success);
    case CollectionRunModel::Verdict::Retried:
        return outcomeColor(Core::AttemptOutcome::Retried);
    case CollectionRunModel::Verdict::Failed:
        return outcomeColor(Core::AttemptOutcome::Failed);
    case CollectionRunModel::Verdict::Skipped:
        return outcomeColor(Core::AttemptOutcome::Cancelled);
    }
    return {};
}

} // namespace

CollectionRunModel::CollectionRunModel(QObject *parent) : QAbstractItemModel(parent)
{ }

void CollectionRunModel::clear(int iterations)
{
    beginResetModel();
    m_rows.clear();
    m_iterations = std::max(1, iterations);
    endResetModel();
}

void CollectionRunModel::addStarted(int index, const QString &path, int iteration)
{
    if (indexOfRequest(index).isValid())
        return;
    const int at = int(m_rows.size());
    beginInsertRows({}, at, at);
    Row row;
    row.index = index;
    row.path = path;
    row.iteration = iteration;
    m_rows.append(row);
    endInsertRows();
}

void CollectionRunModel::addFinished(const Core::CollectionRequestRun &run)
{
    QModelIndex at = indexOfRequest(run.index);
    if (!at.isValid()) {
        addStarted(run.index, run.path, run.iteration);
        at = indexOfRequest(run.index);
    }
    Row &row = m_rows[at.row()];
    // A request ends once: its children are new.
    if (!row.children.isEmpty()) {
        beginRemoveRows(at, 0, int(row.children.size()) - 1);
        row.children.clear();
        endRemoveRows();
    }
    row.run = run;
    row.path = run.path;
    row.iteration = run.iteration;
    const QList<Child> children = childrenOf(run);
    if (!children.isEmpty()) {
        beginInsertRows(at, 0, int(children.size()) - 1);
        row.children = children;
        endInsertRows();
    }
    Q_EMIT dataChanged(index(at.row(), 0), index(at.row(), ColumnCount - 1));
}

void CollectionRunModel::setResult(const Core::CollectionRunResult &result)
{
    beginResetModel();
    m_rows.clear();
    m_iterations = std::max(1, result.iterations);
    for (const Core::CollectionRequestRun &run : result.requests) {
        Row row;
        row.index = run.index;
        row.path = run.path;
        row.iteration = run.iteration;
        row.run = run;
        row.children = childrenOf(run);
        m_rows.append(row);
    }
    endResetModel();
}

QList<CollectionRunModel::Child> CollectionRunModel::childrenOf(const Core::CollectionRequestRun &run)
{
    QList<Child> children;
    for (const Core::AssertionResult &assertion : run.assertions) {
        children.append(
            {Kind::Assertion, assertion.name, assertion.passed ? Verdict::Passed : Verdict::Failed, assertion.message});
    }
    for (const Core::ScriptTest &test : run.tests) {
        const Verdict verdict = test.skipped ? Verdict::Skipped : test.passed ? Verdict::Passed : Verdict::Failed;
        children.append({Kind::Test, test.name, verdict, test.error});
    }
    for (const QString &error : run.errors)
        children.append({Kind::Error, tr("Error"), Verdict::Failed, error});
    return children;
}

const Core::CollectionRequestRun *CollectionRunModel::requestAt(const QModelIndex &index) const
{
    const QModelIndex request = requestIndex(index);
    if (!request.isValid())
        return nullptr;
    const Row &row = m_rows.at(request.row());
    return row.run ? &*row.run : nullptr;
}

QModelIndex CollectionRunModel::requestIndex(const QModelIndex &index) const
{
    if (!index.isValid() || index.model() != this)
        return {};
    const QModelIndex request = index.internalId() == requestRowId ? index : index.parent();
    return request.siblingAtColumn(0);
}

QModelIndex CollectionRunModel::indexOfRequest(int runIndex) const
{
    // Rows come in run order; the newest is the likeliest.
    for (qsizetype row = m_rows.size() - 1; row >= 0; --row) {
        if (m_rows.at(row).index == runIndex)
            return index(int(row), 0);
    }
    return {};
}

QString CollectionRunModel::verdictText(Verdict verdict)
{
    switch (verdict) {
    case Verdict::Running:
        return tr("running");
    case Verdict::Passed:
        return tr("passed");
    case Verdict::Retried:
        return tr("retried");
    case Verdict::Failed:
        return tr("failed");
    case Verdict::Skipped:
        return tr("skipped");
    }
    return {};
}

CollectionRunModel::Verdict CollectionRunModel::verdictOf(const Core::CollectionRequestRun &run)
{
    if (run.failed())
        return Verdict::Failed;
    if (run.skipped)
        return Verdict::Skipped;
    return run.retried() ? Verdict::Retried : Verdict::Passed;
}

QModelIndex CollectionRunModel::index(int row, int column, const QModelIndex &parent) const
{
    if (row < 0 || column < 0 || column >= ColumnCount)
        return {};
    if (!parent.isValid())
        return row < m_rows.size() ? createIndex(row, column, requestRowId) : QModelIndex();
    if (parent.internalId() != requestRowId || parent.row() >= m_rows.size())
        return {};
    if (row >= m_rows.at(parent.row()).children.size())
        return {};
    return createIndex(row, column, quintptr(parent.row()) + 1);
}

QModelIndex CollectionRunModel::parent(const QModelIndex &child) const
{
    if (!child.isValid() || child.internalId() == requestRowId)
        return {};
    return createIndex(int(child.internalId() - 1), 0, requestRowId);
}

int CollectionRunModel::rowCount(const QModelIndex &parent) const
{
    if (!parent.isValid())
        return int(m_rows.size());
    if (parent.column() != 0 || parent.internalId() != requestRowId)
        return 0;
    return int(m_rows.at(parent.row()).children.size());
}

int CollectionRunModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

QVariant CollectionRunModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid())
        return {};
    if (index.internalId() == requestRowId)
        return requestData(m_rows.at(index.row()), index.column(), role);
    const Row &row = m_rows.at(int(index.internalId() - 1));
    if (role == RequestIndexRole)
        return row.index;
    return childData(row.children.at(index.row()), index.column(), role);
}

QVariant CollectionRunModel::requestData(const Row &row, int column, int role) const
{
    const Verdict verdict = row.run ? verdictOf(*row.run) : Verdict::Running;
    switch (role) {
    case KindRole:
        return int(Kind::Request);
    case VerdictRole:
        return int(verdict);
    case RequestIndexRole:
        return row.index;
    case Qt::DecorationRole:
        return column == VerdictColumn ? QVariant(verdictColor(verdict)) : QVariant();
    case Qt::TextAlignmentRole:
        return column == TimeColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    case Qt::DisplayRole:
    case Qt::ToolTipRole:
        break;
    default:
        return {};
    }
    switch (column) {
    case RequestColumn:
        return m_iterations > 1 ? tr("%1 (iteration %2)").arg(row.path).arg(row.iteration + 1) : row.path;
    case StatusColumn:
        if (!row.run)
            return tr("sending…");
        if (role == Qt::ToolTipRole && row.run->sent())
            return QStringLiteral("%1 %2\n%3")
                .arg(QString::fromLatin1(row.run->spec.method), row.run->spec.url.toDisplayString(),
                    Core::CollectionRunReport::statusText(*row.run));
        return Core::CollectionRunReport::statusText(*row.run);
    case TimeColumn:
        return row.run && row.run->result ? Core::DurationText::format(row.run->result->totalMs()) : QString();
    case VerdictColumn:
        if (role == Qt::ToolTipRole && verdict == Verdict::Retried)
            return tr("%1: passed after %n attempt(s) under the policy %2", nullptr, row.run->result->attempts)
                .arg(verdictText(verdict), row.run->policyName);
        return verdictText(verdict);
    default:
        return {};
    }
}

QVariant CollectionRunModel::childData(const Child &child, int column, int role) const
{
    switch (role) {
    case KindRole:
        return int(child.kind);
    case VerdictRole:
        return int(child.verdict);
    case Qt::DecorationRole:
        return column == VerdictColumn ? QVariant(verdictColor(child.verdict)) : QVariant();
    case Qt::DisplayRole:
    case Qt::ToolTipRole:
        break;
    default:
        return {};
    }
    switch (column) {
    case RequestColumn:
        switch (child.kind) {
        case Kind::Assertion:
            return tr("Assertion: %1").arg(child.name);
        case Kind::Test:
            return tr("Test: %1").arg(child.name);
        case Kind::Error:
        case Kind::Request:
            return child.name;
        }
        return {};
    case StatusColumn:
        return child.message;
    case VerdictColumn:
        return verdictText(child.verdict);
    default:
        return {};
    }
}

QVariant CollectionRunModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case RequestColumn:
        return tr("Request");
    case StatusColumn:
        return tr("Status or message");
    case TimeColumn:
        return tr("Time");
    case VerdictColumn:
        return tr("Verdict");
    default:
        return {};
    }
}

} // namespace RetryLab::Ui
