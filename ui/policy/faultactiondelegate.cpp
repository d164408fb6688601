#include "ui/policy/faultactiondelegate.h"

#include "ui/policy/faultactionmodel.h"

#include <QComboBox>

namespace RetryLab::Ui {

FaultActionDelegate::FaultActionDelegate(QObject *parent) : QStyledItemDelegate(parent)
{ }

QWidget *FaultActionDelegate::createEditor(
    QWidget *parent, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    if (index.column() != FaultActionModel::ActionColumn)
        return QStyledItemDelegate::createEditor(parent, option, index);

    auto *combo = new QComboBox(parent);
    combo->setFrame(false);
    for (Core::FaultAction action : FaultActionModel::allActions()) {
        combo->addItem(FaultActionModel::actionTitle(action), static_cast<int>(action));
        combo->setItemData(combo->count() - 1, FaultActionModel::actionExplanation(action), Qt::ToolTipRole);
    }
    connect(combo, &QComboBox::activated, this, [this, combo] {
        auto *self = const_cast<FaultActionDelegate *>(this);
        Q_EMIT self->commitData(combo);
    });
    return combo;
}

void FaultActionDelegate::setEditorData(QWidget *editor, const QModelIndex &index) const
{
    auto *combo = qobject_cast<QComboBox *>(editor);
    if (!combo)
        return QStyledItemDelegate::setEditorData(editor, index);
    const int found = combo->findData(index.data(FaultActionModel::ActionRole));
    if (found >= 0 && found != combo->currentIndex())
        combo->setCurrentIndex(found);
}

void FaultActionDelegate::setModelData(QWidget *editor, QAbstractItemModel *model, const QModelIndex &index) const
{
    auto *combo = qobject_cast<QComboBox *>(editor);
    if (!combo)
        return QStyledItemDelegate::setModelData(editor, model, index);
    model->setData(index, combo->currentData(), FaultActionModel::ActionRole);
}

} // namespace RetryLab::Ui
