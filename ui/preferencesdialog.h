#pragma once

#include "core/record/transportoptions.h"

#include <QDialog>

class QDialogButtonBox;

namespace RetryLab::Ui {

class FieldMessage;
class TransportForm;

/// Tools → Preferences: the connection settings new requests start from (TLS
/// files and floor, proxy, HTTP version). OK is refused while a file cannot be
/// used, with the file named; ignoring certificate errors cannot be a default.
class PreferencesDialog final : public QDialog
{
    Q_OBJECT

public:
    explicit PreferencesDialog(const Core::TransportOptions &defaultTransport, QWidget *parent = nullptr);

    Core::TransportOptions defaultTransport() const;
    TransportForm *transportForm() const { return m_form; }

private:
    void refresh();

    TransportForm *m_form;
    QDialogButtonBox *m_buttons;
};

} // namespace RetryLab::Ui
