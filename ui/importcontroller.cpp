#include "ui/importcontroller.h"

#include "core/collections/collection.h"
#include "core/import/curlcommandline.h"
#include "core/import/harimport.h"
#include "core/import/postmanimport.h"
#include "core/util/boundedfile.h"
#include "ui/collections/collectionmodel.h"
#include "ui/import/curlimportdialog.h"
#include "ui/import/harimportdialog.h"
#include "ui/import/importeddraft.h"
#include "ui/import/importedrequestlist.h"
#include "ui/import/postmanimportdialog.h"
#include "ui/policy/policypanel.h"
#include "ui/request/requestcomposer.h"
#include "ui/session/settings/settings.h"
#include "ui/widgets/fieldmessage.h"
#include "ui/widgets/messagebar.h"

#include <QAction>
#include <QClipboard>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileInfo>
#include <QGuiApplication>
#include <QHash>
#include <QKeyEvent>
#include <QLineEdit>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QPersistentModelIndex>
#include <QRegularExpression>
#include <QUrl>

namespace RetryLab::Ui {

ImportController::ImportController(QMainWindow *window, RequestComposer *composer, PolicyPanel *policyPanel,
    Settings *settings, MessageBar *messages, ExportController::FileChooser chooser)
    : QObject(window), m_window(window), m_composer(composer), m_policyPanel(policyPanel), m_settings(settings),
      m_messages(messages), m_chooser(std::move(chooser)), m_lastSent(composer->draft())
{
    for (QAction *send : {composer->sendAction(), composer->batchAction(), composer->repeatAction()})
        connect(send, &QAction::triggered, this, &ImportController::noteDraftKept);

    m_list = new ImportedRequestList;
    m_dock = new QDockWidget(tr("Imported requests"), window);
    m_dock->setObjectName(QStringLiteral("importedDock"));
    m_dock->setWidget(m_list);
    window->addDockWidget(Qt::RightDockWidgetArea, m_dock);
    m_dock->hide();
    connect(m_list, &ImportedRequestList::loadRequested, this, &ImportController::loadIntoComposer);

    window->setAcceptDrops(true);
    window->installEventFilter(this);

    // A curl command pasted into the URL field is imported, as if pasted into the curl dialog.
    if (auto *url = composer->findChild<QComboBox *>(QStringLiteral("url")); url && url->lineEdit()) {
        m_urlEdit = url->lineEdit();
        m_urlEdit->installEventFilter(this);
        m_urlBeforeCurl = m_urlEdit->text();
        connect(m_urlEdit, &QLineEdit::textChanged, this, [this](const QString &text) {
            if (!looksLikeCurl(text))
                m_urlBeforeCurl = text;
        });
        // Pasted by the context menu or the middle button: the text arrives first.
        connect(m_urlEdit, &QLineEdit::textEdited, this, [this](const QString &text) {
            if (!looksLikeCurl(text))
                return;
            Core::RequestDraft before = m_composer->draft();
            before.urlTemplate = m_urlBeforeCurl;
            if (!importPastedCurl(text, before))
                m_urlEdit->setText(m_urlBeforeCurl);
        });
    }
}

bool ImportController::looksLikeCurl(const QString &text)
{
    return text.trimmed().startsWith(QLatin1String("curl "));
}

bool ImportController::importPastedCurl(const QString &commandLine, const Core::RequestDraft &before)
{
    const auto parsed = Core::CurlCommandLine::parse(commandLine.trimmed());
    if (!parsed) {
        m_messages->showMessage(FieldMessage::Kind::Warning,
            tr("The pasted curl command cannot be read: %1. File \u2192 Import request \u2192 Paste curl command "
               "shows where.")
                .arg(parsed.error()));
        return false;
    }
    // The request before the paste is what Undo import brings back, not the command as a URL.
    m_composer->setDraft(before);
    importRequests({*parsed}, tr("a curl command pasted into the URL"));
    return true;
}

ImportController::~ImportController() = default;

QMenu *ImportController::addMenu(QMenu *file)
{
    QMenu *menu = file->addMenu(tr("&Import request"));
    menu->setObjectName(QStringLiteral("importMenu"));
    m_curlAction = menu->addAction(tr("Paste &curl command\u2026"), this, [this] { importCurl(); });
    m_curlAction->setObjectName(QStringLiteral("importCurl"));
    m_curlAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_V));
    m_harAction = menu->addAction(tr("&HAR file\u2026"), this, &ImportController::importHarWithDialog);
    m_harAction->setObjectName(QStringLiteral("importHar"));
    m_postmanAction
        = menu->addAction(tr("&Postman collection\u2026"), this, &ImportController::importPostmanWithDialog);
    m_postmanAction->setObjectName(QStringLiteral("importPostman"));
    menu->addSeparator();
    m_undoAction = menu->addAction(tr("&Undo import"), this, [this] { undoImport(); });
    m_undoAction->setObjectName(QStringLiteral("undoImport"));
    m_undoAction->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_Z));
    m_undoAction->setToolTip(tr("Bring back the request (and policy) the last import replaced"));
    m_undoAction->setEnabled(false);
    m_saveToCollectionAction
        = menu->addAction(tr("&Save imported requests as a collection"), this, [this] { saveImportedAsCollection(); });
    m_saveToCollectionAction->setObjectName(QStringLiteral("saveImportedAsCollection"));
    m_saveToCollectionAction->setToolTip(
        tr("Keep the requests of the last import in the Collections dock, in their folders"));
    m_saveToCollectionAction->setEnabled(false);
    menu->addAction(m_dock->toggleViewAction());
    return menu;
}

