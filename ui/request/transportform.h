#pragma once

#include "core/record/transportoptions.h"

#include <QWidget>

#include <functional>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QSpinBox;
class QToolButton;

namespace RetryLab::Ui {

class FieldMessage;

/// The Connection part of a request: how it reaches its server. A CA bundle
/// trusted besides the system's, a client certificate and key (PEM) or a
/// PKCS#12 file with its passphrase, the TLS floor, "ignore certificate errors
/// for this host", the proxy (none, the system's, HTTP or SOCKS5 with optional
/// credentials) and the HTTP version (HTTP/1.1, HTTP/2 by ALPN, HTTP/2 with prior
/// knowledge), and the connection itself: a connect timeout, curl's --resolve
/// pins, the IP version and keep-alive.
///
/// Files are read as they are picked or typed (PreparedTransport::prepare), so
/// a missing file, one without a certificate or key, or a wrong passphrase is
/// said at once, naming the file; problem() then keeps the request from being
/// sent. What the user typed is never cleared by an error.
///
/// Ignoring certificate errors belongs to one host: the host of the URL when
/// the box is ticked. When the URL moves to another host the exemption is
/// dropped (and the form says so) rather than carried to a server nobody
/// chose. While it is on the form shows a red warning. The same form serves the
/// Preferences dialog, where that box is hidden: it cannot be a default.
class TransportForm final : public QWidget
{
    Q_OBJECT

public:
    /// Asks for a file to open: title, current path, name filter; empty when cancelled.
    using FileChooser = std::function<QString(const QString &title, const QString &current, const QString &filter)>;

    explicit TransportForm(QWidget *parent = nullptr);
    ~TransportForm() override;

    Core::TransportOptions transport() const;
    /// Fills every field and checks the files; emits no transportChanged().
    void setTransport(const Core::TransportOptions &options);

    /// The host of the request's URL (empty while the URL cannot be read).
    void setHost(const QString &host);
    QString host() const { return m_host; }
    /// The box is ticked: certificate errors of host() are ignored.
    bool ignoresCertificateErrors() const { return !m_insecureHost.isEmpty(); }

    /// Why these options cannot be used (a file, the proxy); empty when they can.
    QString problem() const { return m_problem; }

    /// What "Use defaults" puts in (the Preferences' default connection).
    void setDefaults(const Core::TransportOptions &defaults);
    /// For Preferences: no "Use defaults" button and no certificate exemption.
    void setPreferencesMode(bool preferences);
    void setFileChooser(FileChooser chooser);

Q_SIGNALS:
    /// The user changed a field.
    void transportChanged();

private:
    QWidget *buildTlsBox();
    QWidget *buildProxyBox();
    void buildConnectionRows(QFormLayout *form);
    QToolButton *browseButton(QLineEdit *target, const QString &title, const QString &filter);
    void handleEdited();
    void handleInsecureToggled(bool on);
    void validate();
    void updateEnabled();
    void updateInsecureText();

    QLineEdit *m_caBundle;
    QLineEdit *m_clientCertificate;
    QLineEdit *m_clientKey;
    QLineEdit *m_passphrase;
    QComboBox *m_tlsFloor;
    QCheckBox *m_insecure;
    QLabel *m_insecureWarning;
    QComboBox *m_proxyMode;
    QLineEdit *m_proxyHost;
    QSpinBox *m_proxyPort;
    QLineEdit *m_proxyUser;
    QLineEdit *m_proxyPassword;
    QComboBox *m_httpVersion;
    QDoubleSpinBox *m_connectTimeout;
    QComboBox *m_ipFamily;
    QCheckBox *m_keepAlive;
    QLineEdit *m_resolve;
    QToolButton *m_useDefaults;
    FieldMessage *m_message;
    QLabel *m_secretsNote;

    Core::TransportOptions m_defaults;
    FileChooser m_chooseFile;
    QString m_host;
    QString m_insecureHost;
    QString m_droppedNote;
    QString m_problem;
    bool m_filling = false;
    bool m_preferences = false;
};

} // namespace RetryLab::Ui
