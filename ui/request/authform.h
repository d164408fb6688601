#pragma once

#include "core/auth/authspec.h"
#include "core/record/transportoptions.h"

#include <QHash>
#include <QWidget>

#include <functional>

class QCheckBox;
class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace RetryLab::Ui {

class AuthorizationCodeFlow;

/// The composer's Auth tab: how the request proves who sends it (Core::AuthSpec).
/// A list of the kinds and, below it, only the fields of the kind chosen; a
/// line under them says what the executor will do with it (a challenge
/// answered within each attempt, a signature made for every attempt, a token
/// fetched first and renewed). Secrets are typed hidden, with a button to show
/// them. Every field may hold {{variables}}. Nothing typed is lost when the kind
/// changes: switching back shows it again.
class AuthForm final : public QWidget
{
    Q_OBJECT

public:
    /// Asks for a file to open: title, current path, name filter; empty when cancelled.
    using FileChooser = std::function<QString(const QString &title, const QString &current, const QString &filter)>;

    explicit AuthForm(QWidget *parent = nullptr);

    Core::AuthSpec auth() const;
    /// Fills the fields; emits no authChanged().
    void setAuth(const Core::AuthSpec &auth);
    /// What keeps the auth from being used (an empty field it needs); empty when nothing does.
    QString problem() const;
    /// A short name for the tab: "Auth", "Auth · Digest".
    QString title() const;

    void setFileChooser(FileChooser chooser) { m_chooseFile = std::move(chooser); }
    /// The authorization code flow that "Sign in with the browser" runs.
    AuthorizationCodeFlow *signInFlow() const { return m_flow; }
    /// The request's connection, which the browser sign-in's token request goes over.
    void setTransport(const Core::TransportOptions &transport);

Q_SIGNALS:
    void authChanged();

private:
    QLineEdit *addText(const QString &objectName, const QString &label, bool secret = false);
    void showFieldsOfKind();
    void handleEdited();
    void chooseKeyFile();
    void signIn();

    QComboBox *m_kind;
    QFormLayout *m_form;
    QHash<QString, QLineEdit *> m_texts; ///< by the AuthSpec field's file name ("username")
    QComboBox *m_keyPlace;
    QComboBox *m_clientAuth;
    QCheckBox *m_presign;
    QSpinBox *m_expires;
    QLabel *m_note;
    QPushButton *m_signIn;
    QLabel *m_signInStatus;
    AuthorizationCodeFlow *m_flow;
    /// The kind "No auth" stands for: Inherit, or None as an import gave it.
    Core::AuthSpec::Kind m_noAuthKind = Core::AuthSpec::Kind::Inherit;
    FileChooser m_chooseFile;
    bool m_filling = false;
};

} // namespace RetryLab::Ui
