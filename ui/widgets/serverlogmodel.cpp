#include "ui/widgets/serverlogmodel.h"

#include "core/util/durationtext.h"
#include "ui/widgets/outcomestyle.h"

#include <QLocale>

#include <algorithm>

namespace RetryLab::Ui {

namespace {

constexpr int flushIntervalMs = 33;
constexpr int maxMaxRows = 1'000'000;

} // namespace

ServerLogModel::ServerLogModel(QObject *parent) : QAbstractTableModel(parent)
{
    m_flushTimer.setSingleShot(true);
    m_flushTimer.setInterval(flushIntervalMs);
    connect(&m_flushTimer, &QTimer::timeout, this, &ServerLogModel::flush);
}

int ServerLogModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ServerLogModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ServerLogModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::DisplayRole) {
        switch (static_cast<Column>(section)) {
        case Sequence:
            return tr("#");
        case Time:
            return tr("Time");
        case Method:
            return tr("Method");
        case Target:
            return tr("Target");
        case Step:
            return tr("Script step");
        case ClientAttempt:
            return tr("Attempt");
        case Action:
            return tr("Action");
        case Status:
            return tr("Status");
        case Duration:
            return tr("Duration");
        case Peer:
            return tr("Client");
        case Detail:
            return tr("Detail");
        case ColumnCount:
            break;
        }
    } else if (role == Qt::ToolTipRole) {
        switch (static_cast<Column>(section)) {
        case Sequence:
            return tr("The server's number for the request, counted since it started");
        case Step:
            return tr("The scripted test (X-Retry-Test-Id) and the step of it that answered");
        case ClientAttempt:
            return tr("X-Retry-Attempt as the client sent it; \"resent\" when its HTTP library sent the same "
                      "attempt again");
        case Action:
            return tr("What the server did: respond, reset, empty, stall, broken-stream, garbage, drip, ...");
        default:
            break;
        }
    }
    return {};
}

QVariant ServerLogModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Core::ServerLogEntry &e = m_rows.at(static_cast<size_t>(index.row()));
    const auto column = static_cast<Column>(index.column());

    if (role == Qt::DisplayRole) {
        switch (column) {
        case Sequence:
            return QString::number(e.sequence);
        case Time:
            return e.time.toLocalTime().toString(QStringLiteral("HH:mm:ss.zzz"));
        case Method:
            return e.method.isEmpty() ? QStringLiteral("\u2014") : QString::fromLatin1(e.method);
        case Target:
            return e.target;
        case Step:
            if (e.testId.isEmpty())
                return QString();
            if (e.instructionIndex < 0)
                return tr("%1 (steps used up)").arg(e.testId);
            return tr("%1 step %2").arg(e.testId).arg(e.instructionIndex + 1);
        case ClientAttempt:
            if (e.clientAttempt.isEmpty())
                return QString();
            return e.replayed ? tr("%1 (resent)").arg(e.clientAttempt) : e.clientAttempt;
        case Action:
            return e.action;
        case Status:
            return e.status ? QString::number(*e.status) : QStringLiteral("\u2014");
        case Duration:
            return Core::DurationText::format(e.durationMs);
        case Peer:
            return e.peer;
        case Detail:
            return e.detail;
        case ColumnCount:
            break;
        }
        return {};
    }
    if (role == Qt::ToolTipRole) {
        QString tip = e.summary();
        if (e.replayed) {
            tip += QLatin1Char('\n')
                + tr("The client sent this attempt again on its own (its HTTP library resends when a connection "
                     "closes before the status line); the script gave it the same step.");
        }
        return tip;
    }
    if (role == Qt::DecorationRole && column == Status) {
        if (!e.status)
            return outcomeColor(Core::AttemptOutcome::Failed);
        return *e.status < 400 ? outcomeColor(Core::AttemptOutcome::Success)
                               : outcomeColor(Core::AttemptOutcome::Retried);
    }
    if (role == Qt::TextAlignmentRole) {
        switch (column) {
        case Sequence:
        case Status:
        case Duration:
        case ClientAttempt:
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        default:
            return QVariant::fromValue(Qt::AlignLeft | Qt::AlignVCenter);
        }
    }
    return {};
}

void ServerLogModel::append(const Core::ServerLogEntry &entry)
{
    ++m_received;
    m_pending.push_back(entry);
    // Between two flushes no more than maxRows can ever be shown.
    if (m_pending.size() > static_cast<size_t>(m_maxRows)) {
        m_pending.pop_front();
        ++m_dropped;
    }
    if (!m_flushTimer.isActive())
        m_flushTimer.start();
}

void ServerLogModel::flush()
{
    m_flushTimer.stop();
    if (m_pending.empty())
        return;
    const size_t incoming = m_pending.size();
    const size_t room = static_cast<size_t>(m_maxRows);
    if (m_rows.size() + incoming > room) {
        const size_t drop = std::min(m_rows.size(), m_rows.size() + incoming - room);
        if (drop > 0) {
            beginRemoveRows({}, 0, static_cast<int>(drop) - 1);
            m_rows.erase(m_rows.begin(), m_rows.begin() + static_cast<std::ptrdiff_t>(drop));
            m_dropped += drop;
            endRemoveRows();
        }
    }
    const int first = static_cast<int>(m_rows.size());
    beginInsertRows({}, first, first + static_cast<int>(incoming) - 1);
    for (auto &entry : m_pending)
        m_rows.push_back(std::move(entry));
    m_pending.clear();
    endInsertRows();
    Q_EMIT countsChanged();
}

void ServerLogModel::clear()
{
    m_flushTimer.stop();
    beginResetModel();
    m_rows.clear();
    m_pending.clear();
    m_dropped = 0;
    m_received = 0;
    endResetModel();
    Q_EMIT countsChanged();
}

void ServerLogModel::setMaxRows(int rows)
{
    m_maxRows = std::clamp(rows, 1, maxMaxRows);
    trim();
}

void ServerLogModel::trim()
{
    while (m_pending.size() > static_cast<size_t>(m_maxRows)) {
        m_pending.pop_front();
        ++m_dropped;
    }
    if (m_rows.size() <= static_cast<size_t>(m_maxRows))
        return;
    const size_t drop = m_rows.size() - static_cast<size_t>(m_maxRows);
    beginRemoveRows({}, 0, static_cast<int>(drop) - 1);
    m_rows.erase(m_rows.begin(), m_rows.begin() + static_cast<std::ptrdiff_t>(drop));
    m_dropped += drop;
    endRemoveRows();
    Q_EMIT countsChanged();
}

} // namespace RetryLab::Ui
