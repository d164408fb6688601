#include "ui/policy/endpointpoliciesdialog.h"

#include "core/policy/presets.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace RetryLab::Ui {

namespace {

enum EndpointColumn { HostColumn, PathColumn, PolicyColumn, EndpointColumnCount };

} // namespace

EndpointPoliciesDialog::EndpointPoliciesDialog(const QList<Core::BackoffPolicy> &userPresets, QWidget *parent)
    : QDialog(parent)
{
    setObjectName(QStringLiteral("endpointPolicies"));
    setWindowTitle(tr("Endpoint policies"));
    for (const Core::Presets::Preset &preset : Core::Presets::all()) {
        m_choices.append(preset.policy);
        m_origins.append(tr("preset %1").arg(preset.id));
    }
    for (const Core::BackoffPolicy &policy : userPresets) {
        m_choices.append(policy);
        m_origins.append(tr("user preset %1").arg(policy.name));
    }

    auto *layout = new QVBoxLayout(this);
    auto *intro
        = new QLabel(tr("Tune the policy to the operation (the Retry pattern): requests whose URL matches a row "
                        "run under its policy, the first matching row wins, and the others under the policy "
                        "dock's. A host takes * and ? as wildcards; a path takes * within a segment, ** across "
                        "segments and ? for one character (/upload/**); an empty one matches anything. The "
                        "circuit breaker and the retry budget stay the dock policy's, shared by every request."),
            this);
    intro->setWordWrap(true);
    layout->addWidget(intro);

    m_table = new QTableWidget(0, EndpointColumnCount, this);
    m_table->setObjectName(QStringLiteral("endpointTable"));
    m_table->setHorizontalHeaderLabels({tr("Host"), tr("Path"), tr("Policy")});
    m_table->horizontalHeader()->setSectionResizeMode(PolicyColumn, QHeaderView::Stretch);
    m_table->verticalHeader()->hide();
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    connect(m_table, &QTableWidget::itemChanged, this, &EndpointPoliciesDialog::refreshProblem);
    layout->addWidget(m_table, 1);

    auto *buttons = new QHBoxLayout;
    auto *add = new QPushButton(tr("&Add"), this);
    add->setObjectName(QStringLiteral("addEndpoint"));
    connect(add, &QPushButton::clicked, this, [this] { addRow(); });
    m_remove = new QPushButton(tr("&Remove"), this);
    m_remove->setObjectName(QStringLiteral("removeEndpoint"));
    connect(m_remove, &QPushButton::clicked, this, [this] {
        const int row = m_table->currentRow();
        if (row >= 0)
            m_table->removeRow(row);
        refreshProblem();
    });
    buttons->addWidget(add);
    buttons->addWidget(m_remove);
    buttons->addStretch(1);
    layout->addLayout(buttons);

    m_problem = new QLabel(this);
    m_problem->setObjectName(QStringLiteral("endpointProblem"));
    m_problem->setWordWrap(true);
    layout->addWidget(m_problem);

    auto *box = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(box, &QDialogButtonBox::accepted, this, [this] {
        if (problem().isEmpty())
            accept();
    });
    connect(box, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(box);
    resize(720, 360);
    refreshProblem();
}

void EndpointPoliciesDialog::addRow(const QString &host, const QString &path, int choice)
{
    const int row = m_table->rowCount();
    m_table->insertRow(row);
    m_table->setItem(row, HostColumn, new QTableWidgetItem(host));
    m_table->setItem(row, PathColumn, new QTableWidgetItem(path.isEmpty() && host.isEmpty() ? QString() : path));
    auto *combo = new QComboBox(m_table);
    combo->setFocusPolicy(Qt::StrongFocus);
    for (qsizetype i = 0; i < m_choices.size(); ++i)
        combo->addItem(m_choices.at(i).name, m_origins.at(i));
    combo->setCurrentIndex(std::clamp(choice, 0, int(m_choices.size()) - 1));
    m_table->setCellWidget(row, PolicyColumn, combo);
    m_table->setCurrentCell(row, HostColumn);
    refreshProblem();
}

void EndpointPoliciesDialog::setPolicies(const QList<Core::EndpointPolicy> &policies)
{
    m_table->setRowCount(0);
    for (const Core::EndpointPolicy &endpoint : policies) {
        // A rule from an earlier session keeps its policy even when that preset changed since.
        int choice = int(m_origins.indexOf(endpoint.origin));
        if (choice < 0 || !(m_choices.at(choice) == endpoint.policy)) {
            m_choices.append(endpoint.policy);
            m_origins.append(endpoint.origin.isEmpty() ? tr("saved %1").arg(endpoint.policy.name) : endpoint.origin);
            choice = int(m_choices.size()) - 1;
            for (int row = 0; row < m_table->rowCount(); ++row) {
                if (auto *combo = qobject_cast<QComboBox *>(m_table->cellWidget(row, PolicyColumn)))
                    combo->addItem(endpoint.policy.name, m_origins.constLast());
            }
        }
        addRow(endpoint.host, endpoint.path, choice);
    }
    refreshProblem();
}

QList<Core::EndpointPolicy> EndpointPoliciesDialog::policies() const
{
    QList<Core::EndpointPolicy> list;
    for (int row = 0; row < m_table->rowCount(); ++row) {
        Core::EndpointPolicy endpoint;
        endpoint.host = m_table->item(row, HostColumn) ? m_table->item(row, HostColumn)->text().trimmed() : QString();
        endpoint.path = m_table->item(row, PathColumn) ? m_table->item(row, PathColumn)->text().trimmed() : QString();
        if (!endpoint.path.isEmpty() && !endpoint.path.startsWith(QLatin1Char('/')))
            continue;
        const auto *combo = qobject_cast<QComboBox *>(m_table->cellWidget(row, PolicyColumn));
        const int choice = combo ? combo->currentIndex() : -1;
        if (choice < 0 || choice >= m_choices.size())
            continue;
        endpoint.policy = m_choices.at(choice);
        endpoint.origin = m_origins.at(choice);
        list.append(endpoint);
    }
    return list;
}

QString EndpointPoliciesDialog::problem() const
{
    for (int row = 0; row < m_table->rowCount(); ++row) {
        const QString path
            = m_table->item(row, PathColumn) ? m_table->item(row, PathColumn)->text().trimmed() : QString();
        if (!path.isEmpty() && !path.startsWith(QLatin1Char('/')))
            return tr("Row %1: a path pattern starts with / (got \"%2\").").arg(row + 1).arg(path);
    }
    return {};
}

void EndpointPoliciesDialog::refreshProblem()
{
    if (!m_problem)
        return;
    m_problem->setText(problem());
    m_problem->setVisible(!m_problem->text().isEmpty());
    m_remove->setEnabled(m_table->rowCount() > 0);
}

} // namespace RetryLab::Ui
