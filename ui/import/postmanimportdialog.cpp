#include "ui/import/postmanimportdialog.h"

#include "ui/import/importeddraft.h"
#include "ui/widgets/fieldmessage.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSet>
#include <QStyle>
#include <QTreeWidget>
#include <QTreeWidgetItemIterator>
#include <QVBoxLayout>

#include <algorithm>

namespace RetryLab::Ui {

namespace {
constexpr int indexRole = Qt::UserRole + 1; ///< the request's index; -1 on folders
} // namespace

PostmanImportDialog::PostmanImportDialog(
    const QString &collectionPath, const Core::PostmanImport::Collection &collection, QWidget *parent)
    : QDialog(parent), m_collectionPath(collectionPath), m_collection(collection), m_summary(new QLabel),
      m_environment(new QLineEdit), m_environmentMessage(new FieldMessage), m_tree(new QTreeWidget),
      m_unresolved(new QLabel), m_buttons(new QDialogButtonBox(QDialogButtonBox::Cancel)), m_import(nullptr)
{
    setObjectName(QStringLiteral("postmanImportDialog"));
    setWindowTitle(tr("Import from %1").arg(QFileInfo(collectionPath).fileName()));

    m_summary->setObjectName(QStringLiteral("postmanSummary"));
    m_summary->setWordWrap(true);

    m_environment->setObjectName(QStringLiteral("postmanEnvironment"));
    m_environment->setReadOnly(true);
    m_environment->setPlaceholderText(tr("none: only the collection's own variables"));
    auto *choose = new QPushButton(tr("C&hoose\u2026"));
    choose->setObjectName(QStringLiteral("chooseEnvironment"));
    auto *noEnvironment = new QPushButton(tr("&None"));
    noEnvironment->setObjectName(QStringLiteral("noEnvironment"));
    connect(choose, &QPushButton::clicked, this, &PostmanImportDialog::handleChooseEnvironment);
    connect(noEnvironment, &QPushButton::clicked, this, [this] { setEnvironmentFile(QString()); });
    m_environmentMessage->setObjectName(QStringLiteral("postmanEnvironmentMessage"));

    m_tree->setObjectName(QStringLiteral("postmanTree"));
    m_tree->setColumnCount(2);
    m_tree->setHeaderLabels({tr("Name"), tr("Request")});
    m_tree->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_tree->setUniformRowHeights(true);
    m_tree->header()->setStretchLastSection(true);

    m_unresolved->setObjectName(QStringLiteral("postmanUnresolved"));
    m_unresolved->setWordWrap(true);

    m_import = m_buttons->addButton(tr("&Import"), QDialogButtonBox::AcceptRole);
    m_import->setObjectName(QStringLiteral("importButton"));
    m_import->setDefault(true);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_tree, &QTreeWidget::itemSelectionChanged, this, &PostmanImportDialog::handleSelectionChanged);

    auto *environmentRow = new QHBoxLayout;
    auto *environmentLabel = new QLabel(tr("&Environment:"));
    environmentLabel->setBuddy(m_environment);
    environmentRow->addWidget(environmentLabel);
    environmentRow->addWidget(m_environment, 1);
    environmentRow->addWidget(choose);
    environmentRow->addWidget(noEnvironment);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addLayout(environmentRow);
    layout->addWidget(m_environmentMessage);
    layout->addWidget(m_tree, 1);
    layout->addWidget(m_unresolved);
    layout->addWidget(m_buttons);
    resize(fontMetrics().averageCharWidth() * 110, fontMetrics().height() * 30);

    rebuildTree();
}

PostmanImportDialog::~PostmanImportDialog() = default;

Core::Result<void> PostmanImportDialog::setEnvironmentFile(const QString &path)
{
    Core::PostmanImport::Environment environment;
    if (!path.isEmpty()) {
        const auto read = Core::PostmanImport::readEnvironmentFile(path);
        if (!read) {
            const QString text = tr("The environment %1 cannot be read: %2. The requests keep the variables they had.")
                                     .arg(QDir::toNativeSeparators(path), read.error());
            m_environmentMessage->setMessage(FieldMessage::Kind::Error, text);
            return Core::Error{read.errorDetail().path, text};
        }
        environment = *read;
    }
    const auto collection = Core::PostmanImport::readFile(m_collectionPath, environment);
    if (!collection) {
        const QString text = tr("The collection %1 cannot be read again: %2")
                                 .arg(QDir::toNativeSeparators(m_collectionPath), collection.error());
        m_environmentMessage->setMessage(FieldMessage::Kind::Error, text);
        return Core::Error{collection.errorDetail().path, text};
    }
    const QList<qsizetype> picked = selectedIndexes();
    m_collection = *collection;
    m_environmentPath = path;
    m_environment->setText(
        path.isEmpty() ? QString() : tr("%1 (%2)").arg(environment.name, QDir::toNativeSeparators(path)));
    m_environment->setCursorPosition(0); // the name first, not the end of a long path
    m_environment->setToolTip(QDir::toNativeSeparators(path));
    if (path.isEmpty())
        m_environmentMessage->clear();
    else
        m_environmentMessage->setMessage(FieldMessage::Kind::Success,
            tr("%n value(s) from the environment \u201c%1\u201d.", nullptr, int(environment.values.size()))
                .arg(environment.name));
    rebuildTree();
    selectRequests(picked);
    return {};
}

