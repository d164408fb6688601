#include "ui/collectionruncontroller.h"

#include "ui/collections/collectionrunpanel.h"
#include "ui/collections/collectionsidebar.h"
#include "ui/session/request/collectionrunhost.h"
#include "ui/widgets/messagebar.h"

#include <QLoggingCategory>
#include <QRandomGenerator>

namespace RetryLab::Ui {

namespace {

Q_LOGGING_CATEGORY(lcCollectionRunController, "retrylab.ui.collectionruns")

} // namespace

CollectionRunController::CollectionRunController(const Parts &parts, QObject *parent)
    : QObject(parent), m_parts(parts), m_host(new CollectionRunHost(this)),
      m_panel(new CollectionRunPanel(parts.panelParent))
{
    connect(m_host, &CollectionRunHost::started, m_panel, &CollectionRunPanel::runStarted);
    connect(m_host, &CollectionRunHost::requestStarted, m_panel, &CollectionRunPanel::requestStarted);
    connect(m_host, &CollectionRunHost::requestFinished, m_panel, &CollectionRunPanel::requestFinished);
    connect(m_host, &CollectionRunHost::finished, m_panel, &CollectionRunPanel::runFinished);
    connect(m_panel, &CollectionRunPanel::stopRequested, m_host, &CollectionRunHost::stop);
    connect(
        m_panel, &CollectionRunPanel::openRecord, this, [this](const Core::RunRecord &record, const QString &title) {
            if (m_parts.openRecord)
                m_parts.openRecord(record, title);
        });
    if (m_parts.collections)
        connect(m_parts.collections, &CollectionSidebar::runRequested, this, &CollectionRunController::run);
}

CollectionRunController::~CollectionRunController() = default;

bool CollectionRunController::run(const Core::RunCollection &collection, Core::CollectionRunOptions options)
{
    if (m_parts.serverUrl && options.serverUrl.isEmpty())
        options.serverUrl = m_parts.serverUrl();
    // A fresh seed per run, as `retrylab run` draws one; the report keeps it to replay the jitter.
    if (options.seed == 0)
        options.seed = QRandomGenerator::global()->generate64();
    const auto started = m_host->start(collection, options);
    if (!started) {
        qCInfo(lcCollectionRunController).noquote() << "run refused:" << started.error();
        if (m_parts.messages)
            m_parts.messages->showMessage(FieldMessage::Kind::Warning, started.error());
        return false;
    }
    if (m_parts.showPanel)
        m_parts.showPanel();
    return true;
}

} // namespace RetryLab::Ui
