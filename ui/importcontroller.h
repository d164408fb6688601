#pragma once

#include "core/collections/requestdraft.h"
#include "core/import/importedrequest.h"
#include "core/policy/backoffpolicy.h"
#include "core/util/result.h"
#include "ui/collections/collectionmodel.h"
#include "ui/exportcontroller.h"

#include <QList>
#include <QMessageBox>
#include <QModelIndex>
#include <QObject>
#include <QPointer>
#include <QString>

#include <optional>

class QAction;
class QDockWidget;
class QLineEdit;
class QMainWindow;
class QMenu;

namespace RetryLab::Ui {

class CurlImportDialog;
class HarImportDialog;
class ImportedRequestList;
class MessageBar;
class PolicyPanel;
class PostmanImportDialog;
class RequestComposer;
class Settings;

/// File > Import: a pasted curl command, a HAR file or a Postman collection into
/// the request composer (and, when asked, the policy).
///
/// Nothing in the composer changes until Import is pressed in a dialog. A file
/// that cannot be read gets a dialog naming the file and the place in it, and
/// changes nothing. Importing replaces the composer's request: the one that was
/// there is kept for "Undo import", and the message says so, louder when it had
/// changes that were not sent. When several requests are picked, the first goes
/// to the composer and the others wait in the "Imported requests" dock.
/// requestsImported() hands every import over, for those who keep requests.
class ImportController final : public QObject
{
    Q_OBJECT

public:
    ImportController(QMainWindow *window, RequestComposer *composer, PolicyPanel *policyPanel, Settings *settings,
        MessageBar *messages, ExportController::FileChooser chooser);
    ~ImportController() override;

    /// Adds the File > Import submenu.
    QMenu *addMenu(QMenu *file);

    QAction *curlAction() const { return m_curlAction; }
    QAction *harAction() const { return m_harAction; }
    QAction *postmanAction() const { return m_postmanAction; }
    QAction *undoAction() const { return m_undoAction; }
    QDockWidget *importedDock() const { return m_dock; }
    ImportedRequestList *importedList() const { return m_list; }

    /// The dialog open now (one at a time), and the last error dialog.
    QDialog *dialog() const { return m_dialog; }
    QMessageBox *errorBox() const { return m_errorBox; }

    /// Opens the curl dialog (not modal to the window's event loop).
    CurlImportDialog *importCurl();
    /// Reads the file and opens the picker; on failure shows the error dialog.
    Core::Result<HarImportDialog *> openHar(const QString &path);
    Core::Result<PostmanImportDialog *> openPostman(const QString &path);
    /// A file dropped on the window: a HAR file or a Postman collection opens its
    /// picker, a RetryLab report is handed on through runFileOpened(); anything
    /// else is refused with a message. Told apart by content, not by name.
    Core::Result<void> openFile(const QString &path);

    /// Puts the first of `requests` in the composer, the others in the dock;
    /// `policy`, when set, replaces the policy. `source` names where they came from.
    void importRequests(const QList<Core::ImportedRequest> &requests, const QString &source,
        const std::optional<Core::BackoffPolicy> &policy = std::nullopt);
    /// Where "Save imported requests as a collection" puts them. Not owned.
    void setCollections(CollectionModel *model);
    QAction *saveToCollectionAction() const { return m_saveToCollectionAction; }
    /// The requests of the last import (the dock's list) as a new collection
    /// named after their source, in the folders they sat in, each with the
    /// policy in the editor (shaped by its curl --retry flags, when it had
    /// some); its index in the model, invalid when there is nothing to save.
    QModelIndex saveImportedAsCollection();

    /// Brings back the request (and policy) that the last import replaced.
    bool undoImport();
    bool canUndo() const { return m_undoDraft.has_value(); }
    /// The composer's request now is one the user keeps (restored from the settings,
    /// or just sent): importing over it does not lose edits.
    void noteDraftKept();

public Q_SLOTS:
    void importHarWithDialog();
    void importPostmanWithDialog();

Q_SIGNALS:
    /// Every import, all the requests picked, in order.
    void requestsImported(const QList<Core::ImportedRequest> &requests, const QString &source);
    /// A JSON report was dropped on the window, for File > Open run.
    void runFileOpened(const QString &path);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void loadIntoComposer(int index);
    static bool looksLikeCurl(const QString &text);
    /// A curl command pasted into the URL field, imported with Undo; false when it cannot be read.
    bool importPastedCurl(const QString &commandLine, const Core::RequestDraft &before);
    void showFileError(const QString &title, const QString &path, const Core::Error &error);
    void showDialog(QDialog *dialog);

    QMainWindow *m_window;
    RequestComposer *m_composer;
    PolicyPanel *m_policyPanel;
    Settings *m_settings;
    MessageBar *m_messages;
    ExportController::FileChooser m_chooser;

    QAction *m_curlAction = nullptr;
    QAction *m_harAction = nullptr;
    QAction *m_postmanAction = nullptr;
    QAction *m_undoAction = nullptr;
    QAction *m_saveToCollectionAction = nullptr;
    QPointer<CollectionModel> m_collections;
    QDockWidget *m_dock = nullptr;
    ImportedRequestList *m_list = nullptr;
    QPointer<QDialog> m_dialog;
    QPointer<QMessageBox> m_errorBox;

    Core::RequestDraft m_lastSent;
    std::optional<Core::RequestDraft> m_lastLoaded; ///< the draft the last import put in, as it was put
    std::optional<Core::RequestDraft> m_undoDraft;
    QLineEdit *m_urlEdit = nullptr;
    /// The URL field's text before a curl command arrived in it.
    QString m_urlBeforeCurl;
    std::optional<Core::BackoffPolicy> m_undoPolicy;
};

} // namespace RetryLab::Ui
