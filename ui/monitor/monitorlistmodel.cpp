#include "ui/monitor/monitorlistmodel.h"

#include "core/record/attemptrecord.h"
#include "core/util/durationtext.h"
#include "ui/widgets/outcomestyle.h"

#include <QDateTime>
#include <QIcon>
#include <QLocale>
#include <QLoggingCategory>
#include <QPainter>
#include <QPainterPath>
#include <QPixmap>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace RetryLab::Ui {

Q_LOGGING_CATEGORY(lcMonitorListModel, "retrylab.ui.monitorlistmodel")

using Core::MonitorState;

namespace {

// Drawn, not loaded: each state has a shape of its own (a tick, a cross, an
// open ring, two bars), so that the icon reads without its colour.
QPixmap monitorStatePixmap(MonitorState state, int size)
{
    QPixmap pixmap(size, size);
    pixmap.fill(Qt::transparent);
    QPainter p(&pixmap);
    p.setRenderHint(QPainter::Antialiasing);
    const double s = size;
    const QRectF disc(s * 0.06, s * 0.06, s * 0.88, s * 0.88);
    QPen white(Qt::white, std::max(1.5, s * 0.13), Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin);
    switch (state) {
    case MonitorState::Up: {
        p.setPen(Qt::NoPen);
        p.setBrush(outcomeColor(Core::AttemptOutcome::Success));
        p.drawEllipse(disc);
        p.setPen(white);
        QPainterPath tick;
        tick.moveTo(s * 0.28, s * 0.52);
        tick.lineTo(s * 0.44, s * 0.68);
        tick.lineTo(s * 0.72, s * 0.34);
        p.setBrush(Qt::NoBrush);
        p.drawPath(tick);
        break;
    }
    case MonitorState::Down:
        p.setPen(Qt::NoPen);
        p.setBrush(outcomeColor(Core::AttemptOutcome::Failed));
        p.drawEllipse(disc);
        p.setPen(white);
        p.drawLine(QPointF(s * 0.33, s * 0.33), QPointF(s * 0.67, s * 0.67));
        p.drawLine(QPointF(s * 0.67, s * 0.33), QPointF(s * 0.33, s * 0.67));
        break;
    case MonitorState::Pending:
        p.setPen(QPen(outcomeColor(Core::AttemptOutcome::InFlight), std::max(1.5, s * 0.14)));
        p.setBrush(Qt::NoBrush);
        p.drawEllipse(disc.adjusted(s * 0.08, s * 0.08, -s * 0.08, -s * 0.08));
        break;
    case MonitorState::Paused:
        p.setPen(Qt::NoPen);
        p.setBrush(outcomeColor(Core::AttemptOutcome::Cancelled));
        p.drawRect(QRectF(s * 0.22, s * 0.16, s * 0.2, s * 0.68));
        p.drawRect(QRectF(s * 0.58, s * 0.16, s * 0.2, s * 0.68));
        break;
    }
    return pixmap;
}

QIcon monitorStateIcon(MonitorState state)
{
    static std::array<QIcon, 4> icons;
    QIcon &icon = icons.at(static_cast<std::size_t>(state));
    if (icon.isNull()) {
        for (const int size : {16, 24, 32, 48})
            icon.addPixmap(monitorStatePixmap(state, size));
    }
    return icon;
}

QString percentText(const std::optional<double> &share)
{
    if (!share)
        return QStringLiteral("—");
    // Two decimals: 99.95 % and 99.99 % are different objectives.
    return MonitorListModel::tr("%1 %").arg(QLocale().toString(*share * 100.0, 'f', 2));
}

MonitorBeat beatOf(const Core::StoredCheck &check)
{
    MonitorBeat beat;
    beat.startMs = check.startMs;
    beat.durationMs = check.durationMs();
    beat.attempts = static_cast<int>(check.attempts.size());
    beat.failedAttempts = static_cast<int>(std::count_if(check.attempts.cbegin(), check.attempts.cend(),
        [](const Core::StoredAttempt &attempt) { return !attempt.success; }));
    beat.success = check.success;
    beat.maintenance = check.maintenance;
    beat.status = check.finalStatus;
    beat.reason = check.reason;
    return beat;
}

MonitorBeat beatOf(const Core::CheckPoint &point)
{
    MonitorBeat beat;
    beat.startMs = point.startMs;
    beat.durationMs = point.durationMs;
    beat.attempts = point.attempts;
    beat.failedAttempts = point.failedAttempts;
    beat.success = point.success;
    beat.maintenance = point.maintenance;
    return beat;
}

} // namespace

