#pragma once

#include "core/collections/collectionstore.h"
#include "core/collections/environment.h"
#include "core/collections/requestdraft.h"
#include "core/policy/backoffpolicy.h"
#include "core/runner/collectionrunner.h"
#include "core/runner/runcollection.h"
#include "ui/collections/environmentbar.h"
#include "ui/session/run/requestchecks.h"

#include <QHash>
#include <QPointer>
#include <QWidget>

#include <functional>
#include <optional>
#include <utility>

class QAction;
class QLabel;
class QLineEdit;
class QTreeView;

namespace RetryLab::Ui {

class CollectionFilter;
class CollectionModel;

/// The sidebar of saved requests: collections > folders > requests, each request
/// with its method, URL and policy (a preset or its own). Search by name or URL;
/// new collection, folder and request; duplicate, rename in place, delete (after a
/// confirmation), drag to reorder or move between folders. Activating a request
/// hands its draft and policy to the window (requestActivated); "Save request"
/// stores what the composer holds. Every change is written at once, to the
/// collection's own file (CollectionStore).
///
/// "Run collection" and "Run folder" ask how to run (CollectionRunDialog) and
/// hand the collection, with the chosen environment's variables, to the window's
/// collection runner (runRequested).
///
/// It also holds the environments: the switcher for the toolbar (environmentBar())
/// and their editor. Secret values stay in memory unless their environment opts
/// in to keeping them on disk; secretValues() lists them for exports to mask.
class CollectionSidebar final : public QWidget
{
    Q_OBJECT

public:
    /// What the composer and the policy editor hold now, for "Save request".
    using RequestSource = std::function<std::pair<Core::RequestDraft, Core::BackoffPolicy>()>;
    /// What the composer's Checks tab holds now, saved with the request.
    using ChecksSource = std::function<RequestChecks()>;
    /// Asks the user to confirm a deletion (tests answer without a dialog).
    using Confirmer = std::function<bool(const QString &question)>;
    /// Asks how to run `what` (a collection's or a folder's name), starting from
    /// `proposed`; nothing when the person cancelled (tests answer without a dialog).
    using RunOptionsAsker = std::function<std::optional<Core::CollectionRunOptions>(
        const QString &what, const Core::CollectionRunOptions &proposed)>;
    /// Asks for the auth of `what` (a collection's or a folder's name), starting
    /// from `current`; nothing when cancelled. The window gives its dialog
    /// (FolderAuthDialog); without one, *Auth…* stays off.
    using AuthAsker = std::function<std::optional<Core::AuthSpec>(const QString &what, const Core::AuthSpec &current)>;

    /// `dataRoot`: where the files live; empty: the user's data folder.
    explicit CollectionSidebar(const QString &dataRoot = {}, QWidget *parent = nullptr);
    ~CollectionSidebar() override;

    /// Reads collections and environments from another folder (tests keep the
    /// user's own files out of it); what could not be read is reported (problem()).
    void setDataRoot(const QString &dataRoot);
    const Core::CollectionStore &store() const { return m_store; }
    void setRequestSource(RequestSource source) { m_source = std::move(source); }
    /// Without one, "Save request" keeps a saved request's checks as they were,
    /// and "Save as new request" saves none.
    void setChecksSource(ChecksSource source) { m_checksSource = std::move(source); }
    void setConfirmer(Confirmer confirmer) { m_confirm = std::move(confirmer); }
    void setRunOptionsAsker(RunOptionsAsker asker) { m_askRunOptions = std::move(asker); }
    void setAuthAsker(AuthAsker asker)
    {
        m_askAuth = std::move(asker);
        updateActions();
    }

    CollectionModel *model() const { return m_model; }
    CollectionFilter *filter() const { return m_filter; }
    QTreeView *view() const { return m_view; }
    QLineEdit *searchField() const { return m_search; }
    /// The environment switcher, for the window's toolbar.
    EnvironmentBar *environmentBar() const { return m_environmentBar; }
    /// What could not be read when the files were loaded (one sentence each).
    QStringList problems() const { return m_problems; }

    QAction *newCollectionAction() const { return m_newCollection; }
    QAction *newFolderAction() const { return m_newFolder; }
    QAction *saveRequestAction() const { return m_saveRequest; }
    QAction *saveAsNewAction() const { return m_saveAsNew; }
    QAction *duplicateAction() const { return m_duplicate; }
    QAction *renameAction() const { return m_rename; }
    QAction *deleteAction() const { return m_delete; }
    QAction *runCollectionAction() const { return m_runCollection; }
    QAction *runFolderAction() const { return m_runFolder; }
    QAction *editAuthAction() const { return m_editAuth; }

