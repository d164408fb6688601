#pragma once

#include "core/http/serverlogentry.h"

#include <QAbstractTableModel>
#include <QTimer>

#include <deque>

namespace RetryLab::Ui {

/// The fault server's log in the Server tab (and a fault proxy's in the Proxy tab, with the same
/// columns): one row per request the server handled
/// (or connection it turned away), oldest first. Entries are taken in as they come
/// and shown in batches, at most about 30 times a second; only the newest maxRows()
/// are kept, so a long repeat run cannot grow the window without bound.
class ServerLogModel final : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column {
        Sequence,
        Time,
        Method,
        Target,
        Status,
        Action,
        Step,
        ClientAttempt,
        Duration,
        Peer,
        Detail,
        ColumnCount
    };
    Q_ENUM(Column)

    static constexpr int defaultMaxRows = 10'000;

    explicit ServerLogModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    /// The entry shown in `row`.
    const Core::ServerLogEntry &entry(int row) const { return m_rows.at(static_cast<size_t>(row)); }

    /// Rows kept (1..1,000,000); older rows are dropped first.
    void setMaxRows(int rows);
    int maxRows() const { return m_maxRows; }
    /// Entries dropped because of maxRows() since the last clear().
    quint64 droppedCount() const { return m_dropped; }
    /// Entries received since the last clear(), shown or not yet.
    quint64 receivedCount() const { return m_received; }

    void setUpdateInterval(int ms) { m_flushTimer.setInterval(ms); }

public Q_SLOTS:
    /// Takes an entry in; it is shown at the next flush.
    void append(const RetryLab::Core::ServerLogEntry &entry);
    /// Shows what arrived since the last flush now.
    void flush();
    void clear();

Q_SIGNALS:
    /// Rows were added or dropped (once per flush).
    void countsChanged();

private:
    void trim();

    std::deque<Core::ServerLogEntry> m_rows;
    std::deque<Core::ServerLogEntry> m_pending;
    int m_maxRows = defaultMaxRows;
    quint64 m_dropped = 0;
    quint64 m_received = 0;
    QTimer m_flushTimer;
};

} // namespace RetryLab::Ui
