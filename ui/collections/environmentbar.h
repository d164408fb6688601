#pragma once

#include <QStringList>
#include <QWidget>

class QComboBox;
class QToolButton;

namespace RetryLab::Ui {

/// The toolbar's environment switcher: a list of the environments ("No
/// environment" first) and a button that opens their editor.
class EnvironmentBar final : public QWidget
{
    Q_OBJECT

public:
    explicit EnvironmentBar(QWidget *parent = nullptr);

    /// Fills the list; emits nothing.
    void setEnvironments(const QStringList &names, const QString &active);
    QString current() const;
    QComboBox *comboBox() const { return m_combo; }
    QToolButton *editButton() const { return m_edit; }

Q_SIGNALS:
    /// The user picked an environment; empty: none.
    void environmentPicked(const QString &name);
    void editRequested();

private:
    QComboBox *m_combo;
    QToolButton *m_edit;
    bool m_filling = false;
};

} // namespace RetryLab::Ui
