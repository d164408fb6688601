#include "ui/collections/collectionmodel.h"

#include <QIODevice>
#include <QMimeData>
#include <QUuid>

#include <algorithm>
#include <vector>

namespace RetryLab::Ui {

struct CollectionModel::Node
{
    Kind kind = Kind::Request;
    QString id;
    QString name;
    Core::RequestDraft request;
    Core::SavedPolicy policy;
    /// What a run checks of the request's answer and takes from it (kept through edits and saves).
    QList<Core::Assertion> assertions;
    QList<Core::ResponseVariables::Rule> extract;
    /// A collection's or folder's auth, which its requests with "No auth" inherit.
    Core::AuthSpec auth;
    QString fileName;
    Node *parent = nullptr;
    std::vector<std::unique_ptr<Node>> children;

    int row() const
    {
        if (!parent)
            return 0;
        const auto &siblings = parent->children;
        for (size_t i = 0; i < siblings.size(); ++i) {
            if (siblings[i].get() == this)
                return int(i);
        }
        return 0;
    }
    bool contains(const Node *other) const
    {
        for (const Node *each = other; each; each = each->parent) {
            if (each == this)
                return true;
        }
        return false;
    }
    const Node *top() const
    {
        const Node *node = this;
        while (node->parent && node->parent->parent)
            node = node->parent;
        return node;
    }
};

CollectionModel::CollectionModel(QObject *parent) : QAbstractItemModel(parent), m_root(std::make_unique<Node>())
{
    m_root->kind = Kind::Folder;
}

CollectionModel::~CollectionModel() = default;

std::unique_ptr<CollectionModel::Node> CollectionModel::fromItem(const Core::CollectionItem &item, Node *parent)
{
    auto node = std::make_unique<Node>();
    node->kind = item.isFolder() ? Kind::Folder : Kind::Request;
    node->id = item.id.isEmpty() ? Core::CollectionItem::newId() : item.id;
    node->name = item.name;
    node->request = item.request;
    node->policy = item.policy;
    node->assertions = item.assertions;
    node->extract = item.extract;
    node->auth = item.auth;
    node->parent = parent;
    for (const Core::CollectionItem &child : item.items)
        node->children.push_back(fromItem(child, node.get()));
    return node;
}

Core::CollectionItem CollectionModel::toItem(const Node &node)
{
    Core::CollectionItem item;
    item.kind = node.kind == Kind::Folder ? Core::CollectionItem::Kind::Folder : Core::CollectionItem::Kind::Request;
    item.id = node.id;
    item.name = node.name;
    if (node.kind == Kind::Request) {
        item.request = node.request;
        item.policy = node.policy;
        item.assertions = node.assertions;
        item.extract = node.extract;
    } else {
        item.auth = node.auth;
    }
    for (const auto &child : node.children)
        item.items.append(toItem(*child));
    return item;
}

std::unique_ptr<CollectionModel::Node> CollectionModel::copyWithNewIds(const Node &node, Node *parent)
{
    auto copy = std::make_unique<Node>();
    copy->kind = node.kind;
    copy->id = Core::CollectionItem::newId();
    copy->name = node.name;
    copy->request = node.request;
    copy->policy = node.policy;
    copy->assertions = node.assertions;
    copy->extract = node.extract;
    copy->auth = node.auth;
    copy->parent = parent;
    for (const auto &child : node.children)
        copy->children.push_back(copyWithNewIds(*child, copy.get()));
    return copy;
}

void CollectionModel::setCollections(const QList<Core::Collection> &collections)
{
    beginResetModel();
    m_root->children.clear();
    for (const Core::Collection &collection : collections) {
        auto node = std::make_unique<Node>();
        node->kind = Kind::Collection;
        node->id = Core::CollectionItem::newId();
        node->name = collection.name;
        node->fileName = collection.fileName;
        node->auth = collection.auth;
        node->parent = m_root.get();
        for (const Core::CollectionItem &item : collection.items)
            node->children.push_back(fromItem(item, node.get()));
        m_root->children.push_back(std::move(node));
    }
    endResetModel();
}

QList<Core::Collection> CollectionModel::collections() const
{
    QList<Core::Collection> out;
    for (size_t i = 0; i < m_root->children.size(); ++i)
        out.append(collection(int(i)));
    return out;
}

Core::Collection CollectionModel::collection(int row) const
{
    if (row < 0 || size_t(row) >= m_root->children.size())
        return {};
    const Node &node = *m_root->children[size_t(row)];
    Core::Collection collection;
    collection.name = node.name;
    collection.fileName = node.fileName;
    collection.auth = node.auth;
    for (const auto &child : node.children)
        collection.items.append(toItem(*child));
    return collection;
}

int CollectionModel::collectionRow(const QModelIndex &index) const
{
    const Node *node = nodeOf(index);
    return node == m_root.get() ? -1 : node->top()->row();
}

void CollectionModel::setFileName(int row, const QString &fileName)
{
    if (row >= 0 && size_t(row) < m_root->children.size())
        m_root->children[size_t(row)]->fileName = fileName;
}

CollectionModel::Kind CollectionModel::kind(const QModelIndex &index) const
{
    return nodeOf(index)->kind;
}

std::optional<Core::CollectionItem> CollectionModel::item(const QModelIndex &index) const
{
    const Node *node = nodeOf(index);
    if (node == m_root.get() || node->kind == Kind::Collection)
        return std::nullopt;
    return toItem(*node);
}

QModelIndex CollectionModel::indexOfId(const QString &id) const
{
    std::vector<const Node *> stack{m_root.get()};
    while (!stack.empty()) {
        const Node *node = stack.back();
        stack.pop_back();
        if (node != m_root.get() && node->id == id)
            return indexOf(node);
        for (const auto &child : node->children)
            stack.push_back(child.get());
    }
    return {};
}

CollectionModel::Node *CollectionModel::nodeOf(const QModelIndex &index) const
{
    if (!index.isValid() || index.model() != this)
        return m_root.get();
    return static_cast<Node *>(index.internalPointer());
}

QModelIndex CollectionModel::indexOf(const Node *node) const
{
    if (!node || node == m_root.get())
        return {};
    return createIndex(node->row(), 0, const_cast<Node *>(node));
}

void CollectionModel::changed(const Node *node)
{
    if (node && node != m_root.get())
        Q_EMIT collectionChanged(node->top()->row());
}

QModelIndex CollectionModel::addCollection(const QString &name)
{
    auto node = std::make_unique<Node>();
    node->kind = Kind::Collection;
    node->id = Core::CollectionItem::newId();
    node->name = name;
    node->parent = m_root.get();
    const int row = int(m_root->children.size());
    beginInsertRows({}, row, row);
    m_root->children.push_back(std::move(node));
    endInsertRows();
    changed(m_root->children.back().get());
    return index(row, 0);
}

CollectionModel::Node *CollectionModel::containerFor(const QModelIndex &where, int *row) const
{
    Node *node = nodeOf(where);
    if (node == m_root.get())
        return nullptr;
    if (node->kind == Kind::Request) {
        *row = node->row() + 1;
        return node->parent;
    }
    *row = int(node->children.size());
    return node;
}

QModelIndex CollectionModel::addItem(const QModelIndex &where, const Core::CollectionItem &item)
{
    int row = 0;
    Node *container = containerFor(where, &row);
    if (!container)
        return {};
    beginInsertRows(indexOf(container), row, row);
    container->children.insert(container->children.begin() + row, fromItem(item, container));
    endInsertRows();
    changed(container);
    return indexOf(container->children[size_t(row)].get());
}

bool CollectionModel::updateRequest(
    const QModelIndex &index, const Core::RequestDraft &draft, const Core::SavedPolicy &policy)
{
    Node *node = nodeOf(index);
    if (node == m_root.get() || node->kind != Kind::Request)
        return false;
    node->request = draft;
    node->policy = policy;
    Q_EMIT dataChanged(index, index);
    changed(node);
    return true;
}

bool CollectionModel::updateRequest(const QModelIndex &index, const Core::RequestDraft &draft,
    const Core::SavedPolicy &policy, const RequestChecks &checks)
{
    Node *node = nodeOf(index);
    if (node == m_root.get() || node->kind != Kind::Request)
        return false;
    node->assertions = checks.assertions;
    node->extract = checks.extract;
    return updateRequest(index, draft, policy);
}

Core::AuthSpec CollectionModel::auth(const QModelIndex &index) const
{
    const Node *node = nodeOf(index);
    return node == m_root.get() || node->kind == Kind::Request ? Core::AuthSpec{} : node->auth;
}

bool CollectionModel::setAuth(const QModelIndex &index, const Core::AuthSpec &auth)
{
    Node *node = nodeOf(index);
    if (node == m_root.get() || node->kind == Kind::Request)
        return false;
    if (node->auth == auth)
        return true;
    node->auth = auth;
    Q_EMIT dataChanged(index, index);
    changed(node);
    return true;
}

Core::AuthSpec CollectionModel::inheritedAuth(const QModelIndex &index) const
{
    const Node *node = nodeOf(index);
    for (const Node *above = node == m_root.get() ? nullptr : node->parent; above && above != m_root.get();
         above = above->parent) {
        if (above->auth.kind != Core::AuthSpec::Kind::Inherit)
            return above->auth;
    }
    return {};
}

QModelIndex CollectionModel::duplicate(const QModelIndex &index)
{
    Node *node = nodeOf(index);
    if (node == m_root.get())
        return {};
    Node *parentNode = node->parent;
    const int row = node->row() + 1;
    auto copy = copyWithNewIds(*node, parentNode);
    copy->name = tr("%1 copy").arg(node->name);
    beginInsertRows(indexOf(parentNode), row, row);
    parentNode->children.insert(parentNode->children.begin() + row, std::move(copy));
    endInsertRows();
    changed(parentNode->children[size_t(row)].get());
    return indexOf(parentNode->children[size_t(row)].get());
}

bool CollectionModel::remove(const QModelIndex &index)
{
    Node *node = nodeOf(index);
    if (node == m_root.get())
        return false;
    Node *parentNode = node->parent;
    const int row = node->row();
    std::optional<Core::Collection> removedCollection;
    if (node->kind == Kind::Collection)
        removedCollection = collection(row);
    beginRemoveRows(indexOf(parentNode), row, row);
    parentNode->children.erase(parentNode->children.begin() + row);
    endRemoveRows();
    if (removedCollection)
        Q_EMIT collectionRemoved(*removedCollection);
    else
        changed(parentNode);
    return true;
}

bool CollectionModel::moveItem(const QModelIndex &index, const QModelIndex &parent, int row)
{
    Node *node = nodeOf(index);
    Node *target = nodeOf(parent);
    if (node == m_root.get() || node->kind == Kind::Collection || target == m_root.get()
        || target->kind == Kind::Request || node->contains(target))
        return false;
    Node *source = node->parent;
    const int from = node->row();
    if (row < 0 || size_t(row) > target->children.size())
        row = int(target->children.size());
    if (source == target && (row == from || row == from + 1))
        return true;
    const int sourceTop = source->top()->row();
    if (!beginMoveRows(indexOf(source), from, from, indexOf(target), row))
        return false;
    std::unique_ptr<Node> moving = std::move(source->children[size_t(from)]);
    source->children.erase(source->children.begin() + from);
    const int insertAt = (source == target && from < row) ? row - 1 : row;
    moving->parent = target;
    target->children.insert(target->children.begin() + insertAt, std::move(moving));
    endMoveRows();
    if (target->top()->row() != sourceTop)
        Q_EMIT collectionChanged(sourceTop);
    changed(target);
    return true;
}

QModelIndex CollectionModel::index(int row, int column, const QModelIndex &parent) const
{
    const Node *parentNode = nodeOf(parent);
    if (column != 0 || row < 0 || size_t(row) >= parentNode->children.size())
        return {};
    return createIndex(row, column, parentNode->children[size_t(row)].get());
}

QModelIndex CollectionModel::parent(const QModelIndex &child) const
{
    if (!child.isValid())
        return {};
    return indexOf(nodeOf(child)->parent);
}

int CollectionModel::rowCount(const QModelIndex &parent) const
{
    if (parent.isValid() && parent.column() != 0)
        return 0;
    return int(nodeOf(parent)->children.size());
}

int CollectionModel::columnCount(const QModelIndex &) const
{
    return 1;
}

QVariant CollectionModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid())
        return {};
    const Node *node = nodeOf(index);
    switch (role) {
    case Qt::DisplayRole:
    case Qt::EditRole:
        return node->name;
    case Qt::ToolTipRole: {
        if (node->kind == Kind::Request) {
            QString tip = tr("%1 %2\nPolicy: %3")
                              .arg(node->request.method, node->request.urlTemplate, node->policy.displayName());
            if (node->request.auth.kind == Core::AuthSpec::Kind::Inherit) {
                if (const Core::AuthSpec inherited = inheritedAuth(index);
                    inherited.kind != Core::AuthSpec::Kind::Inherit)
                    tip += tr("\nAuth: %1, inherited").arg(Core::AuthSpec::kindTitle(inherited.kind));
            }
            return tip;
        }
        QString tip = node->kind == Kind::Collection
            ? tr("Collection: %1 (%2)").arg(node->name, node->fileName.isEmpty() ? tr("not saved yet") : node->fileName)
            : tr("Folder: %1").arg(node->name);
        if (node->auth.kind != Core::AuthSpec::Kind::Inherit)
            tip += tr("\nAuth: %1, for its requests with no auth of their own")
                       .arg(Core::AuthSpec::kindTitle(node->auth.kind));
        return tip;
    }
    case KindRole:
        return QVariant::fromValue(node->kind);
    case IdRole:
        return node->id;
    case MethodRole:
        return node->kind == Kind::Request ? node->request.method.trimmed().toUpper() : QString();
    case UrlRole:
        return node->kind == Kind::Request ? node->request.urlTemplate : QString();
    case PolicyRole:
        return node->kind == Kind::Request ? node->policy.displayName() : QString();
    default:
        return {};
    }
}

