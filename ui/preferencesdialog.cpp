#include "ui/preferencesdialog.h"

#include "ui/request/transportform.h"

#include <QDialogButtonBox>
#include <QGroupBox>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace RetryLab::Ui {

PreferencesDialog::PreferencesDialog(const Core::TransportOptions &defaultTransport, QWidget *parent)
    : QDialog(parent), m_form(new TransportForm),
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

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(box);
    layout->addWidget(m_buttons);
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

void PreferencesDialog::refresh()
{
    QPushButton *ok = m_buttons->button(QDialogButtonBox::Ok);
    ok->setEnabled(m_form->problem().isEmpty());
    ok->setToolTip(m_form->problem());
}

} // namespace RetryLab::Ui
