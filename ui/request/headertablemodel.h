#pragma once

#include "core/collections/requestdraft.h"

#include <QAbstractTableModel>
#include <QList>

namespace RetryLab::Ui {

/// The composer's request headers: a checkbox to send the row or not, the name and
/// the value. Values of credential headers (Authorization, cookies, API keys; the
/// rule of Core::Redactor) are shown masked unless revealed, so that a screen share
/// or a screenshot does not leak them; editing shows the value in a password field.
class HeaderTableModel final : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column { Enabled, Name, Value, ColumnCount };
    Q_ENUM(Column)

    enum Role {
        MaskedRole = Qt::UserRole + 1, ///< bool: the value is a credential shown masked now
    };

    explicit HeaderTableModel(QObject *parent = nullptr);

    /// The user's headers; the two rows after them are RetryLab's own (see below).
    QList<Core::DraftHeader> headers() const { return m_headers; }
    void setHeaders(const QList<Core::DraftHeader> &headers);
    int headerCount() const { return static_cast<int>(m_headers.size()); }

    /// X-Retry-Request-Id and X-Retry-Attempt, which the executor adds to every
    /// attempt, shown greyed below the user's headers; their Send box turns both
    /// off for this request. Neither name nor value can be edited.
    static constexpr int automaticRows = 2;
    bool attemptHeaders() const { return m_attemptHeaders; }
    void setAttemptHeaders(bool on);
    bool isAutomaticRow(int row) const { return row >= headerCount() && row < headerCount() + automaticRows; }

    /// Shows credential values in clear text.
    void setRevealed(bool revealed);
    bool isRevealed() const { return m_revealed; }
    /// True when the header's value is masked unless revealed.
    static bool isCredential(const QString &name);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    bool insertRows(int row, int count, const QModelIndex &parent = {}) override;
    bool removeRows(int row, int count, const QModelIndex &parent = {}) override;

Q_SIGNALS:
    /// Any row was added, removed or edited.
    void headersChanged();

private:
    QVariant automaticData(int row, int column, int role) const;

    QList<Core::DraftHeader> m_headers;
    bool m_revealed = false;
    bool m_attemptHeaders = true;
};

} // namespace RetryLab::Ui
