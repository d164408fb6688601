#pragma once

#include "core/auth/authorizationrequest.h"
#include "core/auth/authspec.h"
#include "core/record/transportoptions.h"

#include <QObject>
#include <QPointer>
#include <QTimer>
#include <QUrl>

#include <functional>
#include <optional>

class QNetworkAccessManager;
class QTcpServer;
class QTcpSocket;

namespace RetryLab::Ui {

/// OAuth 2.0's authorization code flow with PKCE for a person at the window
/// (RFC 8252, native apps): a listener on 127.0.0.1 for the redirect, the
/// authorization URL opened in the system browser, the code read from the
/// redirect (its state checked), and the code exchanged at the token URL. What
/// it ends with is an auth the executor can send with on its own: a refresh
/// token (kind OAuth2RefreshToken, the rest of the auth kept), or, when the
/// server gives none, the access token as a bearer token.
///
/// Nothing of it is logged; the codes and tokens stay in the auth it hands back.
class AuthorizationCodeFlow final : public QObject
{
    Q_OBJECT

public:
    /// Opens `url` in a browser; false when none could be started.
    using BrowserOpener = std::function<bool(const QUrl &url)>;
    /// How long the flow waits for the browser's redirect.
    static constexpr int defaultTimeoutMs = 5 * 60 * 1000;

    explicit AuthorizationCodeFlow(QObject *parent = nullptr);
    ~AuthorizationCodeFlow() override;

    /// The system browser (QDesktopServices) unless set; tests drive a request of their own.
    void setBrowserOpener(BrowserOpener opener) { m_openBrowser = std::move(opener); }
    void setTimeoutMs(int ms) { m_timeout.setInterval(ms); }
    /// The request's connection (proxy, CA bundle, client certificate, hosts
    /// whose certificate errors are ignored): the code is exchanged over it, as
    /// the executor would send the token request.
    void setTransport(const Core::TransportOptions &transport) { m_transport = transport; }

    /// Listens, and opens the browser at `auth`'s authorization URL. False when
    /// it cannot start (finished() is not emitted then): the auth lacks a field,
    /// no port, no browser; error() says which.
    bool start(const Core::AuthSpec &auth);
    void cancel();
    bool isRunning() const { return m_running; }
    QString error() const { return m_error; }
    /// The redirect URI of the flow running now ("http://127.0.0.1:PORT/callback").
    QString redirectUri() const { return m_request ? m_request->redirectUri : QString(); }

Q_SIGNALS:
    /// Something happened worth a line under the button ("Waiting for the browser…").
    void progress(const QString &text);
    /// The flow ended: `auth` to send with, or nothing and `error` says why.
    void finished(const std::optional<RetryLab::Core::AuthSpec> &auth, const QString &error);

private:
    void handleConnection();
    void handleRedirect(QTcpSocket *socket);
    void exchange(const QString &code);
    void finish(const std::optional<Core::AuthSpec> &auth, const QString &error);

    BrowserOpener m_openBrowser;
    QTcpServer *m_listener;
    QNetworkAccessManager *m_manager;
    QTimer m_timeout;
    Core::AuthSpec m_auth;
    Core::TransportOptions m_transport;
    std::optional<Core::AuthorizationRequest> m_request;
    QString m_error;
    bool m_running = false;
    bool m_codeTaken = false; ///< the code came: nothing else on the port is heard
};

} // namespace RetryLab::Ui
