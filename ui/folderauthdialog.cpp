#include "ui/folderauthdialog.h"

#include "ui/request/authform.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QScrollArea>
#include <QVBoxLayout>

namespace RetryLab::Ui {

FolderAuthDialog::FolderAuthDialog(const QString &what, const Core::AuthSpec &current, QWidget *parent)
    : QDialog(parent), m_form(new AuthForm)
{
    setObjectName(QStringLiteral("folderAuthDialog"));
    setWindowTitle(tr("Auth of \u201c%1\u201d").arg(what));
    auto *note = new QLabel(tr("Requests in \u201c%1\u201d whose auth is \u201cNo auth\u201d are sent with this; a "
                               "folder inside may set its own. \u201cNo auth\u201d here hands down what the "
                               "folder around it has.")
                                .arg(what));
    note->setWordWrap(true);
    m_form->setAuth(current);
    auto *scroll = new QScrollArea;
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(m_form);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(note);
    layout->addWidget(scroll, 1);
    layout->addWidget(buttons);
    resize(480, 420);
}

Core::AuthSpec FolderAuthDialog::auth() const
{
    return m_form->auth();
}

std::optional<Core::AuthSpec> FolderAuthDialog::ask(QWidget *parent, const QString &what, const Core::AuthSpec &current)
{
    FolderAuthDialog dialog(what, current, parent);
    if (dialog.exec() != QDialog::Accepted)
        return std::nullopt;
    return dialog.auth();
}

} // namespace RetryLab::Ui