    // --- environments ---
    const QList<Core::Environment> &environments() const { return m_environments; }
    QString activeEnvironment() const { return m_active; }
    /// Replaces the environments (the editor's result) and writes them.
    void setEnvironments(const QList<Core::Environment> &environments, const QString &active);
    /// Selects an environment by name; empty: none.
    void setActiveEnvironment(const QString &name);
    /// The active environment's variables.
    QHash<QString, QString> variables() const;
    /// The values of secret variables of every environment: masked in exports.
    QStringList secretValues() const;
    /// Opens the environment editor.
    void editEnvironments();

    /// The request at this model index is loaded (as a double-click does).
    void activate(const QModelIndex &sourceIndex);
    /// The id of the request loaded last, which "Save request" saves over.
    QString openedRequestId() const { return m_openedId; }

    void newCollection();
    void newFolder();
    /// Saves over the request loaded last; as a new request when there is none.
    void saveRequest();
    /// Adds what the composer holds as a new request, next to the selection.
    void saveAsNewRequest();
    void duplicateSelected();
    void renameSelected();
    void deleteSelected();
    /// Runs the collection of the selected item (runRequested), after asking how.
    void runSelectedCollection();
    /// Runs the selected folder, after asking how.
    void runSelectedFolder();
    /// The selected collection's or folder's auth, which its requests with "No auth" inherit.
    void editAuthOfSelected();

    /// The selected item, as an index of model(); invalid when nothing is selected.
    QModelIndex currentIndex() const;
    /// Where monitors of the current item come from: its collection's file, the
    /// item's path ("Orders/Create", a folder's "Orders", or empty for the whole
    /// collection), the environments file and the active environment. Nothing
    /// when no item is current or its collection was never saved.
    struct MonitorSource
    {
        QString collectionFile;
        QString path;
        QString environmentFile;
        QString environmentName;
    };
    std::optional<MonitorSource> monitorSource() const;
    void setCurrentIndex(const QModelIndex &sourceIndex);

Q_SIGNALS:
    void requestActivated(const RetryLab::Core::RequestDraft &draft, const RetryLab::Core::BackoffPolicy &policy);
    /// Right after requestActivated(): the request's assertions and extract rules
    /// (empty when it has none, so that the composer does not keep another's).
    void checksActivated(const RetryLab::Ui::RequestChecks &checks);
    void environmentChanged(const QString &name, const QHash<QString, QString> &variables);
    /// Something the user must know: a file that was not written, a preset that is gone.
    void problem(const QString &message);
    /// Run `collection` as `options` say (their folders name the folder run).
    void runRequested(
        const RetryLab::Core::RunCollection &collection, const RetryLab::Core::CollectionRunOptions &options);

private:
    void reload();
    void handleCollectionChanged(int row);
    void handleCollectionRemoved(const Core::Collection &collection);
    void handleContextMenu(const QPoint &position);
    void updateActions();
    void saveEnvironments();
    void startEditing(const QModelIndex &sourceIndex);
    void run(const QModelIndex &sourceIndex, const QString &folderPath);
    /// The path of the item at `sourceIndex` inside its collection ("Orders/Refunds").
    QString pathOf(const QModelIndex &sourceIndex) const;

    Core::CollectionStore m_store;
    CollectionModel *m_model;
    CollectionFilter *m_filter;
    QTreeView *m_view;
    QLineEdit *m_search;
    QLabel *m_empty;
    /// Made without a parent, for the window to place (a menu bar corner);
    /// deleted with the sidebar unless something took it.
    QPointer<EnvironmentBar> m_environmentBar;

    QAction *m_newCollection;
    QAction *m_newFolder;
    QAction *m_saveRequest;
    QAction *m_saveAsNew;
    QAction *m_duplicate;
    QAction *m_rename;
    QAction *m_delete;
    QAction *m_runCollection;
    QAction *m_runFolder;
    QAction *m_editAuth;

    RequestSource m_source;
    ChecksSource m_checksSource;
    Confirmer m_confirm;
    RunOptionsAsker m_askRunOptions;
    AuthAsker m_askAuth;
    /// The last run's choices, proposed for the next.
    Core::CollectionRunOptions m_lastRun;
    QList<Core::Environment> m_environments;
    QString m_active;
    QString m_openedId;
    /// What the request opened last inherited and was opened with (its own
    /// auth being Inherit): saved back unchanged, it inherits again.
    Core::AuthSpec m_openedInherited;
    QStringList m_problems;
    /// Files of collections made in this session that still have their first name
    /// ("New collection"), by file name: renamed, they get a file named after them.
    QHash<QString, QString> m_provisionalFiles;
};

} // namespace RetryLab::Ui
