#include "ui/request/authorizationcodeflow.h"

#include "core/auth/tokenrequest.h"
#include "core/auth/tokenresponse.h"
#include "core/executor/preparedtransport.h"
#include "core/http/httpheaders.h"
#include "core/util/durationtext.h"

#include <QDesktopServices>
#include <QHostAddress>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QTcpServer>
#include <QTcpSocket>
#include <QUrlQuery>

namespace RetryLab::Ui {

namespace {

// The page the browser shows once it has been sent back.
QByteArray redirectPage(int status, const QString &text)
{
    const QByteArray body = QStringLiteral("<!doctype html><html><head><meta charset=\"utf-8\"><title>RetryLab</title>"
                                           "</head><body><p>%1</p></body></html>")
                                .arg(text.toHtmlEscaped())
                                .toUtf8();
    return "HTTP/1.1 " + QByteArray::number(status) + ' ' + Core::reasonPhrase(status)
        + "\r\nContent-Type: text/html; charset=utf-8\r\nCache-Control: no-store\r\nConnection: close\r\n"
          "Content-Length: "
        + QByteArray::number(body.size()) + "\r\n\r\n" + body;
}

constexpr qsizetype maxRedirectRequestBytes = 16 * 1024;

} // namespace

AuthorizationCodeFlow::AuthorizationCodeFlow(QObject *parent)
    : QObject(parent), m_listener(new QTcpServer(this)), m_manager(new QNetworkAccessManager(this))
{
    m_openBrowser = [](const QUrl &url) { return QDesktopServices::openUrl(url); };
    m_timeout.setSingleShot(true);
    m_timeout.setInterval(defaultTimeoutMs);
    connect(&m_timeout, &QTimer::timeout, this, [this] {
        finish(std::nullopt,
            tr("No answer came back from the browser in %n minute(s).", nullptr, m_timeout.interval() / 60'000));
    });
    connect(m_listener, &QTcpServer::newConnection, this, &AuthorizationCodeFlow::handleConnection);
}

AuthorizationCodeFlow::~AuthorizationCodeFlow() = default;

bool AuthorizationCodeFlow::start(const Core::AuthSpec &auth)
{
    cancel();
    m_error.clear();
    if (auth.authorizationUrl.trimmed().isEmpty() || auth.tokenUrl.trimmed().isEmpty()) {
        m_error = tr("Give the authorization URL and the token URL first.");
        return false;
    }
    // RFC 8252 7.3: the loopback address, a port of the system's choosing.
    if (!m_listener->listen(QHostAddress::LocalHost, 0)) {
        m_error = tr("Cannot listen on 127.0.0.1 for the browser's redirect: %1").arg(m_listener->errorString());
        return false;
    }
    const QString redirectUri = QStringLiteral("http://127.0.0.1:%1/callback").arg(m_listener->serverPort());
    auto request = Core::AuthorizationRequest::make(auth, redirectUri);
    if (!request) {
        m_listener->close();
        m_error = request.error();
        return false;
    }
    m_auth = auth;
    m_request = std::move(request).value();
    m_codeTaken = false;
    if (!m_openBrowser(m_request->url)) {
        m_error = tr("No browser could be started for %1.").arg(m_request->url.toString(QUrl::RemoveQuery));
        m_listener->close();
        m_request.reset();
        return false;
    }
    m_running = true;
    m_timeout.start();
    Q_EMIT progress(tr("Waiting for the browser: sign in there, and RetryLab gets the code at %1.").arg(redirectUri));
    return true;
}

void AuthorizationCodeFlow::cancel()
{
    if (!m_running)
        return;
    m_running = false;
    m_timeout.stop();
    m_listener->close();
    m_request.reset();
}

void AuthorizationCodeFlow::handleConnection()
{
    while (QTcpSocket *socket = m_listener->nextPendingConnection()) {
        connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
        connect(socket, &QTcpSocket::readyRead, this, [this, socket] { handleRedirect(socket); });
    }
}

void AuthorizationCodeFlow::handleRedirect(QTcpSocket *socket)
{
    // "GET /callback?code=...&state=... HTTP/1.1": only the request line matters, read once.
    if (!socket->canReadLine()) {
        if (socket->bytesAvailable() > maxRedirectRequestBytes)
            socket->abort();
        return;
    }
    socket->disconnect(this);
    const QList<QByteArray> line = socket->readLine(maxRedirectRequestBytes).trimmed().split(' ');
    const QUrl target(QString::fromLatin1(line.value(1)));
    const auto answer = [socket](int status, const QString &text) {
        socket->write(redirectPage(status, text));
        socket->disconnectFromHost();
    };
    if (!m_running || m_codeTaken || line.value(0) != "GET" || target.path() != QLatin1String("/callback")) {
        answer(404, tr("Nothing here."));
        return;
    }
    // Only the browser sent back with this flow's state may end it: anything else on the
    // port (another program, a page that guessed it) is turned away and the flow goes on.
    if (QUrlQuery(target).queryItemValue(QStringLiteral("state")) != m_request->state) {
        answer(400, tr("This is not the sign-in RetryLab is waiting for."));
        return;
    }
    const auto code = m_request->codeFromRedirect(target);
    answer(200,
        code ? tr("RetryLab has the code and asks for the tokens now: you may close this tab.")
             : tr("RetryLab did not get a code: %1").arg(code.error()));
    if (!code) {
        finish(std::nullopt, code.error());
        return;
    }
    m_codeTaken = true;
    m_listener->close();
    Q_EMIT progress(tr("Got the code; exchanging it at the token URL\u2026"));
    exchange(*code);
}

void AuthorizationCodeFlow::exchange(const QString &code)
{
    auto token = Core::TokenRequest::authorizationCode(m_auth, code, m_request->codeVerifier, m_request->redirectUri);
    if (!token) {
        finish(std::nullopt, token.error());
        return;
    }
    const auto transport = Core::PreparedTransport::prepare(m_transport);
    if (!transport) {
        finish(std::nullopt, tr("The token URL cannot be reached as the request is sent: %1").arg(transport.error()));
        return;
    }
    // A manager of this sign-in's own: the proxy belongs to the manager, and no
    // connection of an earlier sign-in with another transport is used again.
    m_manager->deleteLater();
    m_manager = new QNetworkAccessManager(this);
    transport->configureManager(*m_manager);
    QNetworkRequest request(token->url);
    transport->applyTo(request);
    for (const auto &[name, value] : std::as_const(token->headers))
        request.setRawHeader(name, value);
    QNetworkReply *reply = m_manager->post(request, token->body);
    // Certificate errors end the exchange with their reason unless the user exempted the host.
    if (transport->ignoresCertificateErrorsFor(token->url))
        connect(reply, &QNetworkReply::sslErrors, reply,
            [reply](const QList<QSslError> &errors) { reply->ignoreSslErrors(errors); });
    connect(reply, &QNetworkReply::finished, this, [this, reply] {
        reply->deleteLater();
        if (!m_running)
            return;
        const QVariant status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute);
        if (!status.isValid()) {
            finish(std::nullopt, tr("The token URL did not answer: %1").arg(reply->errorString()));
            return;
        }
        const auto response = Core::TokenResponse::parse(status.toInt(), reply->readAll());
        if (!response) {
            finish(std::nullopt, response.errorDetail().message);
            return;
        }
        Core::AuthSpec signedIn = m_auth;
        if (!response->refreshToken.isEmpty()) {
            signedIn.kind = Core::AuthSpec::Kind::OAuth2RefreshToken;
            signedIn.refreshToken = response->refreshToken;
        } else {
            signedIn = Core::AuthSpec{};
            signedIn.kind = Core::AuthSpec::Kind::Bearer;
            signedIn.token = response->accessToken;
        }
        finish(signedIn, {});
    });
}

void AuthorizationCodeFlow::finish(const std::optional<Core::AuthSpec> &auth, const QString &error)
{
    if (!m_running)
        return;
    m_running = false;
    m_timeout.stop();
    m_listener->close();
    m_request.reset();
    m_error = error;
    Q_EMIT finished(auth, error);
}

} // namespace RetryLab::Ui
