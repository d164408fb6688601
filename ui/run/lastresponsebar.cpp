#include "ui/run/lastresponsebar.h"

#include "core/http/redactor.h"
#include "core/record/attemptrecord.h"
#include "core/util/durationtext.h"
#include "ui/session/run/runsession.h"
#include "ui/widgets/bodyview.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>

namespace RetryLab::Ui {

namespace {

// How much of a body the line shows: a glance, the inspector has the rest.
constexpr qsizetype bodyGlanceChars = 160;

} // namespace

LastResponseBar::LastResponseBar(QWidget *parent)
    : QWidget(parent), m_status(new QLabel), m_body(new QLabel), m_inspect(new QToolButton)
{
    setObjectName(QStringLiteral("lastResponse"));
    m_status->setObjectName(QStringLiteral("lastResponseStatus"));
    m_status->setTextFormat(Qt::PlainText);
    QFont bold = m_status->font();
    bold.setBold(true);
    m_status->setFont(bold);
    m_body->setObjectName(QStringLiteral("lastResponseBody"));
    m_body->setTextFormat(Qt::PlainText);
    m_body->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_body->setForegroundRole(QPalette::PlaceholderText);
    // Never widens the window: the line is cut, the tooltip and the inspector have it whole.
    m_body->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_inspect->setObjectName(QStringLiteral("inspectLastResponse"));
    m_inspect->setText(tr("Inspect"));
    m_inspect->setToolTip(tr("Open this attempt in the attempt inspector: headers, body, timing (Ctrl+I). Any bar "
                             "of the timeline or row of the error log opens there too."));
    m_inspect->setAutoRaise(true);
    connect(m_inspect, &QToolButton::clicked, this, [this] {
        if (m_row >= 0)
            Q_EMIT inspectRequested(m_row);
    });

    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(6, 2, 6, 2);
    layout->addWidget(new QLabel(tr("Last answer:")));
    layout->addWidget(m_status);
    layout->addWidget(m_body, 1);
    layout->addWidget(m_inspect);
    hide();
}

void LastResponseBar::setSession(RunSession *session)
{
    if (m_session)
        disconnect(m_session, nullptr, this, nullptr);
    m_session = session;
    if (session) {
        connect(session, &RunSession::updated, this, &LastResponseBar::refresh);
        connect(session, &RunSession::cleared, this, &LastResponseBar::refresh);
    }
    refresh();
}

QString LastResponseBar::text() const
{
    return m_status->text() + QLatin1Char(' ') + m_body->text();
}

void LastResponseBar::refresh()
{
    const qsizetype finished = m_session ? m_session->finishedCount() : 0;
    if (finished == 0) {
        m_row = -1;
        hide();
        return;
    }
    const Core::AttemptRecord a = m_session->attemptRecord(finished - 1);
    m_row = m_session->finishedRow(finished - 1);
    const QString took = Core::DurationText::format(a.durationMs());
    QString status;
    if (a.httpStatus) {
        status = tr("%1 %2 in %3, %4")
                     .arg(*a.httpStatus)
                     .arg(QString::fromLatin1(a.reasonPhrase), took, BodyView::sizeText(a.responseBody.size()));
    } else {
        status = tr("no answer after %1: %2").arg(took, a.errorString);
    }
    m_status->setText(status);
    // Masked as the inspector masks it until its credentials are shown.
    const Core::Redactor redactor;
    QString glance
        = QString::fromUtf8(redactor.body(a.responseBody, a.responseHeaders).left(bodyGlanceChars * 4)).simplified();
    if (glance.size() > bodyGlanceChars)
        glance = glance.left(bodyGlanceChars) + QChar(0x2026);
    m_body->setText(glance);
    setToolTip(tr("Attempt %1 of request #%2: %3 %4")
                   .arg(a.attemptIndex + 1)
                   .arg(a.requestId)
                   .arg(QString::fromLatin1(a.method), redactor.urlString(a.url)));
    show();
}

} // namespace RetryLab::Ui