void ImportController::noteDraftKept()
{
    m_lastSent = m_composer->draft();
}

void ImportController::showDialog(QDialog *dialog)
{
    if (m_dialog)
        m_dialog->close();
    m_dialog = dialog;
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowModality(Qt::WindowModal);
    dialog->open();
}

void ImportController::showFileError(const QString &title, const QString &path, const Core::Error &error)
{
    const QString where = error.path.isEmpty() ? QString() : tr(" at %1").arg(error.path);
    const QString text = tr("%1 cannot be read%2: %3").arg(QDir::toNativeSeparators(path), where, error.message);
    m_messages->showMessage(FieldMessage::Kind::Error, tr("%1. Nothing was imported.").arg(text));
    if (m_errorBox)
        m_errorBox->close();
    m_errorBox = new QMessageBox(QMessageBox::Warning, title, text, QMessageBox::Ok, m_window);
    m_errorBox->setObjectName(QStringLiteral("importError"));
    m_errorBox->setInformativeText(tr("Nothing was imported; the request and the policy are as they were."));
    m_errorBox->setAttribute(Qt::WA_DeleteOnClose);
    m_errorBox->open();
}

CurlImportDialog *ImportController::importCurl()
{
    auto *dialog = new CurlImportDialog(m_window);
    dialog->setPolicy(m_policyPanel->policy());
    // A command just copied from a terminal or a browser is the likely one.
    if (const QString copied = QGuiApplication::clipboard()->text().trimmed();
        copied.startsWith(QLatin1String("curl ")) && copied.size() < 1024 * 1024)
        dialog->setCommandLine(copied);
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        if (!dialog->canImport())
            return;
        std::optional<Core::BackoffPolicy> policy;
        if (dialog->appliesPolicy())
            policy = dialog->policyAfter();
        importRequests({*dialog->parsed()}, tr("a curl command"), policy);
    });
    showDialog(dialog);
    return dialog;
}

void ImportController::importHarWithDialog()
{
    const QString path = m_chooser(QFileDialog::AcceptOpen, tr("Import requests from a HAR file"),
        m_settings->exportDirectory(), tr("HTTP Archive (*.har *.json);;All files (*)"), nullptr);
    if (!path.isEmpty())
        openHar(path);
}

Core::Result<HarImportDialog *> ImportController::openHar(const QString &path)
{
    const auto archive = Core::HarImport::readFile(path);
    if (!archive) {
        showFileError(tr("HAR file not imported"), path, archive.errorDetail());
        return archive.errorDetail();
    }
    if (archive->entries.isEmpty()) {
        const Core::Error error{QStringLiteral("log.entries"), tr("there is no request RetryLab can send")};
        showFileError(tr("HAR file not imported"), path, error);
        return error;
    }
    auto *dialog = new HarImportDialog(*archive, path, m_window);
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        const QList<Core::ImportedRequest> requests = dialog->selectedRequests();
        if (requests.isEmpty())
            return;
        importRequests(requests, QFileInfo(dialog->fileName()).fileName(),
            dialog->appliesPolicy() ? dialog->archive().policy : std::nullopt);
    });
    showDialog(dialog);
    return dialog;
}

void ImportController::importPostmanWithDialog()
{
    const QString path = m_chooser(QFileDialog::AcceptOpen, tr("Import requests from a Postman collection"),
        m_settings->exportDirectory(), tr("Postman collection v2.1 (*.json);;All files (*)"), nullptr);
    if (!path.isEmpty())
        openPostman(path);
}

