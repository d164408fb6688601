#include "ui/request/requesthistoryview.h"

#include "ui/request/requesthistorymodel.h"
#include "ui/session/request/requesthistory.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTreeView>
#include <QVBoxLayout>

namespace RetryLab::Ui {

RequestHistoryView::RequestHistoryView(QWidget *parent)
    : QWidget(parent), m_model(new RequestHistoryModel(this)), m_filter(new QSortFilterProxyModel(this)),
      m_search(new QLineEdit), m_list(new QTreeView), m_empty(new QLabel),
      m_open(new QPushButton(tr("&Open in composer"))), m_clear(new QPushButton(tr("Clear history")))
{
    setObjectName(QStringLiteral("requestHistory"));
    m_filter->setSourceModel(m_model);
    m_filter->setFilterKeyColumn(-1);
    m_filter->setFilterCaseSensitivity(Qt::CaseInsensitive);

    m_search->setObjectName(QStringLiteral("historySearch"));
    m_search->setPlaceholderText(tr("Search by URL, method or time"));
    m_search->setClearButtonEnabled(true);
    connect(m_search, &QLineEdit::textChanged, this, &RequestHistoryView::handleSearchEdited);

    m_list->setObjectName(QStringLiteral("historyList"));
    m_list->setModel(m_filter);
    m_list->setRootIsDecorated(false);
    m_list->setUniformRowHeights(true);
    m_list->setAlternatingRowColors(true);
    m_list->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_list->setSelectionMode(QAbstractItemView::SingleSelection);
    m_list->setEditTriggers(QAbstractItemView::NoEditTriggers);
    // A narrow dock keeps both ends of a URL: the method and host, and the path's end.
    m_list->setTextElideMode(Qt::ElideMiddle);
    m_list->header()->setStretchLastSection(false);
    m_list->header()->setSectionResizeMode(RequestHistoryModel::SentAt, QHeaderView::ResizeToContents);
    m_list->header()->setSectionResizeMode(RequestHistoryModel::Request, QHeaderView::Stretch);
    m_list->header()->setSectionResizeMode(RequestHistoryModel::What, QHeaderView::ResizeToContents);
    connect(m_list, &QTreeView::activated, this, [this](const QModelIndex &index) { openRow(index.row()); });
    connect(m_list->selectionModel(), &QItemSelectionModel::selectionChanged, this, &RequestHistoryView::updateState);

    m_empty->setObjectName(QStringLiteral("historyEmpty"));
    m_empty->setWordWrap(true);
    m_empty->setForegroundRole(QPalette::PlaceholderText);

    m_open->setObjectName(QStringLiteral("openHistoryEntry"));
    m_open->setToolTip(tr("Put the selected request back into the composer, as it was sent"));
    connect(m_open, &QPushButton::clicked, this, [this] {
        const QModelIndex current = m_list->currentIndex();
        if (current.isValid())
            openRow(current.row());
    });
    m_clear->setObjectName(QStringLiteral("clearHistory"));
    m_clear->setToolTip(tr("Forget every request of the history"));
    connect(m_clear, &QPushButton::clicked, this, &RequestHistoryView::clearHistory);

    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_open);
    buttons->addStretch();
    buttons->addWidget(m_clear);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_search);
    layout->addWidget(m_empty);
    layout->addWidget(m_list, 1);
    layout->addLayout(buttons);

    connect(m_filter, &QAbstractItemModel::modelReset, this, &RequestHistoryView::updateState);
    connect(m_filter, &QAbstractItemModel::rowsInserted, this, &RequestHistoryView::updateState);
    connect(m_filter, &QAbstractItemModel::rowsRemoved, this, &RequestHistoryView::updateState);
    updateState();
}

void RequestHistoryView::setHistory(RequestHistory *history)
{
    m_history = history;
    m_model->setHistory(history);
    updateState();
}

void RequestHistoryView::openRow(int row)
{
    const QModelIndex index = m_filter->index(row, 0);
    if (!index.isValid())
        return;
    if (const Core::RequestDraft *draft = m_model->draft(m_filter->mapToSource(index).row()))
        Q_EMIT openRequested(*draft);
}

void RequestHistoryView::handleSearchEdited(const QString &text)
{
    m_filter->setFilterFixedString(text.trimmed());
}

void RequestHistoryView::updateState()
{
    const int total = m_model->rowCount();
    const int shown = m_filter->rowCount();
    m_empty->setVisible(shown == 0);
    m_empty->setText(total == 0 ? tr("Every request you send from the composer appears here: search them, and "
                                     "double-click one to open it again.")
                                : tr("No request of the history matches \"%1\".").arg(m_search->text().trimmed()));
    m_open->setEnabled(m_list->selectionModel()->hasSelection());
    m_clear->setEnabled(total > 0);
}

void RequestHistoryView::clearHistory()
{
    if (!m_history)
        return;
    const auto answer = QMessageBox::question(this, tr("Clear the request history"),
        tr("Forget all %n request(s) of the history?", nullptr, int(m_history->entries().size())));
    if (answer == QMessageBox::Yes)
        m_history->clear();
}

} // namespace RetryLab::Ui
