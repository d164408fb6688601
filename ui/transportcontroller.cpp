#include "ui/transportcontroller.h"

#include "core/executor/threadedexecutor.h"
#include "ui/preferencesdialog.h"
#include "ui/request/requestcomposer.h"
#include "ui/request/transportform.h"
#include "ui/server/httpspanel.h"
#include "ui/server/serverview.h"
#include "ui/session/hosting/embeddedserver.h"
#include "ui/session/settings/settings.h"
#include "ui/widgets/insecurebanner.h"
#include "ui/widgets/messagebar.h"

#include <QDir>

namespace RetryLab::Ui {

TransportController::TransportController(const Parts &parts, QObject *parent) : QObject(parent), m_parts(parts)
{
    m_parts.composer->transportForm()->setDefaults(m_parts.settings->defaultTransport());
    connect(m_parts.composer, &RequestComposer::ignoredCertificateHostsChanged, m_parts.banner,
        &InsecureBanner::setIgnoredHosts);
    connect(m_parts.executor, &Core::ThreadedExecutor::attemptFinished, m_parts.banner, &InsecureBanner::noteAttempt);
    connect(m_parts.serverView->httpsPanel(), &HttpsPanel::httpsChanged, this,
        [this](std::optional<quint16> port) { m_parts.settings->setServerHttpsPort(port); });
    connect(m_parts.serverView->httpsPanel(), &HttpsPanel::trustRequested, this, &TransportController::trustCaFile);
    connect(m_parts.serverView->httpsPanel(), &HttpsPanel::certificateChanged, this,
        [this](
            const QString &certificate, const QString &key) { m_parts.settings->setServerTlsFiles(certificate, key); });
    updateBanner();
}

Core::FaultServerOptions TransportController::serverOptions(
    const Core::FaultServerOptions &base, const Settings &settings)
{
    Core::FaultServerOptions options = base;
    if (!options.httpsPort)
        options.httpsPort = settings.serverHttpsPort();
    if (options.tlsCertificateFile.isEmpty() && options.tlsKeyFile.isEmpty()) {
        options.tlsCertificateFile = settings.serverTlsCertificateFile();
        options.tlsKeyFile = settings.serverTlsKeyFile();
    }
    return options;
}

bool TransportController::startServer(
    EmbeddedServer &server, const Core::FaultServerOptions &base, const Settings &settings)
{
    return server.startPreferringHttp(serverOptions(base, settings));
}

void TransportController::updateBanner()
{
    m_parts.banner->setIgnoredHosts(m_parts.composer->draft().transport.insecureHosts);
}

void TransportController::showPreferences()
{
    if (m_preferences) {
        m_preferences->raise();
        return;
    }
    auto *dialog = new PreferencesDialog(m_parts.settings->defaultTransport(), m_parts.composer->window());
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    m_preferences = dialog;
    dialog->setMonitorDatabase(m_parts.settings->monitorDatabase(), m_monitorDatabaseInUse);
    dialog->setCloseWithMonitors(m_parts.settings->closeWithMonitors());
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        setDefaultTransport(dialog->defaultTransport());
        m_parts.settings->setCloseWithMonitors(dialog->closeWithMonitors());
        if (dialog->monitorDatabase() != m_parts.settings->monitorDatabase())
            Q_EMIT monitorDatabaseChosen(dialog->monitorDatabase());
    });
    dialog->open();
}

void TransportController::setDefaultTransport(const Core::TransportOptions &options)
{
    m_parts.settings->setDefaultTransport(options);
    m_parts.composer->transportForm()->setDefaults(m_parts.settings->defaultTransport());
}

void TransportController::trustCaFile(const QString &caFile)
{
    Core::RequestDraft draft = m_parts.composer->draft();
    if (draft.transport.caBundlePath == caFile) {
        m_parts.composer->showConnection();
        return;
    }
    draft.transport.caBundlePath = caFile;
    m_parts.composer->setDraft(draft);
    m_parts.composer->showConnection();
    m_parts.settings->setRequestDraft(draft);
    m_parts.messages->showMessage(FieldMessage::Kind::Success,
        tr("The request now trusts the embedded server's CA (%1) besides the system's CAs; its HTTPS URLs are on the "
           "Server tab.")
            .arg(QDir::toNativeSeparators(caFile)));
}

void TransportController::clearRun()
{
    m_parts.banner->clearRun();
}

} // namespace RetryLab::Ui
