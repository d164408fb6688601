#include "ui/observe/clientsview.h"

#include "core/observe/observationplan.h"
#include "core/observe/policyinference.h"
#include "core/observe/verdicts.h"
#include "ui/observe/clientlistmodel.h"
#include "ui/observe/verdictpanel.h"
#include "ui/session/hosting/embeddedserver.h"
#include "ui/session/hosting/observation.h"
#include "ui/widgets/flowlayout.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

namespace RetryLab::Ui {

ClientsView::ClientsView(Observation *observation, EmbeddedServer *server, QWidget *laneViews, QWidget *parent)
    : QWidget(parent), m_observation(observation), m_server(server), m_observe(new QCheckBox(tr("Observe clients"))),
      m_plan(new QComboBox), m_loadPlan(new QPushButton(tr("Load plan..."))), m_gap(new QDoubleSpinBox),
      m_clear(new QPushButton(tr("Clear"))), m_url(new QLabel), m_copyUrl(new QPushButton(tr("Copy curl command"))),
      m_status(new QLabel), m_clients(new ClientListModel(this)), m_clientTable(new QTableView),
      m_verdictPanel(new VerdictPanel), m_refresh(new QTimer(this))
{
    setObjectName(QStringLiteral("clientsView"));
    m_observe->setObjectName(QStringLiteral("observeToggle"));
    m_observe->setToolTip(tr("Group the requests other programs send to the embedded server into logical requests, "
                             "serve them the plan, and infer how each client retries. Paths that are not the "
                             "server's endpoints get the plan's answers instead of 404 while this is on."));
    m_plan->setObjectName(QStringLiteral("planCombo"));
    for (const Core::ObservationPlan &plan : Core::ObservationPlan::presets()) {
        m_plan->addItem(plan.name, plan.id);
        m_plan->setItemData(m_plan->count() - 1, plan.description, Qt::ToolTipRole);
    }
    m_plan->setToolTip(tr("What each logical request of an observed client is served"));
    m_loadPlan->setObjectName(QStringLiteral("loadPlan"));
    m_gap->setObjectName(QStringLiteral("gapWindow"));
    m_gap->setRange(0.01, 3600.0);
    m_gap->setDecimals(2);
    m_gap->setSuffix(tr(" s"));
    m_gap->setValue(observation->gapWindowMs() / 1000.0);
    m_gap->setToolTip(tr("The longest pause between an answer and a retry of the same request; a longer pause "
                         "starts a new logical request"));
    m_clear->setObjectName(QStringLiteral("clearObservation"));
    m_url->setObjectName(QStringLiteral("observeUrl"));
    m_url->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_url->setWordWrap(true);
    m_copyUrl->setObjectName(QStringLiteral("copyCurl"));
    m_status->setObjectName(QStringLiteral("observeStatus"));
    m_status->setWordWrap(true);
    m_plan->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_plan->setMinimumContentsLength(12);

    // The controls wrap onto a second row in a narrow window; a label stays with its field.
    const auto group = [](std::initializer_list<QWidget *> widgets) {
        auto *box = new QWidget;
        auto *row = new QHBoxLayout(box);
        row->setContentsMargins(0, 0, 0, 0);
        for (QWidget *widget : widgets)
            row->addWidget(widget);
        return box;
    };
    auto *controls = new FlowLayout(nullptr, 12, 4);
    controls->addWidget(m_observe);
    controls->addWidget(group({new QLabel(tr("Plan:")), m_plan, m_loadPlan}));
    controls->addWidget(group({new QLabel(tr("Gap window:")), m_gap, m_clear}));
    auto *urlRow = new QHBoxLayout;
    urlRow->addWidget(m_url, 1);
    urlRow->addWidget(m_copyUrl);

    m_clientTable->setObjectName(QStringLiteral("clientTable"));
    m_clientTable->setModel(m_clients);
    m_clientTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_clientTable->setSelectionMode(QAbstractItemView::SingleSelection);
    m_clientTable->verticalHeader()->hide();
    m_clientTable->horizontalHeader()->setStretchLastSection(false);
    m_clientTable->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_clientTable->horizontalHeader()->setSectionResizeMode(ClientListModel::Name, QHeaderView::Stretch);
    m_clientTable->setColumnHidden(ClientListModel::UserAgent, true);
    m_clientTable->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed);

    auto *left = new QSplitter(Qt::Vertical);
    left->addWidget(m_clientTable);
    left->addWidget(laneViews);
    left->setStretchFactor(0, 1);
    left->setStretchFactor(1, 3);
    m_clientTable->setMinimumHeight(m_clientTable->verticalHeader()->defaultSectionSize() * 4);
    auto *split = new QSplitter(Qt::Horizontal);
    split->setObjectName(QStringLiteral("clientsSplitter"));
    split->addWidget(left);
    split->addWidget(m_verdictPanel);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    split->setSizes({900, 700});

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addLayout(urlRow);
    layout->addWidget(split, 1);
    layout->addWidget(m_status);

    m_refresh->setSingleShot(true);
    m_refresh->setInterval(300);
    connect(m_refresh, &QTimer::timeout, this, &ClientsView::refresh);

