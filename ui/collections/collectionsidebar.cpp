#include "ui/collections/collectionsidebar.h"

#include "core/runner/retrylabrun.h"
#include "ui/collections/collectiondelegate.h"
#include "ui/collections/collectionfilter.h"
#include "ui/collections/collectionmodel.h"
#include "ui/collections/collectionrundialog.h"
#include "ui/collections/environmentbar.h"
#include "ui/collections/environmentdialog.h"

#include <QAction>
#include <QDir>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QToolButton>
#include <QTreeView>
#include <QUrl>
#include <QVBoxLayout>

#include <algorithm>

namespace RetryLab::Ui {

namespace {

// "POST /orders" for a request saved from the composer: the user renames it in place.
QString nameFor(const Core::RequestDraft &draft)
{
    QString path = draft.urlTemplate;
    const qsizetype scheme = path.indexOf(QLatin1String("://"));
    const qsizetype slash = path.indexOf(QLatin1Char('/'), scheme < 0 ? 0 : scheme + 3);
    path = slash < 0 ? QStringLiteral("/") : path.mid(slash);
    path = path.section(QLatin1Char('?'), 0, 0);
    return QStringLiteral("%1 %2").arg(draft.method.trimmed().toUpper(), path.left(60));
}

} // namespace

CollectionSidebar::CollectionSidebar(const QString &dataRoot, QWidget *parent)
    : QWidget(parent), m_store(dataRoot), m_model(new CollectionModel(this)), m_filter(new CollectionFilter(this)),
      m_view(new QTreeView), m_search(new QLineEdit), m_empty(new QLabel), m_environmentBar(new EnvironmentBar)
{
    setObjectName(QStringLiteral("collections"));
    m_filter->setSourceModel(m_model);

    m_search->setObjectName(QStringLiteral("collectionSearch"));
    m_search->setPlaceholderText(tr("Search by name or URL"));
    m_search->setClearButtonEnabled(true);

    m_view->setObjectName(QStringLiteral("collectionTree"));
    m_view->setModel(m_filter);
    m_view->setItemDelegate(new CollectionDelegate(m_view));
    m_view->setHeaderHidden(true);
    m_view->setUniformRowHeights(true);
    m_view->setIndentation(fontMetrics().horizontalAdvance(QLatin1Char('x')) * 2);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setEditTriggers(QAbstractItemView::EditKeyPressed);
    m_view->setDragDropMode(QAbstractItemView::InternalMove);
    m_view->setDefaultDropAction(Qt::MoveAction);
    m_view->setDropIndicatorShown(true);
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);

    m_empty->setWordWrap(true);
    m_empty->setText(
        tr("No saved requests yet. Save request (Ctrl+S) keeps what the composer holds, with its policy."));
    m_empty->setObjectName(QStringLiteral("collectionsEmpty"));

