#include "ui/proxy/proxyview.h"

#include "core/util/exportfile.h"
#include "ui/proxy/faultrulesmodel.h"
#include "ui/session/run/runsession.h"
#include "ui/widgets/flowlayout.h"
#include "ui/widgets/serverlogmodel.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QHostAddress>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QTabWidget>
#include <QTcpSocket>
#include <QTimer>
#include <QVBoxLayout>

namespace RetryLab::Ui {

using namespace RetryLab::Core;

namespace {

ProxySettings newProxy(int number)
{
    ProxySettings s;
    s.name = QObject::tr("proxy %1").arg(number);
    // RetryLab's own fault server, wherever it listens at the time: something to try at once.
    s.upstreamIsServer = true;
    // A rule to start from, switched off: a flaky service answering 503 to 30 % of requests.
    s.rules = *FaultRuleList::fromSpecs({QStringLiteral("status=503 retry-after=1 p=0.3 name=flaky off")});
    return s;
}

} // namespace

ProxyView::ProxyView(QWidget *laneViews, QWidget *parent)
    : QWidget(parent), m_list(new QListWidget), m_addProxy(new QPushButton(tr("Add"))),
      m_removeProxy(new QPushButton(tr("Remove"))), m_name(new QLineEdit), m_upstream(new QLineEdit),
      m_caBundle(new QLineEdit), m_record(new QLineEdit), m_chooseRecord(new QPushButton(tr("Choose\u2026"))),
      m_port(new QSpinBox), m_keepHost(new QCheckBox(tr("Keep Host"))), m_forward(new QCheckBox(tr("Forward proxy"))),
      m_startStop(new QPushButton(tr("Start"))), m_status(new QLabel), m_rules(new FaultRulesModel(this)),
      m_rulesView(new QTableView), m_rulesProblem(new QLabel), m_addRule(new QPushButton(tr("Add"))),
      m_removeRule(new QPushButton(tr("Remove"))), m_allOn(new QPushButton(tr("All on"))),
      m_allOff(new QPushButton(tr("All off"))), m_loadRules(new QPushButton(tr("Load…"))),
      m_saveRules(new QPushButton(tr("Save…"))), m_bottom(new QTabWidget), m_logView(new QTableView),
      m_clients(new QPlainTextEdit), m_refresh(new QTimer(this))
{
    m_list->setObjectName(QStringLiteral("proxyList"));
    m_addProxy->setObjectName(QStringLiteral("proxyAdd"));
    m_addRule->setObjectName(QStringLiteral("proxyAddRule"));
    m_allOn->setObjectName(QStringLiteral("proxyAllOn"));
    m_allOff->setObjectName(QStringLiteral("proxyAllOff"));
    m_upstream->setObjectName(QStringLiteral("proxyUpstream"));
    m_port->setObjectName(QStringLiteral("proxyPort"));
    m_startStop->setObjectName(QStringLiteral("proxyStart"));
    m_status->setObjectName(QStringLiteral("proxyStatus"));
    m_rulesView->setObjectName(QStringLiteral("proxyRules"));
    m_rulesProblem->setObjectName(QStringLiteral("proxyRulesProblem"));
    m_logView->setObjectName(QStringLiteral("proxyLog"));
    m_clients->setObjectName(QStringLiteral("proxyClients"));
    m_bottom->setObjectName(QStringLiteral("proxyBottom"));

    m_list->setMaximumWidth(150);
    m_keepHost->setToolTip(tr("Send the client's Host header on; by default it names the upstream."));
    m_forward->setObjectName(QStringLiteral("proxyForward"));
    m_forward->setToolTip(tr("A forward proxy instead: no upstream; clients point HTTP_PROXY and HTTPS_PROXY (or\n"
                             "their proxy option) at it and reach every service through it. Rules match host= too;\n"
                             "a CONNECT tunnel's faults act on the connection. Applies at the next start."));
    m_upstream->setPlaceholderText(QStringLiteral("https://api.example.com"));
    m_upstream->setToolTip(
        tr("The real service: an http or https URL, or {server} for RetryLab's own fault server (the\n"
           "default; it follows the server to whatever port it has); a path is put in front of every\n"
           "request's path."));
    m_caBundle->setObjectName(QStringLiteral("proxyCaBundle"));
    m_caBundle->setPlaceholderText(tr("none: the system's CAs only"));
    m_caBundle->setToolTip(tr("A PEM file of CA certificates trusted for an https upstream besides the system's.\n"
                              "Certificate errors are never ignored: the client gets 502 with the reason."));
    m_record->setObjectName(QStringLiteral("proxyRecord"));
    m_record->setPlaceholderText(tr("not recording"));
    m_record->setToolTip(tr("A folder to record every answer of the upstream into (status, headers, body, timing;\n"
                            "credentials masked), from the next start on. Serve it back offline from the Server\n"
                            "tab (Replay a recording\u2026) or with retrylab serve --replay."));
    m_chooseRecord->setObjectName(QStringLiteral("proxyChooseRecord"));
    m_chooseRecord->setToolTip(tr("Choose the folder to record answers into"));
    m_port->setRange(0, 65535);
    m_port->setSpecialValueText(tr("any free port"));
    m_port->setToolTip(tr("The port on 127.0.0.1 that clients are pointed at (the proxy listens on loopback only)."));
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status->setWordWrap(true);
    m_rulesProblem->setWordWrap(true);
    m_addRule->setToolTip(tr("Add a fault rule"));
    m_removeRule->setToolTip(tr("Remove the selected fault rule"));
    m_rulesProblem->setStyleSheet(QStringLiteral("color: #c0392b"));

    m_rulesView->setModel(m_rules);
    m_rulesView->verticalHeader()->hide();
    m_rulesView->verticalHeader()->setDefaultSectionSize(m_rulesView->fontMetrics().height() + 8);
    m_rulesView->setMinimumHeight(4 * (m_rulesView->fontMetrics().height() + 8));
    m_rulesView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_rulesView->setEditTriggers(
        QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed | QAbstractItemView::AnyKeyPressed);
    m_rulesView->horizontalHeader()->setSectionResizeMode(FaultRulesModel::Meaning, QHeaderView::Stretch);
    m_rulesView->setColumnWidth(FaultRulesModel::On, 36);
    m_rulesView->setColumnWidth(FaultRulesModel::Name, 90);
    m_rulesView->setColumnWidth(FaultRulesModel::Rule, 300);
    m_rulesView->setColumnWidth(FaultRulesModel::Matched, 64);
    m_rulesView->setColumnWidth(FaultRulesModel::Fired, 56);
    m_rulesView->setToolTip(
        tr("One fault per rule, written as in retrylab proxy --fault: status=503 retry-after=2, latency=200,\n"
           "latency=50-300, latency=lognormal:200:0.5 at=response, bandwidth=64k, reset, reset=after,\n"
           "reset=unsent, empty, stall, cut=512, corrupt; with method=, path=/api/**, header=Name:glob,\n"
           "p=0.3, every=3, first=2, from=S to=S. Double-click a rule to edit it."));

    m_logView->verticalHeader()->hide();
    m_logView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_logView->horizontalHeader()->setStretchLastSection(true);
    m_clients->setReadOnly(true);
    m_clients->setPlaceholderText(tr("The clients seen through this proxy, their logical requests, inferred retry "
                                     "policies and verdicts appear here."));
    QFont mono(QStringLiteral("DejaVu Sans Mono"));
    mono.setStyleHint(QFont::Monospace);
    m_clients->setFont(mono);

    // --- layout
    auto *listButtons = new QHBoxLayout;
    listButtons->addWidget(m_addProxy);
    listButtons->addWidget(m_removeProxy);
    auto *listColumn = new QVBoxLayout;
    listColumn->addWidget(new QLabel(tr("Proxies")));
    listColumn->addWidget(m_list);
    listColumn->addLayout(listButtons);

    auto *form = new QFormLayout;
    form->addRow(tr("Name"), m_name);
    form->addRow(tr("Upstream"), m_upstream);
    form->addRow(tr("CA bundle"), m_caBundle);
    auto *recordRow = new QHBoxLayout;
    recordRow->addWidget(m_record, 1);
    recordRow->addWidget(m_chooseRecord);
    form->addRow(tr("Record answers"), recordRow);
    auto *portRow = new QHBoxLayout;
    portRow->addWidget(m_port);
    portRow->addWidget(m_keepHost);
    portRow->addWidget(m_forward);
    portRow->addStretch();
    portRow->addWidget(m_startStop);
    form->addRow(tr("Port"), portRow);
    // The address to point a client at, with a button that copies it.
    m_copyUrl = new QPushButton(tr("Copy URL"));
    m_copyUrl->setObjectName(QStringLiteral("copyProxyUrl"));
    m_copyUrl->setToolTip(tr("Copy the address clients are pointed at (the proxy's URL) to the clipboard"));
    m_copyUrl->setEnabled(false);
    connect(m_copyUrl, &QPushButton::clicked, this, [this] {
        if (ProxyInstance *proxy = currentProxy(); proxy && proxy->isRunning())
            QApplication::clipboard()->setText(proxy->listenUrl().toString());
    });
    auto *statusRow = new QHBoxLayout;
    statusRow->addWidget(m_status, 1);
    statusRow->addWidget(m_copyUrl, 0, Qt::AlignTop);

    auto *ruleButtons = new FlowLayout;
    for (QPushButton *b : {m_addRule, m_removeRule, m_allOn, m_allOff, m_loadRules, m_saveRules})
        ruleButtons->addWidget(b);
    auto *settingsColumn = new QVBoxLayout;
    // First, so that it is in sight however far the settings are scrolled down to fit.
    settingsColumn->addLayout(statusRow);
    settingsColumn->addLayout(form);
    settingsColumn->addWidget(new QLabel(tr("Fault rules (the next request sees a change)")));
    settingsColumn->addWidget(m_rulesView, 1);
    settingsColumn->addWidget(m_rulesProblem);
    settingsColumn->addLayout(ruleButtons);

    auto *top = new QWidget;
    auto *topLayout = new QHBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->addLayout(listColumn);
    topLayout->addLayout(settingsColumn, 1);

    m_bottom->setDocumentMode(true);
    m_bottom->addTab(m_logView, tr("Log"));
    m_bottom->addTab(laneViews, tr("Lanes"));
    m_bottom->addTab(m_clients, tr("Clients"));
    m_bottom->setObjectName(QStringLiteral("proxyResults"));
    // The settings scroll when the tab is short (1366×768 with the docks open): the log, the
    // lanes and the verdicts keep most of the height instead of the last 50 pixels.
    auto *topScroll = new QScrollArea;
    topScroll->setObjectName(QStringLiteral("proxySettingsScroll"));
    topScroll->setFrameShape(QFrame::NoFrame);
    topScroll->setWidgetResizable(true);
    topScroll->setWidget(top);
    auto *splitter = new QSplitter(Qt::Vertical);
    splitter->setChildrenCollapsible(false);
    splitter->addWidget(topScroll);
    splitter->addWidget(m_bottom);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 3);
    splitter->setSizes({400, 600}); // proportions until it is laid out
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(splitter);

