#include "ui/widgets/insecurebanner.h"

#include <QHBoxLayout>
#include <QLabel>

namespace RetryLab::Ui {

InsecureBanner::InsecureBanner(QWidget *parent) : QFrame(parent), m_label(new QLabel(this))
{
    setObjectName(QStringLiteral("insecureBanner"));
    setAutoFillBackground(true);
    // The same red in light and dark themes: it is a warning, not decoration.
    QPalette red = palette();
    red.setColor(QPalette::Window, QColor(0xb0, 0x00, 0x20));
    red.setColor(QPalette::WindowText, Qt::white);
    setPalette(red);
    m_label->setWordWrap(true);
    m_label->setTextFormat(Qt::PlainText);
    QFont bold = m_label->font();
    bold.setBold(true);
    m_label->setFont(bold);
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 4, 8, 4);
    layout->addWidget(m_label, 1);
    refresh();
}

void InsecureBanner::setIgnoredHosts(const QStringList &hosts)
{
    if (hosts == m_hosts)
        return;
    m_hosts = hosts;
    refresh();
}

void InsecureBanner::noteAttempt(const Core::AttemptRecord &record)
{
    if (!record.tls.errorsIgnored)
        return;
    ++m_attempts;
    const QString host = record.url.host();
    if (!host.isEmpty() && !m_runHosts.contains(host, Qt::CaseInsensitive))
        m_runHosts.append(host);
    refresh();
}

void InsecureBanner::clearRun()
{
    m_attempts = 0;
    m_runHosts.clear();
    refresh();
}

QString InsecureBanner::text() const
{
    return m_label->text();
}

void InsecureBanner::refresh()
{
    QStringList parts;
    if (!m_hosts.isEmpty()) {
        parts.append(tr("\u26a0 Certificate errors are IGNORED for %1: the server's identity is not checked "
                        "(Request \u2192 Connection).")
                         .arg(m_hosts.join(QStringLiteral(", "))));
    }
    if (m_attempts > 0) {
        parts.append(
            tr("%1This run has %n attempt(s) whose certificate errors were ignored (%2); exports say so.", nullptr,
                m_attempts)
                .arg(m_hosts.isEmpty() ? QStringLiteral("\u26a0 ") : QString(), m_runHosts.join(QStringLiteral(", "))));
    }
    m_label->setText(parts.join(QLatin1Char(' ')));
    setToolTip(tr("Ignoring certificate errors lets anyone on the path pose as the server. It is off by default, "
                  "never saved, and marked in every export while on."));
    setVisible(!parts.isEmpty());
}

} // namespace RetryLab::Ui
