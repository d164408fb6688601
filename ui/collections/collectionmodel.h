#pragma once

#include "core/collections/collection.h"
#include "ui/session/run/requestchecks.h"

#include <QAbstractItemModel>
#include <QList>
#include <QStringList>

#include <memory>
#include <optional>

namespace RetryLab::Ui {

/// The collections as a tree for the sidebar: collections at the top, then
/// folders and requests in the order the user gave them. Names are edited in
/// place (setData), items move by drag and drop (a mime type of their own that
/// carries item ids, so a drop never copies a request by accident), and every
/// change names the collection it touched (collectionChanged), so that the
/// sidebar writes just that file.
class CollectionModel final : public QAbstractItemModel
{
    Q_OBJECT

public:
    enum class Kind { Collection, Folder, Request };
    Q_ENUM(Kind)
    enum Role {
        KindRole = Qt::UserRole + 1, ///< Kind
        IdRole, ///< an id unique in the model
        MethodRole, ///< a request's method
        UrlRole, ///< a request's URL as typed
        PolicyRole, ///< the policy's name
    };

    explicit CollectionModel(QObject *parent = nullptr);
    ~CollectionModel() override;

    static QString mimeType() { return QStringLiteral("application/x-retrylab-collection-items"); }

    void setCollections(const QList<Core::Collection> &collections);
    QList<Core::Collection> collections() const;
    /// The collection at this top-level row, with all it holds.
    Core::Collection collection(int row) const;
    /// The row of the collection that holds `index` (the top-level ancestor).
    int collectionRow(const QModelIndex &index) const;
    void setFileName(int row, const QString &fileName);

    Kind kind(const QModelIndex &index) const;
    /// The folder or request at `index`; nothing for a collection.
    std::optional<Core::CollectionItem> item(const QModelIndex &index) const;
    QModelIndex indexOfId(const QString &id) const;

    QModelIndex addCollection(const QString &name);
    /// Adds into `where` (a collection or folder; into the parent of a request,
    /// after it). Returns the new item's index.
    QModelIndex addItem(const QModelIndex &where, const Core::CollectionItem &item);
    /// Replaces a request's draft and policy (saving over it); its checks stay.
    bool updateRequest(const QModelIndex &index, const Core::RequestDraft &draft, const Core::SavedPolicy &policy);
    /// The same, with its assertions and extract rules replaced too.
    bool updateRequest(const QModelIndex &index, const Core::RequestDraft &draft, const Core::SavedPolicy &policy,
        const RequestChecks &checks);
    /// A collection's or folder's auth, which its requests whose own is Inherit
    /// ("No auth") are sent with; Inherit for a request.
    Core::AuthSpec auth(const QModelIndex &index) const;
    /// False for a request (its auth is its draft's).
    bool setAuth(const QModelIndex &index, const Core::AuthSpec &auth);
    /// What the item at `index` inherits: its innermost folder's auth that is not
    /// Inherit, else its collection's; Inherit when none has one.
    Core::AuthSpec inheritedAuth(const QModelIndex &index) const;
    /// A copy after the original ("Login copy"), with new ids.
    QModelIndex duplicate(const QModelIndex &index);
    /// Removes an item or a whole collection (collectionRemoved for the latter).
    bool remove(const QModelIndex &index);
    /// Moves an item into `parent` (collection or folder) at `row`; false when
    /// that makes no sense (into itself, a request as parent, a collection moved).
    bool moveItem(const QModelIndex &index, const QModelIndex &parent, int row);

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    Qt::DropActions supportedDropActions() const override;
    Qt::DropActions supportedDragActions() const override;
    QStringList mimeTypes() const override;
    QMimeData *mimeData(const QModelIndexList &indexes) const override;
    bool canDropMimeData(
        const QMimeData *data, Qt::DropAction action, int row, int column, const QModelIndex &parent) const override;
    bool dropMimeData(
        const QMimeData *data, Qt::DropAction action, int row, int column, const QModelIndex &parent) override;

Q_SIGNALS:
    /// The collection at this row changed (a name, an item, an order): save it.
    void collectionChanged(int row);
    void collectionRemoved(const RetryLab::Core::Collection &collection);

private:
    struct Node;

    Node *nodeOf(const QModelIndex &index) const;
    QModelIndex indexOf(const Node *node) const;
    Node *containerFor(const QModelIndex &where, int *row) const;
    void changed(const Node *node);
    static std::unique_ptr<Node> fromItem(const Core::CollectionItem &item, Node *parent);
    static Core::CollectionItem toItem(const Node &node);
    static std::unique_ptr<Node> copyWithNewIds(const Node &node, Node *parent);

    std::unique_ptr<Node> m_root;
};

} // namespace RetryLab::Ui