    // --- behaviour
    connect(m_addProxy, &QPushButton::clicked, this, [this] {
        addProxy(newProxy(int(m_instances.size()) + 1));
        setCurrentProxy(int(m_instances.size()) - 1);
        Q_EMIT proxiesChanged();
    });
    connect(m_removeProxy, &QPushButton::clicked, this, [this] {
        const int row = m_list->currentRow();
        if (row < 0 || row >= m_instances.size())
            return;
        ProxyInstance *proxy = m_instances.takeAt(row);
        delete m_list->takeItem(row);
        delete m_logs.take(proxy);
        proxy->stop();
        proxy->deleteLater();
        showProxy();
        Q_EMIT proxiesChanged();
    });
    connect(m_list, &QListWidget::currentRowChanged, this, [this] { showProxy(); });
    for (QLineEdit *edit : {m_name, m_upstream, m_caBundle, m_record})
        connect(edit, &QLineEdit::editingFinished, this, &ProxyView::applyForm);
    connect(m_chooseRecord, &QPushButton::clicked, this, [this] {
        const QString directory = QFileDialog::getExistingDirectory(this, tr("Record answers into"), m_record->text());
        if (directory.isEmpty())
            return;
        m_record->setText(directory);
        applyForm();
    });
    connect(m_port, &QSpinBox::editingFinished, this, &ProxyView::applyForm);
    connect(m_keepHost, &QCheckBox::toggled, this, &ProxyView::applyForm);
    connect(m_forward, &QCheckBox::toggled, this, &ProxyView::applyForm);
    connect(m_startStop, &QPushButton::clicked, this, &ProxyView::startOrStop);
    connect(m_rules, &FaultRulesModel::rulesEdited, this, [this](const QList<FaultRule> &rules) {
        if (ProxyInstance *proxy = currentProxy()) {
            FaultRuleList list = proxy->settings().rules;
            list.rules = rules;
            proxy->setRules(list);
            Q_EMIT proxiesChanged();
        }
    });
    connect(m_rules, &FaultRulesModel::ruleSwitched, this, [this](const QString &name, bool enabled) {
        if (ProxyInstance *proxy = currentProxy()) {
            proxy->setRuleEnabled(name, enabled);
            Q_EMIT proxiesChanged();
        }
    });
    connect(m_rules, &FaultRulesModel::problemChanged, m_rulesProblem, &QLabel::setText);
    connect(m_addRule, &QPushButton::clicked, this, [this] {
        const int row = m_rules->addRule(*FaultRule::parse(QStringLiteral("status=503")));
        m_rulesView->setCurrentIndex(m_rules->index(row, FaultRulesModel::Rule));
        m_rulesView->edit(m_rules->index(row, FaultRulesModel::Rule));
    });
    connect(m_removeRule, &QPushButton::clicked, this, [this] {
        const QModelIndex index = m_rulesView->currentIndex();
        if (index.isValid())
            m_rules->removeRule(index.row());
    });
    connect(m_allOn, &QPushButton::clicked, this, [this] {
        if (ProxyInstance *proxy = currentProxy())
            proxy->setAllRulesEnabled(true);
    });
    connect(m_allOff, &QPushButton::clicked, this, [this] {
        if (ProxyInstance *proxy = currentProxy())
            proxy->setAllRulesEnabled(false);
    });
    connect(m_loadRules, &QPushButton::clicked, this, &ProxyView::loadRules);
    connect(m_saveRules, &QPushButton::clicked, this, &ProxyView::saveRules);
    m_refresh->setInterval(1000);
    connect(m_refresh, &QTimer::timeout, this, [this] {
        if (isVisible())
            refresh();
    });
    m_refresh->start();
    showProxy();
}

