#include "ui/import/importedrequestlist.h"

#include "ui/import/importeddraft.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace RetryLab::Ui {

ImportedRequestList::ImportedRequestList(QWidget *parent)
    : QWidget(parent), m_title(new QLabel), m_list(new QListWidget), m_previous(new QPushButton(tr("&Previous"))),
      m_load(new QPushButton(tr("&Load into request"))), m_next(new QPushButton(tr("Ne&xt")))
{
    setObjectName(QStringLiteral("importedRequests"));
    m_title->setWordWrap(true);
    m_title->setText(tr("When several requests are imported from a HAR file or a Postman collection, the ones not "
                        "in the composer wait here (File \u203a Import request)."));
    m_list->setObjectName(QStringLiteral("importedRequestList"));
    m_list->setAlternatingRowColors(true);
    m_previous->setObjectName(QStringLiteral("previousImported"));
    m_load->setObjectName(QStringLiteral("loadImported"));
    m_next->setObjectName(QStringLiteral("nextImported"));
    m_previous->setToolTip(tr("Put the previous imported request in the composer"));
    m_next->setToolTip(tr("Put the next imported request in the composer"));
    connect(m_previous, &QPushButton::clicked, this, &ImportedRequestList::loadPrevious);
    connect(m_load, &QPushButton::clicked, this, &ImportedRequestList::loadSelected);
    connect(m_next, &QPushButton::clicked, this, &ImportedRequestList::loadNext);
    connect(m_list, &QListWidget::itemActivated, this, [this] { loadSelected(); });
    connect(m_list, &QListWidget::currentRowChanged, this, &ImportedRequestList::updateButtons);

    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_previous);
    buttons->addWidget(m_load, 1);
    buttons->addWidget(m_next);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_title);
    layout->addWidget(m_list, 1);
    layout->addLayout(buttons);
    updateButtons();
}

ImportedRequestList::~ImportedRequestList() = default;

void ImportedRequestList::setRequests(const QList<Core::ImportedRequest> &requests, const QString &source)
{
    m_requests = requests;
    m_source = source;
    m_current = -1;
    m_list->clear();
    for (const Core::ImportedRequest &request : requests) {
        QString title = ImportedDraft::title(request);
        if (!request.folders.isEmpty())
            title = request.folders.join(QStringLiteral(" / ")) + QStringLiteral(" / ") + title;
        m_list->addItem(title);
    }
    m_title->setText(
        tr("%n request(s) imported from %1. One at a time goes into the composer.", nullptr, int(requests.size()))
            .arg(source));
    updateButtons();
}

void ImportedRequestList::setCurrent(int index)
{
    m_current = index;
    for (int row = 0; row < m_list->count(); ++row) {
        QFont font = m_list->font();
        font.setBold(row == index);
        m_list->item(row)->setFont(font);
    }
    if (index >= 0 && index < m_list->count())
        m_list->setCurrentRow(index);
    updateButtons();
}

void ImportedRequestList::loadSelected()
{
    const int row = m_list->currentRow();
    if (row >= 0)
        Q_EMIT loadRequested(row);
}

void ImportedRequestList::loadPrevious()
{
    if (m_current > 0)
        Q_EMIT loadRequested(m_current - 1);
}

void ImportedRequestList::loadNext()
{
    if (m_current + 1 < m_requests.size())
        Q_EMIT loadRequested(m_current + 1);
}

void ImportedRequestList::updateButtons()
{
    m_previous->setEnabled(m_current > 0);
    m_next->setEnabled(m_current + 1 < m_requests.size());
    m_load->setEnabled(m_list->currentRow() >= 0);
}

} // namespace RetryLab::Ui
