#pragma once

#include "core/collections/requestdraft.h"
#include "core/herd/herdparameters.h"
#include "core/policy/backoffpolicy.h"
#include "core/policy/endpointpolicy.h"
#include "core/record/transportoptions.h"
#include "ui/session/hosting/proxysettings.h"
#include "ui/session/hosting/serverscenario.h"

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QSettings>
#include <QStringList>
#include <QUrl>
#include <QVariant>
#include <QVariantList>

#include <memory>
#include <optional>

namespace RetryLab::Ui {

/// The one place that reads and writes what the user sets (QSettings in the
/// user's configuration directory). Every accessor is typed and never fails:
/// a missing, damaged or wrongly typed value gives the default, and problems()
/// says what was replaced so that the window can show it. A damaged file is
/// copied aside before anything is written back, so nothing is lost.
///
/// To add a setting: a typed getter/setter pair below, a key in settings.cpp,
/// and a check in problems() if the value can be damaged.
class Settings final : public QObject
{
    Q_OBJECT

public:
    /// Recent URLs kept, newest first.
    static constexpr int maxRecentUrls = 10;
    /// Passed to QMainWindow::saveState()/restoreState(); bump when docks change.
    static constexpr int windowStateVersion = 1;

    explicit Settings(QObject *parent = nullptr);
    ~Settings() override;

    /// The file behind the settings (for messages).
    QString fileName() const;

    /// Sentences for everything that could not be read and was replaced by a
    /// default: a damaged or unreadable file, a value of the wrong type, a saved
    /// policy that no longer validates. Empty when all is well.
    QStringList problems() const;

    /// Writes pending changes to disk.
    Core::Result<void> sync();

    // The policy in the editor. Only usable policies are stored.
    Core::BackoffPolicy currentPolicy() const;
    /// False on a first launch: no policy was saved yet.
    bool hasCurrentPolicy() const;
    void setCurrentPolicy(const Core::BackoffPolicy &policy);

    // The user's own presets, keyed by policy name (case-insensitive).
    QList<Core::BackoffPolicy> userPresets() const;
    std::optional<Core::BackoffPolicy> userPreset(const QString &name) const;
    /// Adds the policy under its name, or replaces the preset of that name.
    /// Refused without a name, under a built-in preset's name, for an unusable
    /// policy or an unwritable file.
    Core::Result<void> saveUserPreset(const Core::BackoffPolicy &policy);
    /// Returns false when no user preset has that name.
    bool removeUserPreset(const QString &name);
    /// True when a built-in preset has this id or name (those cannot be overwritten).
    static bool isBuiltInPresetName(const QString &name);

    // Main window geometry and dock layout.
    QByteArray windowGeometry() const;
    void setWindowGeometry(const QByteArray &geometry);
    QByteArray windowState() const;
    void setWindowState(const QByteArray &state);

    // Recent request URLs, newest first, at most maxRecentUrls; passwords are never stored.
    QList<QUrl> recentUrls() const;
    /// Moves (or adds) the URL to the front; invalid or empty URLs are ignored.
    void addRecentUrl(const QUrl &url);
    void clearRecentUrls();

    // The request in the composer. Values of credential headers (Authorization,
    // cookies, API keys) are not stored: the file is plain text.
    Core::RequestDraft requestDraft() const;
    void setRequestDraft(const Core::RequestDraft &draft);

    // Recent URL templates as typed in the composer ("{server}/fail/3?key={id}"),
    // newest first, at most maxRecentUrls; passwords are never stored.
    QStringList recentUrlTemplates() const;
    /// Moves (or adds) the template to the front; empty ones are ignored.
    void addRecentUrlTemplate(const QString &urlTemplate);

    // The fault server's script in the Server tab.
    ServerScenario serverScenario() const;
    void setServerScenario(const ServerScenario &scenario);

    // Policy > Endpoint policies: a policy per host or path pattern, each kept
    // whole. One that does not read is left out (problems() names it).
    QList<Core::EndpointPolicy> endpointPolicies() const;
    void setEndpointPolicies(const QList<Core::EndpointPolicy> &policies);

    // The fault proxies of the Proxy tab, with their rules. One that does not
    // read is left out (problems() names it); the others are kept.
    QList<ProxySettings> proxies() const;
    void setProxies(const QList<ProxySettings> &proxies);

    // The herd simulator's form; nothing until it was saved once. Read field by field:
    // a damaged field keeps its default (problems() names it), the others are kept.
    std::optional<Core::HerdParameters> simulatorParameters() const;
    /// Only valid parameters are stored.
    void setSimulatorParameters(const Core::HerdParameters &parameters);

    // The conformance tab's policy choice (ConformanceView::policyChoice()); empty when none.
    QString conformancePolicyChoice() const;
    void setConformancePolicyChoice(const QString &choice);

    // The connection settings new requests start from (Preferences). Never the
    // passphrase, the proxy password or hosts whose certificate errors are ignored.
    Core::TransportOptions defaultTransport() const;
    void setDefaultTransport(const Core::TransportOptions &options);

    // HTTPS of the embedded server: its port (0: any free one), or nothing when off.
    // On, on a free port, unless it was turned off.
    std::optional<quint16> serverHttpsPort() const;
    void setServerHttpsPort(std::optional<quint16> port);
    // The user's certificate and key for the HTTPS port (paths; never a passphrase);
    // empty: one made at each start.
    QString serverTlsCertificateFile() const;
    QString serverTlsKeyFile() const;
    void setServerTlsFiles(const QString &certificateFile, const QString &keyFile);

    // Where exports were last saved.
    QString exportDirectory() const;
    void setExportDirectory(const QString &directory);

    // The monitors' history: a SQLite file or a PostgreSQL URL; empty: the
    // default file in the application's data folder.
    QString monitorDatabase() const;
    void setMonitorDatabase(const QString &database);
    // What closing the window does while monitors run: ask (nothing stored yet),
    // keep monitoring with the tray icon, or quit.
    enum class CloseWithMonitors { Ask, KeepMonitoring, Quit };
    CloseWithMonitors closeWithMonitors() const;
    void setCloseWithMonitors(CloseWithMonitors choice);
    // The acknowledged incidents: "monitor|agent|startMs" keys.
    QStringList acknowledgedIncidents() const;
    void setAcknowledgedIncidents(const QStringList &keys);

Q_SIGNALS:
    void userPresetsChanged();
    void recentUrlsChanged();

private:
    void inspectFile();
    /// Replaces the user's presets with these entries as the file holds them.
    void writeUserPresets(const QVariantList &raw);

    std::unique_ptr<QSettings> m_settings;
    QStringList m_fileProblems;
};

} // namespace RetryLab::Ui