ProxyView::~ProxyView()
{
    for (ProxyInstance *proxy : std::as_const(m_instances))
        proxy->stop();
}

QList<ProxySettings> ProxyView::proxies() const
{
    QList<ProxySettings> list;
    for (const ProxyInstance *proxy : m_instances)
        list.append(proxy->settings());
    return list;
}

void ProxyView::setProxies(const QList<ProxySettings> &proxies)
{
    for (ProxyInstance *proxy : std::as_const(m_instances)) {
        proxy->stop();
        proxy->deleteLater();
    }
    qDeleteAll(m_logs);
    m_logs.clear();
    m_instances.clear();
    m_list->clear();
    m_notes.clear();
    for (const ProxySettings &saved : proxies) {
        const ProxySettings settings = followServerIfDead(saved);
        ProxyInstance *proxy = addProxy(settings);
        if (!(settings == saved)) {
            m_notes.insert(proxy,
                tr("Its saved upstream %1 no longer answers; it now forwards to RetryLab's own fault server "
                   "({server}).")
                    .arg(saved.upstream.toString()));
        }
    }
    setCurrentProxy(m_instances.isEmpty() ? -1 : 0);
}

ProxySettings ProxyView::followServerIfDead(const ProxySettings &saved)
{
    const QString host = saved.upstream.host();
    if (saved.forward || saved.upstreamIsServer || m_serverUrl.isEmpty()
        || (host != QLatin1String("127.0.0.1") && host != QLatin1String("localhost")))
        return saved;
    const int port = saved.upstream.port(saved.upstream.scheme() == QLatin1String("https") ? 443 : 80);
    if (port == m_serverUrl.port())
        return saved;
    // On this machine a closed port refuses at once; a port that answers is left alone.
    QTcpSocket probe;
    probe.connectToHost(QHostAddress(QHostAddress::LocalHost), quint16(port));
    if (probe.waitForConnected(500))
        return saved;
    ProxySettings followed = saved;
    followed.upstreamIsServer = true;
    QUrl rest;
    rest.setPath(saved.upstream.path());
    rest.setQuery(saved.upstream.query());
    followed.upstream = rest;
    return followed;
}

