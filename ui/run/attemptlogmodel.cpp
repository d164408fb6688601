#include "ui/run/attemptlogmodel.h"

#include "core/util/durationtext.h"
#include "ui/session/run/runsession.h"
#include "ui/widgets/outcomestyle.h"

#include <QLocale>
#include <QMetaEnum>

#include <algorithm>

namespace RetryLab::Ui {

using Core::AttemptOutcome;

namespace {

AttemptLogModel::OutcomeFlag flagOf(AttemptOutcome outcome)
{
    switch (outcome) {
    case AttemptOutcome::Success:
        return AttemptLogModel::ShowSuccess;
    case AttemptOutcome::Retried:
        return AttemptLogModel::ShowRetried;
    case AttemptOutcome::Failed:
        return AttemptLogModel::ShowFailed;
    case AttemptOutcome::Cancelled:
    case AttemptOutcome::InFlight:
        break;
    }
    return AttemptLogModel::ShowCancelled;
}

bool isStringColumn(int column)
{
    return column == AttemptLogModel::Cause || column == AttemptLogModel::Reason;
}

} // namespace

AttemptLogModel::AttemptLogModel(QObject *parent) : QAbstractTableModel(parent)
{ }

void AttemptLogModel::setSession(RunSession *session)
{
    if (m_session)
        disconnect(m_session, nullptr, this, nullptr);
    beginResetModel();
    m_session = session;
    m_resultsSeen = session ? session->resultCount() : 0;
    m_stringMatch.clear();
    m_specMatch.clear();
    m_detailMatch.clear();
    m_stringRank.clear();
    rebuild();
    endResetModel();
    if (session) {
        connect(session, &RunSession::updated, this, &AttemptLogModel::handleSessionUpdated);
        connect(session, &RunSession::cleared, this, &AttemptLogModel::handleSessionCleared);
    }
    Q_EMIT countsChanged();
}

int AttemptLogModel::rowCount(const QModelIndex &parent) const
{
    if (parent.isValid())
        return 0;
    return static_cast<int>(m_identity ? m_seen : qsizetype(m_index.size()));
}

int AttemptLogModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

qsizetype AttemptLogModel::finishedIndexAt(int row) const
{
    if (row < 0 || row >= rowCount())
        return -1;
    return m_identity ? row : qsizetype(m_index[std::size_t(row)]);
}

QList<qsizetype> AttemptLogModel::visibleFinishedIndexes() const
{
    QList<qsizetype> list;
    const int rows = rowCount();
    list.reserve(rows);
    for (int row = 0; row < rows; ++row)
        list.append(finishedIndexAt(row));
    return list;
}

int AttemptLogModel::rowOfFinishedIndex(qsizetype finishedIndex) const
{
    if (finishedIndex < 0 || finishedIndex >= m_seen)
        return -1;
    if (m_identity)
        return static_cast<int>(finishedIndex);
    const auto f = static_cast<quint32>(finishedIndex);
    if (m_sortColumn < 0) {
        const auto it = std::lower_bound(m_index.begin(), m_index.end(), f);
        return it != m_index.end() && *it == f ? static_cast<int>(it - m_index.begin()) : -1;
    }
    const auto it
        = std::lower_bound(m_index.begin(), m_index.end(), f, [this](quint32 a, quint32 b) { return lessThan(a, b); });
    return it != m_index.end() && *it == f ? static_cast<int>(it - m_index.begin()) : -1;
}

QString AttemptLogModel::displayText(qsizetype finishedIndex, int column) const
{
    const RunSession &s = *m_session;
    const RunSession::AttemptRow &row = s.attemptRow(s.finishedRow(finishedIndex));
    switch (column) {
    case Time:
        return s.wallTimeOf(row.endNs).toLocalTime().toString(QStringLiteral("hh:mm:ss.zzz"));
    case Request:
        return s.laneTitle(row.lane);
    case Attempt: {
        const QString step = s.stepOf(row);
        const QString number = QString::number(row.attemptIndex + 1);
        return step.isEmpty() ? number : tr("%1 (%2)").arg(number, step);
    }
    case Status:
        return s.statusText(row);
    case Outcome:
        return Core::attemptOutcomeTitle(row.outcome);
    case Ending: {
        const RunSession::Lane &lane = s.lane(row.lane);
        return lane.finished ? Core::requestOutcomeTitle(Core::RequestOutcome(lane.outcome)) : tr("running");
    }
    case Cause:
        return s.string(row.cause);
    case Reason:
        return s.string(row.reason);
    case NextDelay:
        return row.nextDelayMs >= 0.0F ? Core::DurationText::format(row.nextDelayMs) : QStringLiteral("\u2014");
    case Duration:
        return Core::DurationText::format(static_cast<double>(row.endNs - row.startNs) / 1e6);
    default:
        return {};
    }
}

QVariant AttemptLogModel::data(const QModelIndex &index, int role) const
{
    if (!m_session || !index.isValid() || index.model() != this || index.column() >= ColumnCount)
        return {};
    const qsizetype f = finishedIndexAt(index.row());
    if (f < 0)
        return {};
    const RunSession &s = *m_session;
    const quint32 rowIndex = s.finishedRow(f);
    const RunSession::AttemptRow &row = s.attemptRow(rowIndex);
    const int column = index.column();

    switch (role) {
    case Qt::DisplayRole:
        return displayText(f, column);
    case Qt::ToolTipRole:
        switch (column) {
        case Time:
            return tr("%1 (%2 s after the run started)")
                .arg(QLocale().toString(s.wallTimeOf(row.endNs).toLocalTime(), QLocale::LongFormat),
                    QString::number(s.toRunMs(row.endNs) / 1000.0, 'f', 3));
        case Request:
            if (const Core::RequestSpec *spec = s.spec(row.lane))
                return QString(QString::fromLatin1(spec->method) + QLatin1Char(' ')
                    + spec->url.toDisplayString(QUrl::RemoveUserInfo));
            return displayText(f, column);
        case Ending:
            if (const RunSession::Lane &lane = s.lane(row.lane); lane.finished && lane.resultReason != 0)
                return s.string(lane.resultReason);
            return displayText(f, column);
        case Reason:
        case NextDelay:
            if (row.retryNote != 0)
                return tr("%1\nNext: %2").arg(s.string(row.reason), s.string(row.retryNote));
            return s.string(row.reason);
        default:
            return displayText(f, column);
        }
    case Qt::TextAlignmentRole:
        switch (column) {
        case Attempt:
        case NextDelay:
        case Duration:
            return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
        default:
            return {};
        }
    case Qt::DecorationRole:
        if (column == Outcome)
            return outcomeColor(row.outcome);
        if (const RunSession::Lane &lane = s.lane(row.lane); column == Ending && lane.finished)
            return requestOutcomeColor(Core::RequestOutcome(lane.outcome));
        return {};
    case SortRole:
        if (isStringColumn(column))
            return displayText(f, column);
        return sortKey(f, column);
    case OutcomeRole:
        return static_cast<int>(row.outcome);
    case FinishedIndexRole:
        return static_cast<qlonglong>(f);
    case SessionRowRole:
        return static_cast<qlonglong>(rowIndex);
    case RequestIdRole:
        return static_cast<qulonglong>(s.lane(row.lane).requestId);
    default:
        return {};
    }
}

QVariant AttemptLogModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole)
        return {};
    if (orientation == Qt::Vertical)
        return section >= 0 && section < rowCount() ? QVariant(section + 1) : QVariant();
    switch (section) {
    case Time:
        return tr("Time");
    case Request:
        return tr("Request");
    case Attempt:
        return tr("Attempt");
    case Status:
        return tr("Status / error");
    case Outcome:
        return tr("Outcome");
    case Ending:
        return tr("Request outcome");
    case Cause:
        return tr("Cause");
    case Reason:
        return tr("Reason");
    case NextDelay:
        return tr("Next delay");
    case Duration:
        return tr("Duration");
    default:
        return {};
    }
}

