#include "ui/widgets/messagebar.h"

#include <QHBoxLayout>
#include <QStyle>
#include <QTimer>
#include <QToolButton>

#include <algorithm>

namespace RetryLab::Ui {

MessageBar::MessageBar(QWidget *parent)
    : QWidget(parent), m_message(new FieldMessage(this)), m_detailsButton(new QToolButton(this)),
      m_close(new QToolButton(this)), m_timer(new QTimer(this))
{
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(6, 4, 6, 2);
    layout->setSpacing(4);
    layout->addWidget(m_message, 1);
    layout->addWidget(m_detailsButton, 0, Qt::AlignTop);
    layout->addWidget(m_close, 0, Qt::AlignTop);

    m_detailsButton->setObjectName(QStringLiteral("messageDetails"));
    m_detailsButton->setAutoRaise(true);
    m_detailsButton->setText(tr("Details"));
    m_detailsButton->setCheckable(true);
    connect(m_detailsButton, &QToolButton::clicked, this, &MessageBar::toggleDetails);
    m_close->setObjectName(QStringLiteral("messageClose"));
    m_close->setAutoRaise(true);
    m_close->setIcon(style()->standardIcon(QStyle::SP_TitleBarCloseButton, nullptr, m_close));
    m_close->setToolTip(tr("Dismiss"));
    connect(m_close, &QToolButton::clicked, this, &MessageBar::dismiss);
    m_timer->setSingleShot(true);
    connect(m_timer, &QTimer::timeout, this, &MessageBar::dismiss);
    setVisible(false);
}

QString MessageBar::shortText(const QString &text)
{
    const QString trimmed = text.trimmed();
    if (trimmed.size() <= shortLength() && !trimmed.contains(QLatin1Char('\n')))
        return trimmed;
    // The first sentence, when it is a sentence and not an abbreviation's dot.
    for (qsizetype at = trimmed.indexOf(QLatin1Char('.')); at >= 0 && at < shortLength();
         at = trimmed.indexOf(QLatin1Char('.'), at + 1)) {
        const bool ends = at + 1 == trimmed.size() || trimmed.at(at + 1).isSpace();
        if (ends && at >= 20)
            return trimmed.left(at + 1);
    }
    const qsizetype newline = trimmed.indexOf(QLatin1Char('\n'));
    if (newline >= 20 && newline <= shortLength())
        return trimmed.left(newline).trimmed();
    qsizetype cut = trimmed.lastIndexOf(QLatin1Char(' '), shortLength() - 1);
    if (cut < shortLength() / 2)
        cut = shortLength() - 1;
    return trimmed.left(cut).trimmed() + QChar(0x2026);
}

void MessageBar::showMessage(FieldMessage::Kind kind, const QString &text, const QString &details)
{
    if (text.trimmed().isEmpty())
        return;
    m_short = shortText(text);
    m_details = details.trimmed();
    if (m_details.isEmpty() && m_short != text.trimmed())
        m_details = text.trimmed();
    m_expanded = false;
    m_message->setMessage(kind, m_short);
    m_message->setToolTip(m_details);
    m_detailsButton->setChecked(false);
    m_detailsButton->setVisible(!m_details.isEmpty());
    m_detailsButton->setToolTip(m_details);

    m_history.append(
        details.trimmed().isEmpty() ? text.trimmed() : text.trimmed() + QLatin1Char('\n') + details.trimmed());
    while (m_history.size() > historyLimit())
        m_history.removeFirst();

    const int ms = displayTimeMs(kind);
    if (ms > 0)
        m_timer->start(ms);
    else
        m_timer->stop();
    setVisible(true);
}

QString MessageBar::shownText() const
{
    return isHidden() ? QString() : m_message->text();
}

void MessageBar::toggleDetails()
{
    m_expanded = !m_expanded;
    m_detailsButton->setChecked(m_expanded);
    m_message->setMessage(m_message->kind(), m_expanded ? m_details : m_short);
    // Someone is reading: the message stays until closed.
    if (m_expanded)
        m_timer->stop();
}

void MessageBar::dismiss()
{
    m_timer->stop();
    m_expanded = false;
    setVisible(false);
}

void MessageBar::clear()
{
    dismiss();
    m_history.clear();
    m_message->clear();
    m_short.clear();
    m_details.clear();
}

int MessageBar::displayTimeMs(FieldMessage::Kind kind) const
{
    return m_displayTimes.at(std::size_t(kind));
}

void MessageBar::setDisplayTimeMs(FieldMessage::Kind kind, int ms)
{
    m_displayTimes.at(std::size_t(kind)) = std::max(0, ms);
}

} // namespace RetryLab::Ui
