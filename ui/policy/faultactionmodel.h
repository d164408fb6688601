#pragma once

#include "core/policy/backoffpolicy.h"

#include <QAbstractTableModel>
#include <QList>
#include <QMap>

namespace RetryLab::Ui {

/// One row per network fault class with the action the classifier takes for
/// it (the Retry pattern's cancel / retry immediately / retry after a delay).
/// The action column is editable; it holds a Core::FaultAction in ActionRole.
class FaultActionModel final : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column { FaultColumn, ActionColumn, DelayFactorColumn, ColumnCount };
    enum Role {
        FaultRole = Qt::UserRole + 1, ///< the row's Core::NetworkFaultClass, as int
        ActionRole, ///< the row's Core::FaultAction, as int (editable)
    };

    explicit FaultActionModel(QObject *parent = nullptr);

    /// Shows these actions; classes missing from the map show what the
    /// classifier does without an entry (give up).
    void setActions(const QMap<Core::NetworkFaultClass, Core::FaultAction> &actions);
    QMap<Core::NetworkFaultClass, Core::FaultAction> actions() const;
    /// The delay factor of each class (DelayFactorColumn, editable, 0 to 10);
    /// classes missing from the map show 1. delayFactors() leaves out the 1s.
    void setDelayFactors(const QMap<Core::NetworkFaultClass, double> &factors);
    QMap<Core::NetworkFaultClass, double> delayFactors() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    static QString faultTitle(Core::NetworkFaultClass fault);
    static QString faultExplanation(Core::NetworkFaultClass fault);
    static QString actionTitle(Core::FaultAction action);
    static QString actionExplanation(Core::FaultAction action);
    static QList<Core::FaultAction> allActions();

Q_SIGNALS:
    /// A user edit changed an action or a delay factor (not emitted by the setters).
    void actionsEdited();

private:
    QList<Core::NetworkFaultClass> m_faults;
    QList<Core::FaultAction> m_actions;
    QList<double> m_factors;
};

} // namespace RetryLab::Ui
