#include "ui/openedrun.h"

#include "ui/run/attemptinspector.h"
#include "ui/run/errorlogview.h"
#include "ui/run/replaybar.h"
#include "ui/run/statisticsview.h"
#include "ui/run/timelineview.h"
#include "ui/session/run/runreplay.h"
#include "ui/session/run/runsession.h"
#include "ui/widgets/fieldmessage.h"
#include "ui/widgets/messagebar.h"

#include <QDir>
#include <QFileInfo>
#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QStyle>
#include <QVBoxLayout>

namespace RetryLab::Ui {

OpenedRun::OpenedRun(RunSession *live, TimelineView *timeline, ErrorLogView *errorLog, StatisticsView *statistics,
    AttemptInspector *inspector, MessageBar *messages, QWidget *dialogParent)
    : QObject(dialogParent), m_live(live), m_timeline(timeline), m_errorLog(errorLog), m_statistics(statistics),
      m_inspector(inspector), m_messages(messages), m_dialogParent(dialogParent), m_banner(new QFrame),
      m_text(new QLabel), m_close(new QPushButton(tr("&Close, back to the live run"))), m_replayBar(new ReplayBar)
{
    m_banner->setObjectName(QStringLiteral("openedRunBanner"));
    m_banner->setFrameShape(QFrame::StyledPanel);
    m_banner->setAutoFillBackground(true);
    // Not a message that can be dismissed: it stays as long as the views show the file.
    QPalette palette = m_banner->palette();
    const QColor window = palette.color(QPalette::Window);
    const QColor highlight = palette.color(QPalette::Highlight);
    palette.setColor(QPalette::Window,
        QColor::fromRgbF(window.redF() * 0.8F + highlight.redF() * 0.2F,
            window.greenF() * 0.8F + highlight.greenF() * 0.2F, window.blueF() * 0.8F + highlight.blueF() * 0.2F));
    m_banner->setPalette(palette);
    auto *icon = new QLabel;
    const int size = m_banner->style()->pixelMetric(QStyle::PM_SmallIconSize);
    icon->setPixmap(m_banner->style()->standardIcon(QStyle::SP_FileDialogInfoView).pixmap(size, size));
    m_text->setObjectName(QStringLiteral("openedRunText"));
    m_text->setWordWrap(true);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_close->setObjectName(QStringLiteral("closeOpenedRun"));
    m_close->setToolTip(tr("Show the live run again; the file is not changed"));
    auto *layout = new QVBoxLayout(m_banner);
    layout->setContentsMargins(8, 4, 8, 4);
    auto *top = new QHBoxLayout;
    top->addWidget(icon);
    top->addWidget(m_text, 1);
    top->addWidget(m_close);
    layout->addLayout(top);
    layout->addWidget(m_replayBar);
    m_banner->hide();
    connect(m_close, &QPushButton::clicked, this, &OpenedRun::close);
}

// The window calls close() while its views are alive; here they may be gone.
OpenedRun::~OpenedRun()
{
    // The window places the banner in its layout and owns it from then on; until then it is ours.
    if (m_banner && !m_banner->parent())
        delete m_banner.data();
}

QString OpenedRun::bannerText() const
{
    return m_text->text();
}

RunSession *OpenedRun::shownSession() const
{
    return m_replay ? m_replay->session() : m_live;
}

Core::Result<void> OpenedRun::open(const QString &path)
{
    auto read = Core::ReportJson::readFile(path);
    if (!read) {
        const Core::Error error = read.errorDetail();
        const QString where = error.path.isEmpty() ? QString() : tr(" at %1").arg(error.path);
        QString message = error.message;
        // The reader names the file itself when it could not read it at all.
        for (const QString &name : {path, QDir::toNativeSeparators(path)}) {
            if (message.startsWith(name + QStringLiteral(": ")))
                message = message.mid(name.size() + 2);
        }
        const QString text
            = tr("%1 cannot be opened as a run%2: %3").arg(QDir::toNativeSeparators(path), where, message);
        const QString kept
            = m_replay ? tr("The run that was open is still shown.") : tr("The current run is unchanged.");
        m_messages->showMessage(FieldMessage::Kind::Error, text + QStringLiteral(". ") + kept);
        if (m_errorBox)
            m_errorBox->close();
        m_errorBox = new QMessageBox(QMessageBox::Warning, tr("Run not opened"), text, QMessageBox::Ok, m_dialogParent);
        m_errorBox->setObjectName(QStringLiteral("openRunError"));
        m_errorBox->setInformativeText(kept);
        m_errorBox->setAttribute(Qt::WA_DeleteOnClose);
        m_errorBox->open();
        return Core::Error{error.path, text};
    }

    m_report = std::make_unique<Core::ReportJson::Report>(std::move(read).value());
    m_path = path;
    const Core::RunRecord &run = m_report->run;
    const QString date = run.startedAt.isValid()
        ? run.startedAt.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"))
        : tr("an unknown date");
    QString policy = QStringLiteral("\u201c%1\u201d").arg(run.policy.name);
    if (run.policies.size() > 1)
        policy += tr(" (and %n more)", nullptr, int(run.policies.size() - 1));
    const QString fileName = QFileInfo(path).fileName();
    present(run, fileName,
        tr("<b>Opened from %1</b>, run of %2, policy %3: <b>read-only</b>. %4 Send, Batch and Repeat go back to the "
           "live run.")
            .arg(fileName.toHtmlEscaped(), date, policy.toHtmlEscaped(),
                m_report->redacted ? tr("Credentials in it are masked.")
                                   : tr("It holds credentials (written with redaction off).")),
        QDir::toNativeSeparators(QFileInfo(path).absoluteFilePath()));
    return {};
}

void OpenedRun::showRecord(const Core::RunRecord &run, const QString &title)
{
    m_report.reset();
    m_path.clear();
    present(run, title,
        tr("<b>%1</b>: <b>read-only</b>. Send, Batch and Repeat go back to the live run.").arg(title.toHtmlEscaped()),
        QString());
}

void OpenedRun::replayRecord(const Core::RunRecord &record)
{
    m_report.reset();
    m_path.clear();
    const QString date = record.startedAt.isValid()
        ? record.startedAt.toLocalTime().toString(QStringLiteral("HH:mm:ss"))
        : tr("an unknown time");
    present(record, tr("replay of the run of %1").arg(date),
        tr("<b>Replay of the run of %1</b>, %n request(s): <b>read-only</b>. Send, Batch and Repeat go back to the "
           "live run.",
            nullptr, int(record.requests.size()))
            .arg(date),
        QString());
    m_replay->play();
}

void OpenedRun::present(
    const Core::RunRecord &record, const QString &title, const QString &text, const QString &toolTip)
{
    // Before the views change: the window names what they show when they do.
    m_title = title;
    show(record);
    m_text->setText(text);
    m_text->setToolTip(toolTip);
    m_banner->show();
    m_timeline->zoomToFit();
}

void OpenedRun::show(const Core::RunRecord &record)
{
    // The views leave the old session before it goes.
    std::unique_ptr<RunReplay> previous = std::move(m_replay);
    m_replay = std::make_unique<RunReplay>(record);
    m_replayBar->setReplay(m_replay.get());
    showSession(m_replay->session());
    previous.reset();
}

void OpenedRun::close()
{
    if (!m_replay)
        return;
    showSession(m_live);
    m_replayBar->setReplay(nullptr);
    m_replay.reset();
    m_report.reset();
    m_path.clear();
    m_title.clear();
    m_banner->hide();
}

void OpenedRun::showSession(RunSession *session)
{
    m_timeline->setSession(session);
    m_errorLog->setSession(session);
    m_statistics->setSession(session);
    m_inspector->setSession(session);
    Q_EMIT sessionChanged(session, session != m_live);
}

} // namespace RetryLab::Ui
