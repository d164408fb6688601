#pragma once

#include "core/collections/environment.h"

#include <QDialog>
#include <QList>

class QCheckBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QTableWidget;

namespace RetryLab::Ui {

/// Edits the environments: their names, their variables (name, value, secret)
/// and whether the secret values may be kept on disk. Works on a copy: nothing
/// changes until OK, and OK is refused (with the reason) while a name is empty,
/// taken twice or not a variable name.
class EnvironmentDialog final : public QDialog
{
    Q_OBJECT

public:
    explicit EnvironmentDialog(const QList<Core::Environment> &environments, QWidget *parent = nullptr);

    QList<Core::Environment> environments() const;
    /// Why OK is refused; empty when the environments can be used.
    QString problem() const;

    QListWidget *list() const { return m_list; }
    QTableWidget *table() const { return m_table; }
    QLineEdit *nameField() const { return m_name; }
    QCheckBox *storeSecretsBox() const { return m_storeSecrets; }
    QCheckBox *revealSecretsBox() const { return m_revealSecrets; }

    void addEnvironment();
    void removeEnvironment();
    void addVariable();
    void removeVariable();

    void accept() override;

private:
    void storeCurrent();
    void showCurrent();

    QList<Core::Environment> m_environments;
    int m_shown = -1;
    QListWidget *m_list;
    QLineEdit *m_name;
    QCheckBox *m_storeSecrets;
    QCheckBox *m_revealSecrets;
    QTableWidget *m_table;
    QLabel *m_message;
};

} // namespace RetryLab::Ui