    const auto makeAction = [this](const QString &text, const QString &name, const QKeySequence &keys,
                                Qt::ShortcutContext context, void (CollectionSidebar::*slot)()) {
        auto *action = new QAction(text, this);
        action->setObjectName(name);
        if (!keys.isEmpty()) {
            action->setShortcut(keys);
            action->setShortcutContext(context);
            action->setToolTip(QStringLiteral("%1 (%2)").arg(
                QString(text).remove(QLatin1Char('&')), keys.toString(QKeySequence::NativeText)));
        }
        connect(action, &QAction::triggered, this, slot);
        addAction(action);
        return action;
    };
    m_newCollection = makeAction(tr("New &collection"), QStringLiteral("newCollection"), {}, Qt::WidgetShortcut,
        &CollectionSidebar::newCollection);
    m_newFolder = makeAction(
        tr("New &folder"), QStringLiteral("newFolder"), {}, Qt::WidgetShortcut, &CollectionSidebar::newFolder);
    m_saveRequest = makeAction(tr("&Save request"), QStringLiteral("saveRequest"), QKeySequence(Qt::CTRL | Qt::Key_S),
        Qt::WindowShortcut, &CollectionSidebar::saveRequest);
    m_saveAsNew = makeAction(tr("Save as &new request"), QStringLiteral("saveAsNewRequest"),
        QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S), Qt::WindowShortcut, &CollectionSidebar::saveAsNewRequest);
    m_duplicate = makeAction(tr("&Duplicate"), QStringLiteral("duplicateItem"), QKeySequence(Qt::CTRL | Qt::Key_D),
        Qt::WidgetWithChildrenShortcut, &CollectionSidebar::duplicateSelected);
    m_rename = makeAction(tr("&Rename"), QStringLiteral("renameItem"), QKeySequence(Qt::Key_F2),
        Qt::WidgetWithChildrenShortcut, &CollectionSidebar::renameSelected);
    m_delete = makeAction(tr("De&lete\u2026"), QStringLiteral("deleteItem"), QKeySequence(QKeySequence::Delete),
        Qt::WidgetWithChildrenShortcut, &CollectionSidebar::deleteSelected);
    m_runCollection = makeAction(tr("&Run collection…"), QStringLiteral("runCollection"),
        QKeySequence(Qt::CTRL | Qt::Key_F5), Qt::WidgetWithChildrenShortcut, &CollectionSidebar::runSelectedCollection);
    m_runFolder
        = makeAction(tr("Run f&older…"), QStringLiteral("runFolder"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F5),
            Qt::WidgetWithChildrenShortcut, &CollectionSidebar::runSelectedFolder);
    m_editAuth = makeAction(tr("&Auth\u2026"), QStringLiteral("editAuth"), {}, Qt::WidgetWithChildrenShortcut,
        &CollectionSidebar::editAuthOfSelected);
    m_editAuth->setToolTip(tr("The auth of the selected collection or folder: its requests whose own is \"No "
                              "auth\" are sent with it"));
    m_saveRequest->setToolTip(tr("Save what the composer holds, with the policy, over the request loaded last "
                                 "(or as a new one) (Ctrl+S)"));

    // Two buttons rather than a toolbar, so that the dock can be narrow.
    auto *save = new QToolButton;
    save->setObjectName(QStringLiteral("saveRequestButton"));
    save->setDefaultAction(m_saveRequest);
    save->setToolButtonStyle(Qt::ToolButtonTextOnly);
    auto *newMenu = new QMenu(this);
    newMenu->addAction(m_saveAsNew);
    newMenu->addAction(m_newFolder);
    newMenu->addAction(m_newCollection);
    auto *add = new QToolButton;
    add->setObjectName(QStringLiteral("newItemButton"));
    add->setText(tr("New"));
    add->setToolTip(tr("A new request (what the composer holds), folder or collection"));
    add->setMenu(newMenu);
    add->setPopupMode(QToolButton::InstantPopup);
    auto *runMenu = new QMenu(this);
    runMenu->addAction(m_runCollection);
    runMenu->addAction(m_runFolder);
    auto *runButton = new QToolButton;
    runButton->setObjectName(QStringLiteral("runButton"));
    runButton->setText(tr("Run"));
    runButton->setToolTip(tr("Run the selected collection or folder, request after request, with their policies"));
    runButton->setMenu(runMenu);
    runButton->setPopupMode(QToolButton::InstantPopup);
    auto *tools = new QHBoxLayout;
    tools->setContentsMargins(0, 0, 0, 0);
    tools->addWidget(save);
    tools->addWidget(add);
    tools->addWidget(runButton);
    tools->addStretch();

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_search);
    layout->addLayout(tools);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_empty);

    connect(m_search, &QLineEdit::textChanged, this, [this](const QString &text) {
        m_filter->setSearchText(text);
        if (!text.trimmed().isEmpty())
            m_view->expandAll();
    });
    connect(m_view, &QTreeView::activated, this,
        [this](const QModelIndex &index) { activate(m_filter->mapToSource(index)); });
    connect(m_view, &QTreeView::customContextMenuRequested, this, &CollectionSidebar::handleContextMenu);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this, &CollectionSidebar::updateActions);
    connect(m_model, &CollectionModel::collectionChanged, this, &CollectionSidebar::handleCollectionChanged);
    connect(m_model, &CollectionModel::collectionRemoved, this, &CollectionSidebar::handleCollectionRemoved);
    connect(m_model, &QAbstractItemModel::rowsInserted, this, &CollectionSidebar::updateActions);
    connect(m_model, &QAbstractItemModel::rowsRemoved, this, &CollectionSidebar::updateActions);
    connect(m_model, &QAbstractItemModel::modelReset, this, &CollectionSidebar::updateActions);
    connect(m_environmentBar, &EnvironmentBar::environmentPicked, this, &CollectionSidebar::setActiveEnvironment);
    connect(m_environmentBar, &EnvironmentBar::editRequested, this, &CollectionSidebar::editEnvironments);

    reload();
}

