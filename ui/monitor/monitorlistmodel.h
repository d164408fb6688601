#pragma once

#include "core/history/historyfigures.h"
#include "core/history/storedcheck.h"
#include "core/monitor/monitor.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QList>
#include <QMetaType>

#include <optional>

namespace RetryLab::Ui {

/// One check of a monitor as the beat bar draws it: when, how it ended, and
/// how many attempts it took (the failed ones among them).
struct MonitorBeat
{
    qint64 startMs = 0;
    double durationMs = 0.0;
    int attempts = 0;
    int failedAttempts = 0;
    bool success = false;
    bool maintenance = false;
    std::optional<int> status; ///< the final HTTP status, when the check kept it
    QString reason; ///< why it failed; empty for a success or a check read from CheckPoints
};

/// The monitors as table rows: state, name, the beat bar of their recent checks,
/// availability of checks and of attempts over a day and a month, the latency
/// of their recent checks and when the next one comes. Fed with core values by
/// whoever runs the monitors; each update signals only the cells it changed, so
/// that a thousand monitors checking every ten seconds stay cheap to show.
class MonitorListModel final : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column {
        State,
        Name,
        RecentChecks,
        Checks24h,
        Attempts24h,
        Checks30d,
        Attempts30d,
        Latency,
        NextCheck,
        ColumnCount
    };
    enum Role {
        /// QList<MonitorBeat>, oldest first, at most beatCount (RecentChecks).
        BeatsRole = Qt::UserRole + 1,
        /// QList<double>: the recent checks' durations in ms, oldest first (Latency).
        SparklineRole,
        /// A number to sort the column by (every column).
        SortRole,
        /// The monitor's name (every column).
        NameRole,
        /// The MonitorState as int (every column).
        StateRole,
    };
    /// How many recent checks a row keeps for its beat bar and sparkline.
    static constexpr int beatCount = 40;

    explicit MonitorListModel(QObject *parent = nullptr);

    /// Replaces the monitors: rows of monitors gone are removed, new ones are
    /// appended, and the state and checks known of the others are kept.
    void setMonitors(const QList<Core::Monitor> &monitors);
    void setState(const QString &monitor, Core::MonitorState state);
    /// Appends a finished check to its monitor's recent ones (unknown monitors are ignored).
    void addCheck(const Core::StoredCheck &check);
    /// Seeds a monitor's recent checks from its history (the last beatCount are kept).
    void setCheckHistory(const QString &monitor, const QList<Core::CheckPoint> &points);
    /// The figures of the last day and of the last month; a monitor's summaries
    /// of several agents are added up.
    void setSummaries(const QList<Core::MonitorSummary> &day, const QList<Core::MonitorSummary> &month);
    /// When each monitor's next check is due (UTC wall ms); monitors left out have none.
    void setNextDue(const QHash<QString, qint64> &wallMs);
    /// The wall time the "next check" texts count from.
    void setNow(qint64 wallMs);
    qint64 now() const { return m_nowMs; }

    /// The monitor of a row; a default Monitor for an invalid row.
    Core::Monitor monitorAt(int row) const;
    Core::MonitorState stateAt(int row) const;
    /// The row of a monitor, -1 when unknown.
    int rowOf(const QString &name) const;
    QStringList names() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    /// "Up", "Down", "Pending", "Paused": the word shown next to the state's icon.
    static QString stateText(Core::MonitorState state);

private:
    struct Figures
    {
        qint64 checks = 0;
        qint64 checksSucceeded = 0;
        qint64 attempts = 0;
        qint64 attemptsSucceeded = 0;
        qint64 maintenanceChecks = 0;
    };
    struct Row
    {
        Core::Monitor monitor;
        Core::MonitorState state = Core::MonitorState::Pending;
        QList<MonitorBeat> beats;
        std::optional<Figures> day;
        std::optional<Figures> month;
        std::optional<qint64> nextDueMs;
    };

    void emitCells(int row, Column first, Column last);
    void emitColumns(Column first, Column last);
    void reindex();
    QVariant displayData(const Row &row, int column) const;
    QVariant sortData(const Row &row, int column) const;
    QString nextCheckText(const Row &row) const;
    static std::optional<double> p50(const QList<MonitorBeat> &beats);

    QList<Row> m_rows;
    QHash<QString, int> m_index;
    qint64 m_nowMs = 0;
};

} // namespace RetryLab::Ui

Q_DECLARE_METATYPE(RetryLab::Ui::MonitorBeat)