// ---------------------------------------------------------------------------
// Filtering

void AttemptLogModel::setOutcomeFilter(OutcomeFilter filter)
{
    if (filter == m_outcomeFilter)
        return;
    beginResetModel();
    m_outcomeFilter = filter;
    rebuild();
    endResetModel();
    Q_EMIT countsChanged();
}

void AttemptLogModel::setTextFilter(const QString &rawText)
{
    const QString text = rawText.trimmed();
    if (text == m_text)
        return;
    beginResetModel();
    m_text = text;
    m_requestIdFilter = false;
    if (text.startsWith(QLatin1Char('#'))) {
        bool ok = false;
        const quint64 id = text.mid(1).toULongLong(&ok);
        if (ok) {
            m_requestIdFilter = true;
            m_requestId = id;
        }
    }
    m_stringMatch.clear();
    m_specMatch.clear();
    m_detailMatch.clear();
    m_statusMatch.clear();
    m_networkErrorMatch.clear();
    rebuild();
    endResetModel();
    Q_EMIT countsChanged();
}

void AttemptLogModel::prepareMatcher() const
{
    // Strings are interned, so matching them once each replaces matching them once per row.
    const RunSession &s = *m_session;
    const auto strings = std::size_t(s.strings().size());
    for (std::size_t id = m_stringMatch.size(); id < strings; ++id)
        m_stringMatch.push_back(s.string(quint32(id)).contains(m_text, Qt::CaseInsensitive) ? 1 : 0);
    const auto specs = std::size_t(s.specCount());
    for (std::size_t i = m_specMatch.size(); i < specs; ++i) {
        const Core::RequestSpec &spec = s.specAt(quint32(i));
        m_specMatch.push_back(spec.url.toDisplayString(QUrl::RemoveUserInfo).contains(m_text, Qt::CaseInsensitive)
                    || QString::fromLatin1(spec.method).contains(m_text, Qt::CaseInsensitive)
                ? 1
                : 0);
    }
    const auto details = std::size_t(s.detailCount());
    for (std::size_t d = m_detailMatch.size(); d < details; ++d)
        m_detailMatch.push_back(s.detailText(quint32(d)).contains(m_text, Qt::CaseInsensitive) ? 1 : 0);
    if (m_statusMatch.empty()) {
        m_statusMatch.reserve(1000);
        for (int code = 0; code < 1000; ++code)
            m_statusMatch.push_back(QString::number(code).contains(m_text) ? 1 : 0);
    }
    if (m_networkErrorMatch.empty()) {
        const QMetaEnum errors = QMetaEnum::fromType<QNetworkReply::NetworkError>();
        m_networkErrorMatch.reserve(1024);
        for (int code = 0; code < 1024; ++code) {
            const char *key = errors.valueToKey(code);
            m_networkErrorMatch.push_back(
                key && QString::fromLatin1(key).contains(m_text, Qt::CaseInsensitive) ? 1 : 0);
        }
    }
}

