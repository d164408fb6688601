// The composer's Auth tab: each kind shows its own fields, secrets are typed
// hidden, what is typed survives a change of kind, and the draft carries the
// auth (a field it needs and lacks keeps Send off, saying which).

#include "core/executor/retryexecutor.h"
#include "core/faultserver/faultserver.h"
#include "ui/request/authform.h"
#include "ui/request/authorizationcodeflow.h"
#include "ui/request/requestcomposer.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace RetryLab;
using Core::AuthSpec;

namespace {

template<typename T>
T *child(const QWidget &parent, const char *name)
{
    return parent.findChild<T *>(QLatin1String(name));
}

void chooseKind(Ui::AuthForm &form, AuthSpec::Kind kind)
{
    auto *combo = child<QComboBox>(form, "authKind");
    combo->setCurrentIndex(combo->findData(int(kind)));
}

} // namespace

class TestAuthForm : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void eachKind_showsOnlyItsFields();
    void secrets_areHiddenUntilShown();
    void setAuth_thenAuth_givesItBack();
    void changingKind_keepsWhatWasTyped();
    void composer_draftCarriesTheAuth_andAMissingFieldBlocksSend();
    void composer_maskedSecret_mustBeTypedAgain();
    void signIn_authorizationCodeWithPkce_endsWithARefreshTokenThatWorks();
    void signIn_deniedInTheBrowser_saysSoAndKeepsTheAuth();
    void signIn_tokenRequestGoesOverTheRequestsConnection();
};

void TestAuthForm::eachKind_showsOnlyItsFields()
{
    Ui::AuthForm form;
    form.show();
    QVERIFY(QTest::qWaitForWindowExposed(&form));
    const auto visible = [&form](const char *name) { return child<QWidget>(form, name)->isVisible(); };
    QVERIFY(!visible("username") && !visible("token") && !visible("accessKeyId"));
    chooseKind(form, AuthSpec::Kind::Digest);
    QVERIFY(visible("username") && visible("password"));
    QVERIFY(!visible("token") && !visible("tokenUrl"));
    chooseKind(form, AuthSpec::Kind::AwsSigV4);
    QVERIFY(visible("accessKeyId") && visible("secretAccessKey") && visible("region") && visible("service"));
    QVERIFY(visible("presign") && !visible("expires"));
    child<QCheckBox>(form, "presign")->setChecked(true);
    QVERIFY(visible("expires"));
    QVERIFY(!visible("username"));
    chooseKind(form, AuthSpec::Kind::OAuth2ClientCredentials);
    QVERIFY(visible("tokenUrl") && visible("clientId") && visible("clientSecret") && visible("clientAuth"));
    QVERIFY(!visible("refreshToken") && !visible("authorizationUrl"));
    chooseKind(form, AuthSpec::Kind::GoogleServiceAccount);
    QVERIFY(visible("keyFile") && visible("chooseKeyFile") && visible("scope"));
    QVERIFY(!visible("clientId"));
    QVERIFY(!child<QLabel>(form, "authNote")->text().isEmpty());
}

void TestAuthForm::secrets_areHiddenUntilShown()
{
    Ui::AuthForm form;
    for (const char *secret :
        {"password", "token", "value", "clientSecret", "refreshToken", "secretAccessKey", "sessionToken"}) {
        auto *edit = child<QLineEdit>(form, secret);
        QVERIFY2(edit, secret);
        QCOMPARE(edit->echoMode(), QLineEdit::Password);
        auto *show = edit->findChild<QAction *>(QLatin1String(secret) + QStringLiteral("Show"));
        QVERIFY2(show, secret);
        show->setChecked(true);
        QCOMPARE(edit->echoMode(), QLineEdit::Normal);
        show->setChecked(false);
        QCOMPARE(edit->echoMode(), QLineEdit::Password);
    }
    QCOMPARE(child<QLineEdit>(form, "username")->echoMode(), QLineEdit::Normal);
}

