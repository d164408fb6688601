#pragma once

#include "core/auth/authspec.h"

#include <QDialog>

#include <optional>

namespace RetryLab::Ui {

class AuthForm;

/// The auth of a collection or a folder of the Collections dock: the Auth
/// tab's form, with a line saying which requests are sent with it (those whose
/// own auth is "No auth"; a folder inside may set its own).
class FolderAuthDialog final : public QDialog
{
    Q_OBJECT

public:
    FolderAuthDialog(const QString &what, const Core::AuthSpec &current, QWidget *parent = nullptr);

    Core::AuthSpec auth() const;
    AuthForm *form() const { return m_form; }

    /// Shows the dialog; the auth chosen, or nothing when cancelled.
    static std::optional<Core::AuthSpec> ask(QWidget *parent, const QString &what, const Core::AuthSpec &current);

private:
    AuthForm *m_form;
};

} // namespace RetryLab::Ui