MonitorListModel::MonitorListModel(QObject *parent)
    : QAbstractTableModel(parent), m_nowMs(QDateTime::currentMSecsSinceEpoch())
{ }

QString MonitorListModel::stateText(MonitorState state)
{
    switch (state) {
    case MonitorState::Pending:
        return tr("Pending");
    case MonitorState::Up:
        return tr("Up");
    case MonitorState::Down:
        return tr("Down");
    case MonitorState::Paused:
        return tr("Paused");
    }
    return {};
}

void MonitorListModel::setMonitors(const QList<Core::Monitor> &monitors)
{
    QHash<QString, int> wanted;
    for (int i = 0; i < monitors.size(); ++i)
        wanted.insert(monitors.at(i).name, i);
    // Gone rows first, from the end, so that the rows before keep their numbers.
    for (int row = int(m_rows.size()) - 1; row >= 0; --row) {
        if (wanted.contains(m_rows.at(row).monitor.name))
            continue;
        int first = row;
        while (first > 0 && !wanted.contains(m_rows.at(first - 1).monitor.name))
            --first;
        beginRemoveRows({}, first, row);
        m_rows.remove(first, row - first + 1);
        endRemoveRows();
        row = first;
    }
    reindex();
    for (int row = 0; row < m_rows.size(); ++row) {
        Row &kept = m_rows[row];
        const Core::Monitor &monitor = monitors.at(wanted.value(kept.monitor.name));
        if (monitor.paused && !kept.monitor.paused)
            kept.state = MonitorState::Paused;
        else if (!monitor.paused && kept.monitor.paused && kept.state == MonitorState::Paused)
            kept.state = MonitorState::Pending;
        kept.monitor = monitor;
    }
    if (!m_rows.isEmpty())
        emitColumns(State, NextCheck);
    QList<Row> added;
    for (const Core::Monitor &monitor : monitors) {
        if (m_index.contains(monitor.name)
            || std::any_of(added.cbegin(), added.cend(), [&](const Row &r) { return r.monitor.name == monitor.name; }))
            continue;
        Row row;
        row.monitor = monitor;
        row.state = monitor.paused ? MonitorState::Paused : MonitorState::Pending;
        added.append(row);
    }
    if (!added.isEmpty()) {
        beginInsertRows({}, int(m_rows.size()), int(m_rows.size() + added.size()) - 1);
        m_rows.append(added);
        reindex();
        endInsertRows();
    }
    qCDebug(lcMonitorListModel) << "monitors:" << m_rows.size();
}

void MonitorListModel::setState(const QString &monitor, MonitorState state)
{
    const int row = rowOf(monitor);
    if (row < 0 || m_rows.at(row).state == state)
        return;
    m_rows[row].state = state;
    emitCells(row, State, State);
    emitCells(row, NextCheck, NextCheck);
}

void MonitorListModel::addCheck(const Core::StoredCheck &check)
{
    const int row = rowOf(check.monitor);
    if (row < 0)
        return;
    QList<MonitorBeat> &beats = m_rows[row].beats;
    if (beats.size() >= beatCount)
        beats.remove(0, beats.size() - beatCount + 1);
    beats.append(beatOf(check));
    emitCells(row, RecentChecks, RecentChecks);
    emitCells(row, Latency, Latency);
}

void MonitorListModel::setCheckHistory(const QString &monitor, const QList<Core::CheckPoint> &points)
{
    const int row = rowOf(monitor);
    if (row < 0)
        return;
    QList<MonitorBeat> beats;
    const qsizetype first = std::max<qsizetype>(0, points.size() - beatCount);
    beats.reserve(points.size() - first);
    for (qsizetype i = first; i < points.size(); ++i)
        beats.append(beatOf(points.at(i)));
    m_rows[row].beats = beats;
    emitCells(row, RecentChecks, RecentChecks);
    emitCells(row, Latency, Latency);
}

void MonitorListModel::setSummaries(const QList<Core::MonitorSummary> &day, const QList<Core::MonitorSummary> &month)
{
    const auto added = [this](const QList<Core::MonitorSummary> &summaries) {
        QList<std::optional<Figures>> figures(m_rows.size());
        for (const Core::MonitorSummary &summary : summaries) {
            const int row = rowOf(summary.monitor);
            if (row < 0)
                continue;
            if (!figures.at(row))
                figures[row] = Figures{};
            Figures &f = *figures[row];
            f.checks += summary.checks;
            f.checksSucceeded += summary.checksSucceeded;
            f.attempts += summary.attempts;
            f.attemptsSucceeded += summary.attemptsSucceeded;
            f.maintenanceChecks += summary.maintenanceChecks;
        }
        return figures;
    };
    const QList<std::optional<Figures>> days = added(day);
    const QList<std::optional<Figures>> months = added(month);
    for (int row = 0; row < m_rows.size(); ++row) {
        m_rows[row].day = days.at(row);
        m_rows[row].month = months.at(row);
    }
    if (!m_rows.isEmpty())
        emitColumns(Checks24h, Attempts30d);
}

