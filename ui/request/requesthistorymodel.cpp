#include "ui/request/requesthistorymodel.h"

#include "ui/session/request/requesthistory.h"

#include <QLocale>

namespace RetryLab::Ui {

RequestHistoryModel::RequestHistoryModel(QObject *parent) : QAbstractTableModel(parent)
{ }

void RequestHistoryModel::setHistory(RequestHistory *history)
{
    beginResetModel();
    if (m_history)
        disconnect(m_history, nullptr, this, nullptr);
    m_history = history;
    if (m_history) {
        // A send adds one entry and may drop the oldest: a reset is as cheap at 200 rows.
        connect(m_history, &RequestHistory::changed, this, [this] {
            beginResetModel();
            endResetModel();
        });
    }
    endResetModel();
}

int RequestHistoryModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_history ? 0 : int(m_history->entries().size());
}

int RequestHistoryModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

const Core::RequestDraft *RequestHistoryModel::draft(int row) const
{
    if (!m_history || row < 0 || row >= m_history->entries().size())
        return nullptr;
    return &m_history->entries().at(row).draft;
}

QVariant RequestHistoryModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) || !m_history)
        return {};
    const RequestHistory::Entry &entry = m_history->entries().at(index.row());
    const Core::RequestDraft &draft = entry.draft;
    if (role == Qt::ToolTipRole) {
        QString tip = tr("%1 %2\nsent %3")
                          .arg(draft.method, draft.urlTemplate,
                              QLocale().toString(entry.sentAt.toLocalTime(), QLocale::LongFormat));
        if (entry.bodyDropped)
            tip += tr("\nIts body was larger than %1 KiB and is not kept.").arg(RequestHistory::maxBodyBytes / 1024);
        return QString(tip + tr("\nDouble-click or press Enter to open it in the composer."));
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case SentAt: {
        const QDateTime local = entry.sentAt.toLocalTime();
        // Today's sends by their time; older ones with their day.
        return local.date() == QDate::currentDate() ? local.toString(QStringLiteral("HH:mm:ss"))
                                                    : QLocale().toString(local, QLocale::ShortFormat);
    }
    case Request:
        return tr("%1 %2").arg(draft.readModifyWrite ? tr("RMW") : draft.method, draft.urlTemplate);
    case What:
        switch (entry.kind) {
        case RequestHistory::Kind::Send:
            return tr("send");
        case RequestHistory::Kind::Batch:
            return tr("batch of %1").arg(draft.batchCount);
        case RequestHistory::Kind::Repeat:
            return tr("repeat");
        }
        return {};
    default:
        return {};
    }
}

QVariant RequestHistoryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case SentAt:
        return tr("Sent");
    case Request:
        return tr("Request");
    case What:
        return tr("What");
    default:
        return {};
    }
}

} // namespace RetryLab::Ui