Core::Result<PostmanImportDialog *> ImportController::openPostman(const QString &path)
{
    const auto collection = Core::PostmanImport::readFile(path);
    if (!collection) {
        showFileError(tr("Postman collection not imported"), path, collection.errorDetail());
        return collection.errorDetail();
    }
    if (collection->requests.isEmpty()) {
        const Core::Error error{QStringLiteral("item"), tr("the collection holds no request")};
        showFileError(tr("Postman collection not imported"), path, error);
        return error;
    }
    auto *dialog = new PostmanImportDialog(path, *collection, m_window);
    dialog->setEnvironmentChooser([this, directory = QFileInfo(path).absolutePath()] {
        return m_chooser(QFileDialog::AcceptOpen, tr("Postman environment"), directory,
            tr("Postman environment (*.json);;All files (*)"), nullptr);
    });
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        const QList<Core::ImportedRequest> requests = dialog->selectedRequests();
        if (!requests.isEmpty())
            importRequests(requests, dialog->collection().name);
    });
    showDialog(dialog);
    return dialog;
}

namespace {

/// The one local file a drag carries; empty when it carries anything else.
QString droppedFile(const QMimeData *data)
{
    if (!data || !data->hasUrls() || data->urls().size() != 1 || !data->urls().first().isLocalFile())
        return {};
    return data->urls().first().toLocalFile();
}

} // namespace

bool ImportController::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_urlEdit && event->type() == QEvent::KeyPress
        && static_cast<QKeyEvent *>(event)->matches(QKeySequence::Paste)) {
        // The whole command, continued lines included, which the line edit would cut at the first.
        const QString clip = QGuiApplication::clipboard()->text();
        if (!looksLikeCurl(clip) || clip.size() >= 1024 * 1024)
            return false;
        importPastedCurl(clip, m_composer->draft());
        return true; // read or said why not: the command never lands in the URL
    }
    if (watched != m_window)
        return false;
    if (event->type() == QEvent::DragEnter) {
        auto *drag = static_cast<QDragEnterEvent *>(event);
        if (droppedFile(drag->mimeData()).isEmpty())
            return false;
        drag->acceptProposedAction();
        return true;
    }
    if (event->type() == QEvent::Drop) {
        auto *drop = static_cast<QDropEvent *>(event);
        const QString path = droppedFile(drop->mimeData());
        if (path.isEmpty())
            return false;
        drop->acceptProposedAction();
        openFile(path);
        return true;
    }
    return false;
}

Core::Result<void> ImportController::openFile(const QString &path)
{
    // Opening a FIFO would wait for a writer with the window frozen; a device may never end.
    if (const QString problem = Core::BoundedFile::notARegularFile(path); !problem.isEmpty()) {
        const Core::Error error{QString(), problem};
        showFileError(tr("File not opened"), path, error);
        return error;
    }
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        const Core::Error error{QString(), file.errorString()};
        showFileError(tr("File not opened"), path, error);
        return error;
    }
    // The first part is enough to tell the formats apart: each names itself near the top.
    const QByteArray head = file.read(64 * 1024);
    static const QRegularExpression report(QStringLiteral(R"("format"\s*:\s*"retrylab-report")"));
    static const QRegularExpression har(QStringLiteral(R"(^\s*\{\s*"log"\s*:)"));
    static const QRegularExpression postman(QStringLiteral(R"(schema\.getpostman\.com|"_postman_id")"));
    const QString text = QString::fromUtf8(head);
    if (report.match(text).hasMatch()) {
        Q_EMIT runFileOpened(path);
        return {};
    }
    if (postman.match(text).hasMatch()) {
        const auto opened = openPostman(path);
        return opened ? Core::Result<void>() : Core::Result<void>(opened.errorDetail());
    }
    if (har.match(text).hasMatch() || path.endsWith(QLatin1String(".har"), Qt::CaseInsensitive)) {
        const auto opened = openHar(path);
        return opened ? Core::Result<void>() : Core::Result<void>(opened.errorDetail());
    }
    const Core::Error error{
        QString(), tr("it is not a HAR file, a Postman collection (v2.1) or a RetryLab report (JSON)")};
    showFileError(tr("File not opened"), path, error);
    return error;
}

void ImportController::importRequests(const QList<Core::ImportedRequest> &requests, const QString &source,
    const std::optional<Core::BackoffPolicy> &policy)
{
    if (requests.isEmpty())
        return;
    m_list->setRequests(requests, source);
    m_undoPolicy.reset();
    if (policy) {
        m_undoPolicy = m_policyPanel->policy();
        m_policyPanel->setPolicy(*policy);
    }
    // A fresh import: whatever the composer holds now is what Undo brings back.
    m_lastLoaded.reset();
    loadIntoComposer(0);
    if (requests.size() > 1) {
        m_dock->show();
        m_dock->raise();
    } else {
        m_dock->hide();
    }
    if (m_saveToCollectionAction)
        m_saveToCollectionAction->setEnabled(m_collections != nullptr);
    Q_EMIT requestsImported(requests, source);
}

