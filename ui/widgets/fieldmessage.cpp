#include "ui/widgets/fieldmessage.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QResizeEvent>
#include <QStyle>

namespace RetryLab::Ui {

FieldMessage::FieldMessage(QWidget *parent) : QWidget(parent), m_icon(new QLabel(this)), m_label(new QLabel(this))
{
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    m_icon->setAlignment(Qt::AlignTop | Qt::AlignHCenter);
    m_label->setWordWrap(true);
    m_label->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_label->setTextFormat(Qt::PlainText);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_label->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    layout->addWidget(m_icon, 0, Qt::AlignTop);
    layout->addWidget(m_label, 1);
    setVisible(false);
}

void FieldMessage::setMessage(Kind kind, const QString &text)
{
    if (text.isEmpty())
        kind = Kind::None;
    if (kind == m_kind && text == m_text)
        return;
    m_kind = kind;
    m_text = kind == Kind::None ? QString() : text;
    refresh();
}

// A word-wrapped label hints at the height of a narrow, many-line block, and
// form layouts reserve that height even when the row is wide. Hint the height
// the text needs at the width the message actually has.
QSize FieldMessage::sizeHint() const
{
    const QSize hint = QWidget::sizeHint();
    const int width = this->width() > hint.width() ? this->width() : hint.width();
    const int height = heightForWidth(width);
    return {hint.width(), height > 0 ? height : hint.height()};
}

void FieldMessage::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    if (event->size().width() != event->oldSize().width())
        updateGeometry();
}

void FieldMessage::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::StyleChange)
        refresh();
}

void FieldMessage::refresh()
{
    QStyle::StandardPixmap pixmap = QStyle::SP_MessageBoxInformation;
    QString prefix;
    switch (m_kind) {
    case Kind::None:
        setVisible(false);
        return;
    case Kind::Note:
        pixmap = QStyle::SP_MessageBoxInformation;
        break;
    case Kind::Success:
        pixmap = QStyle::SP_DialogApplyButton;
        break;
    case Kind::Warning:
        pixmap = QStyle::SP_MessageBoxWarning;
        prefix = tr("Warning: ");
        break;
    case Kind::Error:
        pixmap = QStyle::SP_MessageBoxCritical;
        prefix = tr("Error: ");
        break;
    }
    const int size = style()->pixelMetric(QStyle::PM_SmallIconSize, nullptr, this);
    m_icon->setPixmap(style()->standardIcon(pixmap, nullptr, this).pixmap(size, size));
    m_icon->setFixedWidth(size);
    m_label->setText(prefix + m_text);
    QFont font = m_label->font();
    font.setItalic(m_kind == Kind::Note);
    m_label->setFont(font);
    setVisible(true);
}

} // namespace RetryLab::Ui