bool CollectionModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (!index.isValid() || role != Qt::EditRole)
        return false;
    const QString name = value.toString().trimmed();
    Node *node = nodeOf(index);
    if (name.isEmpty() || name == node->name)
        return false;
    node->name = name;
    Q_EMIT dataChanged(index, index);
    changed(node);
    return true;
}

Qt::ItemFlags CollectionModel::flags(const QModelIndex &index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    Qt::ItemFlags flags = Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsEditable;
    switch (nodeOf(index)->kind) {
    case Kind::Collection:
        return flags | Qt::ItemIsDropEnabled;
    case Kind::Folder:
        return flags | Qt::ItemIsDragEnabled | Qt::ItemIsDropEnabled;
    case Kind::Request:
        return flags | Qt::ItemIsDragEnabled | Qt::ItemNeverHasChildren;
    }
    return flags;
}

Qt::DropActions CollectionModel::supportedDropActions() const
{
    return Qt::MoveAction;
}

Qt::DropActions CollectionModel::supportedDragActions() const
{
    return Qt::MoveAction;
}

QStringList CollectionModel::mimeTypes() const
{
    return {mimeType()};
}

QMimeData *CollectionModel::mimeData(const QModelIndexList &indexes) const
{
    QStringList ids;
    for (const QModelIndex &index : indexes) {
        const Node *node = nodeOf(index);
        if (node != m_root.get() && node->kind != Kind::Collection && !ids.contains(node->id))
            ids.append(node->id);
    }
    if (ids.isEmpty())
        return nullptr;
    auto *data = new QMimeData;
    data->setData(mimeType(), ids.join(QLatin1Char('\n')).toUtf8());
    return data;
}

