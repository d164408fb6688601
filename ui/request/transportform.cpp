#include "ui/request/transportform.h"

#include "core/executor/preparedtransport.h"
#include "core/executor/requestcheck.h"
#include "ui/widgets/fieldmessage.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <initializer_list>

namespace RetryLab::Ui {

using Core::TransportOptions;

namespace {

bool isPkcs12(const QString &path)
{
    const QString suffix = QFileInfo(path.trimmed()).suffix().toLower();
    return suffix == QLatin1String("p12") || suffix == QLatin1String("pfx");
}

template<typename E>
void selectData(QComboBox *box, E value)
{
    box->setCurrentIndex(std::max(0, box->findData(static_cast<int>(value))));
}

template<typename E>
E dataOf(const QComboBox *box)
{
    return static_cast<E>(box->currentData().toInt());
}

} // namespace

TransportForm::TransportForm(QWidget *parent)
    : QWidget(parent), m_caBundle(new QLineEdit), m_clientCertificate(new QLineEdit), m_clientKey(new QLineEdit),
      m_passphrase(new QLineEdit), m_tlsFloor(new QComboBox), m_insecure(new QCheckBox), m_insecureWarning(new QLabel),
      m_proxyMode(new QComboBox), m_proxyHost(new QLineEdit), m_proxyPort(new QSpinBox), m_proxyUser(new QLineEdit),
      m_proxyPassword(new QLineEdit), m_httpVersion(new QComboBox), m_connectTimeout(new QDoubleSpinBox),
      m_ipFamily(new QComboBox), m_keepAlive(new QCheckBox), m_resolve(new QLineEdit), m_useDefaults(new QToolButton),
      m_message(new FieldMessage), m_secretsNote(new QLabel)
{
    m_chooseFile = [this](const QString &title, const QString &current, const QString &filter) {
        return QFileDialog::getOpenFileName(this, title, current, filter);
    };

    m_message->setObjectName(QStringLiteral("transportProblem"));
    m_secretsNote->setObjectName(QStringLiteral("secretsNote"));
    m_secretsNote->setWordWrap(true);
    m_secretsNote->setText(tr("The passphrase and the proxy password are kept until RetryLab closes and are never "
                              "saved. Ignoring certificate errors is never saved either: it is off at every start."));
    QFont small = m_secretsNote->font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    m_secretsNote->setFont(small);
    m_secretsNote->setForegroundRole(QPalette::PlaceholderText);

    m_useDefaults->setObjectName(QStringLiteral("useDefaultTransport"));
    m_useDefaults->setText(tr("Use defaults"));
    m_useDefaults->setToolTip(tr("Put in the default connection settings of Preferences (Tools \u2192 Preferences)"));
    connect(m_useDefaults, &QToolButton::clicked, this, [this] {
        TransportOptions defaults = m_defaults;
        // Secrets and the exemption typed in this session stay when the defaults have none.
        defaults.insecureHosts = transport().insecureHosts;
        if (defaults.clientKeyPassphrase.isEmpty())
            defaults.clientKeyPassphrase = m_passphrase->text();
        if (defaults.proxyPassword.isEmpty())
            defaults.proxyPassword = m_proxyPassword->text();
        setTransport(defaults);
        Q_EMIT transportChanged();
    });

    // The form lives in a short, narrow dock: nothing in it may insist on width.
    for (QComboBox *box : {m_tlsFloor, m_proxyMode, m_httpVersion, m_ipFamily}) {
        box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        box->setMinimumContentsLength(10);
    }
    for (QLineEdit *edit : {m_caBundle, m_clientCertificate, m_clientKey, m_passphrase, m_proxyHost, m_proxyUser,
             m_proxyPassword, m_resolve})
        edit->setMinimumWidth(fontMetrics().averageCharWidth() * 8);

    auto *columns = new QHBoxLayout;
    columns->setContentsMargins(0, 0, 0, 0);
    columns->addWidget(buildTlsBox(), 3);
    columns->addWidget(buildProxyBox(), 2);

    auto *bottom = new QHBoxLayout;
    bottom->addWidget(m_secretsNote, 1);
    bottom->addWidget(m_useDefaults, 0, Qt::AlignTop);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->setSpacing(4);
    layout->addWidget(m_insecureWarning);
    layout->addWidget(m_message);
    layout->addLayout(columns);
    layout->addLayout(bottom);
    layout->addStretch();

    for (QLineEdit *edit : {m_caBundle, m_clientCertificate, m_clientKey, m_passphrase, m_proxyHost, m_proxyUser,
             m_proxyPassword, m_resolve})
        connect(edit, &QLineEdit::textChanged, this, &TransportForm::handleEdited);
    for (QComboBox *box : {m_tlsFloor, m_proxyMode, m_httpVersion, m_ipFamily})
        connect(box, &QComboBox::currentIndexChanged, this, &TransportForm::handleEdited);
    connect(m_proxyPort, &QSpinBox::valueChanged, this, &TransportForm::handleEdited);
    connect(m_connectTimeout, &QDoubleSpinBox::valueChanged, this, &TransportForm::handleEdited);
    connect(m_keepAlive, &QCheckBox::toggled, this, &TransportForm::handleEdited);
    connect(m_insecure, &QCheckBox::toggled, this, &TransportForm::handleInsecureToggled);

    setTransport({});
}

TransportForm::~TransportForm() = default;

QToolButton *TransportForm::browseButton(QLineEdit *target, const QString &title, const QString &filter)
{
    auto *button = new QToolButton;
    button->setObjectName(target->objectName() + QStringLiteral("Browse"));
    button->setText(tr("\u2026"));
    button->setToolTip(tr("Choose the file"));
    connect(button, &QToolButton::clicked, this, [this, target, title, filter] {
        const QString current = target->text().trimmed();
        const QString chosen = m_chooseFile(title, current.isEmpty() ? QDir::homePath() : current, filter);
        if (!chosen.isEmpty())
            target->setText(QDir::toNativeSeparators(chosen));
    });
    return button;
}

QWidget *TransportForm::buildTlsBox()
{
    const QString pemFilter = tr("PEM files (*.pem *.crt *.cer *.key);;All files (*)");
    m_caBundle->setObjectName(QStringLiteral("caBundle"));
    m_caBundle->setPlaceholderText(tr("only the system's CAs"));
    m_caBundle->setToolTip(tr("A PEM file of CA certificates trusted for this request in addition to the system's, "
                              "e.g. the embedded server's CA (Server tab)."));
    m_clientCertificate->setObjectName(QStringLiteral("clientCertificate"));
    m_clientCertificate->setPlaceholderText(tr("none"));
    m_clientCertificate->setToolTip(tr("The client certificate: a PEM file (with its key, or the key in the next "
                                       "field), or a PKCS#12 file (.p12, .pfx) holding both."));
    m_clientKey->setObjectName(QStringLiteral("clientKey"));
    m_clientKey->setPlaceholderText(tr("in the certificate's file"));
    m_clientKey->setToolTip(tr("The client certificate's private key (PEM), when it is not in the certificate's file"));
    m_passphrase->setObjectName(QStringLiteral("passphrase"));
    m_passphrase->setEchoMode(QLineEdit::Password);
    m_passphrase->setPlaceholderText(tr("for an encrypted key or PKCS#12"));
    m_passphrase->setToolTip(tr("Kept until RetryLab closes; never saved, never exported."));

    m_tlsFloor->setObjectName(QStringLiteral("tlsFloor"));
    m_tlsFloor->addItem(tr("Qt's default"), static_cast<int>(TransportOptions::TlsFloor::Any));
    m_tlsFloor->addItem(tr("TLS 1.2 or newer"), static_cast<int>(TransportOptions::TlsFloor::Tls12));
    m_tlsFloor->addItem(tr("TLS 1.3 only"), static_cast<int>(TransportOptions::TlsFloor::Tls13));
    m_tlsFloor->setToolTip(tr("The oldest TLS version the request accepts"));

    m_insecure->setObjectName(QStringLiteral("ignoreCertificateErrors"));
    m_insecure->setToolTip(tr("Accept this host's certificate even when it cannot be verified (unknown CA, expired, "
                              "another name). Anyone on the path could then pose as the server. Off by default, "
                              "never saved, and said in red in the window and in every export while on."));
    m_insecureWarning->setObjectName(QStringLiteral("insecureWarning"));
    m_insecureWarning->setWordWrap(true);
    m_insecureWarning->setAutoFillBackground(true);
    m_insecureWarning->setMargin(4);
    QPalette red = m_insecureWarning->palette();
    red.setColor(QPalette::Window, QColor(0xb0, 0x00, 0x20));
    red.setColor(QPalette::WindowText, Qt::white);
    m_insecureWarning->setPalette(red);
    QFont bold = m_insecureWarning->font();
    bold.setBold(true);
    m_insecureWarning->setFont(bold);
    m_insecureWarning->setVisible(false);

    const auto withBrowse = [this](QLineEdit *edit, const QString &title, const QString &filter) {
        auto *row = new QHBoxLayout;
        row->setSpacing(2);
        row->addWidget(edit, 1);
        row->addWidget(browseButton(edit, title, filter));
        return row;
    };
    auto *box = new QGroupBox(tr("TLS"));
    auto *form = new QFormLayout(box);
    form->setContentsMargins(6, 4, 6, 4);
    form->setVerticalSpacing(3);
    form->addRow(tr("Trust CA file:"), withBrowse(m_caBundle, tr("CA certificates to trust"), pemFilter));
    form->addRow(tr("Client certificate:"),
        withBrowse(m_clientCertificate, tr("Client certificate"),
            tr("Certificates (*.pem *.crt *.cer *.p12 *.pfx);;All files (*)")));
    form->addRow(tr("Client key:"), withBrowse(m_clientKey, tr("Client key"), pemFilter));
    form->addRow(tr("Passphrase:"), m_passphrase);
    form->addRow(tr("TLS version:"), m_tlsFloor);
    form->addRow(tr("Certificate:"), m_insecure);
    return box;
}

QWidget *TransportForm::buildProxyBox()
{
    m_proxyMode->setObjectName(QStringLiteral("proxyMode"));
    m_proxyMode->addItem(tr("None (direct)"), static_cast<int>(TransportOptions::ProxyMode::None));
    m_proxyMode->addItem(tr("System proxy"), static_cast<int>(TransportOptions::ProxyMode::System));
    m_proxyMode->addItem(tr("HTTP proxy"), static_cast<int>(TransportOptions::ProxyMode::Http));
    m_proxyMode->addItem(tr("SOCKS5 proxy"), static_cast<int>(TransportOptions::ProxyMode::Socks5));
    m_proxyMode->setToolTip(tr("None goes straight to the server whatever the environment says; System follows the "
                               "system's settings (http_proxy and friends on Linux)."));
    m_proxyHost->setObjectName(QStringLiteral("proxyHost"));
    m_proxyHost->setPlaceholderText(tr("host"));
    m_proxyPort->setObjectName(QStringLiteral("proxyPort"));
    m_proxyPort->setRange(0, 65535);
    m_proxyPort->setSpecialValueText(tr("port"));
    m_proxyUser->setObjectName(QStringLiteral("proxyUser"));
    m_proxyUser->setPlaceholderText(tr("user (optional)"));
    m_proxyPassword->setObjectName(QStringLiteral("proxyPassword"));
    m_proxyPassword->setEchoMode(QLineEdit::Password);
    m_proxyPassword->setPlaceholderText(tr("password"));
    m_proxyPassword->setToolTip(tr("Kept until RetryLab closes; never saved, redacted in logs and exports."));

    m_httpVersion->setObjectName(QStringLiteral("httpVersion"));
    m_httpVersion->addItem(tr("HTTP/1.1"), static_cast<int>(TransportOptions::HttpVersion::Http1));
    m_httpVersion->addItem(tr("HTTP/2 if offered (ALPN)"), static_cast<int>(TransportOptions::HttpVersion::Http2));
    m_httpVersion->addItem(
        tr("HTTP/2 prior knowledge (h2c)"), static_cast<int>(TransportOptions::HttpVersion::Http2PriorKnowledge));
    m_httpVersion->setToolTip(tr("<p><b>HTTP/2 if offered</b>: over TLS the server may choose HTTP/2 during the "
                                 "handshake (ALPN), else HTTP/1.1.</p><p><b>Prior knowledge</b>: HTTP/2 straight "
                                 "away, also in cleartext (http://).</p>"));

    auto *box = new QGroupBox(tr("Proxy and HTTP"));
    auto *form = new QFormLayout(box);
    form->setContentsMargins(6, 4, 6, 4);
    form->setVerticalSpacing(3);
    form->addRow(tr("Proxy:"), m_proxyMode);
    auto *address = new QHBoxLayout;
    address->setSpacing(2);
    address->addWidget(m_proxyHost, 1);
    address->addWidget(m_proxyPort);
    form->addRow(tr("Address:"), address);
    auto *credentials = new QHBoxLayout;
    credentials->setSpacing(2);
    credentials->addWidget(m_proxyUser, 1);
    credentials->addWidget(m_proxyPassword, 1);
    form->addRow(tr("Login:"), credentials);
    form->addRow(tr("HTTP version:"), m_httpVersion);
    buildConnectionRows(form);
    return box;
}

void TransportForm::buildConnectionRows(QFormLayout *form)
{
    m_connectTimeout->setObjectName(QStringLiteral("connectTimeout"));
    m_connectTimeout->setRange(0.0, 3600.0);
    m_connectTimeout->setDecimals(1);
    m_connectTimeout->setSingleStep(0.5);
    m_connectTimeout->setSuffix(tr(" s"));
    m_connectTimeout->setSpecialValueText(tr("none"));
    m_connectTimeout->setToolTip(tr("Time allowed to connect (name lookup, TCP, TLS), apart from the per-attempt "
                                    "timeout, as curl's --connect-timeout. A connection not ready by then ends the "
                                    "attempt as a connection failure: the request was not sent."));
    m_ipFamily->setObjectName(QStringLiteral("ipFamily"));
    m_ipFamily->addItem(tr("IPv4 or IPv6"), static_cast<int>(TransportOptions::IpFamily::Any));
    m_ipFamily->addItem(tr("IPv4 only (-4)"), static_cast<int>(TransportOptions::IpFamily::V4));
    m_ipFamily->addItem(tr("IPv6 only (-6)"), static_cast<int>(TransportOptions::IpFamily::V6));
    m_keepAlive->setObjectName(QStringLiteral("keepAlive"));
    m_keepAlive->setText(tr("Keep connections open"));
    m_keepAlive->setToolTip(tr("Off: every attempt sends Connection: close and opens a connection of its own "
                               "(curl's --no-keepalive)."));
    m_resolve->setObjectName(QStringLiteral("resolve"));
    m_resolve->setPlaceholderText(tr("HOST:PORT:ADDRESS, ..."));
    m_resolve->setToolTip(tr("As curl's --resolve: connect to ADDRESS for HOST and PORT. The URL, the Host header "
                             "and the certificate check keep HOST. Several entries separated by spaces."));
    form->addRow(tr("Connect timeout:"), m_connectTimeout);
    form->addRow(tr("IP version:"), m_ipFamily);
    form->addRow(tr("Resolve:"), m_resolve);
    form->addRow(QString(), m_keepAlive);
}

TransportOptions TransportForm::transport() const
{
    TransportOptions t;
    t.caBundlePath = m_caBundle->text().trimmed();
    t.clientCertificatePath = m_clientCertificate->text().trimmed();
    t.clientKeyPath = m_clientKey->isEnabled() ? m_clientKey->text().trimmed() : QString();
    t.clientKeyPassphrase = m_passphrase->text();
    t.tlsFloor = dataOf<TransportOptions::TlsFloor>(m_tlsFloor);
    if (!m_preferences && !m_insecureHost.isEmpty())
        t.insecureHosts = QStringList{m_insecureHost};
    t.proxyMode = dataOf<TransportOptions::ProxyMode>(m_proxyMode);
    const bool explicitProxy
        = t.proxyMode == TransportOptions::ProxyMode::Http || t.proxyMode == TransportOptions::ProxyMode::Socks5;
    if (explicitProxy) {
        t.proxyHost = m_proxyHost->text().trimmed();
        t.proxyPort = static_cast<quint16>(m_proxyPort->value());
        t.proxyUser = m_proxyUser->text();
        t.proxyPassword = m_proxyPassword->text();
    }
    t.httpVersion = dataOf<TransportOptions::HttpVersion>(m_httpVersion);
    if (m_connectTimeout->value() > 0.0)
        t.connectTimeoutMs = m_connectTimeout->value() * 1000.0;
    t.ipFamily = dataOf<TransportOptions::IpFamily>(m_ipFamily);
    t.keepAlive = m_keepAlive->isChecked();
    // Entries that cannot be read are left out here; validate() names them.
    for (const QString &entry : m_resolve->text().split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        if (const Core::Result<Core::HostPin> pin = Core::HostPin::parse(entry))
            t.resolve.append(*pin);
    }
    return t;
}

void TransportForm::setTransport(const TransportOptions &options)
{
    m_filling = true;
    m_caBundle->setText(QDir::toNativeSeparators(options.caBundlePath));
    m_clientCertificate->setText(QDir::toNativeSeparators(options.clientCertificatePath));
    m_clientKey->setText(QDir::toNativeSeparators(options.clientKeyPath));
    m_passphrase->setText(options.clientKeyPassphrase);
    selectData(m_tlsFloor, options.tlsFloor);
    selectData(m_proxyMode, options.proxyMode);
    // Host, port and login stay in the fields while another mode is chosen.
    if (!options.proxyHost.isEmpty() || options.proxyPort != 0
        || options.proxyMode != TransportOptions::ProxyMode::None) {
        m_proxyHost->setText(options.proxyHost);
        m_proxyPort->setValue(options.proxyPort);
        m_proxyUser->setText(options.proxyUser);
        m_proxyPassword->setText(options.proxyPassword);
    }
    selectData(m_httpVersion, options.httpVersion);
    m_connectTimeout->setValue(options.connectTimeoutMs.value_or(0.0) / 1000.0);
    selectData(m_ipFamily, options.ipFamily);
    m_keepAlive->setChecked(options.keepAlive);
    QStringList pins;
    for (const Core::HostPin &pin : options.resolve)
        pins.append(pin.text());
    m_resolve->setText(pins.join(QLatin1Char(' ')));
    m_insecureHost = m_preferences ? QString() : options.insecureHosts.value(0);
    m_droppedNote.clear();
    {
        const QSignalBlocker blocker(m_insecure);
        m_insecure->setChecked(!m_insecureHost.isEmpty());
    }
    m_filling = false;
    updateEnabled();
    updateInsecureText();
    validate();
}

void TransportForm::setHost(const QString &host)
{
    // Also with the same host: a draft just filled in may carry an exemption for another.
    const bool dropsExemption
        = !m_insecureHost.isEmpty() && !host.isEmpty() && host.compare(m_insecureHost, Qt::CaseInsensitive) != 0;
    if (host == m_host && !dropsExemption)
        return;
    m_host = host;
    if (dropsExemption) {
        m_droppedNote
            = tr("Certificate errors of %1 are no longer ignored: the URL now goes to %2.").arg(m_insecureHost, host);
        m_insecureHost.clear();
        const QSignalBlocker blocker(m_insecure);
        m_insecure->setChecked(false);
    }
    updateEnabled();
    updateInsecureText();
    validate();
}

void TransportForm::setDefaults(const TransportOptions &defaults)
{
    m_defaults = defaults;
}

void TransportForm::setPreferencesMode(bool preferences)
{
    m_preferences = preferences;
    m_useDefaults->setVisible(!preferences);
    if (auto *form = qobject_cast<QFormLayout *>(m_insecure->parentWidget()->layout()))
        form->setRowVisible(m_insecure, !preferences);
    else
        m_insecure->setVisible(!preferences);
    if (preferences) {
        m_insecureHost.clear();
        const QSignalBlocker blocker(m_insecure);
        m_insecure->setChecked(false);
        m_secretsNote->setText(tr("New requests start from these settings. Passphrases and passwords are not "
                                  "saved, and ignoring certificate errors cannot be a default: it is chosen per "
                                  "request and host, in the request's Connection part."));
    }
    updateInsecureText();
    validate();
}

void TransportForm::setFileChooser(FileChooser chooser)
{
    m_chooseFile = std::move(chooser);
}

void TransportForm::handleEdited()
{
    if (m_filling)
        return;
    updateEnabled();
    validate();
    Q_EMIT transportChanged();
}

void TransportForm::handleInsecureToggled(bool on)
{
    m_droppedNote.clear();
    m_insecureHost = on ? m_host : QString();
    updateInsecureText();
    validate();
    if (!m_filling)
        Q_EMIT transportChanged();
}

void TransportForm::updateEnabled()
{
    const auto mode = dataOf<TransportOptions::ProxyMode>(m_proxyMode);
    const bool explicitProxy = mode == TransportOptions::ProxyMode::Http || mode == TransportOptions::ProxyMode::Socks5;
    for (QWidget *w : std::initializer_list<QWidget *>{m_proxyHost, m_proxyPort, m_proxyUser, m_proxyPassword})
        w->setEnabled(explicitProxy);
    const bool pkcs12 = isPkcs12(m_clientCertificate->text());
    m_clientKey->setEnabled(!pkcs12);
    m_clientKey->setToolTip(pkcs12 ? tr("A PKCS#12 file holds its key: only its passphrase is needed.")
                                   : tr("The client certificate's private key (PEM), when it is not in the "
                                        "certificate's file"));
    m_insecure->setEnabled(!m_host.isEmpty() || m_insecure->isChecked());
}

void TransportForm::updateInsecureText()
{
    m_insecure->setText(m_host.isEmpty() ? tr("Ignore certificate errors for this host")
                                         : tr("Ignore certificate errors for %1").arg(m_host));
    const bool on = !m_preferences && !m_insecureHost.isEmpty();
    m_insecureWarning->setVisible(on);
    if (on) {
        m_insecureWarning->setText(tr("\u26a0 Warning: certificate errors of %1 are ignored. Its identity is not "
                                      "checked, so anyone on the path could pose as it. Not saved: off at the next "
                                      "start.")
                                       .arg(m_insecureHost));
    }
}

void TransportForm::validate()
{
    const TransportOptions t = transport();
    QString problem;
    for (const QString &entry : m_resolve->text().split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        if (const Core::Result<Core::HostPin> pin = Core::HostPin::parse(entry); !pin && problem.isEmpty())
            problem = tr("Resolve: %1").arg(pin.error());
    }
    if (problem.isEmpty()) {
        if (const auto checked = Core::checkTransport(t); !checked)
            problem = checked.error();
        else if (const auto prepared = Core::PreparedTransport::prepare(t); !prepared)
            problem = prepared.error();
    }
    m_problem = problem;
    if (!problem.isEmpty())
        m_message->setMessage(FieldMessage::Kind::Error, problem);
    else if (!m_droppedNote.isEmpty())
        m_message->setMessage(FieldMessage::Kind::Note, m_droppedNote);
    else
        m_message->clear();
}

} // namespace RetryLab::Ui
