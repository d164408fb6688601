#pragma once

#include <QPointer>
#include <QUrl>
#include <QWidget>

#include <functional>
#include <optional>

class QCheckBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QToolButton;

namespace RetryLab::Ui {

class EmbeddedServer;
class FlowLayout;
class FieldMessage;

/// HTTPS of the embedded server, on the Server tab: on or off and its port, the
/// https URL and one URL per TLS fault (each with a copy button), "Save CA
/// certificate…" and "Trust this CA in the request". Turning HTTPS on or off, or
/// another port, starts the server again on the same HTTP port.
class HttpsPanel final : public QWidget
{
    Q_OBJECT

public:
    /// Asks where to save: title, suggested path, filter; empty when cancelled.
    using SaveChooser = std::function<QString(const QString &title, const QString &suggested, const QString &filter)>;

    explicit HttpsPanel(QWidget *parent = nullptr);
    ~HttpsPanel() override;

    /// Not owned.
    void setServer(EmbeddedServer *server);
    void setSaveChooser(SaveChooser chooser);

    /// Turns HTTPS on (port 0: any free one) or off, as the check box and port do.
    bool applyHttps(std::optional<quint16> port);
    /// The HTTPS port presents this certificate and key (both empty: one made at
    /// each start); false with the file named when they cannot be used.
    bool applyCertificate(const QString &certificateFile, const QString &keyFile, const QString &passphrase);
    /// Writes the server's CA certificates (PEM) to `path`; false with the reason shown.
    bool saveCaCertificate(const QString &path);

    /// The URLs shown: the https base URL first, then one per TLS fault ("unknown-ca" -> URL).
    QList<QPair<QString, QUrl>> shownUrls() const { return m_urls; }
    QString message() const;

Q_SIGNALS:
    /// HTTPS was turned on (with its port setting) or off by the user.
    void httpsChanged(std::optional<quint16> port);
    /// "Trust this CA in the request": the file holding the server's CA.
    void trustRequested(const QString &caFile);
    /// The user's certificate for the HTTPS port was applied (both empty: a made one).
    void certificateChanged(const QString &certificateFile, const QString &keyFile);

private:
    void refresh();
    void handleToggled();
    QToolButton *browseButton(QLineEdit *target, const QString &title);

    QPointer<EmbeddedServer> m_server;
    SaveChooser m_chooseSave;
    QCheckBox *m_enabled;
    QSpinBox *m_port;
    QToolButton *m_save;
    QToolButton *m_trust;
    QLabel *m_httpsUrl;
    QToolButton *m_copyHttps;
    QLineEdit *m_certificate;
    QLineEdit *m_key;
    QLineEdit *m_keyPassphrase;
    QToolButton *m_applyCertificate;
    FieldMessage *m_message;
    QWidget *m_urlBox;
    FlowLayout *m_urlGrid; ///< the TLS faults' ports, wrapped to the width
    QList<QPair<QString, QUrl>> m_urls;
    bool m_filling = false;
};

} // namespace RetryLab::Ui
