#include "ui/collections/environmentdialog.h"

#include "core/collections/variables.h"
#include "ui/widgets/credentialmask.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSet>
#include <QStyledItemDelegate>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace RetryLab::Ui {

namespace {

enum Column { NameColumn, ValueColumn, SecretColumn, ColumnCount };

bool isSecretRow(const QModelIndex &index)
{
    return index.siblingAtColumn(SecretColumn).data(Qt::CheckStateRole).toInt() == Qt::Checked;
}

// Secret values show as bullets (and are typed as a password) until "Show secret
// values" is ticked, as credentials are in the header table: a screen share must
// not leak a token.
class SecretValueDelegate final : public QStyledItemDelegate
{
public:
    SecretValueDelegate(const QCheckBox *reveal, QObject *parent) : QStyledItemDelegate(parent), m_reveal(reveal) { }

protected:
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override
    {
        QStyledItemDelegate::initStyleOption(option, index);
        if (index.column() == ValueColumn && isSecretRow(index) && !m_reveal->isChecked())
            option->text = CredentialMask::masked(option->text);
    }

public:
    QWidget *createEditor(QWidget *parent, const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        QWidget *editor = QStyledItemDelegate::createEditor(parent, option, index);
        if (auto *line = qobject_cast<QLineEdit *>(editor);
            line && index.column() == ValueColumn && isSecretRow(index) && !m_reveal->isChecked())
            line->setEchoMode(QLineEdit::Password);
        return editor;
    }

private:
    const QCheckBox *m_reveal;
};

} // namespace

EnvironmentDialog::EnvironmentDialog(const QList<Core::Environment> &environments, QWidget *parent)
    : QDialog(parent), m_environments(environments), m_list(new QListWidget), m_name(new QLineEdit),
      m_storeSecrets(new QCheckBox(tr("Keep secret values on disk"))),
      m_revealSecrets(new QCheckBox(tr("Show secret values"))), m_table(new QTableWidget(0, ColumnCount)),
      m_message(new QLabel)
{
    setWindowTitle(tr("Environments"));
    setObjectName(QStringLiteral("environmentDialog"));
    m_list->setObjectName(QStringLiteral("environmentList"));
    m_name->setObjectName(QStringLiteral("environmentName"));
    m_table->setObjectName(QStringLiteral("variableTable"));
    m_table->setHorizontalHeaderLabels({tr("Variable"), tr("Value"), tr("Secret")});
    m_table->horizontalHeader()->setSectionResizeMode(ValueColumn, QHeaderView::Stretch);
    m_table->verticalHeader()->hide();
    m_table->setItemDelegate(new SecretValueDelegate(m_revealSecrets, m_table));
    m_revealSecrets->setObjectName(QStringLiteral("revealSecrets"));
    connect(m_revealSecrets, &QCheckBox::toggled, m_table->viewport(), qOverload<>(&QWidget::update));
    m_storeSecrets->setToolTip(tr("Off: secret values are kept only until RetryLab closes, and typed again the next "
                                  "time. On: they are written to the environments file (plain text, in your data "
                                  "folder, never in a collection or an export)."));
    m_message->setWordWrap(true);

    auto *addEnvironmentButton = new QPushButton(tr("Add"));
    auto *removeEnvironmentButton = new QPushButton(tr("Remove"));
    auto *listButtons = new QHBoxLayout;
    listButtons->addWidget(addEnvironmentButton);
    listButtons->addWidget(removeEnvironmentButton);
    auto *left = new QVBoxLayout;
    left->addWidget(m_list, 1);
    left->addLayout(listButtons);

    auto *addVariableButton = new QPushButton(tr("Add variable"));
    auto *removeVariableButton = new QPushButton(tr("Remove variable"));
    auto *tableButtons = new QHBoxLayout;
    tableButtons->addWidget(addVariableButton);
    tableButtons->addWidget(removeVariableButton);
    tableButtons->addStretch();
    tableButtons->addWidget(m_revealSecrets);
    auto *form = new QFormLayout;
    form->addRow(tr("&Name:"), m_name);
    auto *right = new QVBoxLayout;
    right->addLayout(form);
    right->addWidget(m_table, 1);
    right->addLayout(tableButtons);
    right->addWidget(m_storeSecrets);
    right->addWidget(new QLabel(tr("Use a variable as {{name}} in the URL, a header or the body.")));

    auto *columns = new QHBoxLayout;
    columns->addLayout(left, 1);
    columns->addLayout(right, 3);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(columns, 1);
    layout->addWidget(m_message);
    layout->addWidget(buttons);
    resize(720, 420);

    for (const Core::Environment &environment : m_environments)
        m_list->addItem(environment.name);
    connect(m_list, &QListWidget::currentRowChanged, this, [this] {
        storeCurrent();
        showCurrent();
    });
    connect(m_name, &QLineEdit::textChanged, this, [this](const QString &text) {
        if (QListWidgetItem *item = m_list->item(m_shown); item && item->text() != text)
            item->setText(text);
        m_message->clear();
    });
    connect(m_table, &QTableWidget::itemChanged, m_message, &QLabel::clear);
    connect(addEnvironmentButton, &QPushButton::clicked, this, &EnvironmentDialog::addEnvironment);
    connect(removeEnvironmentButton, &QPushButton::clicked, this, &EnvironmentDialog::removeEnvironment);
    connect(addVariableButton, &QPushButton::clicked, this, &EnvironmentDialog::addVariable);
    connect(removeVariableButton, &QPushButton::clicked, this, &EnvironmentDialog::removeVariable);
    connect(buttons, &QDialogButtonBox::accepted, this, &EnvironmentDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &EnvironmentDialog::reject);
    m_list->setCurrentRow(m_environments.isEmpty() ? -1 : 0);
    showCurrent();
}

