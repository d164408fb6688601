#pragma once

#include <QAbstractTableModel>
#include <QPointer>

namespace RetryLab::Core {
struct RequestDraft;
}

namespace RetryLab::Ui {

class RequestHistory;

/// The request history as a table, newest first: when it was sent, the request
/// (method and URL as typed), and what was sent (one request, a batch, a repeat).
class RequestHistoryModel final : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column { SentAt, Request, What, ColumnCount };

    explicit RequestHistoryModel(QObject *parent = nullptr);

    /// Not owned.
    void setHistory(RequestHistory *history);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    /// The draft of a row as kept (credentials redacted); null for an invalid row.
    const Core::RequestDraft *draft(int row) const;

private:
    QPointer<RequestHistory> m_history;
};

} // namespace RetryLab::Ui