void TestAuthForm::setAuth_thenAuth_givesItBack()
{
    Ui::AuthForm form;
    QSignalSpy changed(&form, &Ui::AuthForm::authChanged);
    AuthSpec aws;
    aws.kind = AuthSpec::Kind::AwsSigV4;
    aws.accessKeyId = QStringLiteral("AKID");
    aws.secretAccessKey = QStringLiteral("{{awsSecret}}");
    aws.sessionToken = QStringLiteral("tok");
    aws.region = QStringLiteral("eu-west-1");
    aws.service = QStringLiteral("s3");
    aws.presign = true;
    aws.expiresSeconds = 900;
    form.setAuth(aws);
    QCOMPARE(form.auth(), aws);
    QCOMPARE(changed.count(), 0);
    QCOMPARE(form.title(), QStringLiteral("Auth \u00b7 AWS Signature Version 4"));

    AuthSpec key;
    key.kind = AuthSpec::Kind::ApiKey;
    key.key = QStringLiteral("api_key");
    key.value = QStringLiteral("v");
    key.inQuery = true;
    form.setAuth(key);
    QCOMPARE(form.auth(), key);

    AuthSpec client;
    client.kind = AuthSpec::Kind::OAuth2RefreshToken;
    client.tokenUrl = QStringLiteral("http://127.0.0.1:9/oauth/token");
    client.clientId = QStringLiteral("id");
    client.refreshToken = QStringLiteral("r");
    client.clientAuth = AuthSpec::ClientAuth::Body;
    form.setAuth(client);
    QCOMPARE(form.auth(), client);

    // An import's explicit "none" stays none, and the default stays inherit.
    AuthSpec none;
    none.kind = AuthSpec::Kind::None;
    form.setAuth(none);
    QCOMPARE(form.auth().kind, AuthSpec::Kind::None);
    form.setAuth(AuthSpec{});
    QCOMPARE(form.auth(), AuthSpec{});
    QCOMPARE(form.title(), QStringLiteral("Auth"));
}

void TestAuthForm::changingKind_keepsWhatWasTyped()
{
    Ui::AuthForm form;
    QSignalSpy changed(&form, &Ui::AuthForm::authChanged);
    chooseKind(form, AuthSpec::Kind::Basic);
    QTest::keyClicks(child<QLineEdit>(form, "username"), QStringLiteral("ada"));
    QTest::keyClicks(child<QLineEdit>(form, "password"), QStringLiteral("lovelace"));
    QVERIFY(changed.count() > 0);
    chooseKind(form, AuthSpec::Kind::Bearer);
    QVERIFY(form.auth().username.isEmpty()); // not a Bearer field
    chooseKind(form, AuthSpec::Kind::Digest);
    QCOMPARE(form.auth().username, QStringLiteral("ada"));
    QCOMPARE(form.auth().password, QStringLiteral("lovelace"));
}

void TestAuthForm::composer_draftCarriesTheAuth_andAMissingFieldBlocksSend()
{
    Ui::RequestComposer composer;
    Core::RequestDraft draft;
    draft.urlTemplate = QStringLiteral("http://127.0.0.1:9/x");
    draft.auth.kind = AuthSpec::Kind::Digest;
    draft.auth.username = QStringLiteral("ada");
    draft.auth.password = QStringLiteral("lovelace");
    composer.setDraft(draft);
    QCOMPARE(composer.draft(), draft);
    QVERIFY2(composer.canSend(), qPrintable(composer.problem()));
    auto *tabs = composer.findChild<QTabWidget *>(QStringLiteral("details"));
    const int authTab = tabs->indexOf(composer.findChild<QWidget *>(QStringLiteral("authScroll")));
    QCOMPARE(authTab, 1); // beside the headers, where a newcomer looks for it
    QCOMPARE(tabs->tabText(authTab), QStringLiteral("Auth \u00b7 Digest"));

    chooseKind(*composer.authForm(), AuthSpec::Kind::AwsSigV4);
    QTest::keyClicks(child<QLineEdit>(*composer.authForm(), "accessKeyId"), QStringLiteral("AKID"));
    QVERIFY(!composer.canSend());
    QVERIFY2(composer.problem().contains(QLatin1String("secret access key")), qPrintable(composer.problem()));
    QVERIFY(tabs->tabText(authTab).contains(QChar(0x26a0)));
    QTest::keyClicks(child<QLineEdit>(*composer.authForm(), "secretAccessKey"), QStringLiteral("s"));
    QTest::keyClicks(child<QLineEdit>(*composer.authForm(), "region"), QStringLiteral("us-east-1"));
    QTest::keyClicks(child<QLineEdit>(*composer.authForm(), "service"), QStringLiteral("execute-api"));
    QVERIFY2(composer.canSend(), qPrintable(composer.problem()));
    QCOMPARE(composer.draft().auth.kind, AuthSpec::Kind::AwsSigV4);
    QCOMPARE(composer.draft().auth.region, QStringLiteral("us-east-1"));
}

