#include "ui/import/harimportdialog.h"

#include "core/http/redactor.h"
#include "core/util/durationtext.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace RetryLab::Ui {

HarImportDialog::HarImportDialog(const Core::HarImport::Archive &archive, const QString &fileName, QWidget *parent)
    : QDialog(parent), m_archive(archive), m_fileName(fileName), m_summary(new QLabel), m_filter(new QLineEdit),
      m_table(new QTableWidget), m_applyPolicy(new QCheckBox),
      m_buttons(new QDialogButtonBox(QDialogButtonBox::Cancel)), m_import(nullptr)
{
    setObjectName(QStringLiteral("harImportDialog"));
    setWindowTitle(tr("Import from %1").arg(QFileInfo(fileName).fileName()));

    QStringList summary;
    const QString creator = archive.creator.isEmpty()
        ? tr("an unnamed tool")
        : QString(archive.creator
            + (archive.creatorVersion.isEmpty() ? QString() : QLatin1Char(' ') + archive.creatorVersion));
    summary.append(tr("%1: %n request(s), written by %2. Pick one or several (Ctrl or Shift + click).", nullptr,
        int(archive.entries.size()))
                       .arg(QFileInfo(fileName).fileName().toHtmlEscaped(), creator.toHtmlEscaped()));
    if (archive.redacted)
        summary.append(tr("Its credentials were masked when it was written: values that read REDACTED have to be "
                          "typed in again."));
    for (const Core::Error &skipped : archive.skipped)
        summary.append(tr("Left out: %1").arg(skipped.text().toHtmlEscaped()));
    for (const QString &note : archive.notes)
        summary.append(note.toHtmlEscaped());
    m_summary->setObjectName(QStringLiteral("harSummary"));
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setWordWrap(true);
    m_summary->setText(summary.join(QStringLiteral("<br>")));

    m_filter->setObjectName(QStringLiteral("harFilter"));
    m_filter->setPlaceholderText(tr("Filter by method, URL, status or page"));
    m_filter->setClearButtonEnabled(true);
    connect(m_filter, &QLineEdit::textChanged, this, &HarImportDialog::setFilter);

    m_table->setObjectName(QStringLiteral("harEntries"));
    m_table->setColumnCount(ColumnCount);
    m_table->setHorizontalHeaderLabels({tr("Method"), tr("URL"), tr("Status"), tr("Time"), tr("Page")});
    m_table->setRowCount(int(archive.entries.size()));
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->setWordWrap(false);
    m_table->setAlternatingRowColors(true);
    const Core::Redactor redactor;
    for (int row = 0; row < m_table->rowCount(); ++row) {
        const Core::HarImport::Entry &entry = archive.entries.at(row);
        const Core::ImportedRequest &request = entry.request;
        const QString url
            = request.urlText.isEmpty() ? redactor.urlString(request.spec.url) : redactor.text(request.urlText);
        QString status = entry.status > 0 ? QString::number(entry.status) : QStringLiteral("\u2014");
        if (entry.status > 0 && !entry.statusText.isEmpty())
            status += QLatin1Char(' ') + entry.statusText;
        if (entry.status <= 0 && !entry.error.isEmpty())
            status = entry.error;
        if (entry.attempts > 1)
            status += tr(" (%n attempt(s))", nullptr, entry.attempts);
        const QString time = entry.timeMs < 0 ? QStringLiteral("\u2014") : Core::DurationText::format(entry.timeMs);
        const QStringList cells{QString::fromLatin1(request.spec.method), url, status, time, entry.pageTitle};
        for (int column = 0; column < ColumnCount; ++column) {
            auto *item = new QTableWidgetItem(cells.at(column));
            if (column == TimeColumn)
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            if (column == UrlColumn)
                item->setToolTip(url);
            m_table->setItem(row, column, item);
        }
    }
    m_table->resizeColumnsToContents();
    m_table->setColumnWidth(
        UrlColumn, std::min(m_table->columnWidth(UrlColumn), fontMetrics().averageCharWidth() * 70));
    m_table->horizontalHeader()->setStretchLastSection(true);

    m_applyPolicy->setObjectName(QStringLiteral("harApplyPolicy"));
    if (archive.policy) {
        m_applyPolicy->setText(tr("Also take the run's policy \u201c%1\u201d").arg(archive.policy->name));
    } else {
        m_applyPolicy->hide();
    }

    m_import = m_buttons->addButton(tr("&Import"), QDialogButtonBox::AcceptRole);
    m_import->setObjectName(QStringLiteral("importButton"));
    m_import->setDefault(true);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
        &HarImportDialog::handleSelectionChanged);
    connect(m_table, &QTableWidget::cellDoubleClicked, this, &QDialog::accept);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(m_filter);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_applyPolicy);
    layout->addWidget(m_buttons);
    resize(fontMetrics().averageCharWidth() * 130, fontMetrics().height() * 30);

    if (m_table->rowCount() > 0)
        m_table->selectRow(0);
    handleSelectionChanged();
}

HarImportDialog::~HarImportDialog() = default;

QList<qsizetype> HarImportDialog::selectedEntries() const
{
    QList<qsizetype> rows;
    for (const QModelIndex &index : m_table->selectionModel()->selectedRows()) {
        if (!m_table->isRowHidden(index.row()))
            rows.append(index.row());
    }
    std::sort(rows.begin(), rows.end());
    return rows;
}

void HarImportDialog::selectEntries(const QList<qsizetype> &indexes)
{
    m_table->clearSelection();
    QItemSelection selection;
    for (qsizetype row : indexes) {
        if (row >= 0 && row < m_table->rowCount())
            selection.select(m_table->model()->index(int(row), 0), m_table->model()->index(int(row), ColumnCount - 1));
    }
    m_table->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect);
}

QList<Core::ImportedRequest> HarImportDialog::selectedRequests() const
{
    const auto picked = Core::HarImport::pick(m_archive, selectedEntries());
    return picked ? *picked : QList<Core::ImportedRequest>{};
}

void HarImportDialog::setFilter(const QString &text)
{
    if (m_filter->text() != text)
        m_filter->setText(text); // comes back here through textChanged
    const QString needle = text.trimmed();
    for (int row = 0; row < m_table->rowCount(); ++row) {
        bool shown = needle.isEmpty();
        for (int column = 0; column < ColumnCount && !shown; ++column)
            shown = m_table->item(row, column)->text().contains(needle, Qt::CaseInsensitive);
        m_table->setRowHidden(row, !shown);
    }
    handleSelectionChanged();
}

int HarImportDialog::shownCount() const
{
    int shown = 0;
    for (int row = 0; row < m_table->rowCount(); ++row)
        shown += m_table->isRowHidden(row) ? 0 : 1;
    return shown;
}

bool HarImportDialog::appliesPolicy() const
{
    return m_archive.policy.has_value() && m_applyPolicy->isChecked();
}

void HarImportDialog::setAppliesPolicy(bool apply)
{
    m_applyPolicy->setChecked(apply);
}

QString HarImportDialog::summaryText() const
{
    return m_summary->text();
}

void HarImportDialog::handleSelectionChanged()
{
    const qsizetype count = selectedEntries().size();
    m_import->setEnabled(count > 0);
    m_import->setText(count > 1 ? tr("&Import %n requests", nullptr, int(count)) : tr("&Import"));
}

} // namespace RetryLab::Ui