bool AttemptLogModel::stringMatches(quint32 id) const
{
    return id != 0 && id < m_stringMatch.size() && m_stringMatch[id] != 0;
}

bool AttemptLogModel::accepts(qsizetype finishedIndex) const
{
    const RunSession &s = *m_session;
    const RunSession::AttemptRow &row = s.attemptRow(s.finishedRow(finishedIndex));
    if (!m_outcomeFilter.testFlag(flagOf(row.outcome)))
        return false;
    if (m_text.isEmpty())
        return true;
    const RunSession::Lane &lane = s.lane(row.lane);
    if (m_requestIdFilter)
        return lane.requestId == m_requestId;
    if (stringMatches(row.cause) || stringMatches(row.reason) || stringMatches(row.errorString)
        || stringMatches(lane.label) || stringMatches(row.retryNote) || stringMatches(lane.resultReason))
        return true;
    if (row.httpStatus >= 0 && row.httpStatus < 1000 && m_statusMatch[std::size_t(row.httpStatus)] != 0)
        return true;
    if (row.detail < m_detailMatch.size() && m_detailMatch[row.detail] != 0)
        return true;
    if (lane.spec < m_specMatch.size() && m_specMatch[lane.spec] != 0)
        return true;
    return row.networkError > 0 && row.networkError < 1024 && m_networkErrorMatch[std::size_t(row.networkError)] != 0;
}

// ---------------------------------------------------------------------------
// Sorting

void AttemptLogModel::prepareSortRanks()
{
    const RunSession &s = *m_session;
    const auto n = std::size_t(s.strings().size());
    std::vector<quint32> order(n);
    for (std::size_t i = 0; i < n; ++i)
        order[i] = quint32(i);
    std::sort(order.begin(), order.end(), [&s](quint32 a, quint32 b) {
        const int c = s.string(a).compare(s.string(b), Qt::CaseInsensitive);
        return c != 0 ? c < 0 : a < b;
    });
    m_stringRank.assign(n, 0);
    for (std::size_t position = 0; position < n; ++position)
        m_stringRank[order[position]] = quint32(position);
}

