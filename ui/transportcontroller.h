#pragma once

#include "core/faultserver/faultserver.h"
#include "core/record/transportoptions.h"
#include "ui/preferencesdialog.h"

#include <QObject>
#include <QPointer>

namespace RetryLab::Core {
class ThreadedExecutor;
} // namespace RetryLab::Core

namespace RetryLab::Ui {

class EmbeddedServer;
class InsecureBanner;
class MessageBar;
class RequestComposer;
class ServerView;
class Settings;

/// The window's side of TLS, proxies and HTTP/2, so that the main window only
/// wires it: the red banner while certificate errors are ignored (and after a
/// run that ignored some), the Preferences dialog with the default connection of
/// new requests, HTTPS of the embedded server as the settings say, and the
/// Server tab's "trust this CA in the request".
class TransportController final : public QObject
{
    Q_OBJECT

public:
    struct Parts
    {
        Settings *settings = nullptr;
        EmbeddedServer *server = nullptr;
        Core::ThreadedExecutor *executor = nullptr;
        RequestComposer *composer = nullptr;
        ServerView *serverView = nullptr;
        InsecureBanner *banner = nullptr;
        MessageBar *messages = nullptr;
    };

    TransportController(const Parts &parts, QObject *parent = nullptr);

    /// The options the embedded server starts with: `base`, with HTTPS as the
    /// settings say unless `base` chose already.
    static Core::FaultServerOptions serverOptions(const Core::FaultServerOptions &base, const Settings &settings);
    /// Starts the server; when HTTPS from the settings (its port, the user's
    /// certificate) keeps it from starting, HTTPS gives way, and the Server tab
    /// says why (EmbeddedServer::startPreferringHttp()).
    static bool startServer(EmbeddedServer &server, const Core::FaultServerOptions &base, const Settings &settings);

    /// Tools → Preferences (window-modal, not blocking).
    void showPreferences();
    /// The monitors' history now in use, shown in Preferences.
    void setMonitorDatabaseInUse(const QString &where) { m_monitorDatabaseInUse = where; }
    PreferencesDialog *preferencesDialog() const { return m_preferences; }
    /// What OK in Preferences does.
    void setDefaultTransport(const Core::TransportOptions &options);

    /// Trusts `caFile` in the request's Connection part and shows it.
    void trustCaFile(const QString &caFile);
    /// The run was cleared.
    void clearRun();

Q_SIGNALS:
    /// OK in Preferences chose another history for the monitors (empty: the
    /// default file); the settings keep it once it opened.
    void monitorDatabaseChosen(const QString &database);

private:
    void updateBanner();

    Parts m_parts;
    QString m_monitorDatabaseInUse;
    QPointer<PreferencesDialog> m_preferences;
};

} // namespace RetryLab::Ui
