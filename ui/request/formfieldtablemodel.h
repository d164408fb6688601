#pragma once

#include "core/collections/draftbody.h"

#include <QAbstractTableModel>
#include <QList>

namespace RetryLab::Ui {

/// The rows of the composer's form body: a checkbox to send the row or not, the
/// field's name, and its value, or for a file the path read when the request is
/// sent (with the name the server is told and the part's Content-Type). Values
/// of fields with a credential's name (password, token, ...; Core::Redactor's
/// rule) are shown masked unless revealed, as the header table does.
class FormFieldTableModel final : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column { Enabled, Name, Value, ContentType, ColumnCount };
    Q_ENUM(Column)

    explicit FormFieldTableModel(QObject *parent = nullptr);

    QList<Core::DraftFormField> fields() const { return m_fields; }
    void setFields(const QList<Core::DraftFormField> &fields);
    /// Adds a text field (empty) or a file field for `path`; returns its row.
    int addField();
    int addFile(const QString &path);

    void setRevealed(bool revealed);
    bool isRevealed() const { return m_revealed; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    bool removeRows(int row, int count, const QModelIndex &parent = {}) override;

Q_SIGNALS:
    /// Any row was added, removed or edited.
    void fieldsChanged();

private:
    bool isMasked(const Core::DraftFormField &field) const;
    int append(const Core::DraftFormField &field);

    QList<Core::DraftFormField> m_fields;
    bool m_revealed = false;
};

} // namespace RetryLab::Ui
