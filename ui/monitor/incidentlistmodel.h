#pragma once

#include "core/history/historyfigures.h"

#include <QAbstractTableModel>
#include <QByteArray>
#include <QList>
#include <QSet>
#include <QTimeZone>

namespace RetryLab::Ui {

/// The incidents of every monitor, one per row, with the user's acknowledgement
/// of each (checkable; keyed by key()). The owner keeps the acknowledgements:
/// setAcknowledged() sets them, acknowledgementChanged() tells of a user's change.
class IncidentListModel final : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column {
        MonitorColumn,
        AgentColumn,
        StartColumn,
        DurationColumn,
        FirstErrorColumn,
        LastErrorColumn,
        AttemptsColumn,
        KindColumn,
        AcknowledgedColumn,
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole + 1, ///< numbers for times, durations and counts
        HiddenRole,
        AcknowledgedRole,
        KeyRole,
        MonitorRole,
    };

    explicit IncidentListModel(QObject *parent = nullptr);

    void setIncidents(QList<Core::Incident> incidents);
    const QList<Core::Incident> &incidents() const { return m_incidents; }
    /// The keys (key()) of the acknowledged incidents; emits no acknowledgementChanged().
    void setAcknowledged(QSet<QString> keys);
    const QSet<QString> &acknowledged() const { return m_acknowledged; }
    /// The zone of the Start column; the system's by default.
    void setTimeZone(const QTimeZone &zone);

    /// "monitor|agent|startMs": what identifies an incident across reads.
    static QString key(const Core::Incident &incident);
    /// RFC 4180 CSV (UTF-8, CRLF, a header row): monitor, agent, start_utc, end_utc,
    /// duration_ms, ongoing, checks, attempts, failed_attempts, kind (hidden or
    /// seen), first_error, last_error, acknowledged. Error texts that start like a
    /// formula are prefixed with ' for spreadsheets.
    static QByteArray toCsv(const QList<Core::Incident> &incidents, const QSet<QString> &acknowledged);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;

Q_SIGNALS:
    /// The user (un)checked an incident's acknowledgement.
    void acknowledgementChanged(const QString &key, bool acknowledged);

private:
    QVariant display(const Core::Incident &incident, int column) const;
    QVariant sortValue(const Core::Incident &incident, int column) const;

    QList<Core::Incident> m_incidents;
    QSet<QString> m_acknowledged;
    QTimeZone m_zone = QTimeZone::systemTimeZone();
};

} // namespace RetryLab::Ui