ProxyInstance *ProxyView::addProxy(const ProxySettings &settings)
{
    auto *proxy = new ProxyInstance(settings, this);
    auto *log = new ServerLogModel(this);
    m_instances.append(proxy);
    m_logs.insert(proxy, log);
    m_list->addItem(listTitle(proxy));
    connect(proxy, &ProxyInstance::exchangeFinished, log, &ServerLogModel::append);
    connect(proxy, &ProxyInstance::runningChanged, this, [this, proxy] {
        const qsizetype row = m_instances.indexOf(proxy);
        if (row >= 0)
            m_list->item(int(row))->setText(listTitle(proxy));
        if (proxy == currentProxy())
            updateStatus();
    });
    connect(proxy, &ProxyInstance::rulesChanged, this, [this, proxy] {
        if (proxy == currentProxy())
            m_rules->setRules(proxy->rules());
        Q_EMIT proxiesChanged();
    });
    if (m_list->currentRow() < 0)
        setCurrentProxy(0);
    return proxy;
}

ProxyInstance *ProxyView::currentProxy() const
{
    const int row = m_list->currentRow();
    return row >= 0 && row < m_instances.size() ? m_instances[row] : nullptr;
}

ServerLogModel *ProxyView::logModel() const
{
    return m_logs.value(currentProxy());
}