double AttemptLogModel::sortKey(qsizetype finishedIndex, int column) const
{
    const RunSession &s = *m_session;
    const RunSession::AttemptRow &row = s.attemptRow(s.finishedRow(finishedIndex));
    const auto rank = [this](quint32 id) { return id < m_stringRank.size() ? double(m_stringRank[id]) : double(id); };
    switch (column) {
    case Time:
        return double(row.endNs);
    case Request:
        return double(s.lane(row.lane).requestId);
    case Attempt:
        return row.attemptIndex;
    case Status:
        return row.httpStatus >= 0 ? row.httpStatus : 1000.0 + row.networkError;
    case Outcome:
        return double(row.outcome);
    case Ending: {
        const RunSession::Lane &lane = s.lane(row.lane);
        return lane.finished ? double(lane.outcome) : -1.0;
    }
    case Cause:
        return rank(row.cause);
    case Reason:
        return rank(row.reason);
    case NextDelay:
        return row.nextDelayMs;
    case Duration:
        return double(row.endNs - row.startNs);
    default:
        return double(finishedIndex);
    }
}

bool AttemptLogModel::lessThan(quint32 a, quint32 b) const
{
    // Equal keys keep the order of finishing, in both directions: a stable sort.
    const double ka = sortKey(a, m_sortColumn);
    const double kb = sortKey(b, m_sortColumn);
    if (ka != kb)
        return m_sortOrder == Qt::AscendingOrder ? ka < kb : ka > kb;
    return a < b;
}

