#include "ui/widgets/wheelguard.h"

#include <QAbstractScrollArea>
#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QScrollBar>
#include <QWheelEvent>

namespace RetryLab::Ui {

namespace {

QAbstractScrollArea *scrollAreaAround(const QWidget *widget)
{
    for (QWidget *ancestor = widget->parentWidget(); ancestor; ancestor = ancestor->parentWidget()) {
        if (auto *area = qobject_cast<QAbstractScrollArea *>(ancestor))
            return area;
        if (ancestor->isWindow())
            break;
    }
    return nullptr;
}

} // namespace

WheelGuard::WheelGuard(QObject *parent) : QObject(parent)
{
    setObjectName(QStringLiteral("retrylabWheelGuard"));
}

void WheelGuard::install()
{
    auto *application = QCoreApplication::instance();
    if (!application || application->findChild<WheelGuard *>(QString(), Qt::FindDirectChildrenOnly))
        return;
    application->installEventFilter(new WheelGuard(application));
}

bool WheelGuard::guards(const QWidget *widget)
{
    if (!widget)
        return false;
    if (qobject_cast<const QAbstractSpinBox *>(widget) || qobject_cast<const QComboBox *>(widget))
        return true;
    return qobject_cast<const QAbstractSlider *>(widget) && !qobject_cast<const QScrollBar *>(widget);
}

bool WheelGuard::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() != QEvent::Polish && event->type() != QEvent::Wheel)
        return false;
    auto *widget = qobject_cast<QWidget *>(watched);
    if (!guards(widget))
        return false;
    if (event->type() == QEvent::Polish) {
        if ((widget->focusPolicy() & Qt::WheelFocus) == Qt::WheelFocus)
            widget->setFocusPolicy(Qt::StrongFocus);
        return false;
    }
    if (widget->hasFocus())
        return false;
    // Handed to the scroll area as its own wheel event would be, then taken, so that
    // neither this widget nor its parents act on it a second time.
    auto *wheel = static_cast<QWheelEvent *>(event);
    if (QAbstractScrollArea *area = scrollAreaAround(widget)) {
        QWidget *viewport = area->viewport();
        QWheelEvent forwarded(viewport->mapFromGlobal(wheel->globalPosition()), wheel->globalPosition(),
            wheel->pixelDelta(), wheel->angleDelta(), wheel->buttons(), wheel->modifiers(), wheel->phase(),
            wheel->inverted(), wheel->source());
        QCoreApplication::sendEvent(viewport, &forwarded);
    }
    wheel->accept();
    return true;
}

} // namespace RetryLab::Ui