CollectionSidebar::~CollectionSidebar()
{
    // The children go after this destructor: an open editor committing its text,
    // or a selection change, must not call into a half-destroyed sidebar.
    disconnect(m_model, nullptr, this, nullptr);
    disconnect(m_view->selectionModel(), nullptr, this, nullptr);
    if (m_environmentBar && !m_environmentBar->parent())
        delete m_environmentBar.data();
}

void CollectionSidebar::setDataRoot(const QString &dataRoot)
{
    m_store = Core::CollectionStore(dataRoot);
    m_provisionalFiles.clear();
    reload();
    for (const QString &each : std::as_const(m_problems))
        Q_EMIT problem(each);
}

void CollectionSidebar::reload()
{
    const auto collections = m_store.loadCollections();
    const auto environments = m_store.loadEnvironments();
    m_problems = collections.problems + environments.problems;
    m_openedId.clear();
    m_model->setCollections(collections.collections);
    m_view->expandToDepth(0);
    m_environments = environments.environments;
    m_active = environments.active;
    QStringList names;
    for (const Core::Environment &environment : m_environments)
        names.append(environment.name);
    m_environmentBar->setEnvironments(names, m_active);
    Q_EMIT environmentChanged(m_active, variables());
    updateActions();
}

QModelIndex CollectionSidebar::currentIndex() const
{
    return m_filter->mapToSource(m_view->currentIndex());
}

std::optional<CollectionSidebar::MonitorSource> CollectionSidebar::monitorSource() const
{
    const QModelIndex current = currentIndex();
    if (!current.isValid())
        return std::nullopt;
    const Core::Collection collection = m_model->collection(m_model->collectionRow(current));
    if (collection.fileName.isEmpty())
        return std::nullopt;
    QStringList path;
    for (QModelIndex at = current; at.isValid() && at.parent().isValid(); at = at.parent())
        path.prepend(at.data(Qt::DisplayRole).toString());
    MonitorSource source;
    source.collectionFile = QDir(m_store.collectionsDirectory()).filePath(collection.fileName);
    source.path = path.join(QLatin1Char('/'));
    source.environmentFile = m_store.environmentsFile();
    source.environmentName = m_active;
    return source;
}

void CollectionSidebar::setCurrentIndex(const QModelIndex &sourceIndex)
{
    const QModelIndex shown = m_filter->mapFromSource(sourceIndex);
    if (shown.parent().isValid())
        m_view->expand(shown.parent());
    m_view->setCurrentIndex(shown);
    m_view->scrollTo(shown);
}

void CollectionSidebar::updateActions()
{
    const QModelIndex current = currentIndex();
    const bool any = current.isValid();
    m_duplicate->setEnabled(any && m_model->kind(current) != CollectionModel::Kind::Collection);
    m_rename->setEnabled(any);
    m_delete->setEnabled(any);
    m_newFolder->setEnabled(m_model->rowCount() > 0);
    m_runCollection->setEnabled(any);
    m_runFolder->setEnabled(any && m_model->kind(current) == CollectionModel::Kind::Folder);
    m_editAuth->setEnabled(m_askAuth && any && m_model->kind(current) != CollectionModel::Kind::Request);
    m_empty->setVisible(m_model->rowCount() == 0);
}

void CollectionSidebar::startEditing(const QModelIndex &sourceIndex)
{
    setCurrentIndex(sourceIndex);
    m_view->edit(m_filter->mapFromSource(sourceIndex));
}

