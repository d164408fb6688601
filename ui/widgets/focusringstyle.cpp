#include "ui/widgets/focusringstyle.h"

#include <QApplication>
#include <QEvent>
#include <QPainter>
#include <QPalette>
#include <QPushButton>
#include <QStyleFactory>
#include <QStyleOption>
#include <QToolButton>

namespace RetryLab::Ui {

FocusRingStyle::FocusRingStyle(QStyle *base) : QProxyStyle(base)
{
    setObjectName(QStringLiteral("retrylabFocusRingStyle"));
}

void FocusRingStyle::install()
{
    if (!qobject_cast<QApplication *>(QCoreApplication::instance()))
        return;
    QStyle *current = QApplication::style();
    if (qobject_cast<FocusRingStyle *>(current))
        return;
    // The application deletes its current style when it is replaced: wrap a new one of the same kind.
    QStyle *base = current ? QStyleFactory::create(current->name()) : nullptr;
    auto *style = new FocusRingStyle(base);
    QApplication::setStyle(style);
    QCoreApplication::instance()->installEventFilter(style);
}

bool FocusRingStyle::eventFilter(QObject *watched, QEvent *event)
{
    // The focus a click gives is where the pointer is: no ring needed until the next Tab.
    if (event->type() == QEvent::MouseButtonPress && watched->isWidgetType()) {
        QWidget *window = static_cast<QWidget *>(watched)->window();
        if (window->testAttribute(Qt::WA_KeyboardFocusChange)) {
            window->setAttribute(Qt::WA_KeyboardFocusChange, false);
            window->update();
        }
    }
    return QProxyStyle::eventFilter(watched, event);
}

bool FocusRingStyle::wantsRing(const QStyleOption *option)
{
    return option && option->state.testFlag(State_HasFocus) && option->state.testFlag(State_KeyboardFocusChange)
        && option->state.testFlag(State_Enabled);
}

void FocusRingStyle::drawRing(QPainter *painter, const QRect &rect, const QPalette &palette)
{
    if (!painter || rect.width() < 2 * ringWidth || rect.height() < 2 * ringWidth)
        return;
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing, true);
    painter->setBrush(Qt::NoBrush);
    painter->setPen(QPen(palette.color(QPalette::Highlight), ringWidth));
    // The pen is centred on the path: inset by half of it so that all of it falls inside.
    const qreal half = ringWidth / 2.0;
    painter->drawRoundedRect(QRectF(rect).adjusted(half, half, -half, -half), 3.0, 3.0);
    painter->restore();
}

void FocusRingStyle::drawPrimitive(
    PrimitiveElement element, const QStyleOption *option, QPainter *painter, const QWidget *widget) const
{
    switch (element) {
    case PE_FrameFocusRect:
        // Buttons get the ring around their whole panel instead (below, and in
        // drawComplexControl()); elsewhere it replaces the faint rectangle.
        if (qobject_cast<const QPushButton *>(widget) || qobject_cast<const QToolButton *>(widget))
            return;
        if (wantsRing(option))
            drawRing(painter, option->rect, option->palette);
        else
            QProxyStyle::drawPrimitive(element, option, painter, widget);
        return;
    case PE_FrameLineEdit:
    case PE_PanelButtonCommand:
        QProxyStyle::drawPrimitive(element, option, painter, widget);
        if (wantsRing(option))
            drawRing(painter, option->rect, option->palette);
        return;
    default:
        QProxyStyle::drawPrimitive(element, option, painter, widget);
    }
}

void FocusRingStyle::drawComplexControl(
    ComplexControl control, const QStyleOptionComplex *option, QPainter *painter, const QWidget *widget) const
{
    QProxyStyle::drawComplexControl(control, option, painter, widget);
    if ((control == CC_SpinBox || control == CC_ComboBox || control == CC_ToolButton) && wantsRing(option))
        drawRing(painter, option->rect, option->palette);
}

} // namespace RetryLab::Ui