void ProxyView::setCurrentProxy(int index)
{
    m_list->setCurrentRow(index);
    showProxy();
}

QString ProxyView::listTitle(const ProxyInstance *proxy) const
{
    const QString name = !proxy->settings().name.isEmpty() ? proxy->settings().name
        : proxy->settings().forward                        ? tr("forward proxy")
                                                           : proxy->settings().resolvedUpstream(m_serverUrl).host();
    return proxy->isRunning() ? tr("● %1").arg(name) : name;
}

void ProxyView::showProxy()
{
    ProxyInstance *proxy = currentProxy();
    m_showing = true;
    for (QWidget *w : std::initializer_list<QWidget *>{m_name, m_upstream, m_caBundle, m_record, m_chooseRecord, m_port,
             m_keepHost, m_forward, m_startStop, m_rulesView, m_addRule, m_removeRule, m_allOn, m_allOff, m_loadRules,
             m_saveRules, m_removeProxy})
        w->setEnabled(proxy != nullptr);
    if (proxy) {
        m_name->setText(proxy->settings().name);
        m_upstream->setText(proxy->settings().upstreamText());
        m_caBundle->setText(proxy->settings().caBundlePath);
        m_record->setText(proxy->settings().recordDirectory);
        m_port->setValue(proxy->settings().port);
        m_keepHost->setChecked(proxy->settings().keepHost);
        m_forward->setChecked(proxy->settings().forward);
        m_upstream->setEnabled(!proxy->settings().forward);
        m_keepHost->setEnabled(!proxy->settings().forward);
        m_rules->setRules({});
        m_rules->setRules(proxy->rules());
        m_logView->setModel(m_logs.value(proxy));
    } else {
        m_name->clear();
        m_upstream->clear();
        m_caBundle->clear();
        m_record->clear();
        m_rules->setRules({});
        m_logView->setModel(nullptr);
    }
    m_showing = false;
    updateStatus();
    refresh();
    Q_EMIT currentProxyChanged(proxy);
}

void ProxyView::applyForm()
{
    ProxyInstance *proxy = currentProxy();
    if (!proxy || m_showing)
        return;
    ProxySettings s = proxy->settings();
    s.name = m_name->text().trimmed();
    s.setUpstreamText(m_upstream->text());
    s.caBundlePath = m_caBundle->text().trimmed();
    s.recordDirectory = m_record->text().trimmed();
    s.port = quint16(m_port->value());
    s.keepHost = m_keepHost->isChecked();
    s.forward = m_forward->isChecked();
    m_upstream->setEnabled(!s.forward);
    m_keepHost->setEnabled(!s.forward);
    if (s == proxy->settings())
        return;
    proxy->setSettings(s);
    m_list->currentItem()->setText(listTitle(proxy));
    updateStatus();
    Q_EMIT proxiesChanged();
}

