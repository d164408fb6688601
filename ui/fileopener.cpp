#include "ui/fileopener.h"

#include "core/collections/collectionjson.h"
#include "core/policy/policyjson.h"
#include "core/scenario/scenarioreader.h"
#include "core/util/boundedfile.h"
#include "ui/collections/collectionfilter.h"
#include "ui/collections/collectionmodel.h"
#include "ui/collections/collectionsidebar.h"
#include "ui/importcontroller.h"
#include "ui/monitorcontroller.h"
#include "ui/openedrun.h"
#include "ui/policy/policypanel.h"
#include "ui/session/monitor/monitorhost.h"
#include "ui/workspacetabs.h"

#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QTreeView>

namespace {
Q_LOGGING_CATEGORY(lcFileOpener, "retrylab.ui.fileopener", QtInfoMsg)
} // namespace

namespace RetryLab::Ui {

namespace {

// The largest file the window opens of any kind: a run report may be that long.
constexpr qint64 maxOpenedFileBytes = 512LL * 1024 * 1024;

void bringToFront(QDockWidget *dock)
{
    if (!dock)
        return;
    dock->show();
    dock->raise();
}

} // namespace

FileOpener::FileOpener(const Parts &parts, QObject *parent) : QObject(parent), m_parts(parts)
{ }

FileOpener::Kind FileOpener::kindOf(const QByteArray &bytes)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(bytes, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject())
        return Kind::Unknown;
    const QJsonObject object = document.object();
    const QString format = object.value(QStringLiteral("format")).toString();
    if (format == QLatin1String("retrylab-report"))
        return Kind::Report;
    if (format == QLatin1String("retrylab-scenario"))
        return Kind::Scenario;
    if (format == QLatin1String("retrylab-monitors"))
        return Kind::Monitors;
    if (format == QLatin1String("retrylab-policy"))
        return Kind::Policy;
    if (format == QLatin1String("retrylab-observation"))
        return Kind::Observation;
    if (object.contains(QStringLiteral("formatVersion")) && object.contains(QStringLiteral("items")))
        return Kind::Collection;
    return Kind::Other;
}

Core::Result<FileOpener::Kind> FileOpener::open(const QString &path)
{
    using R = Core::Result<Kind>;
    const auto bytes = Core::BoundedFile::read(path, {maxOpenedFileBytes, tr("a file the window opens")});
    if (!bytes)
        return R(bytes.errorDetail());
    const Kind kind = kindOf(*bytes);
    const QString name = QFileInfo(path).fileName();
    Core::Result<void> shown;
    switch (kind) {
    case Kind::Report:
        shown = m_parts.openedRun->open(path);
        if (shown)
            m_parts.tabs->showTab(WorkspaceTabs::Tab::Timeline);
        break;
    case Kind::Scenario: {
        const auto scenario = Core::ScenarioReader::fromJson(*bytes);
        if (!scenario)
            return R::failure(tr("%1: %2").arg(name, scenario.error()));
        QList<Core::ImportedRequest> requests;
        for (const Core::ScenarioRequest &entry : scenario->requests) {
            Core::ImportedRequest request;
            request.name = entry.name;
            request.spec = entry.spec;
            request.urlText = entry.urlTemplate;
            requests.append(request);
        }
        if (requests.isEmpty())
            return R::failure(tr("%1: the scenario has no request").arg(name));
        m_parts.imports->importRequests(requests, name, scenario->policy);
        bringToFront(m_parts.requestDock);
        break;
    }
    case Kind::Collection:
        shown = openCollection(path, *bytes);
        break;
    case Kind::Monitors:
        if (const QString error = m_parts.monitors->host()->importFile(path); !error.isEmpty())
            return R::failure(error);
        m_parts.tabs->showTab(WorkspaceTabs::Tab::Monitors);
        break;
    case Kind::Policy: {
        const auto policy = Core::PolicyJson::fromJson(*bytes);
        if (!policy)
            return R::failure(tr("%1: %2").arg(name, policy.error()));
        m_parts.policyPanel->setPolicy(*policy);
        bringToFront(m_parts.policyDock);
        break;
    }
    case Kind::Observation:
        return R::failure(tr("%1 is an observation report, which the window does not show; its verdicts are in the "
                             "file, as retrylab observe wrote them")
                              .arg(name));
    case Kind::Other:
    case Kind::Unknown:
        shown = m_parts.imports->openFile(path);
        break;
    }
    if (!shown)
        return R(shown.errorDetail());
    qCInfo(lcFileOpener) << "opened" << path << "as" << kind;
    Q_EMIT opened(path, kind);
    return kind;
}

// A collection of the dock's own folder is selected where it is; one from anywhere
// else is added to the dock as a copy (which the dock saves in its folder).
Core::Result<void> FileOpener::openCollection(const QString &path, const QByteArray &bytes)
{
    const auto read = Core::CollectionJson::fromJson(bytes);
    if (!read)
        return Core::Result<void>::failure(tr("%1: %2").arg(QFileInfo(path).fileName(), read.error()));
    CollectionModel *model = m_parts.collections->model();
    const QFileInfo file(path);
    const bool ownFolder = file.absoluteDir() == QDir(m_parts.collections->store().collectionsDirectory());
    QModelIndex shown;
    for (int row = 0; ownFolder && row < model->rowCount(); ++row) {
        if (model->collection(row).fileName == file.fileName())
            shown = model->index(row, 0);
    }
    if (!shown.isValid()) {
        shown = model->addCollection(read->collection.name);
        for (const Core::CollectionItem &item : read->collection.items)
            model->addItem(shown, item);
    }
    m_parts.collections->view()->setCurrentIndex(m_parts.collections->filter()->mapFromSource(shown));
    bringToFront(m_parts.collectionsDock);
    return {};
}

} // namespace RetryLab::Ui