void CollectionSidebar::activate(const QModelIndex &sourceIndex)
{
    const auto item = m_model->item(sourceIndex);
    if (!item || item->isFolder())
        return;
    auto policy = item->policy.policy();
    if (!policy) {
        Q_EMIT problem(tr("\"%1\" uses the preset \"%2\", which this RetryLab does not have; the policy in the editor "
                          "is kept.")
                           .arg(item->name, item->policy.preset));
        policy = m_source ? m_source().second : Core::BackoffPolicy{};
    }
    m_openedId = item->id;
    // "No auth" of its own: it goes with what its folders or collection hand down, shown in the Auth tab.
    Core::RequestDraft draft = item->request;
    m_openedInherited = {};
    if (draft.auth.kind == Core::AuthSpec::Kind::Inherit) {
        m_openedInherited = m_model->inheritedAuth(sourceIndex);
        if (m_openedInherited.kind != Core::AuthSpec::Kind::Inherit)
            draft.auth = m_openedInherited;
    }
    Q_EMIT requestActivated(draft, *policy);
    Q_EMIT checksActivated(RequestChecks{item->assertions, item->extract});
}

void CollectionSidebar::newCollection()
{
    QString name = tr("New collection");
    const QList<Core::Collection> existing = m_model->collections();
    for (int n = 2;
         std::any_of(existing.cbegin(), existing.cend(), [&](const Core::Collection &c) { return c.name == name; });
         ++n)
        name = tr("New collection %1").arg(n);
    const QModelIndex added = m_model->addCollection(name);
    // Its file is named after the name the user types next, not after "New collection".
    const QString fileName = m_model->collection(added.row()).fileName;
    if (!fileName.isEmpty())
        m_provisionalFiles.insert(fileName, name);
    startEditing(added);
}

void CollectionSidebar::newFolder()
{
    QModelIndex where = currentIndex();
    if (!where.isValid())
        where = m_model->index(0, 0);
    if (!where.isValid())
        return;
    startEditing(m_model->addItem(where, Core::CollectionItem::makeFolder(tr("New folder"))));
}

void CollectionSidebar::saveRequest()
{
    const QModelIndex opened = m_openedId.isEmpty() ? QModelIndex() : m_model->indexOfId(m_openedId);
    if (!opened.isValid() || !m_source) {
        saveAsNewRequest();
        return;
    }
    auto [draft, policy] = m_source();
    // Opened with what it inherited and saved with it unchanged: it keeps inheriting.
    if (m_openedInherited.kind != Core::AuthSpec::Kind::Inherit && draft.auth == m_openedInherited)
        draft.auth = {};
    if (m_checksSource)
        m_model->updateRequest(opened, draft, Core::SavedPolicy::from(policy), m_checksSource());
    else
        m_model->updateRequest(opened, draft, Core::SavedPolicy::from(policy));
    setCurrentIndex(opened);
}

void CollectionSidebar::saveAsNewRequest()
{
    if (!m_source)
        return;
    const auto [draft, policy] = m_source();
    QModelIndex where = currentIndex();
    if (!where.isValid())
        where = m_model->rowCount() > 0 ? m_model->index(0, 0) : m_model->addCollection(tr("My requests"));
    Core::CollectionItem item
        = Core::CollectionItem::makeRequest(nameFor(draft), draft, Core::SavedPolicy::from(policy));
    if (m_checksSource) {
        const RequestChecks checks = m_checksSource();
        item.assertions = checks.assertions;
        item.extract = checks.extract;
    }
    const QModelIndex added = m_model->addItem(where, item);
    m_openedId = added.data(CollectionModel::IdRole).toString();
    startEditing(added);
}

void CollectionSidebar::duplicateSelected()
{
    const QModelIndex current = currentIndex();
    if (!current.isValid() || m_model->kind(current) == CollectionModel::Kind::Collection)
        return;
    setCurrentIndex(m_model->duplicate(current));
}

void CollectionSidebar::renameSelected()
{
    const QModelIndex current = currentIndex();
    if (current.isValid())
        startEditing(current);
}