    connect(m_observe, &QCheckBox::toggled, observation, &Observation::setEnabled);
    connect(observation, &Observation::enabledChanged, m_observe, &QCheckBox::setChecked);
    connect(observation, &Observation::activeChanged, this, &ClientsView::updateStatus);
    connect(observation, &Observation::attemptFinished, this, &ClientsView::scheduleRefresh);
    connect(observation, &Observation::attemptStarted, this, &ClientsView::scheduleRefresh);
    connect(observation, &Observation::clientsChanged, this, &ClientsView::scheduleRefresh);
    connect(observation, &Observation::cleared, this, &ClientsView::refresh);
    connect(m_plan, &QComboBox::currentIndexChanged, this, &ClientsView::applyPlan);
    connect(m_loadPlan, &QPushButton::clicked, this, &ClientsView::loadPlanFile);
    connect(m_gap, &QDoubleSpinBox::valueChanged, observation,
        [observation](double seconds) { observation->setGapWindowMs(seconds * 1000.0); });
    connect(m_clear, &QPushButton::clicked, observation, &Observation::clear);
    connect(m_copyUrl, &QPushButton::clicked, this, [this] {
        if (m_server && m_server->isRunning())
            QApplication::clipboard()->setText(
                QStringLiteral("curl --retry 3 %1/items/1").arg(m_server->baseUrl().toString()));
    });
    connect(m_clients, &ClientListModel::renameRequested, observation, &Observation::renameClient);
    connect(m_clientTable->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &ClientsView::refresh);
    connect(m_verdictPanel, &VerdictPanel::policyRequested, this, &ClientsView::policyRequested);
    if (server)
        connect(server, &EmbeddedServer::runningChanged, this, &ClientsView::updateStatus);
    m_observe->setChecked(observation->isEnabled());
    updateStatus();
}

QString ClientsView::selectedClient() const
{
    return m_clients->clientId(m_clientTable->selectionModel()->currentIndex().row());
}

void ClientsView::selectClient(const QString &clientId)
{
    const int row = m_clients->rowOf(clientId);
    if (row >= 0)
        m_clientTable->selectRow(row);
}

void ClientsView::scheduleRefresh()
{
    if (!m_refresh->isActive())
        m_refresh->start();
}

void ClientsView::refresh()
{
    if (!m_observation)
        return;
    const QString selected = selectedClient();
    m_clients->setClients(m_observation->clients());
    if (selected.isEmpty() && m_clients->rowCount() > 0)
        m_clientTable->selectRow(0); // calls refresh() again through the selection
    const QString client = selectedClient();
    if (client.isEmpty()) {
        m_verdictPanel->showNothing(m_observation->isActive()
                ? tr("No client has sent a request yet. Point one at the URL above.")
                : tr("Turn on \"Observe clients\" and point a client at the URL above."));
    } else {
        const QList<Core::LogicalRequest> requests = m_observation->logicalRequests(client);
        const Core::InferredPolicy policy = Core::PolicyInference::infer(requests);
        const int row = m_clients->rowOf(client);
        m_verdictPanel->show(
            row >= 0 ? m_clients->clients()[row].name : client, policy, Core::Judge::judge(requests, policy));
    }
    updateStatus();
}

void ClientsView::applyPlan(int index)
{
    if (!m_observation || index < 0)
        return;
    const auto plan = Core::ObservationPlan::load(m_plan->itemData(index).toString());
    if (plan)
        m_observation->setPlan(*plan);
    else if (const QVariant custom = m_plan->itemData(index, Qt::UserRole + 1); custom.isValid())
        m_observation->setPlan(*Core::ObservationPlan::fromJson(custom.toJsonObject()));
}

void ClientsView::loadPlanFile()
{
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Load an observation plan"), QString(), tr("Observation plans (*.json);;All files (*)"));
    if (path.isEmpty())
        return;
    const auto plan = Core::ObservationPlan::load(path);
    if (!plan) {
        m_status->setText(tr("The plan was not loaded: %1").arg(plan.error()));
        return;
    }
    m_plan->addItem(tr("%1 (file)").arg(plan->name), plan->id);
    m_plan->setItemData(m_plan->count() - 1, plan->toJson(), Qt::UserRole + 1);
    m_plan->setItemData(m_plan->count() - 1, path, Qt::ToolTipRole);
    m_plan->setCurrentIndex(m_plan->count() - 1);
    m_observation->setPlan(*plan);
}

void ClientsView::updateStatus()
{
    const bool running = m_server && m_server->isRunning();
    if (!running) {
        m_url->setText(tr("The embedded server is not running: start it on the Server tab."));
    } else {
        m_url->setText(tr("Point a client at any path of %1 but the endpoints, e.g. %1/items/1")
                           .arg(m_server->baseUrl().toString()));
    }
    m_copyUrl->setEnabled(running);
    if (!m_observation)
        return;
    QString text;
    if (!m_observation->isEnabled())
        text = tr("Not observing.");
    else if (!m_observation->isActive())
        text = tr("Observing as soon as the server runs.");
    else
        text = tr("Observing with the plan \"%1\".").arg(m_observation->plan().name);
    int requests = 0;
    int attempts = 0;
    for (const Core::ObservedClient &c : m_clients->clients()) {
        requests += c.logicalRequests;
        attempts += c.attempts;
    }
    if (!m_clients->clients().isEmpty())
        text += tr(" %n client(s), ", nullptr, int(m_clients->clients().size()))
            + tr("%n logical request(s), ", nullptr, requests) + tr("%n attempt(s).", nullptr, attempts);
    if (const int dropped = m_observation->isActive() ? m_observation->droppedLogicalRequests() : 0; dropped > 0)
        text += tr(" %n older logical request(s) dropped to keep memory bounded.", nullptr, dropped);
    m_status->setText(text);
}

} // namespace RetryLab::Ui
