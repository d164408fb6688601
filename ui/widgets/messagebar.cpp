#include "ui/widgets/messagebar.h"

#include <QHBoxLayout>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>

namespace RetryLab::Ui {

MessageBar::MessageBar(QWidget *parent) : QWidget(parent), m_layout(new QVBoxLayout(this))
{
    m_layout->setContentsMargins(6, 4, 6, 2);
    m_layout->setSpacing(2);
    setVisible(false);
}

void MessageBar::showMessage(FieldMessage::Kind kind, const QString &text)
{
    if (text.isEmpty())
        return;
    auto *row = new QWidget(this);
    auto *message = new FieldMessage(row);
    message->setMessage(kind, text);
    auto *close = new QToolButton(row);
    close->setAutoRaise(true);
    close->setIcon(style()->standardIcon(QStyle::SP_TitleBarCloseButton, nullptr, close));
    close->setToolTip(tr("Dismiss"));
    auto *layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(message, 1);
    layout->addWidget(close, 0, Qt::AlignTop);
    connect(close, &QToolButton::clicked, this, [this, row] {
        m_layout->removeWidget(row);
        row->deleteLater();
        setVisible(m_layout->count() > 0);
    });
    m_layout->addWidget(row);
    while (m_layout->count() > maxMessages()) {
        QWidget *oldest = m_layout->itemAt(0)->widget();
        m_layout->removeWidget(oldest);
        delete oldest;
    }
    setVisible(true);
}

QStringList MessageBar::messages() const
{
    QStringList texts;
    for (int i = 0; i < m_layout->count(); ++i) {
        if (QWidget *row = m_layout->itemAt(i)->widget()) {
            if (auto *message = row->findChild<FieldMessage *>())
                texts.append(message->text());
        }
    }
    return texts;
}

void MessageBar::clear()
{
    while (m_layout->count() > 0) {
        QWidget *row = m_layout->itemAt(0)->widget();
        m_layout->removeWidget(row);
        delete row;
    }
    setVisible(false);
}

} // namespace RetryLab::Ui