void ImportController::setCollections(CollectionModel *model)
{
    m_collections = model;
    if (m_saveToCollectionAction)
        m_saveToCollectionAction->setEnabled(model && !m_list->requests().isEmpty());
}

QModelIndex ImportController::saveImportedAsCollection()
{
    const QList<Core::ImportedRequest> &requests = m_list->requests();
    if (!m_collections || requests.isEmpty())
        return {};
    // A HAR file gives its file name, a Postman collection its own name.
    QString name = m_list->source();
    const QString suffix = QFileInfo(name).suffix().toLower();
    if (suffix == QLatin1String("har") || suffix == QLatin1String("json"))
        name = QFileInfo(name).completeBaseName();
    if (name.isEmpty() || name == tr("a curl command"))
        name = tr("Imported requests");
    const QModelIndex collection = m_collections->addCollection(name);
    QHash<QString, QPersistentModelIndex> folders; // "a/b" -> its index
    const Core::BackoffPolicy current = m_policyPanel->policy();
    for (const Core::ImportedRequest &request : requests) {
        QPersistentModelIndex where(collection);
        QStringList path;
        for (const QString &folder : request.folders) {
            path.append(folder);
            const QString key = path.join(QChar(0x1f));
            if (!folders.contains(key))
                folders.insert(key, m_collections->addItem(where, Core::CollectionItem::makeFolder(folder)));
            where = folders.value(key);
        }
        Core::BackoffPolicy policy = current;
        Core::CurlCommandLine::applyRetryHints(request.retry, policy);
        const ImportedDraft imported = ImportedDraft::from(request, m_composer->draft());
        const QString title = request.name.isEmpty() ? ImportedDraft::title(request) : request.name;
        m_collections->addItem(
            where, Core::CollectionItem::makeRequest(title, imported.draft, Core::SavedPolicy::from(policy)));
    }
    m_messages->showMessage(FieldMessage::Kind::Success,
        tr("%n imported request(s) saved in the collection \"%1\".", nullptr, int(requests.size())).arg(name));
    return collection;
}

void ImportController::loadIntoComposer(int index)
{
    const QList<Core::ImportedRequest> &requests = m_list->requests();
    if (index < 0 || index >= requests.size())
        return;
    const Core::RequestDraft current = m_composer->draft();
    // Stepping through imported requests keeps the user's own draft for Undo,
    // unless they edited the imported one in between.
    const bool ownDraft = !m_lastLoaded || current != *m_lastLoaded;
    const bool unsent = ownDraft && current != m_lastSent;
    if (ownDraft)
        m_undoDraft = current;

    const ImportedDraft imported = ImportedDraft::from(requests.at(index), current);
    m_composer->setDraft(imported.draft);
    m_settings->setRequestDraft(imported.draft);
    m_lastLoaded = imported.draft;
    m_list->setCurrent(index);
    m_undoAction->setEnabled(true);

    QString text = requests.size() > 1
        ? tr("Request %1 of %2 from %3 is in the composer: %4.")
              .arg(index + 1)
              .arg(requests.size())
              .arg(m_list->source(), ImportedDraft::title(requests.at(index)))
        : tr("Imported %1 from %2.").arg(ImportedDraft::title(requests.at(index)), m_list->source());
    if (m_undoPolicy && index == 0)
        text += QLatin1Char(' ') + tr("The policy was changed too.");
    if (!imported.notes.isEmpty())
        text += QLatin1Char(' ') + tr("Note: %1.").arg(imported.notes.join(QStringLiteral("; ")));
    if (unsent)
        text += QLatin1Char(' ')
            + tr("The request that was in the composer had changes that were not sent: File \u203a Import request "
                 "\u203a Undo import (Ctrl+Alt+Z) brings it back.");
    else if (ownDraft)
        text += QLatin1Char(' ') + tr("Undo import (Ctrl+Alt+Z) brings back the request that was there.");
    m_messages->showMessage(unsent ? FieldMessage::Kind::Warning : FieldMessage::Kind::Success, text);
}

bool ImportController::undoImport()
{
    if (!m_undoDraft)
        return false;
    m_composer->setDraft(*m_undoDraft);
    m_settings->setRequestDraft(*m_undoDraft);
    if (m_undoPolicy)
        m_policyPanel->setPolicy(*m_undoPolicy);
    m_messages->showMessage(FieldMessage::Kind::Success,
        m_undoPolicy ? tr("The request and the policy from before the import are back.")
                     : tr("The request from before the import is back."));
    m_undoDraft.reset();
    m_undoPolicy.reset();
    m_lastLoaded.reset();
    m_undoAction->setEnabled(false);
    return true;
}

} // namespace RetryLab::Ui
