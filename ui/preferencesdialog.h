#pragma once

#include "core/record/transportoptions.h"
#include "ui/session/settings/settings.h"

#include <QDialog>

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;

namespace RetryLab::Ui {

class FieldMessage;
class TransportForm;

/// Tools → Preferences: the connection settings new requests start from (TLS
/// files and floor, proxy, HTTP version), and the monitors' history (a SQLite
/// file or a PostgreSQL URL) with what closing the window does while monitors
/// run. OK is refused while a file cannot be used or the history's address does
/// not read, with the reason named; ignoring certificate errors cannot be a
/// default. Whether the history opens is tested when it is switched to.
class PreferencesDialog final : public QDialog
{
    Q_OBJECT

public:
    explicit PreferencesDialog(const Core::TransportOptions &defaultTransport, QWidget *parent = nullptr);

    Core::TransportOptions defaultTransport() const;
    TransportForm *transportForm() const { return m_form; }

    /// The history in use (`inUse`, shown) and the one chosen (empty: the default file).
    void setMonitorDatabase(const QString &chosen, const QString &inUse);
    QString monitorDatabase() const;
    void setCloseWithMonitors(Settings::CloseWithMonitors choice);
    Settings::CloseWithMonitors closeWithMonitors() const;
    /// Why the history's address cannot be used; empty when it can.
    QString monitorDatabaseProblem() const;

private:
    void refresh();
    void browseDatabase();

    TransportForm *m_form;
    QLineEdit *m_database;
    QLabel *m_databaseInUse;
    FieldMessage *m_databaseMessage;
    QComboBox *m_closeChoice;
    QDialogButtonBox *m_buttons;
};

} // namespace RetryLab::Ui