void MonitorListModel::setNextDue(const QHash<QString, qint64> &wallMs)
{
    for (Row &row : m_rows) {
        const auto due = wallMs.constFind(row.monitor.name);
        row.nextDueMs = due == wallMs.cend() ? std::nullopt : std::optional<qint64>(*due);
    }
    if (!m_rows.isEmpty())
        emitColumns(NextCheck, NextCheck);
}

void MonitorListModel::setNow(qint64 wallMs)
{
    m_nowMs = wallMs;
    if (!m_rows.isEmpty())
        emitColumns(NextCheck, NextCheck);
}

Core::Monitor MonitorListModel::monitorAt(int row) const
{
    if (row < 0 || row >= m_rows.size())
        return {};
    return m_rows.at(row).monitor;
}

MonitorState MonitorListModel::stateAt(int row) const
{
    if (row < 0 || row >= m_rows.size())
        return MonitorState::Pending;
    return m_rows.at(row).state;
}

int MonitorListModel::rowOf(const QString &name) const
{
    return m_index.value(name, -1);
}

QStringList MonitorListModel::names() const
{
    QStringList names;
    names.reserve(m_rows.size());
    for (const Row &row : m_rows)
        names.append(row.monitor.name);
    return names;
}

int MonitorListModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int MonitorListModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant MonitorListModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row &row = m_rows.at(index.row());
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole:
        return displayData(row, column);
    case Qt::DecorationRole:
        if (column == State)
            return monitorStateIcon(row.state);
        return {};
    case Qt::ToolTipRole: {
        const auto counts = [](const std::optional<Figures> &f, bool attempts) -> QVariant {
            if (!f)
                return tr("No checks in this window");
            QString text = attempts
                ? tr("%1 of %n attempt(s) succeeded", nullptr, int(f->attempts)).arg(f->attemptsSucceeded)
                : tr("%1 of %n check(s) succeeded", nullptr, int(f->checks)).arg(f->checksSucceeded);
            if (f->maintenanceChecks > 0)
                text += tr(" (%n check(s) in maintenance not counted)", nullptr, int(f->maintenanceChecks));
            return text;
        };
        switch (column) {
        case Name:
            return row.monitor.urlTemplate.isEmpty() ? row.monitor.request.url.toString() : row.monitor.urlTemplate;
        case Checks24h:
            return counts(row.day, false);
        case Attempts24h:
            return counts(row.day, true);
        case Checks30d:
            return counts(row.month, false);
        case Attempts30d:
            return counts(row.month, true);
        case Latency:
            return tr("Median duration of the last %n check(s), retries included", nullptr, int(row.beats.size()));
        default:
            return {};
        }
    }
    case Qt::TextAlignmentRole:
        if (column >= Checks24h && column <= Latency)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case BeatsRole:
        return QVariant::fromValue(row.beats);
    case SparklineRole: {
        QList<double> durations;
        durations.reserve(row.beats.size());
        for (const MonitorBeat &beat : row.beats)
            durations.append(beat.durationMs);
        return QVariant::fromValue(durations);
    }
    case SortRole:
        return sortData(row, column);
    case NameRole:
        return row.monitor.name;
    case StateRole:
        return static_cast<int>(row.state);
    default:
        return {};
    }
}

QVariant MonitorListModel::displayData(const Row &row, int column) const
{
    const auto share = [](const std::optional<Figures> &f, bool attempts) -> std::optional<double> {
        if (!f)
            return std::nullopt;
        const qint64 all = attempts ? f->attempts : f->checks;
        if (all <= 0)
            return std::nullopt;
        return double(attempts ? f->attemptsSucceeded : f->checksSucceeded) / double(all);
    };
    switch (column) {
    case State:
        return stateText(row.state);
    case Name:
        return row.monitor.name;
    case RecentChecks: {
        const auto failed = std::count_if(
            row.beats.cbegin(), row.beats.cend(), [](const MonitorBeat &b) { return !b.success && !b.maintenance; });
        return tr("%1 of the last %n check(s) failed", nullptr, int(row.beats.size())).arg(failed);
    }
    case Checks24h:
        return percentText(share(row.day, false));
    case Attempts24h:
        return percentText(share(row.day, true));
    case Checks30d:
        return percentText(share(row.month, false));
    case Attempts30d:
        return percentText(share(row.month, true));
    case Latency: {
        const auto median = p50(row.beats);
        return median ? Core::DurationText::format(*median) : QStringLiteral("—");
    }
    case NextCheck:
        return nextCheckText(row);
    default:
        return {};
    }
}