void EnvironmentDialog::storeCurrent()
{
    if (m_shown < 0 || m_shown >= m_environments.size())
        return;
    Core::Environment &environment = m_environments[m_shown];
    environment.name = m_name->text().trimmed();
    environment.storeSecrets = m_storeSecrets->isChecked();
    environment.variables.clear();
    for (int row = 0; row < m_table->rowCount(); ++row) {
        Core::EnvironmentVariable variable;
        variable.name = m_table->item(row, NameColumn) ? m_table->item(row, NameColumn)->text().trimmed() : QString();
        variable.value = m_table->item(row, ValueColumn) ? m_table->item(row, ValueColumn)->text() : QString();
        variable.secret
            = m_table->item(row, SecretColumn) && m_table->item(row, SecretColumn)->checkState() == Qt::Checked;
        if (variable.name.isEmpty() && variable.value.isEmpty())
            continue;
        environment.variables.append(variable);
    }
}

void EnvironmentDialog::showCurrent()
{
    m_shown = m_list->currentRow();
    const bool any = m_shown >= 0 && m_shown < m_environments.size();
    m_name->setEnabled(any);
    m_table->setEnabled(any);
    m_storeSecrets->setEnabled(any);
    m_table->setRowCount(0);
    if (!any) {
        m_name->clear();
        m_storeSecrets->setChecked(false);
        return;
    }
    const Core::Environment &environment = m_environments.at(m_shown);
    m_name->setText(environment.name);
    m_storeSecrets->setChecked(environment.storeSecrets);
    for (const Core::EnvironmentVariable &variable : environment.variables) {
        const int row = m_table->rowCount();
        m_table->insertRow(row);
        m_table->setItem(row, NameColumn, new QTableWidgetItem(variable.name));
        m_table->setItem(row, ValueColumn, new QTableWidgetItem(variable.value));
        auto *secret = new QTableWidgetItem;
        secret->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable | Qt::ItemIsSelectable);
        secret->setCheckState(variable.secret ? Qt::Checked : Qt::Unchecked);
        m_table->setItem(row, SecretColumn, secret);
    }
}

void EnvironmentDialog::addEnvironment()
{
    storeCurrent();
    QString name = tr("New environment");
    for (int n = 2; std::any_of(m_environments.cbegin(), m_environments.cend(),
             [&](const Core::Environment &each) { return each.name == name; });
         ++n)
        name = tr("New environment %1").arg(n);
    m_environments.append(Core::Environment{name, {}, false});
    m_list->addItem(name);
    m_shown = -1;
    m_list->setCurrentRow(int(m_environments.size()) - 1);
    m_name->setFocus();
    m_name->selectAll();
}

void EnvironmentDialog::removeEnvironment()
{
    const int row = m_list->currentRow();
    if (row < 0 || row >= m_environments.size())
        return;
    m_shown = -1;
    m_environments.removeAt(row);
    delete m_list->takeItem(row);
    showCurrent();
}

void EnvironmentDialog::addVariable()
{
    if (m_shown < 0)
        addEnvironment();
    const int row = m_table->rowCount();
    m_table->insertRow(row);
    m_table->setItem(row, NameColumn, new QTableWidgetItem);
    m_table->setItem(row, ValueColumn, new QTableWidgetItem);
    auto *secret = new QTableWidgetItem;
    secret->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable | Qt::ItemIsSelectable);
    secret->setCheckState(Qt::Unchecked);
    m_table->setItem(row, SecretColumn, secret);
    m_table->setCurrentCell(row, NameColumn);
    m_table->editItem(m_table->item(row, NameColumn));
}

void EnvironmentDialog::removeVariable()
{
    const int row = m_table->currentRow();
    if (row >= 0)
        m_table->removeRow(row);
}

QList<Core::Environment> EnvironmentDialog::environments() const
{
    const_cast<EnvironmentDialog *>(this)->storeCurrent();
    return m_environments;
}

QString EnvironmentDialog::problem() const
{
    QSet<QString> names;
    for (const Core::Environment &environment : environments()) {
        if (environment.name.isEmpty())
            return tr("An environment has no name.");
        if (names.contains(environment.name))
            return tr("Two environments are called \"%1\".").arg(environment.name);
        names.insert(environment.name);
        QSet<QString> variables;
        for (const Core::EnvironmentVariable &variable : environment.variables) {
            if (!Core::Variables::isValidName(variable.name)) {
                return tr(
                    "%1: \"%2\" is not a variable name (letters, digits, _ - and ., starting with a letter or _).")
                    .arg(environment.name, variable.name);
            }
            if (variables.contains(variable.name))
                return tr("%1: the variable \"%2\" is defined twice.").arg(environment.name, variable.name);
            variables.insert(variable.name);
        }
    }
    return {};
}

void EnvironmentDialog::accept()
{
    const QString why = problem();
    m_message->setText(why);
    if (why.isEmpty())
        QDialog::accept();
}

} // namespace RetryLab::Ui