void TestAuthForm::composer_maskedSecret_mustBeTypedAgain()
{
    Core::RequestDraft draft;
    draft.urlTemplate = QStringLiteral("http://127.0.0.1:9/x");
    draft.auth.kind = AuthSpec::Kind::Bearer;
    draft.auth.token = QStringLiteral("secret-token");
    // Saved without credentials, read back: the token reads REDACTED and must be typed again.
    const auto read = Core::RequestDraft::fromJson(draft.toJson());
    QVERIFY2(read, qPrintable(read.error()));
    QCOMPARE(read->auth.token, QStringLiteral("REDACTED"));
    Ui::RequestComposer composer;
    composer.setDraft(*read);
    QVERIFY(!composer.canSend());
    QVERIFY2(composer.problem().contains(QLatin1String("REDACTED")), qPrintable(composer.problem()));
    // Kept on disk when asked, and a {{variable}} is no secret: it stays either way.
    QCOMPARE(Core::RequestDraft::fromJson(draft.toJson(true))->auth.token, QStringLiteral("secret-token"));
    draft.auth.token = QStringLiteral("{{token}}");
    QCOMPARE(Core::RequestDraft::fromJson(draft.toJson())->auth.token, QStringLiteral("{{token}}"));
}

void TestAuthForm::signIn_authorizationCodeWithPkce_endsWithARefreshTokenThatWorks()
{
    Core::FaultServer server;
    QVERIFY2(server.listen(), qPrintable(server.errorString()));
    const QString base = server.baseUrl().toString();
    Ui::AuthForm form;
    form.show();
    AuthSpec code;
    code.kind = AuthSpec::Kind::OAuth2AuthorizationCode;
    code.authorizationUrl = base + QStringLiteral("/oauth/authorize");
    code.tokenUrl = base + QStringLiteral("/oauth/token");
    code.clientId = QStringLiteral("retrylab-public");
    form.setAuth(code);
    auto *signIn = child<QPushButton>(form, "signIn");
    QVERIFY(signIn->isVisible());
    // The "browser": a GET of the authorization URL, which redirects to the loopback listener.
    QNetworkAccessManager browser;
    QUrl opened;
    QList<int> strayStatuses;
    form.signInFlow()->setBrowserOpener([&](const QUrl &url) {
        opened = url;
        // First something else on the port, with a state of its own: turned away, the flow goes on.
        QNetworkReply *stray = browser.get(
            QNetworkRequest(QUrl(form.signInFlow()->redirectUri() + QStringLiteral("?code=forged&state=guess"))));
        QObject::connect(stray, &QNetworkReply::finished, stray, [&strayStatuses, stray, &browser, url] {
            strayStatuses.append(stray->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt());
            stray->deleteLater();
            browser.get(QNetworkRequest(url));
        });
        return true;
    });
    QSignalSpy changed(&form, &Ui::AuthForm::authChanged);
    signIn->click();
    QVERIFY(opened.query().contains(QLatin1String("code_challenge_method=S256")));
    QVERIFY(opened.query().contains(QLatin1String("redirect_uri=http")));
    QTRY_VERIFY_WITH_TIMEOUT(changed.count() > 0, 15'000);
    QCOMPARE(strayStatuses, QList<int>{400});
    const AuthSpec signedIn = form.auth();
    QCOMPARE(signedIn.kind, AuthSpec::Kind::OAuth2RefreshToken);
    QVERIFY(!signedIn.refreshToken.isEmpty());
    QCOMPARE(signedIn.tokenUrl, code.tokenUrl);
    QVERIFY2(child<QLabel>(form, "signInStatus")->text().startsWith(QLatin1String("Signed in")),
        qPrintable(child<QLabel>(form, "signInStatus")->text()));
    QCOMPARE(child<QLineEdit>(form, "refreshToken")->echoMode(), QLineEdit::Password);

    // What it ended with is what the executor sends with.
    Core::RetryExecutor executor;
    QSignalSpy finished(&executor, &Core::RetryExecutor::requestFinished);
    Core::RequestSpec spec;
    spec.url = QUrl(base + QStringLiteral("/oauth/protected"));
    spec.auth = signedIn;
    executor.submit(spec);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 15'000);
    const auto result = finished.at(0).at(0).value<Core::RequestResult>();
    QVERIFY2(result.outcome == Core::RequestOutcome::Succeeded, qPrintable(result.reason));
}

void TestAuthForm::signIn_deniedInTheBrowser_saysSoAndKeepsTheAuth()
{
    Core::FaultServer server;
    QVERIFY2(server.listen(), qPrintable(server.errorString()));
    const QString base = server.baseUrl().toString();
    Ui::AuthForm form;
    AuthSpec code;
    code.kind = AuthSpec::Kind::OAuth2AuthorizationCode;
    code.authorizationUrl = base + QStringLiteral("/oauth/authorize?deny=1");
    code.tokenUrl = base + QStringLiteral("/oauth/token");
    code.clientId = QStringLiteral("retrylab-public");
    form.setAuth(code);
    QNetworkAccessManager browser;
    form.signInFlow()->setBrowserOpener([&](const QUrl &url) {
        browser.get(QNetworkRequest(url));
        return true;
    });
    QSignalSpy done(form.signInFlow(), &Ui::AuthorizationCodeFlow::finished);
    child<QPushButton>(form, "signIn")->click();
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 15'000);
    QVERIFY2(child<QLabel>(form, "signInStatus")->text().contains(QLatin1String("access_denied")),
        qPrintable(child<QLabel>(form, "signInStatus")->text()));
    QCOMPARE(form.auth(), code);

    // No browser at all: said at once, nothing started.
    form.signInFlow()->setBrowserOpener([](const QUrl &) { return false; });
    child<QPushButton>(form, "signIn")->click();
    QVERIFY(!form.signInFlow()->isRunning());
    QVERIFY2(child<QLabel>(form, "signInStatus")->text().contains(QLatin1String("No browser")),
        qPrintable(child<QLabel>(form, "signInStatus")->text()));
}

void TestAuthForm::signIn_tokenRequestGoesOverTheRequestsConnection()
{
    // The token URL on the fault server's HTTPS port, whose CA only the request's
    // Connection trusts: without it the exchange ends with the certificate's
    // error (never ignored silently); with it, the sign-in completes.
    Core::FaultServerOptions options;
    options.httpsPort = 0;
    Core::FaultServer server(options);
    QVERIFY2(server.listen(), qPrintable(server.errorString()));
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString caFile = dir.filePath(QStringLiteral("ca.pem"));
    QFile ca(caFile);
    QVERIFY(ca.open(QIODevice::WriteOnly));
    ca.write(server.caCertificate().toPem());
    ca.close();

    Ui::RequestComposer composer;
    auto *form = composer.findChild<Ui::AuthForm *>(QStringLiteral("auth"));
    QVERIFY(form);
    AuthSpec code;
    code.kind = AuthSpec::Kind::OAuth2AuthorizationCode;
    code.authorizationUrl = server.baseUrl().toString() + QStringLiteral("/oauth/authorize");
    code.tokenUrl = server.httpsBaseUrl().toString() + QStringLiteral("/oauth/token");
    code.clientId = QStringLiteral("retrylab-public");
    Core::RequestDraft draft = composer.draft();
    draft.urlTemplate = server.httpsBaseUrl().toString() + QStringLiteral("/oauth/protected");
    draft.auth = code;
    composer.setDraft(draft);
    QNetworkAccessManager browser;
    form->signInFlow()->setBrowserOpener([&](const QUrl &url) {
        browser.get(QNetworkRequest(url));
        return true;
    });
    QSignalSpy done(form->signInFlow(), &Ui::AuthorizationCodeFlow::finished);
    child<QPushButton>(*form, "signIn")->click();
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 15'000);
    const QString refused = done.at(0).at(1).toString();
    QVERIFY2(refused.contains(QLatin1String("did not answer")) && refused.contains(QLatin1String("SSL")),
        qPrintable(refused));
    QCOMPARE(form->auth().kind, AuthSpec::Kind::OAuth2AuthorizationCode);

    // The CA named under Connection, as a user would: the same flow goes through.
    draft = composer.draft();
    draft.transport.caBundlePath = caFile;
    composer.setDraft(draft);
    child<QPushButton>(*form, "signIn")->click();
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 2, 15'000);
    QVERIFY2(done.at(1).at(1).toString().isEmpty(), qPrintable(done.at(1).at(1).toString()));
    QCOMPARE(form->auth().kind, AuthSpec::Kind::OAuth2RefreshToken);
}

QTEST_MAIN(TestAuthForm)
#include "tst_authform.moc"
