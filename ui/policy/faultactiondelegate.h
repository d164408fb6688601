#pragma once

#include <QStyledItemDelegate>

namespace RetryLab::Ui {

/// Edits FaultActionModel's action column with a combo box that commits as
/// soon as a choice is made (the editors stay open, so there is no "Enter").
class FaultActionDelegate final : public QStyledItemDelegate
{
    Q_OBJECT

public:
    explicit FaultActionDelegate(QObject *parent = nullptr);

    QWidget *createEditor(QWidget *parent, const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    void setEditorData(QWidget *editor, const QModelIndex &index) const override;
    void setModelData(QWidget *editor, QAbstractItemModel *model, const QModelIndex &index) const override;
};

} // namespace RetryLab::Ui
