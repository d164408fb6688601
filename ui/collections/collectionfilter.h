#pragma once

#include <QSortFilterProxyModel>

namespace RetryLab::Ui {

/// The sidebar's search: a request is shown when its name or URL contains the
/// text (any case), a folder or collection when its name does (with all it
/// holds) or when something inside it is shown.
class CollectionFilter final : public QSortFilterProxyModel
{
    Q_OBJECT

public:
    explicit CollectionFilter(QObject *parent = nullptr);

    void setSearchText(const QString &text);
    QString searchText() const { return m_text; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    QString m_text;
};

} // namespace RetryLab::Ui
