#pragma once

#include "core/import/postmanimport.h"
#include "core/util/result.h"

#include <QDialog>
#include <QList>
#include <QString>

#include <functional>

class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTreeWidget;
class QTreeWidgetItem;

namespace RetryLab::Ui {

class FieldMessage;

/// File > Import > Postman collection: the collection's folders and requests as
/// a tree to pick from (a folder picks everything in it), with an optional
/// Postman environment whose values resolve the `{{variables}}`. The variables
/// that stay unresolved are named, so that the user knows what to fill in.
/// An environment that cannot be read is said in the dialog, with the file and
/// the place, and the requests stay as they were.
class PostmanImportDialog final : public QDialog
{
    Q_OBJECT

public:
    /// Asks for the environment file; empty means cancelled.
    using FileChooser = std::function<QString()>;

    PostmanImportDialog(
        const QString &collectionPath, const Core::PostmanImport::Collection &collection, QWidget *parent = nullptr);
    ~PostmanImportDialog() override;

    void setEnvironmentChooser(FileChooser chooser) { m_chooser = std::move(chooser); }
    /// Reads the environment and the collection again with it; an empty path
    /// goes back to the collection's own variables. On failure nothing changes.
    Core::Result<void> setEnvironmentFile(const QString &path);
    QString environmentFile() const { return m_environmentPath; }

    const Core::PostmanImport::Collection &collection() const { return m_collection; }
    /// Indexes into Collection::requests picked (a folder picks all it holds), in order.
    QList<qsizetype> selectedIndexes() const;
    void selectRequests(const QList<qsizetype> &indexes);
    QList<Core::ImportedRequest> selectedRequests() const;

    QTreeWidget *tree() const { return m_tree; }
    QString unresolvedText() const;
    QString environmentError() const;
    QPushButton *importButton() const { return m_import; }

private:
    void rebuildTree();
    void handleSelectionChanged();
    void handleChooseEnvironment();
    static void collectLeaves(const QTreeWidgetItem *item, QList<qsizetype> &out);

    QString m_collectionPath;
    Core::PostmanImport::Collection m_collection;
    QString m_environmentPath;
    FileChooser m_chooser;

    QLabel *m_summary;
    QLineEdit *m_environment;
    FieldMessage *m_environmentMessage;
    QTreeWidget *m_tree;
    QLabel *m_unresolved;
    QDialogButtonBox *m_buttons;
    QPushButton *m_import;
};

} // namespace RetryLab::Ui