void CollectionSidebar::deleteSelected()
{
    const QModelIndex current = currentIndex();
    if (!current.isValid())
        return;
    const QString name = current.data().toString();
    QString question;
    switch (m_model->kind(current)) {
    case CollectionModel::Kind::Collection:
        question = tr("Delete the collection \"%1\" with its %2 requests, and its file?")
                       .arg(name)
                       .arg(m_model->collection(current.row()).requestCount());
        break;
    case CollectionModel::Kind::Folder:
        question = tr("Delete the folder \"%1\" and everything in it?").arg(name);
        break;
    case CollectionModel::Kind::Request:
        question = tr("Delete the request \"%1\"?").arg(name);
        break;
    }
    const bool confirmed = m_confirm ? m_confirm(question)
                                     : QMessageBox::question(this, tr("Delete"), question,
                                           QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel)
            == QMessageBox::Yes;
    if (confirmed)
        m_model->remove(current);
}

QString CollectionSidebar::pathOf(const QModelIndex &sourceIndex) const
{
    QStringList path;
    for (QModelIndex at = sourceIndex; at.isValid() && at.parent().isValid(); at = at.parent())
        path.prepend(at.data(Qt::DisplayRole).toString());
    return path.join(QLatin1Char('/'));
}

void CollectionSidebar::runSelectedCollection()
{
    const QModelIndex current = currentIndex();
    if (current.isValid())
        run(current, {});
}

void CollectionSidebar::runSelectedFolder()
{
    const QModelIndex current = currentIndex();
    if (current.isValid() && m_model->kind(current) == CollectionModel::Kind::Folder)
        run(current, pathOf(current));
}

void CollectionSidebar::run(const QModelIndex &sourceIndex, const QString &folderPath)
{
    const Core::Collection collection = m_model->collection(m_model->collectionRow(sourceIndex));
    const QString source = collection.fileName.isEmpty()
        ? collection.name
        : QDir(m_store.collectionsDirectory()).filePath(collection.fileName);
    const auto runnable = Core::RetryLabRun::fromCollection(collection, source);
    if (!runnable) {
        Q_EMIT problem(tr("\"%1\" cannot run: %2").arg(collection.name, runnable.error()));
        return;
    }
    Core::CollectionRunOptions proposed = m_lastRun;
    proposed.folders = folderPath.isEmpty() ? QStringList() : QStringList{folderPath};
    proposed.environmentName = m_active;
    proposed.scopes = {};
    const QHash<QString, QString> values = variables();
    for (auto it = values.cbegin(); it != values.cend(); ++it)
        proposed.scopes.environment.insert(it.key(), it.value());

    const QString what = folderPath.isEmpty() ? collection.name : tr("%1 of %2").arg(folderPath, collection.name);
    std::optional<Core::CollectionRunOptions> chosen;
    if (m_askRunOptions) {
        chosen = m_askRunOptions(what, proposed);
    } else {
        CollectionRunDialog dialog(what, m_active, this);
        dialog.setOptions(proposed);
        if (dialog.exec() == QDialog::Accepted)
            chosen = dialog.options(proposed);
    }
    if (!chosen)
        return;
    m_lastRun = *chosen;
    Q_EMIT runRequested(*runnable, *chosen);
}

void CollectionSidebar::editAuthOfSelected()
{
    const QModelIndex current = currentIndex();
    if (!current.isValid() || m_model->kind(current) == CollectionModel::Kind::Request)
        return;
    const QString what = current.data(Qt::DisplayRole).toString();
    if (!m_askAuth)
        return;
    const std::optional<Core::AuthSpec> chosen = m_askAuth(what, m_model->auth(current));
    if (chosen)
        m_model->setAuth(current, *chosen);
}

