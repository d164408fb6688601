#include "ui/server/httpspanel.h"

#include "core/faultserver/faultserver.h"
#include "core/faultserver/tlsfault.h"
#include "core/util/exportfile.h"
#include "ui/session/hosting/embeddedserver.h"
#include "ui/widgets/fieldmessage.h"
#include "ui/widgets/flowlayout.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QDir>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QLayoutItem>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStandardPaths>
#include <QToolButton>
#include <QVBoxLayout>

#include <initializer_list>

namespace RetryLab::Ui {

HttpsPanel::HttpsPanel(QWidget *parent)
    : QWidget(parent), m_enabled(new QCheckBox(tr("Serve HTTPS too, on port"))), m_port(new QSpinBox),
      m_save(new QToolButton), m_trust(new QToolButton), m_httpsUrl(new QLabel), m_copyHttps(new QToolButton),
      m_certificate(new QLineEdit), m_key(new QLineEdit), m_keyPassphrase(new QLineEdit),
      m_applyCertificate(new QToolButton), m_message(new FieldMessage), m_urlBox(new QWidget),
      m_urlGrid(new FlowLayout(m_urlBox, 12, 2))
{
    m_chooseSave = [this](const QString &title, const QString &suggested, const QString &filter) {
        return QFileDialog::getSaveFileName(this, title, suggested, filter);
    };
    m_enabled->setObjectName(QStringLiteral("httpsEnabled"));
    m_enabled->setToolTip(tr("A second port serves every endpoint over TLS, with a certificate made at each start "
                             "and signed by a CA made with it; one more port per TLS fault (unknown CA, expired, "
                             "wrong host, cut handshake, ...). Changing this starts the server again on the same "
                             "HTTP port."));
    m_port->setObjectName(QStringLiteral("httpsPort"));
    m_port->setRange(0, 65535);
    m_port->setSpecialValueText(tr("any free"));
    m_port->setKeyboardTracking(false);
    m_save->setObjectName(QStringLiteral("saveCaCertificate"));
    m_save->setText(tr("Save CA certificate\u2026"));
    m_save->setToolTip(tr("Save the CA that signs the HTTPS port's certificate (PEM), e.g. for curl --cacert"));
    m_trust->setObjectName(QStringLiteral("trustServerCa"));
    m_trust->setText(tr("Trust this CA in the request"));
    m_trust->setToolTip(tr("Put the server's CA in the request's Connection part (Trust CA file). The file is "
                           "written again at every start, so the request keeps working although the certificates "
                           "are new each time."));
    m_message->setObjectName(QStringLiteral("httpsMessage"));
    m_urlGrid->setContentsMargins(0, 0, 0, 0);

    connect(m_enabled, &QCheckBox::toggled, this, &HttpsPanel::handleToggled);
    connect(m_port, &QSpinBox::valueChanged, this, [this] {
        if (m_enabled->isChecked())
            handleToggled();
    });
    connect(m_save, &QToolButton::clicked, this, [this] {
        const QString documents = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
        const QString path = m_chooseSave(tr("Save the server's CA certificate"),
            QDir(documents).filePath(QStringLiteral("retrylab-ca.pem")), tr("PEM certificates (*.pem *.crt)"));
        if (!path.isEmpty())
            saveCaCertificate(path);
    });
    connect(m_trust, &QToolButton::clicked, this, [this] {
        if (m_server && !m_server->caFilePath().isEmpty())
            Q_EMIT trustRequested(m_server->caFilePath());
    });

    m_httpsUrl->setObjectName(QStringLiteral("httpsUrl"));
    m_httpsUrl->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_httpsUrl->setToolTip(tr("Every endpoint of the server, over TLS"));
    m_copyHttps->setObjectName(QStringLiteral("copyHttpsUrl"));
    m_copyHttps->setText(tr("Copy"));
    m_copyHttps->setAutoRaise(true);
    connect(m_copyHttps, &QToolButton::clicked, this, [this] {
        if (m_server)
            QApplication::clipboard()->setText(m_server->httpsBaseUrl().toString());
    });

    // Two short rows rather than one long one: the tab shares the window with the docks.
    auto *row = new QHBoxLayout;
    row->addWidget(m_enabled);
    row->addWidget(m_port);
    row->addSpacing(8);
    row->addWidget(m_httpsUrl);
    row->addWidget(m_copyHttps);
    row->addStretch(1);
    m_certificate->setObjectName(QStringLiteral("httpsCertificate"));
    m_certificate->setPlaceholderText(tr("own certificate (PEM)"));
    m_certificate->setToolTip(tr("A PEM file with the certificate the HTTPS port presents, then its chain; empty: "
                                 "a certificate made at each start, signed by a CA made with it"));
    m_key->setObjectName(QStringLiteral("httpsKey"));
    m_key->setPlaceholderText(tr("its key (PEM)"));
    m_keyPassphrase->setObjectName(QStringLiteral("httpsKeyPassphrase"));
    m_keyPassphrase->setEchoMode(QLineEdit::Password);
    m_keyPassphrase->setPlaceholderText(tr("passphrase"));
    m_keyPassphrase->setToolTip(tr("For an encrypted key; kept until RetryLab closes, never saved"));
    m_applyCertificate->setObjectName(QStringLiteral("applyHttpsCertificate"));
    m_applyCertificate->setText(tr("Use"));
    m_applyCertificate->setToolTip(tr("Start the server again with this certificate (or, with the fields empty, "
                                      "with one made for it)"));
    connect(m_applyCertificate, &QToolButton::clicked, this, [this] {
        applyCertificate(m_certificate->text().trimmed(), m_key->text().trimmed(), m_keyPassphrase->text());
    });

    // The CA buttons, then the certificate's fields on a row of their own: a narrow
    // window neither clips them nor scrolls the tab sideways.
    auto *caButtons = new QHBoxLayout;
    caButtons->addWidget(m_save);
    caButtons->addWidget(m_trust);
    caButtons->addStretch(1);
    auto *certificateRow = new QHBoxLayout;
    certificateRow->addWidget(m_certificate, 2);
    certificateRow->addWidget(browseButton(m_certificate, tr("Certificate for the HTTPS port")));
    certificateRow->addWidget(m_key, 1);
    certificateRow->addWidget(browseButton(m_key, tr("Key of that certificate")));
    certificateRow->addWidget(m_keyPassphrase, 1);
    certificateRow->addWidget(m_applyCertificate);
    for (QLineEdit *field : {m_certificate, m_key, m_keyPassphrase})
        field->setMinimumWidth(fontMetrics().horizontalAdvance(QLatin1Char('M')) * 5);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addLayout(row);
    layout->addLayout(caButtons);
    layout->addLayout(certificateRow);
    layout->addWidget(m_message);
    layout->addWidget(m_urlBox);
    refresh();
}

HttpsPanel::~HttpsPanel() = default;

void HttpsPanel::setServer(EmbeddedServer *server)
{
    if (m_server)
        disconnect(m_server, nullptr, this, nullptr);
    m_server = server;
    if (m_server)
        connect(m_server, &EmbeddedServer::runningChanged, this, &HttpsPanel::refresh);
    refresh();
}

void HttpsPanel::setSaveChooser(SaveChooser chooser)
{
    m_chooseSave = std::move(chooser);
}

QString HttpsPanel::message() const
{
    return m_message->text();
}

void HttpsPanel::handleToggled()
{
    if (m_filling)
        return;
    const std::optional<quint16> port
        = m_enabled->isChecked() ? std::optional<quint16>(static_cast<quint16>(m_port->value())) : std::nullopt;
    if (applyHttps(port))
        Q_EMIT httpsChanged(port);
}

bool HttpsPanel::applyHttps(std::optional<quint16> port)
{
    if (!m_server)
        return false;
    const bool ok = m_server->setHttpsPort(port);
    refresh();
    if (!ok) {
        m_message->setMessage(FieldMessage::Kind::Error,
            port ? tr("HTTPS could not start: %1. The server runs as before.").arg(m_server->errorString())
                 : tr("The server could not start again: %1").arg(m_server->errorString()));
    }
    return ok;
}

QToolButton *HttpsPanel::browseButton(QLineEdit *target, const QString &title)
{
    auto *button = new QToolButton;
    button->setObjectName(target->objectName() + QStringLiteral("Browse"));
    button->setText(tr("\u2026"));
    button->setToolTip(tr("Choose the file"));
    connect(button, &QToolButton::clicked, this, [this, target, title] {
        const QString chosen = QFileDialog::getOpenFileName(
            this, title, target->text(), tr("PEM files (*.pem *.crt *.key);;All files (*)"));
        if (!chosen.isEmpty())
            target->setText(QDir::toNativeSeparators(chosen));
    });
    return button;
}

bool HttpsPanel::applyCertificate(const QString &certificateFile, const QString &keyFile, const QString &passphrase)
{
    if (!m_server)
        return false;
    const bool ok = m_server->setHttpsCertificate(certificateFile, keyFile, passphrase.toUtf8());
    m_message->clear();
    refresh();
    if (!ok) {
        // What was typed stays in the fields.
        m_certificate->setText(certificateFile);
        m_key->setText(keyFile);
        m_message->setMessage(FieldMessage::Kind::Error,
            tr("The certificate could not be used: %1. The server runs as before.").arg(m_server->errorString()));
        return false;
    }
    m_message->setMessage(FieldMessage::Kind::Success,
        certificateFile.isEmpty() ? tr("The HTTPS port presents a certificate made for it.")
                                  : tr("The HTTPS port presents %1.").arg(QDir::toNativeSeparators(certificateFile)));
    Q_EMIT certificateChanged(certificateFile, keyFile);
    return true;
}

bool HttpsPanel::saveCaCertificate(const QString &path)
{
    const QByteArray pem = m_server && m_server->server() ? m_server->server()->trustAnchorsPem() : QByteArray();
    if (pem.isEmpty()) {
        m_message->setMessage(FieldMessage::Kind::Error, tr("Nothing saved: HTTPS is off."));
        return false;
    }
    const auto written = Core::ExportFile::write(path, pem);
    if (!written) {
        m_message->setMessage(FieldMessage::Kind::Error, tr("Not saved: %1").arg(written.error()));
        return false;
    }
    m_message->setMessage(FieldMessage::Kind::Success,
        tr("Saved the CA certificate to %1 (it changes at every start of the server).")
            .arg(QDir::toNativeSeparators(path)));
    return true;
}

void HttpsPanel::refresh()
{
    Core::FaultServer *server = m_server ? m_server->server() : nullptr;
    const bool https = server && !server->httpsBaseUrl().isEmpty();
    m_filling = true;
    {
        const QSignalBlocker blockEnabled(m_enabled);
        const QSignalBlocker blockPort(m_port);
        m_enabled->setChecked(m_server && m_server->options().httpsPort.has_value());
        if (m_server && m_server->options().httpsPort)
            m_port->setValue(*m_server->options().httpsPort);
    }
    m_filling = false;
    m_enabled->setEnabled(m_server && m_server->isRunning());
    m_port->setEnabled(m_server && m_server->isRunning());
    m_save->setEnabled(https);
    m_trust->setEnabled(https && !m_server->caFilePath().isEmpty());
    for (QWidget *w : std::initializer_list<QWidget *>{m_certificate, m_key, m_keyPassphrase, m_applyCertificate})
        w->setEnabled(https);
    if (m_server) {
        m_certificate->setText(QDir::toNativeSeparators(m_server->options().tlsCertificateFile));
        m_key->setText(QDir::toNativeSeparators(m_server->options().tlsKeyFile));
    }
    if (m_server && !m_server->httpsProblem().isEmpty())
        m_message->setMessage(FieldMessage::Kind::Warning, m_server->httpsProblem());
    else if (m_server && !m_server->caFileError().isEmpty())
        m_message->setMessage(FieldMessage::Kind::Warning, m_server->caFileError());
    else if (m_message->kind() != FieldMessage::Kind::Success)
        m_message->clear();

    m_urls.clear();
    if (https) {
        m_urls.append({QStringLiteral("https"), server->httpsBaseUrl()});
        for (const Core::TlsFault fault : Core::TlsFaults::all())
            m_urls.append({Core::TlsFaults::name(fault), server->tlsFaultUrl(fault)});
    }
    m_httpsUrl->setText(
        https ? QStringLiteral("<b>%1</b>").arg(server->httpsBaseUrl().toString().toHtmlEscaped()) : QString());
    m_httpsUrl->setVisible(https);
    m_copyHttps->setVisible(https);
    while (QLayoutItem *item = m_urlGrid->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    // The TLS faults' ports, each "name :port" (all on the server's address), the whole
    // URL and what the fault does in the tooltip, and the whole URL copied; as many on
    // a row as the width allows.
    if (https) {
        auto *caption = new QLabel(tr("TLS faults:"));
        caption->setToolTip(tr("One port per fault of the TLS handshake; the HTTPS port's handshake script (POST "
                               "/_control/tls/handshakes) gives its next connections chosen faults too."));
        m_urlGrid->addWidget(caption);
    }
    for (const Core::TlsFault fault : Core::TlsFaults::all()) {
        if (!https)
            break;
        const QString name = Core::TlsFaults::name(fault);
        const QUrl url = server->tlsFaultUrl(fault);
        auto *cell = new QWidget;
        auto *cellLayout = new QHBoxLayout(cell);
        cellLayout->setContentsMargins(0, 0, 0, 0);
        cellLayout->setSpacing(3);
        auto *label = new QLabel(QStringLiteral("<b>%1</b> :%2").arg(name.toHtmlEscaped()).arg(url.port()));
        label->setObjectName(QStringLiteral("httpsUrl_") + name);
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
        label->setToolTip(QStringLiteral("%1\n%2").arg(url.toString(), Core::TlsFaults::description(fault)));
        auto *copy = new QToolButton;
        copy->setObjectName(QStringLiteral("copyHttpsUrl_") + name);
        copy->setText(tr("Copy"));
        copy->setAutoRaise(true);
        copy->setToolTip(tr("Copy %1").arg(url.toString()));
        connect(copy, &QToolButton::clicked, this, [url] { QApplication::clipboard()->setText(url.toString()); });
        cellLayout->addWidget(label);
        cellLayout->addWidget(copy);
        m_urlGrid->addWidget(cell);
    }
    m_urlBox->setVisible(!m_urls.isEmpty());
}

} // namespace RetryLab::Ui