void PostmanImportDialog::rebuildTree()
{
    m_tree->clear();
    m_summary->setText(tr("\u201c%1\u201d: %n request(s). Pick requests or whole folders (Ctrl or Shift + click).",
        nullptr, int(m_collection.requests.size()))
                           .arg(m_collection.name));
    QHash<QString, QTreeWidgetItem *> folders;
    for (qsizetype i = 0; i < m_collection.requests.size(); ++i) {
        const Core::ImportedRequest &request = m_collection.requests.at(i);
        QTreeWidgetItem *parent = nullptr;
        QString key;
        for (const QString &folder : request.folders) {
            key += QLatin1Char('/') + folder;
            QTreeWidgetItem *&item = folders[key];
            if (!item) {
                item = parent ? new QTreeWidgetItem(parent) : new QTreeWidgetItem(m_tree);
                item->setText(0, folder);
                item->setData(0, indexRole, qsizetype(-1));
                item->setExpanded(true);
                item->setIcon(0, style()->standardIcon(QStyle::SP_DirIcon));
            }
            parent = item;
        }
        auto *leaf = parent ? new QTreeWidgetItem(parent) : new QTreeWidgetItem(m_tree);
        Core::ImportedRequest unnamed = request;
        unnamed.name.clear();
        leaf->setText(0, request.name.isEmpty() ? tr("(unnamed)") : request.name);
        leaf->setText(1, ImportedDraft::title(unnamed));
        leaf->setToolTip(1, leaf->text(1));
        if (!request.unknown.isEmpty()) {
            // The request will not send as it is: say which of its parts are left to fill in.
            leaf->setIcon(1, style()->standardIcon(QStyle::SP_MessageBoxWarning));
            leaf->setToolTip(
                1, tr("%1\nLeft as written: %2").arg(leaf->text(1), request.unknown.join(QStringLiteral(", "))));
        }
        leaf->setData(0, indexRole, i);
    }
    m_tree->expandAll();
    m_tree->resizeColumnToContents(0);

    if (m_collection.unresolvedVariables.isEmpty()) {
        m_unresolved->setText(tr("Every variable is resolved."));
    } else {
        QStringList names;
        for (const QString &name : m_collection.unresolvedVariables)
            names.append(QStringLiteral("{{%1}}").arg(name));
        m_unresolved->setText(tr("Not resolved, left as written: %1. An environment that defines them resolves them; "
                                 "otherwise type the values in after importing.")
                                  .arg(names.join(QStringLiteral(", "))));
    }
    if (m_tree->topLevelItemCount() > 0 && m_tree->selectedItems().isEmpty()) {
        // The first request, not a folder: importing a whole collection by accident is a surprise.
        QTreeWidgetItem *first = m_tree->topLevelItem(0);
        while (first->childCount() > 0)
            first = first->child(0);
        first->setSelected(true);
        m_tree->setCurrentItem(first);
    }
    handleSelectionChanged();
}

void PostmanImportDialog::collectLeaves(const QTreeWidgetItem *item, QList<qsizetype> &out)
{
    const qsizetype index = item->data(0, indexRole).value<qsizetype>();
    if (index >= 0)
        out.append(index);
    for (int i = 0; i < item->childCount(); ++i)
        collectLeaves(item->child(i), out);
}

QList<qsizetype> PostmanImportDialog::selectedIndexes() const
{
    QList<qsizetype> out;
    for (const QTreeWidgetItem *item : m_tree->selectedItems())
        collectLeaves(item, out);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

void PostmanImportDialog::selectRequests(const QList<qsizetype> &indexes)
{
    if (indexes.isEmpty())
        return;
    const QSet<qsizetype> wanted(indexes.cbegin(), indexes.cend());
    m_tree->clearSelection();
    QTreeWidgetItemIterator it(m_tree);
    for (; *it; ++it) {
        if (wanted.contains((*it)->data(0, indexRole).value<qsizetype>()))
            (*it)->setSelected(true);
    }
}

QList<Core::ImportedRequest> PostmanImportDialog::selectedRequests() const
{
    QList<Core::ImportedRequest> out;
    for (qsizetype index : selectedIndexes())
        out.append(m_collection.requests.at(index));
    return out;
}

QString PostmanImportDialog::unresolvedText() const
{
    return m_unresolved->text();
}

QString PostmanImportDialog::environmentError() const
{
    return m_environmentMessage->kind() == FieldMessage::Kind::Error ? m_environmentMessage->text() : QString();
}

void PostmanImportDialog::handleSelectionChanged()
{
    const qsizetype count = selectedIndexes().size();
    m_import->setEnabled(count > 0);
    m_import->setText(count > 1 ? tr("&Import %n requests", nullptr, int(count)) : tr("&Import"));
}

void PostmanImportDialog::handleChooseEnvironment()
{
    if (!m_chooser)
        return;
    const QString path = m_chooser();
    if (!path.isEmpty())
        setEnvironmentFile(path);
}

} // namespace RetryLab::Ui