bool CollectionModel::canDropMimeData(
    const QMimeData *data, Qt::DropAction action, int row, int column, const QModelIndex &parent) const
{
    Q_UNUSED(row);
    Q_UNUSED(column);
    if (!data || action != Qt::MoveAction || !data->hasFormat(mimeType()))
        return false;
    const Node *target = nodeOf(parent);
    if (target == m_root.get())
        return false;
    if (target->kind == Kind::Request)
        target = target->parent;
    for (const QString &id : QString::fromUtf8(data->data(mimeType())).split(QLatin1Char('\n'))) {
        const Node *node = nodeOf(indexOfId(id));
        if (node == m_root.get() || node->contains(target))
            return false;
    }
    return true;
}

bool CollectionModel::dropMimeData(
    const QMimeData *data, Qt::DropAction action, int row, int column, const QModelIndex &parent)
{
    if (!canDropMimeData(data, action, row, column, parent))
        return false;
    QModelIndex target = parent;
    if (nodeOf(parent)->kind == Kind::Request) {
        // Dropped on a request: after it, in its folder.
        row = parent.row() + 1;
        target = parent.parent();
    }
    const QPersistentModelIndex persistentTarget(target);
    bool moved = false;
    for (const QString &id : QString::fromUtf8(data->data(mimeType())).split(QLatin1Char('\n'))) {
        const QModelIndex source = indexOfId(id);
        const Node *node = nodeOf(source);
        const int before = node->row();
        const bool sameParent = node->parent == nodeOf(persistentTarget);
        if (!moveItem(source, persistentTarget, row))
            continue;
        moved = true;
        if (row >= 0 && !(sameParent && before < row))
            ++row;
    }
    // The item is already where it belongs: the view must not remove the source rows
    // (removeRows is not implemented, so a MoveAction's clean-up does nothing).
    return moved;
}

} // namespace RetryLab::Ui