void ProxyView::startOrStop()
{
    ProxyInstance *proxy = currentProxy();
    if (!proxy)
        return;
    if (proxy->isRunning()) {
        proxy->stop();
    } else {
        applyForm();
        m_notes.remove(proxy);
        if (!proxy->start(m_serverUrl))
            m_status->setText(tr("Cannot start: %1").arg(proxy->errorString()));
        else
            m_rules->setRules(proxy->rules());
    }
    updateStatus();
}

void ProxyView::updateStatus()
{
    ProxyInstance *proxy = currentProxy();
    m_copyUrl->setEnabled(proxy && proxy->isRunning());
    if (!proxy) {
        m_status->setText(tr("Add a proxy to put RetryLab between a client and a real service."));
        m_startStop->setText(tr("Start"));
        return;
    }
    m_startStop->setText(proxy->isRunning() ? tr("Stop") : tr("Start"));
    if (proxy->isRunning()) {
        const QString where = proxy->settings().forward
            ? tr("Point clients at it: HTTP_PROXY=%1 HTTPS_PROXY=%1 (a forward proxy).")
                  .arg(proxy->listenUrl().toString())
            : tr("Point the client at %1 (-> %2).")
                  .arg(proxy->listenUrl().toString(), proxy->settings().resolvedUpstream(m_serverUrl).toString());
        QString text = tr("%1 Seed %2. Switch faults from a script: curl -X POST "
                          "-H 'Content-Type: application/json' '%3?enabled=false'")
                           .arg(where)
                           .arg(proxy->seed())
                           .arg(proxy->controlUrl().toString());
        if (proxy->settings().port != 0 && proxy->settings().port != proxy->listenUrl().port())
            text += tr(" (the new port applies at the next start)");
        if (!proxy->recordingDirectory().isEmpty()) {
            text += tr(" Recording answers into %1: %2 so far.")
                        .arg(QDir::toNativeSeparators(proxy->recordingDirectory()))
                        .arg(proxy->recordedCount());
            if (!proxy->recordingProblem().isEmpty())
                text += tr(" Not recorded: %1").arg(proxy->recordingProblem());
        }
        const QString wanted = proxy->settings().recordDirectory.isEmpty()
            ? QString()
            : QDir(proxy->settings().recordDirectory).absolutePath();
        if (wanted != proxy->recordingDirectory())
            text += tr(" (recording changes at the next start)");
        m_status->setText(text);
    } else if (!proxy->errorString().isEmpty()) {
        m_status->setText(tr("Cannot start: %1").arg(proxy->errorString()));
    } else {
        const QString note = m_notes.value(proxy);
        m_status->setText(note.isEmpty() ? tr("Stopped.") : tr("Stopped. %1").arg(note));
    }
}

void ProxyView::refresh()
{
    ProxyInstance *proxy = currentProxy();
    if (!proxy)
        return;
    if (proxy->isRunning())
        m_rules->setCounts(proxy->counts());
    if (proxy->isRunning() && !proxy->recordingDirectory().isEmpty())
        updateStatus(); // the count of answers recorded
    const QString report = proxy->clientsReport();
    if (report != m_clients->toPlainText())
        m_clients->setPlainText(report);
}

void ProxyView::loadRules()
{
    ProxyInstance *proxy = currentProxy();
    if (!proxy)
        return;
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Load fault rules"), QString(), tr("Fault rules (*.json);;All files (*)"));
    if (path.isEmpty())
        return;
    const Result<FaultRuleList> rules = FaultRuleList::readFile(path);
    if (!rules) {
        // The rules stay as they were.
        m_rulesProblem->setText(tr("%1 was not loaded: %2").arg(path, rules.error()));
        return;
    }
    proxy->setRules(*rules);
    m_rules->setRules({});
    m_rules->setRules(proxy->rules());
    m_rulesProblem->clear();
}

void ProxyView::saveRules()
{
    ProxyInstance *proxy = currentProxy();
    if (!proxy)
        return;
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save fault rules"), QStringLiteral("faults.json"), tr("Fault rules (*.json)"));
    if (path.isEmpty())
        return;
    FaultRuleList list = proxy->settings().rules;
    list.rules = proxy->rules();
    const auto written = ExportFile::write(path, QJsonDocument(list.toJson()).toJson(QJsonDocument::Indented));
    if (!written)
        m_rulesProblem->setText(tr("Cannot save %1: %2").arg(path, written.error()));
}

} // namespace RetryLab::Ui
