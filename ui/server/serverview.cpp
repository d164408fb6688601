#include "ui/server/serverview.h"

#include "core/faultserver/faultinstruction.h"
#include "ui/server/httpspanel.h"
#include "ui/session/hosting/embeddedserver.h"
#include "ui/session/hosting/replayinstance.h"
#include "ui/widgets/fieldmessage.h"
#include "ui/widgets/serverlogmodel.h"

#include <QApplication>
#include <QButtonGroup>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QRadioButton>
#include <QRegularExpression>
#include <QScrollBar>
#include <QShowEvent>
#include <QSplitter>
#include <QTableView>
#include <QTextBlock>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

namespace RetryLab::Ui {

namespace {

constexpr int customPresetData = -1;

// One line of the editor as a step, with the line's own error (the core parser
// counts expanded steps, the person counts lines).
QString lineProblem(const QString &line)
{
    static const QRegularExpression repeat(QStringLiteral("^(.*)\\*\\s*(\\d+)$"));
    QString text = line;
    if (const auto m = repeat.match(line); m.hasMatch()) {
        bool ok = false;
        const int count = m.captured(2).toInt(&ok);
        if (!ok || count < 1 || count > Core::FaultInstruction::maxRepeat)
            return ServerView::tr("the repeat count must be from 1 to %1").arg(Core::FaultInstruction::maxRepeat);
        text = m.captured(1).trimmed();
    }
    const auto step = Core::FaultInstruction::parse(text);
    return step ? QString() : step.error();
}

QString grammarToolTip()
{
    QString rows;
    for (const auto &syntax : Core::FaultInstruction::grammar()) {
        rows += QStringLiteral("<tr><td><tt>%1</tt></td><td>%2</td></tr>")
                    .arg(syntax.form.toHtmlEscaped(), syntax.description.toHtmlEscaped());
    }
    return ServerView::tr("<p>One step per line; each request with the script's X-Retry-Test-Id gets the next step. "
                          "Once the steps are used up, requests are answered by their URL again. Lines starting "
                          "with # are comments.</p><table>%1</table><p>Any step may end in *K to repeat it K times: "
                          "<tt>reset*4</tt>.</p>")
        .arg(rows);
}

} // namespace

ServerView::ServerView(QWidget *parent)
    : QWidget(parent), m_address(new QLabel(this)), m_serverProblem(new FieldMessage(this)),
      m_copyAddress(new QToolButton(this)), m_resetServer(new QToolButton(this)), m_replayButton(new QToolButton(this)),
      m_replayStatus(new QLabel(this)), m_replay(new ReplayInstance(this)), m_https(new HttpsPanel(this)),
      m_preset(new QComboBox), m_presetDescription(new QLabel), m_script(new QPlainTextEdit),
      m_insertStep(new QComboBox), m_scriptMessage(new FieldMessage), m_perRequest(new QRadioButton),
      m_shared(new QRadioButton), m_sharing(new QButtonGroup(this)), m_status(new QLabel), m_restart(new QToolButton),
      m_logModel(new ServerLogModel(this)), m_logView(new QTableView), m_logCount(new QLabel),
      m_follow(new QCheckBox(tr("Follow newest"))), m_statusTimer(new QTimer(this))
{
    // The address line.
    m_address->setObjectName(QStringLiteral("serverAddress"));
    m_address->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_address->setWordWrap(true); // a long address line wraps; Reset server stays in view
    m_serverProblem->setObjectName(QStringLiteral("serverProblem"));
    m_copyAddress->setText(tr("Copy address"));
    m_copyAddress->setToolTip(tr("Copy the server's URL, e.g. for curl or a browser"));
    m_resetServer->setObjectName(QStringLiteral("resetServer"));
    m_resetServer->setText(tr("Reset server"));
    m_resetServer->setToolTip(tr("Make the server forget /fail keys, scripts, rate limits, resources and its log"));
    connect(m_copyAddress, &QToolButton::clicked, this, [this] {
        if (m_server && m_server->isRunning())
            QApplication::clipboard()->setText(m_server->baseUrl().toString());
    });
    connect(m_resetServer, &QToolButton::clicked, this, &ServerView::handleResetServer);
    auto *addressRow = new QHBoxLayout;
    addressRow->addWidget(m_address, 1);
    addressRow->addWidget(m_copyAddress);
    addressRow->addWidget(m_resetServer);

    // The second server: a recording served back.
    m_replayButton->setObjectName(QStringLiteral("serverReplay"));
    m_replayButton->setText(tr("Replay a recording\u2026"));
    m_replayButton->setToolTip(
        tr("Serve a recording made by the Proxy tab (Record answers) or retrylab proxy --record,\n"
           "offline, on a second port: each request gets the answer recorded for it"));
    m_replayStatus->setObjectName(QStringLiteral("serverReplayStatus"));
    m_replayStatus->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_replayStatus->setWordWrap(true);
    m_replayStatus->hide();
    connect(m_replayButton, &QToolButton::clicked, this, [this] {
        if (m_replay->isRunning()) {
            stopReplay();
            return;
        }
        const QString directory = QFileDialog::getExistingDirectory(this, tr("Replay a recording"));
        if (!directory.isEmpty())
            startReplay(directory);
    });
    connect(m_replay, &ReplayInstance::requestHandled, m_logModel, &ServerLogModel::append);
    addressRow->addWidget(m_replayButton);

    // The scenario.
    m_preset->setObjectName(QStringLiteral("scenarioPreset"));
    const auto presets = ServerScenario::presets();
    for (int i = 0; i < presets.size(); ++i) {
        m_preset->addItem(presets.at(i).title, i);
        m_preset->setItemData(i, presets.at(i).description, Qt::ToolTipRole);
    }
    m_preset->addItem(tr("Custom script"), customPresetData);
    m_presetDescription->setWordWrap(true);
    m_presetDescription->setObjectName(QStringLiteral("scenarioDescription"));

    m_script->setObjectName(QStringLiteral("scenarioScript"));
    QFont mono(QStringLiteral("monospace"));
    mono.setStyleHint(QFont::TypeWriter);
    m_script->setFont(mono);
    m_script->setPlaceholderText(tr("No script: requests are answered by their URL.\nOne step per line, e.g.\n"
                                    "return-503*3\nreturn-200"));
    m_script->setToolTip(grammarToolTip());
    m_script->setTabChangesFocus(true);

    m_insertStep->setObjectName(QStringLiteral("insertStep"));
    m_insertStep->addItem(tr("Insert a step\u2026"));
    for (const auto &syntax : Core::FaultInstruction::grammar()) {
        m_insertStep->addItem(QStringLiteral("%1  \u2014  %2").arg(syntax.example, syntax.description), syntax.example);
        m_insertStep->setItemData(m_insertStep->count() - 1, syntax.form, Qt::ToolTipRole);
    }
    m_insertStep->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_insertStep->setMinimumContentsLength(16);
    connect(m_insertStep, &QComboBox::activated, this, [this](int index) {
        if (index <= 0)
            return;
        QTextCursor cursor = m_script->textCursor();
        cursor.movePosition(QTextCursor::EndOfBlock);
        if (!cursor.block().text().trimmed().isEmpty())
            cursor.insertText(QStringLiteral("\n"));
        cursor.insertText(m_insertStep->itemData(index).toString());
        m_script->setTextCursor(cursor);
        m_insertStep->setCurrentIndex(0);
        m_script->setFocus(Qt::OtherFocusReason);
    });

    m_scriptMessage->setObjectName(QStringLiteral("scenarioProblem"));
    m_perRequest->setObjectName(QStringLiteral("perRequestCopy"));
    m_perRequest->setText(tr("Each request gets its own copy"));
    m_perRequest->setToolTip(tr("Every logical request starts the script from its first step (a new scripted test "
                                "per request, selected by its X-Retry-Test-Id header)"));
    m_shared->setObjectName(QStringLiteral("sharedCopy"));
    m_shared->setText(tr("All requests share one copy"));
    m_shared->setToolTip(tr("One scripted test for all requests: its steps are used in the order attempts arrive, "
                            "like one flaky server seen by many clients"));
    m_sharing->addButton(m_perRequest, int(ServerScenario::Sharing::PerRequest));
    m_sharing->addButton(m_shared, int(ServerScenario::Sharing::Shared));
    m_perRequest->setChecked(true);
    m_status->setObjectName(QStringLiteral("scenarioStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_restart->setText(tr("Restart"));
    m_restart->setToolTip(tr("The next request starts a fresh shared copy from the first step"));
    connect(m_restart, &QToolButton::clicked, this, [this] {
        m_sharedTestId.clear();
        Q_EMIT restartRequested();
        updateStatus();
    });

    auto *scenarioBox = new QGroupBox(tr("Scenario for the next sends"));
    auto *scenarioLayout = new QVBoxLayout(scenarioBox);
    scenarioLayout->addWidget(m_preset);
    scenarioLayout->addWidget(m_presetDescription);
    scenarioLayout->addWidget(m_script, 1);
    scenarioLayout->addWidget(m_insertStep);
    scenarioLayout->addWidget(m_scriptMessage);
    scenarioLayout->addWidget(m_perRequest);
    scenarioLayout->addWidget(m_shared);
    auto *statusRow = new QHBoxLayout;
    statusRow->addWidget(m_status, 1);
    statusRow->addWidget(m_restart, 0, Qt::AlignTop);
    scenarioLayout->addLayout(statusRow);

    // The log.
    m_logView->setObjectName(QStringLiteral("serverLog"));
    m_logView->setModel(m_logModel);
    m_logView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_logView->setAlternatingRowColors(true);
    m_logView->setWordWrap(false);
    m_logView->setIconSize(QSize(10, 10));
    m_logView->verticalHeader()->hide();
    m_logView->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_logView->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    m_logView->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_logView->horizontalHeader()->setStretchLastSection(true);
    const QFontMetrics fm = fontMetrics();
    const QList<QPair<int, QString>> widths{
        {ServerLogModel::Sequence, QStringLiteral("88888")},
        {ServerLogModel::Time, QStringLiteral("88:88:88.888")},
        {ServerLogModel::Method, QStringLiteral("OPTIONS")},
        {ServerLogModel::Target, QStringLiteral("/fail/3?key=abcd-1")},
        {ServerLogModel::Step, QStringLiteral("t88 step 88")},
        {ServerLogModel::ClientAttempt, QStringLiteral("8 (resent)")},
        {ServerLogModel::Action, QStringLiteral("broken-stream")},
        {ServerLogModel::Status, QStringLiteral("888")},
        {ServerLogModel::Duration, QStringLiteral("8888 ms")},
        {ServerLogModel::Peer, QStringLiteral("127.0.0.1:88888")},
    };
    for (const auto &[column, sample] : widths) {
        const QString header = m_logModel->headerData(column, Qt::Horizontal).toString();
        m_logView->setColumnWidth(column, std::max(fm.horizontalAdvance(sample), fm.horizontalAdvance(header)) + 28);
    }
    m_logCount->setObjectName(QStringLiteral("serverLogCount"));
    m_follow->setChecked(true);
    auto *clear = new QToolButton;
    clear->setText(tr("Clear"));
    clear->setToolTip(tr("Empty this list (the server keeps its own log until it is reset)"));
    connect(clear, &QToolButton::clicked, m_logModel, &ServerLogModel::clear);
    connect(m_logModel, &ServerLogModel::countsChanged, this, [this] {
        updateLogCount();
        updateStatus();
        if (m_follow->isChecked())
            m_logView->scrollToBottom();
    });

    auto *logBox = new QGroupBox(tr("What the server received"));
    auto *logLayout = new QVBoxLayout(logBox);
    auto *logBar = new QHBoxLayout;
    logBar->addWidget(m_logCount, 1);
    logBar->addWidget(m_follow);
    logBar->addWidget(clear);
    logLayout->addLayout(logBar);
    logLayout->addWidget(m_logView, 1);

    auto *splitter = new QSplitter(Qt::Horizontal);
    splitter->addWidget(scenarioBox);
    splitter->addWidget(logBox);
    splitter->setStretchFactor(0, 0);
    splitter->setStretchFactor(1, 1);
    splitter->setChildrenCollapsible(false);
    splitter->setSizes({fm.horizontalAdvance(QLatin1Char('x')) * 40, fm.horizontalAdvance(QLatin1Char('x')) * 120});

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addLayout(addressRow);
    layout->addWidget(m_replayStatus);
    layout->addWidget(m_serverProblem);
    m_https->setObjectName(QStringLiteral("https"));
    layout->addWidget(m_https);
    layout->addWidget(splitter, 1);

    connect(m_preset, &QComboBox::activated, this, &ServerView::handlePresetActivated);
    connect(m_script, &QPlainTextEdit::textChanged, this, &ServerView::handleScriptEdited);
    connect(m_sharing, &QButtonGroup::idToggled, this, [this](int, bool checked) {
        if (checked)
            handleSharingChanged();
    });

    // The shared copy's progress moves with requests, and requests show in the log;
    // between log updates a slow poll is enough.
    m_statusTimer->setInterval(1000);
    connect(m_statusTimer, &QTimer::timeout, this, &ServerView::updateStatus);

    setServer(nullptr);
    setScenario({});
}

ServerView::~ServerView() = default;

bool ServerView::startReplay(const QString &directory)
{
    const bool started = m_replay->start(directory);
    m_replayStatus->show();
    if (!started) {
        m_replayStatus->setText(tr("Not replayed: %1").arg(m_replay->errorString()));
        m_replayButton->setText(tr("Replay a recording\u2026"));
        return false;
    }
    m_replayStatus->setText(tr("Replay of %1 (%2 recorded answers) on %3: answers join the log below, marked "
                               "replayed or not-recorded")
                                .arg(QDir::toNativeSeparators(m_replay->directory()))
                                .arg(m_replay->recordedCount())
                                .arg(m_replay->baseUrl().toString()));
    m_replayButton->setText(tr("Stop replay"));
    return true;
}

void ServerView::stopReplay()
{
    m_replay->stop();
    m_replayStatus->hide();
    m_replayButton->setText(tr("Replay a recording\u2026"));
}

void ServerView::setServer(EmbeddedServer *server)
{
    if (m_server)
        disconnect(m_server, nullptr, this, nullptr);
    m_server = server;
    if (m_server) {
        connect(m_server, &EmbeddedServer::requestHandled, m_logModel, &ServerLogModel::append);
        connect(m_server, &EmbeddedServer::runningChanged, this, &ServerView::updateAddress);
    }
    m_https->setServer(server);
    updateAddress();
}

void ServerView::updateAddress()
{
    const bool running = m_server && m_server->isRunning();
    if (running) {
        m_address->setText(
            tr("Embedded fault server: <b>%1</b> (loopback only). <tt>{server}</tt> in a URL stands for it.")
                .arg(m_server->baseUrl().toString().toHtmlEscaped()));
        m_serverProblem->clear();
    } else {
        m_address->setText(tr("Embedded fault server: not running."));
        const QString reason = m_server ? m_server->errorString() : QString();
        m_serverProblem->setMessage(FieldMessage::Kind::Error,
            reason.isEmpty()
                ? tr("The embedded server is not running; requests to other servers still work.")
                : tr("The embedded server could not start: %1. Requests to other servers still work.").arg(reason));
    }
    m_copyAddress->setEnabled(running);
    m_resetServer->setEnabled(running);
    updateStatus();
}

void ServerView::handleResetServer()
{
    if (!m_server || !m_server->server())
        return;
    m_server->server()->reset();
    m_logModel->clear();
    m_sharedTestId.clear();
    Q_EMIT restartRequested();
    updateStatus();
}

void ServerView::setScenario(const ServerScenario &scenario)
{
    m_filling = true;
    m_script->setPlainText(scenario.instructions.join(QLatin1Char('\n')));
    (scenario.sharing == ServerScenario::Sharing::Shared ? m_shared : m_perRequest)->setChecked(true);
    m_filling = false;
    validate();
}

void ServerView::setSharedTestId(const QString &id)
{
    m_sharedTestId = id;
    updateStatus();
}

void ServerView::handlePresetActivated(int index)
{
    const int presetIndex = m_preset->itemData(index).toInt();
    if (presetIndex == customPresetData)
        return;
    const auto presets = ServerScenario::presets();
    if (presetIndex < 0 || presetIndex >= presets.size())
        return;
    const auto &preset = presets.at(presetIndex);
    m_filling = true;
    m_script->setPlainText(preset.instructions.join(QLatin1Char('\n')));
    (preset.sharing == ServerScenario::Sharing::Shared ? m_shared : m_perRequest)->setChecked(true);
    m_filling = false;
    validate();
}

void ServerView::handleScriptEdited()
{
    if (!m_filling)
        validate();
}

void ServerView::handleSharingChanged()
{
    if (!m_filling)
        validate();
}

QStringList ServerView::scriptLines(QList<int> *lineNumbers) const
{
    QStringList lines;
    const QStringList all = m_script->toPlainText().split(QLatin1Char('\n'));
    for (int i = 0; i < all.size(); ++i) {
        const QString line = all.at(i).trimmed();
        if (line.isEmpty() || line.startsWith(QLatin1Char('#')))
            continue;
        lines.append(line);
        if (lineNumbers)
            lineNumbers->append(i + 1);
    }
    return lines;
}

void ServerView::validate()
{
    QList<int> lineNumbers;
    const QStringList lines = scriptLines(&lineNumbers);
    QString problem;
    for (int i = 0; i < lines.size() && problem.isEmpty(); ++i) {
        if (const QString p = lineProblem(lines.at(i)); !p.isEmpty())
            problem = tr("Line %1 (\"%2\"): %3").arg(lineNumbers.at(i)).arg(lines.at(i).left(60), p);
    }
    if (problem.isEmpty()) {
        if (const auto all = Core::FaultInstruction::parseList(lines); !all)
            problem = all.error();
    }

    // Which preset the script is (after an edit it may still be one).
    const auto sharing = ServerScenario::Sharing(m_sharing->checkedId());
    int presetIndex = -1;
    const auto presets = ServerScenario::presets();
    for (int i = 0; i < presets.size(); ++i) {
        if (presets.at(i).instructions == lines) {
            presetIndex = i;
            break;
        }
    }
    m_preset->setCurrentIndex(
        presetIndex >= 0 ? m_preset->findData(presetIndex) : m_preset->findData(customPresetData));
    m_presetDescription->setText(presetIndex >= 0
            ? presets.at(presetIndex).description
            : tr("Your own steps (see the tooltip of the script for the steps)."));

    if (problem != m_problem) {
        m_problem = problem;
        Q_EMIT scenarioProblemChanged(problem);
    }
    if (!problem.isEmpty()) {
        m_scriptMessage->setMessage(FieldMessage::Kind::Error,
            tr("%1. The scenario is not used until this is fixed; nothing can be sent meanwhile.").arg(problem));
        updateStatus();
        return;
    }
    m_scriptMessage->clear();

    ServerScenario next;
    next.presetId = presetIndex >= 0 ? presets.at(presetIndex).id : QString();
    next.instructions = lines;
    next.sharing = sharing;
    if (next != m_scenario) {
        m_scenario = next;
        m_sharedTestId.clear();
        Q_EMIT scenarioChanged(m_scenario);
    }
    updateStatus();
}

void ServerView::updateStatus()
{
    const bool running = m_server && m_server->isRunning();
    m_restart->setVisible(m_scenario.isActive() && m_scenario.sharing == ServerScenario::Sharing::Shared);
    if (!m_scenario.isActive()) {
        m_status->setText(tr("No script in force: the server answers by each request's URL."));
        m_statusTimer->stop();
        return;
    }
    const int steps = static_cast<int>(Core::FaultInstruction::parseList(m_scenario.instructions)->size());
    QString text;
    if (m_scenario.sharing == ServerScenario::Sharing::PerRequest) {
        text = tr("In force: every request gets its own copy of the script (a new X-Retry-Test-Id each); steps: %1.")
                   .arg(steps);
        m_statusTimer->stop();
    } else if (m_sharedTestId.isEmpty()) {
        text = tr("In force: the next request starts one copy of the script, shared by all requests; steps: %1.")
                   .arg(steps);
        m_statusTimer->stop();
    } else {
        const auto status = running ? m_server->server()->testStatus(m_sharedTestId) : std::nullopt;
        if (status) {
            text = tr("In force: shared copy %1, %2 of %3 steps used%4.")
                       .arg(m_sharedTestId)
                       .arg(status->consumed)
                       .arg(status->instructions.size())
                       .arg(status->consumed >= status->instructions.size()
                               ? tr("; further requests are answered by their URL")
                               : QString());
        } else {
            text = tr("In force: the server forgot the shared copy; the next request starts a new one.");
        }
        if (!m_statusTimer->isActive())
            m_statusTimer->start();
    }
    if (!m_problem.isEmpty())
        text = tr("The edited script has an error; still in force: %1").arg(text);
    m_status->setText(text);
}

void ServerView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    // Rows that arrived while the tab was hidden did not scroll the table.
    if (m_follow->isChecked())
        m_logView->scrollToBottom();
}

void ServerView::updateLogCount()
{
    QString text = tr("Requests shown: %1").arg(m_logModel->rowCount());
    if (m_logModel->droppedCount() > 0)
        text += tr(" (older ones dropped: %1)").arg(m_logModel->droppedCount());
    m_logCount->setText(text);
}

} // namespace RetryLab::Ui
