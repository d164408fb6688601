#include "ui/observe/clientlistmodel.h"

namespace RetryLab::Ui {

ClientListModel::ClientListModel(QObject *parent) : QAbstractTableModel(parent)
{ }

void ClientListModel::setClients(const QList<Core::ObservedClient> &clients)
{
    // Clients are only ever added at the end (or all cleared): keep the rows that stay.
    bool samePrefix = clients.size() >= m_clients.size();
    for (qsizetype i = 0; samePrefix && i < m_clients.size(); ++i)
        samePrefix = clients[i].id == m_clients[i].id;
    if (!samePrefix) {
        beginResetModel();
        m_clients = clients;
        endResetModel();
        return;
    }
    const qsizetype old = m_clients.size();
    for (qsizetype i = 0; i < old; ++i)
        m_clients[i] = clients[i];
    if (old > 0)
        Q_EMIT dataChanged(index(0, 0), index(int(old) - 1, ColumnCount - 1));
    if (clients.size() > old) {
        beginInsertRows({}, int(old), int(clients.size()) - 1);
        for (qsizetype i = old; i < clients.size(); ++i)
            m_clients.append(clients[i]);
        endInsertRows();
    }
}

QString ClientListModel::clientId(int row) const
{
    return row >= 0 && row < m_clients.size() ? m_clients[row].id : QString();
}

int ClientListModel::rowOf(const QString &clientId) const
{
    for (qsizetype i = 0; i < m_clients.size(); ++i) {
        if (m_clients[i].id == clientId)
            return int(i);
    }
    return -1;
}

int ClientListModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_clients.size());
}

int ClientListModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ClientListModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_clients.size())
        return {};
    const Core::ObservedClient &c = m_clients[index.row()];
    if (role == Qt::ToolTipRole) {
        QString tip = tr("%1\nUser-Agent: %2\nfrom %3\n")
                          .arg(c.name, c.userAgent.isEmpty() ? tr("(none sent)") : c.userAgent, c.address)
            + tr("%n logical request(s), ", nullptr, int(c.logicalRequests))
            + tr("%n attempt(s) kept", nullptr, int(c.attempts));
        if (c.droppedLogicalRequests > 0)
            tip += tr(
                "\n%n older logical request(s) dropped to keep memory bounded", nullptr, int(c.droppedLogicalRequests));
        if (c.rejectedRequests > 0)
            tip += tr("\n%n request(s) refused as malformed; the last: %1", nullptr, int(c.rejectedRequests))
                       .arg(c.lastRejection);
        return tip;
    }
    if (role == Qt::TextAlignmentRole && index.column() >= LogicalRequests)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole && role != Qt::EditRole)
        return {};
    switch (index.column()) {
    case Name:
        return c.name;
    case UserAgent:
        return c.userAgent.isEmpty() ? tr("(none)") : c.userAgent;
    case Address:
        return c.address;
    case LogicalRequests:
        return c.logicalRequests;
    case Attempts:
        return c.attempts;
    case Dropped:
        return c.droppedLogicalRequests;
    case Refused:
        return c.rejectedRequests;
    default:
        return {};
    }
}

QVariant ClientListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Name:
        return tr("Client");
    case UserAgent:
        return tr("User-Agent");
    case Address:
        return tr("Address");
    case LogicalRequests:
        return tr("Requests");
    case Attempts:
        return tr("Attempts");
    case Dropped:
        return tr("Dropped");
    case Refused:
        return tr("Refused");
    default:
        return {};
    }
}

Qt::ItemFlags ClientListModel::flags(const QModelIndex &index) const
{
    Qt::ItemFlags f = QAbstractTableModel::flags(index);
    if (index.column() == Name)
        f |= Qt::ItemIsEditable;
    return f;
}

bool ClientListModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (!index.isValid() || index.column() != Name || role != Qt::EditRole || index.row() >= m_clients.size())
        return false;
    Core::ObservedClient &c = m_clients[index.row()];
    const QString name = value.toString().trimmed();
    c.name = name.isEmpty() ? c.id : name;
    Q_EMIT dataChanged(index, index);
    Q_EMIT renameRequested(c.id, name);
    return true;
}

} // namespace RetryLab::Ui