QVariant MonitorListModel::sortData(const Row &row, int column) const
{
    const auto share = [](const std::optional<Figures> &f, bool attempts) -> double {
        if (!f)
            return -1.0;
        const qint64 all = attempts ? f->attempts : f->checks;
        return all > 0 ? double(attempts ? f->attemptsSucceeded : f->checksSucceeded) / double(all) : -1.0;
    };
    switch (column) {
    case State:
        // Down first when sorted ascending: what needs a look comes on top.
        switch (row.state) {
        case MonitorState::Down:
            return 0;
        case MonitorState::Pending:
            return 1;
        case MonitorState::Up:
            return 2;
        case MonitorState::Paused:
            return 3;
        }
        return 4;
    case Name:
        return row.monitor.name;
    case RecentChecks:
        return double(std::count_if(
            row.beats.cbegin(), row.beats.cend(), [](const MonitorBeat &b) { return !b.success && !b.maintenance; }));
    case Checks24h:
        return share(row.day, false);
    case Attempts24h:
        return share(row.day, true);
    case Checks30d:
        return share(row.month, false);
    case Attempts30d:
        return share(row.month, true);
    case Latency:
        return p50(row.beats).value_or(-1.0);
    case NextCheck:
        if (row.state == MonitorState::Paused || !row.nextDueMs)
            return std::numeric_limits<qint64>::max();
        return *row.nextDueMs;
    default:
        return {};
    }
}

QString MonitorListModel::nextCheckText(const Row &row) const
{
    if (row.state == MonitorState::Paused || row.monitor.paused)
        return tr("paused");
    if (!row.nextDueMs)
        return QStringLiteral("—");
    const qint64 left = *row.nextDueMs - m_nowMs;
    if (left <= 0)
        return tr("running");
    // Whole seconds, rounded up: "in 0 s" would read as "now".
    const double seconds = std::ceil(double(left) / Core::DurationText::msPerSecond);
    return tr("in %1").arg(Core::DurationText::format(seconds * Core::DurationText::msPerSecond));
}

std::optional<double> MonitorListModel::p50(const QList<MonitorBeat> &beats)
{
    QList<double> durations;
    durations.reserve(beats.size());
    for (const MonitorBeat &beat : beats)
        durations.append(beat.durationMs);
    if (durations.isEmpty())
        return std::nullopt;
    // Nearest rank, as the history's percentiles are.
    const auto rank = static_cast<qsizetype>(std::ceil(0.5 * double(durations.size()))) - 1;
    std::nth_element(durations.begin(), durations.begin() + rank, durations.end());
    return durations.at(rank);
}

QVariant MonitorListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case State:
            return tr("State");
        case Name:
            return tr("Name");
        case RecentChecks:
            return tr("Recent checks");
        case Checks24h:
            return tr("Checks 24 h");
        case Attempts24h:
            return tr("Attempts 24 h");
        case Checks30d:
            return tr("Checks 30 d");
        case Attempts30d:
            return tr("Attempts 30 d");
        case Latency:
            return tr("Latency");
        case NextCheck:
            return tr("Next check");
        default:
            return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case RecentChecks:
            return tr("The last %1 checks, newest on the right; a check is split by its attempts").arg(beatCount);
        case Checks24h:
        case Checks30d:
            return tr("Share of checks that succeeded, retries included (what users of a retrying client see)");
        case Attempts24h:
        case Attempts30d:
            return tr("Share of single attempts that succeeded (what the retries hid)");
        case Latency:
            return tr("Recent check durations; the text is their median");
        default:
            return {};
        }
    }
    return {};
}

void MonitorListModel::emitCells(int row, Column first, Column last)
{
    Q_EMIT dataChanged(index(row, first), index(row, last));
}

void MonitorListModel::emitColumns(Column first, Column last)
{
    Q_EMIT dataChanged(index(0, first), index(int(m_rows.size()) - 1, last));
}

void MonitorListModel::reindex()
{
    m_index.clear();
    m_index.reserve(m_rows.size());
    for (int row = 0; row < m_rows.size(); ++row)
        m_index.insert(m_rows.at(row).monitor.name, row);
}

} // namespace RetryLab::Ui
