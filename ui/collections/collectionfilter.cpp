#include "ui/collections/collectionfilter.h"

#include "ui/collections/collectionmodel.h"

namespace RetryLab::Ui {

CollectionFilter::CollectionFilter(QObject *parent) : QSortFilterProxyModel(parent)
{
    setRecursiveFilteringEnabled(true);
    setAutoAcceptChildRows(true);
}

void CollectionFilter::setSearchText(const QString &text)
{
    if (text.trimmed() == m_text)
        return;
    m_text = text.trimmed();
    invalidateRowsFilter();
}

bool CollectionFilter::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    if (m_text.isEmpty())
        return true;
    const QModelIndex index = sourceModel()->index(sourceRow, 0, sourceParent);
    if (index.data(Qt::DisplayRole).toString().contains(m_text, Qt::CaseInsensitive))
        return true;
    return index.data(CollectionModel::UrlRole).toString().contains(m_text, Qt::CaseInsensitive);
}

} // namespace RetryLab::Ui
