#pragma once

#include "core/grouping/observedattempt.h"

#include <QAbstractTableModel>
#include <QList>

namespace RetryLab::Ui {

/// The observed clients as table rows: name (editable: renaming asks for
/// renameRequested), User-Agent, address, logical requests, attempts, dropped,
/// refused. setClients() replaces the rows, keeping unchanged ones in place.
class ClientListModel final : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column { Name, UserAgent, Address, LogicalRequests, Attempts, Dropped, Refused, ColumnCount };

    explicit ClientListModel(QObject *parent = nullptr);

    void setClients(const QList<Core::ObservedClient> &clients);
    const QList<Core::ObservedClient> &clients() const { return m_clients; }
    /// The client id of a row; empty for an invalid row.
    QString clientId(int row) const;
    int rowOf(const QString &clientId) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;

Q_SIGNALS:
    void renameRequested(const QString &clientId, const QString &name);

private:
    QList<Core::ObservedClient> m_clients;
};

} // namespace RetryLab::Ui