void CollectionSidebar::handleContextMenu(const QPoint &position)
{
    QMenu menu(this);
    menu.addAction(m_saveRequest);
    menu.addAction(m_saveAsNew);
    menu.addSeparator();
    menu.addAction(m_newFolder);
    menu.addAction(m_newCollection);
    if (m_view->indexAt(position).isValid()) {
        menu.addSeparator();
        if (m_runFolder->isEnabled())
            menu.addAction(m_runFolder);
        menu.addAction(m_runCollection);
        if (m_editAuth->isEnabled())
            menu.addAction(m_editAuth);
        menu.addSeparator();
        menu.addAction(m_duplicate);
        menu.addAction(m_rename);
        menu.addAction(m_delete);
    }
    menu.exec(m_view->viewport()->mapToGlobal(position));
}

void CollectionSidebar::handleCollectionChanged(int row)
{
    Core::Collection collection = m_model->collection(row);
    QString replaced;
    if (const auto provisional = m_provisionalFiles.constFind(collection.fileName);
        provisional != m_provisionalFiles.cend() && *provisional != collection.name) {
        replaced = collection.fileName;
        collection.fileName = m_store.freeFileName(collection.name);
    }
    const auto saved = m_store.save(&collection);
    if (!saved) {
        Q_EMIT problem(tr("The collection \"%1\" was not saved: %2. It stays as it is in the sidebar; try again.")
                           .arg(collection.name, saved.error()));
        return;
    }
    m_model->setFileName(row, collection.fileName);
    if (!replaced.isEmpty()) {
        m_provisionalFiles.remove(replaced);
        Core::Collection old;
        old.fileName = replaced;
        if (const auto removed = m_store.remove(old); !removed)
            Q_EMIT problem(removed.error());
    }
}

void CollectionSidebar::handleCollectionRemoved(const Core::Collection &collection)
{
    const auto removed = m_store.remove(collection);
    if (!removed)
        Q_EMIT problem(
            tr("The collection \"%1\" was removed, but its file was not: %2").arg(collection.name, removed.error()));
}

// --- environments ---

void CollectionSidebar::setEnvironments(const QList<Core::Environment> &environments, const QString &active)
{
    m_environments = environments;
    m_active.clear();
    QStringList names;
    for (const Core::Environment &environment : m_environments) {
        names.append(environment.name);
        if (environment.name == active)
            m_active = active;
    }
    m_environmentBar->setEnvironments(names, m_active);
    saveEnvironments();
    Q_EMIT environmentChanged(m_active, variables());
}

void CollectionSidebar::setActiveEnvironment(const QString &name)
{
    const bool known = std::any_of(m_environments.cbegin(), m_environments.cend(),
        [&](const Core::Environment &each) { return each.name == name; });
    const QString active = known ? name : QString();
    if (m_environmentBar->current() != active) {
        QStringList names;
        for (const Core::Environment &environment : m_environments)
            names.append(environment.name);
        m_environmentBar->setEnvironments(names, active);
    }
    if (active == m_active)
        return;
    m_active = active;
    saveEnvironments();
    Q_EMIT environmentChanged(m_active, variables());
}

QHash<QString, QString> CollectionSidebar::variables() const
{
    for (const Core::Environment &environment : m_environments) {
        if (environment.name == m_active)
            return environment.values();
    }
    return {};
}

QStringList CollectionSidebar::secretValues() const
{
    QStringList values;
    for (const Core::Environment &environment : m_environments)
        values += environment.secretValues();
    return values;
}

void CollectionSidebar::saveEnvironments()
{
    const auto saved = m_store.saveEnvironments(m_environments, m_active);
    if (!saved)
        Q_EMIT problem(tr("The environments were not saved: %1").arg(saved.error()));
}

void CollectionSidebar::editEnvironments()
{
    EnvironmentDialog dialog(m_environments, this);
    if (dialog.exec() != QDialog::Accepted)
        return;
    // An environment made (or renamed) in the dialog is the one wanted next.
    const QList<Core::Environment> edited = dialog.environments();
    QString active = m_active;
    for (const Core::Environment &environment : edited) {
        if (std::none_of(m_environments.cbegin(), m_environments.cend(),
                [&environment](const Core::Environment &before) { return before.name == environment.name; }))
            active = environment.name;
    }
    setEnvironments(edited, active);
}

} // namespace RetryLab::Ui
