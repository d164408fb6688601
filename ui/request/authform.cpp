#include "ui/request/authform.h"

#include "core/auth/authjson.h"
#include "ui/request/authorizationcodeflow.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

namespace RetryLab::Ui {

namespace {

using Kind = Core::AuthSpec::Kind;

// The fields each kind shows, by their file names (as AuthJson writes them).
QStringList fieldsOf(Kind kind)
{
    switch (kind) {
    case Kind::Basic:
    case Kind::Digest:
        return {QStringLiteral("username"), QStringLiteral("password")};
    case Kind::Bearer:
        return {QStringLiteral("token")};
    case Kind::ApiKey:
        return {QStringLiteral("key"), QStringLiteral("value"), QStringLiteral("in")};
    case Kind::OAuth2ClientCredentials:
        return {QStringLiteral("tokenUrl"), QStringLiteral("clientId"), QStringLiteral("clientSecret"),
            QStringLiteral("scope"), QStringLiteral("audience"), QStringLiteral("clientAuth")};
    case Kind::OAuth2RefreshToken:
        return {QStringLiteral("tokenUrl"), QStringLiteral("clientId"), QStringLiteral("clientSecret"),
            QStringLiteral("refreshToken"), QStringLiteral("scope"), QStringLiteral("clientAuth")};
    case Kind::OAuth2AuthorizationCode:
        return {QStringLiteral("authorizationUrl"), QStringLiteral("tokenUrl"), QStringLiteral("clientId"),
            QStringLiteral("clientSecret"), QStringLiteral("scope"), QStringLiteral("clientAuth")};
    case Kind::AwsSigV4:
        return {QStringLiteral("accessKeyId"), QStringLiteral("secretAccessKey"), QStringLiteral("sessionToken"),
            QStringLiteral("region"), QStringLiteral("service"), QStringLiteral("presign"), QStringLiteral("expires")};
    case Kind::GoogleServiceAccount:
        return {QStringLiteral("keyFile"), QStringLiteral("scope")};
    case Kind::Inherit:
    case Kind::None:
        break;
    }
    return {};
}

QString noteOf(Kind kind)
{
    switch (kind) {
    case Kind::Inherit:
    case Kind::None:
        return AuthForm::tr("The request is sent as it is: its headers may still carry credentials.");
    case Kind::Basic:
        return AuthForm::tr("Authorization: Basic, unless a header of the request sets Authorization itself.");
    case Kind::Bearer:
        return AuthForm::tr("Authorization: Bearer, unless a header of the request sets Authorization itself.");
    case Kind::ApiKey:
        return AuthForm::tr("The key goes in a header or in the query, unless the request sets it itself.");
    case Kind::Digest:
        return AuthForm::tr("The first request goes without credentials; the server's 401 challenge is answered "
                            "within the same attempt, and later attempts answer its nonce with the count one higher.");
    case Kind::AwsSigV4:
        return AuthForm::tr("Every attempt is signed at its own time (AWS4-HMAC-SHA256); with Presign, the signature "
                            "goes in the URL's query instead of the headers.");
    case Kind::OAuth2ClientCredentials:
    case Kind::OAuth2RefreshToken:
    case Kind::GoogleServiceAccount:
        return AuthForm::tr("An access token is fetched before the first attempt (a step of the attempt), kept until "
                            "shortly before it expires, and fetched again once after a 401. The retry policy applies "
                            "to the token request too.");
    case Kind::OAuth2AuthorizationCode:
        return AuthForm::tr("The code is asked for in your browser (PKCE, a redirect to 127.0.0.1); the tokens it "
                            "gives are then used and refreshed as for a refresh token.");
    }
    return {};
}

} // namespace

AuthForm::AuthForm(QWidget *parent)
    : QWidget(parent), m_kind(new QComboBox), m_form(new QFormLayout), m_keyPlace(new QComboBox),
      m_clientAuth(new QComboBox), m_presign(new QCheckBox(tr("Presign the URL"))), m_expires(new QSpinBox),
      m_note(new QLabel), m_signIn(new QPushButton(tr("Sign in with the browser\u2026"))), m_signInStatus(new QLabel),
      m_flow(new AuthorizationCodeFlow(this))
{
    m_chooseFile = [this](const QString &title, const QString &current, const QString &filter) {
        return QFileDialog::getOpenFileName(this, title, current, filter);
    };
    m_kind->setObjectName(QStringLiteral("authKind"));
    m_kind->addItem(tr("No auth"), int(Kind::Inherit));
    for (Kind kind : Core::AuthSpec::kinds()) {
        if (kind != Kind::Inherit && kind != Kind::None)
            m_kind->addItem(Core::AuthSpec::kindTitle(kind), int(kind));
    }
    m_form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_form->addRow(tr("&Type:"), m_kind);

    addText(QStringLiteral("username"), tr("&User name:"));
    addText(QStringLiteral("password"), tr("&Password:"), true);
    addText(QStringLiteral("token"), tr("T&oken:"), true);
    addText(QStringLiteral("key"), tr("&Key name:"))->setPlaceholderText(QStringLiteral("X-API-Key"));
    addText(QStringLiteral("value"), tr("&Value:"), true);
    m_keyPlace->setObjectName(QStringLiteral("in"));
    m_keyPlace->addItem(tr("In a header"));
    m_keyPlace->addItem(tr("In the query"));
    m_form->addRow(tr("Sent:"), m_keyPlace);
    addText(QStringLiteral("authorizationUrl"), tr("Authori&zation URL:"));
    addText(QStringLiteral("tokenUrl"), tr("Token &URL:"))->setPlaceholderText(QStringLiteral("https://…/oauth/token"));
    addText(QStringLiteral("clientId"), tr("&Client ID:"));
    addText(QStringLiteral("clientSecret"), tr("Client &secret:"), true);
    addText(QStringLiteral("refreshToken"), tr("&Refresh token:"), true);
    addText(QStringLiteral("scope"), tr("Sco&pe:"));
    addText(QStringLiteral("audience"), tr("&Audience:"));
    m_clientAuth->setObjectName(QStringLiteral("clientAuth"));
    m_clientAuth->addItem(tr("Basic header"), int(Core::AuthSpec::ClientAuth::BasicHeader));
    m_clientAuth->addItem(tr("In the body"), int(Core::AuthSpec::ClientAuth::Body));
    m_form->addRow(tr("Client sent:"), m_clientAuth);
    addText(QStringLiteral("accessKeyId"), tr("Access &key ID:"));
    addText(QStringLiteral("secretAccessKey"), tr("Secret access ke&y:"), true);
    addText(QStringLiteral("sessionToken"), tr("Session toke&n:"), true);
    addText(QStringLiteral("region"), tr("Re&gion:"))->setPlaceholderText(QStringLiteral("us-east-1"));
    addText(QStringLiteral("service"), tr("Ser&vice:"))->setPlaceholderText(QStringLiteral("s3"));
    m_presign->setObjectName(QStringLiteral("presign"));
    m_form->addRow(QString(), m_presign);
    m_expires->setObjectName(QStringLiteral("expires"));
    m_expires->setRange(1, 7 * 24 * 3600);
    m_expires->setValue(3600);
    m_expires->setSuffix(tr(" s"));
    m_form->addRow(tr("Valid for:"), m_expires);

    // The key file: a line and a button to pick it.
    auto *keyFile = new QLineEdit;
    keyFile->setObjectName(QStringLiteral("keyFile"));
    keyFile->setPlaceholderText(tr("the service account's JSON key"));
    auto *browse = new QToolButton;
    browse->setObjectName(QStringLiteral("chooseKeyFile"));
    browse->setText(tr("…"));
    browse->setToolTip(tr("Choose the key file"));
    auto *keyRow = new QWidget;
    keyRow->setObjectName(QStringLiteral("keyFileRow"));
    auto *keyLayout = new QHBoxLayout(keyRow);
    keyLayout->setContentsMargins(0, 0, 0, 0);
    keyLayout->addWidget(keyFile, 1);
    keyLayout->addWidget(browse);
    m_form->addRow(tr("Key &file:"), keyRow);
    m_texts.insert(QStringLiteral("keyFile"), keyFile);
    connect(keyFile, &QLineEdit::textChanged, this, &AuthForm::handleEdited);
    connect(browse, &QToolButton::clicked, this, &AuthForm::chooseKeyFile);

    // The authorization code flow: the browser, then the tokens.
    m_signIn->setObjectName(QStringLiteral("signIn"));
    m_signIn->setToolTip(tr("Opens the authorization URL in your browser and waits on 127.0.0.1 for the code"));
    m_signInStatus->setObjectName(QStringLiteral("signInStatus"));
    m_signInStatus->setWordWrap(true);
    m_form->addRow(QString(), m_signIn);
    m_form->addRow(QString(), m_signInStatus);
    connect(m_signIn, &QPushButton::clicked, this, &AuthForm::signIn);
    connect(m_flow, &AuthorizationCodeFlow::progress, m_signInStatus, &QLabel::setText);
    connect(m_flow, &AuthorizationCodeFlow::finished, this,
        [this](const std::optional<Core::AuthSpec> &signedIn, const QString &error) {
            m_signIn->setText(tr("Sign in with the browser\u2026"));
            if (!signedIn) {
                m_signInStatus->setText(tr("Not signed in: %1").arg(error));
                return;
            }
            setAuth(*signedIn);
            m_signInStatus->setText(signedIn->kind == Kind::OAuth2RefreshToken
                    ? tr("Signed in: the refresh token is kept (hidden) and exchanged for an access token when the "
                         "request is sent.")
                    : tr("Signed in; no refresh token came: the access token is sent as a bearer token until it "
                         "expires."));
            Q_EMIT authChanged();
        });

    m_note->setObjectName(QStringLiteral("authNote"));
    m_note->setWordWrap(true);
    m_note->setForegroundRole(QPalette::PlaceholderText);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(m_form);
    layout->addWidget(m_note);
    layout->addStretch(1);

    connect(m_kind, &QComboBox::currentIndexChanged, this, [this] {
        showFieldsOfKind();
        handleEdited();
    });
    connect(m_keyPlace, &QComboBox::currentIndexChanged, this, &AuthForm::handleEdited);
    connect(m_clientAuth, &QComboBox::currentIndexChanged, this, &AuthForm::handleEdited);
    connect(m_presign, &QCheckBox::toggled, this, [this] {
        m_form->setRowVisible(m_expires, m_presign->isVisible() && m_presign->isChecked());
        handleEdited();
    });
    connect(m_expires, &QSpinBox::valueChanged, this, &AuthForm::handleEdited);
    showFieldsOfKind();
}

QLineEdit *AuthForm::addText(const QString &objectName, const QString &label, bool secret)
{
    auto *edit = new QLineEdit;
    edit->setObjectName(objectName);
    if (secret) {
        edit->setEchoMode(QLineEdit::Password);
        QAction *show
            = edit->addAction(QIcon::fromTheme(QStringLiteral("view-reveal-symbolic")), QLineEdit::TrailingPosition);
        show->setObjectName(objectName + QStringLiteral("Show"));
        show->setCheckable(true);
        show->setText(tr("Show"));
        show->setToolTip(tr("Show or hide the value"));
        connect(show, &QAction::toggled, edit,
            [edit](bool shown) { edit->setEchoMode(shown ? QLineEdit::Normal : QLineEdit::Password); });
    }
    m_form->addRow(label, edit);
    m_texts.insert(objectName, edit);
    connect(edit, &QLineEdit::textChanged, this, &AuthForm::handleEdited);
    return edit;
}

void AuthForm::showFieldsOfKind()
{
    const auto kind = Kind(m_kind->currentData().toInt());
    const QStringList shown = fieldsOf(kind);
    for (auto it = m_texts.cbegin(); it != m_texts.cend(); ++it) {
        QWidget *field = it.key() == QLatin1String("keyFile") ? (*it)->parentWidget() : *it;
        m_form->setRowVisible(field, shown.contains(it.key()));
    }
    m_form->setRowVisible(m_keyPlace, shown.contains(QLatin1String("in")));
    m_form->setRowVisible(m_clientAuth, shown.contains(QLatin1String("clientAuth")));
    m_form->setRowVisible(m_presign, shown.contains(QLatin1String("presign")));
    m_form->setRowVisible(m_expires, shown.contains(QLatin1String("expires")) && m_presign->isChecked());
    const bool code = kind == Kind::OAuth2AuthorizationCode;
    m_form->setRowVisible(m_signIn, code);
    m_form->setRowVisible(m_signInStatus, code);
    m_note->setText(noteOf(kind));
}

void AuthForm::signIn()
{
    if (m_flow->isRunning()) {
        m_flow->cancel();
        m_signIn->setText(tr("Sign in with the browser\u2026"));
        m_signInStatus->setText(tr("Sign-in cancelled."));
        return;
    }
    if (!m_flow->start(auth())) {
        m_signInStatus->setText(m_flow->error());
        return;
    }
    m_signIn->setText(tr("Cancel sign-in"));
}

void AuthForm::handleEdited()
{
    if (!m_filling)
        Q_EMIT authChanged();
}

void AuthForm::chooseKeyFile()
{
    QLineEdit *keyFile = m_texts.value(QStringLiteral("keyFile"));
    const QString current = keyFile->text().isEmpty() ? QDir::homePath() : keyFile->text();
    const QString chosen
        = m_chooseFile(tr("Service account key"), current, tr("JSON key files (*.json);;All files (*)"));
    if (!chosen.isEmpty())
        keyFile->setText(chosen);
}

Core::AuthSpec AuthForm::auth() const
{
    Core::AuthSpec auth;
    auth.kind = Kind(m_kind->currentData().toInt());
    if (auth.kind == Kind::Inherit)
        auth.kind = m_noAuthKind;
    const QStringList shown = fieldsOf(auth.kind);
    const auto text = [&](const char *name) {
        const QString key = QLatin1String(name);
        return shown.contains(key) ? m_texts.value(key)->text() : QString();
    };
    auth.username = text("username");
    auth.password = text("password");
    auth.token = text("token");
    auth.key = text("key");
    auth.value = text("value");
    auth.inQuery = auth.kind == Kind::ApiKey && m_keyPlace->currentIndex() == 1;
    auth.tokenUrl = text("tokenUrl");
    auth.authorizationUrl = text("authorizationUrl");
    auth.clientId = text("clientId");
    auth.clientSecret = text("clientSecret");
    auth.scope = text("scope");
    auth.audience = text("audience");
    auth.refreshToken = text("refreshToken");
    if (shown.contains(QLatin1String("clientAuth")))
        auth.clientAuth = Core::AuthSpec::ClientAuth(m_clientAuth->currentData().toInt());
    auth.accessKeyId = text("accessKeyId");
    auth.secretAccessKey = text("secretAccessKey");
    auth.sessionToken = text("sessionToken");
    auth.region = text("region");
    auth.service = text("service");
    if (auth.kind == Kind::AwsSigV4) {
        auth.presign = m_presign->isChecked();
        if (auth.presign)
            auth.expiresSeconds = m_expires->value();
    }
    auth.keyFile = text("keyFile");
    return auth;
}

void AuthForm::setAuth(const Core::AuthSpec &auth)
{
    // A sign-in under way belongs to the auth shown until now, not to this one.
    if (m_flow->isRunning()) {
        m_flow->cancel();
        m_signIn->setText(tr("Sign in with the browser\u2026"));
        m_signInStatus->clear();
    }
    m_filling = true;
    const bool none = auth.isNone();
    m_noAuthKind = auth.kind == Kind::None ? Kind::None : Kind::Inherit;
    m_kind->setCurrentIndex(std::max(0, m_kind->findData(int(none ? Kind::Inherit : auth.kind))));
    const auto set
        = [this](const char *name, const QString &value) { m_texts.value(QLatin1String(name))->setText(value); };
    set("username", auth.username);
    set("password", auth.password);
    set("token", auth.token);
    set("key", auth.key);
    set("value", auth.value);
    m_keyPlace->setCurrentIndex(auth.inQuery ? 1 : 0);
    set("tokenUrl", auth.tokenUrl);
    set("authorizationUrl", auth.authorizationUrl);
    set("clientId", auth.clientId);
    set("clientSecret", auth.clientSecret);
    set("scope", auth.scope);
    set("audience", auth.audience);
    set("refreshToken", auth.refreshToken);
    m_clientAuth->setCurrentIndex(std::max(0, m_clientAuth->findData(int(auth.clientAuth))));
    set("accessKeyId", auth.accessKeyId);
    set("secretAccessKey", auth.secretAccessKey);
    set("sessionToken", auth.sessionToken);
    set("region", auth.region);
    set("service", auth.service);
    m_presign->setChecked(auth.presign);
    m_expires->setValue(auth.expiresSeconds);
    set("keyFile", auth.keyFile);
    showFieldsOfKind();
    m_filling = false;
}

QString AuthForm::problem() const
{
    return Core::AuthJson::problem(auth());
}

QString AuthForm::title() const
{
    const Core::AuthSpec current = auth();
    if (current.isNone())
        return tr("Auth");
    return tr("Auth \u00b7 %1").arg(Core::AuthSpec::kindTitle(current.kind));
}

void AuthForm::setTransport(const Core::TransportOptions &transport)
{
    m_flow->setTransport(transport);
}

} // namespace RetryLab::Ui
