#include "ui/preferencesdialog.h"

#include "core/history/historylocation.h"
#include "ui/request/transportform.h"
#include "ui/widgets/fieldmessage.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace RetryLab::Ui {

PreferencesDialog::PreferencesDialog(const Core::TransportOptions &defaultTransport, QWidget *parent)
    : QDialog(parent), m_form(new TransportForm), m_database(new QLineEdit), m_databaseInUse(new QLabel),
      m_databaseMessage(new FieldMessage), m_closeChoice(new QComboBox),
      m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel))
{
    setObjectName(QStringLiteral("preferences"));
    setWindowTitle(tr("Preferences"));
    m_form->setObjectName(QStringLiteral("defaultTransport"));
    m_form->setPreferencesMode(true);
    m_form->setTransport(defaultTransport);

    auto *box = new QGroupBox(tr("Connection of new requests"));
    auto *boxLayout = new QVBoxLayout(box);
    boxLayout->addWidget(m_form);

    auto *monitors = new QGroupBox(tr("Monitors"));
    monitors->setObjectName(QStringLiteral("monitorPreferences"));
    auto *monitorForm = new QFormLayout(monitors);
    m_database->setObjectName(QStringLiteral("monitorDatabase"));
    m_database->setPlaceholderText(QDir::toNativeSeparators(Core::HistoryLocation::defaultDatabase()));
    m_database->setToolTip(tr("A SQLite file, or postgresql://USER@HOST:PORT/DB to share one history between "
                              "monitor agents. Empty: the default file."));
    m_database->setClearButtonEnabled(true);
    auto *browse = new QPushButton(tr("&Browse\u2026"));
    browse->setObjectName(QStringLiteral("browseMonitorDatabase"));
    auto *databaseRow = new QHBoxLayout;
    databaseRow->addWidget(m_database, 1);
    databaseRow->addWidget(browse);
    auto *historyLabel = new QLabel(tr("&History:"));
    historyLabel->setBuddy(m_database);
    monitorForm->addRow(historyLabel, databaseRow);
    m_databaseInUse->setObjectName(QStringLiteral("monitorDatabaseInUse"));
    m_databaseInUse->setWordWrap(true);
    m_databaseInUse->setTextInteractionFlags(Qt::TextSelectableByMouse);
    monitorForm->addRow(QString(), m_databaseInUse);
    monitorForm->addRow(QString(), m_databaseMessage);
    m_closeChoice->setObjectName(QStringLiteral("closeWithMonitors"));
    m_closeChoice->addItem(tr("Ask"), QVariant::fromValue(static_cast<int>(Settings::CloseWithMonitors::Ask)));
    m_closeChoice->addItem(tr("Keep monitoring, with the tray icon"),
        QVariant::fromValue(static_cast<int>(Settings::CloseWithMonitors::KeepMonitoring)));
    m_closeChoice->addItem(
        tr("Stop monitoring and quit"), QVariant::fromValue(static_cast<int>(Settings::CloseWithMonitors::Quit)));
    auto *closeLabel = new QLabel(tr("&Closing the window:"));
    closeLabel->setBuddy(m_closeChoice);
    monitorForm->addRow(closeLabel, m_closeChoice);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(box);
    layout->addWidget(monitors);
    layout->addWidget(m_buttons);
    connect(browse, &QPushButton::clicked, this, &PreferencesDialog::browseDatabase);
    connect(m_database, &QLineEdit::textChanged, this, &PreferencesDialog::refresh);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_form, &TransportForm::transportChanged, this, &PreferencesDialog::refresh);
    refresh();
    resize(sizeHint().width() * 5 / 4, sizeHint().height());
}

Core::TransportOptions PreferencesDialog::defaultTransport() const
{
    return m_form->transport();
}

void PreferencesDialog::setMonitorDatabase(const QString &chosen, const QString &inUse)
{
    m_database->setText(chosen);
    m_databaseInUse->setText(inUse.isEmpty() ? tr("No history is open.") : tr("In use: %1").arg(inUse));
    refresh();
}

QString PreferencesDialog::monitorDatabase() const
{
    return m_database->text().trimmed();
}

void PreferencesDialog::setCloseWithMonitors(Settings::CloseWithMonitors choice)
{
    const int index = m_closeChoice->findData(QVariant::fromValue(static_cast<int>(choice)));
    m_closeChoice->setCurrentIndex(std::max(0, index));
}

Settings::CloseWithMonitors PreferencesDialog::closeWithMonitors() const
{
    return static_cast<Settings::CloseWithMonitors>(m_closeChoice->currentData().toInt());
}

QString PreferencesDialog::monitorDatabaseProblem() const
{
    const QString text = monitorDatabase();
    if (text.isEmpty())
        return {};
    const auto location = Core::HistoryLocation::parse(text);
    if (!location)
        return location.error();
    if (!location->isPostgres()) {
        const QFileInfo file(location->path);
        if (!file.dir().exists())
            return tr("the folder %1 does not exist").arg(QDir::toNativeSeparators(file.absolutePath()));
        if (file.isDir())
            return tr("%1 is a folder; name a file in it").arg(QDir::toNativeSeparators(file.absoluteFilePath()));
    }
    return {};
}

void PreferencesDialog::browseDatabase()
{
    const QString current = monitorDatabase().isEmpty() ? Core::HistoryLocation::defaultDatabase() : monitorDatabase();
    const QString file = QFileDialog::getSaveFileName(this, tr("Monitor history"), current,
        tr("SQLite histories (*.sqlite *.db);;All files (*)"), nullptr, QFileDialog::DontConfirmOverwrite);
    if (!file.isEmpty())
        m_database->setText(QDir::toNativeSeparators(file));
}

void PreferencesDialog::refresh()
{
    const QString databaseProblem = monitorDatabaseProblem();
    if (databaseProblem.isEmpty())
        m_databaseMessage->clear();
    else
        m_databaseMessage->setMessage(FieldMessage::Kind::Error, databaseProblem);
    const QString problem = m_form->problem().isEmpty() ? databaseProblem : m_form->problem();
    QPushButton *ok = m_buttons->button(QDialogButtonBox::Ok);
    ok->setEnabled(problem.isEmpty());
    ok->setToolTip(problem);
}

} // namespace RetryLab::Ui