void AttemptLogModel::sort(int column, Qt::SortOrder order)
{
    if (column >= ColumnCount)
        return;
    column = std::max(column, -1);
    Q_EMIT layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
    const QModelIndexList persistent = persistentIndexList();
    std::vector<qsizetype> persistentFinished;
    persistentFinished.reserve(std::size_t(persistent.size()));
    for (const QModelIndex &index : persistent)
        persistentFinished.push_back(finishedIndexAt(index.row()));

    m_sortColumn = column;
    m_sortOrder = order;
    rebuild();

    QModelIndexList moved;
    moved.reserve(persistent.size());
    for (std::size_t i = 0; i < persistentFinished.size(); ++i) {
        const int row = rowOfFinishedIndex(persistentFinished[i]);
        moved.append(row < 0 ? QModelIndex() : index(row, persistent.at(qsizetype(i)).column()));
    }
    changePersistentIndexList(persistent, moved);
    Q_EMIT layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

void AttemptLogModel::sortIndex()
{
    // Sort on precomputed keys: a comparator that looks the rows up again would cost
    // several times as much for a million rows.
    std::vector<std::pair<double, quint32>> keyed;
    keyed.reserve(m_index.size());
    for (quint32 f : m_index)
        keyed.emplace_back(sortKey(f, m_sortColumn), f);
    if (m_sortOrder == Qt::AscendingOrder) {
        std::sort(keyed.begin(), keyed.end());
    } else {
        std::sort(keyed.begin(), keyed.end(),
            [](const auto &a, const auto &b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
    }
    for (std::size_t i = 0; i < keyed.size(); ++i)
        m_index[i] = keyed[i].second;
}

void AttemptLogModel::rebuild()
{
    m_index.clear();
    m_index.shrink_to_fit();
    if (!m_session) {
        m_seen = 0;
        m_identity = true;
        return;
    }
    m_seen = m_session->finishedCount();
    m_identity = !isFiltered() && m_sortColumn < 0;
    if (m_identity)
        return;
    if (!m_text.isEmpty())
        prepareMatcher();
    const bool filtered = isFiltered();
    m_index.reserve(std::size_t(m_seen));
    for (qsizetype f = 0; f < m_seen; ++f) {
        if (!filtered || accepts(f))
            m_index.push_back(quint32(f));
    }
    if (m_sortColumn >= 0) {
        if (isStringColumn(m_sortColumn))
            prepareSortRanks();
        sortIndex();
    }
    if (m_index.capacity() > m_index.size() * 2 + 1024)
        m_index.shrink_to_fit();
}

// ---------------------------------------------------------------------------
// Live updates

void AttemptLogModel::handleSessionCleared()
{
    m_resultsSeen = m_session ? m_session->resultCount() : 0;
    beginResetModel();
    m_stringMatch.clear();
    m_specMatch.clear();
    m_detailMatch.clear();
    m_statusMatch.clear();
    m_networkErrorMatch.clear();
    m_stringRank.clear();
    rebuild();
    endResetModel();
    Q_EMIT countsChanged();
}

void AttemptLogModel::handleSessionUpdated()
{
    if (!m_session)
        return;
    // A request that ended changes the Ending column of its rows already shown.
    if (const qsizetype results = m_session->resultCount(); results != m_resultsSeen) {
        m_resultsSeen = results;
        if (const int rows = rowCount(); rows > 0)
            Q_EMIT dataChanged(index(0, Ending), index(rows - 1, Ending), {Qt::DisplayRole, Qt::DecorationRole});
    }
    const qsizetype total = m_session->finishedCount();
    if (total == m_seen)
        return;
    if (total < m_seen) {
        handleSessionCleared();
        return;
    }
    const qsizetype first = m_seen;

    if (m_identity) {
        beginInsertRows({}, int(first), int(total - 1));
        m_seen = total;
        endInsertRows();
        Q_EMIT countsChanged();
        return;
    }

    if (!m_text.isEmpty())
        prepareMatcher();
    std::vector<quint32> batch;
    for (qsizetype f = first; f < total; ++f) {
        if (accepts(f))
            batch.push_back(quint32(f));
    }
    m_seen = total;
    if (batch.empty()) {
        Q_EMIT countsChanged();
        return;
    }

    const bool stringRanksStale
        = isStringColumn(m_sortColumn) && m_stringRank.size() < std::size_t(m_session->strings().size());
    if (m_sortColumn >= 0 && !stringRanksStale)
        std::sort(batch.begin(), batch.end(), [this](quint32 a, quint32 b) { return lessThan(a, b); });

    const bool appendAtEnd
        = m_sortColumn < 0 || (!stringRanksStale && (m_index.empty() || !lessThan(batch.front(), m_index.back())));
    if (appendAtEnd) {
        const auto at = int(m_index.size());
        beginInsertRows({}, at, at + int(batch.size()) - 1);
        m_index.insert(m_index.end(), batch.begin(), batch.end());
        endInsertRows();
        Q_EMIT countsChanged();
        return;
    }

    // New rows belong in the middle of a sorted table: a layout change, as sort() does.
    Q_EMIT layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
    const QModelIndexList persistent = persistentIndexList();
    std::vector<qsizetype> persistentFinished;
    persistentFinished.reserve(std::size_t(persistent.size()));
    for (const QModelIndex &index : persistent)
        persistentFinished.push_back(finishedIndexAt(index.row()));

    if (stringRanksStale) {
        prepareSortRanks();
        m_index.insert(m_index.end(), batch.begin(), batch.end());
        sortIndex();
    } else {
        // A few new rows into a million: find their places by bisection and copy the
        // runs between them, instead of comparing every existing row once more.
        const auto less = [this](quint32 a, quint32 b) { return lessThan(a, b); };
        std::vector<quint32> merged;
        merged.reserve(m_index.size() + batch.size());
        auto from = m_index.cbegin();
        for (quint32 f : batch) {
            const auto at = std::upper_bound(from, m_index.cend(), f, less);
            merged.insert(merged.end(), from, at);
            merged.push_back(f);
            from = at;
        }
        merged.insert(merged.end(), from, m_index.cend());
        m_index = std::move(merged);
    }

    QModelIndexList moved;
    moved.reserve(persistent.size());
    for (std::size_t i = 0; i < persistentFinished.size(); ++i) {
        const int row = rowOfFinishedIndex(persistentFinished[i]);
        moved.append(row < 0 ? QModelIndex() : index(row, persistent.at(qsizetype(i)).column()));
    }
    changePersistentIndexList(persistent, moved);
    Q_EMIT layoutChanged({}, QAbstractItemModel::VerticalSortHint);
    Q_EMIT countsChanged();
}

} // namespace RetryLab::Ui
