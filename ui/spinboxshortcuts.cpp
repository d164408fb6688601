#include "ui/spinboxshortcuts.h"

#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QKeyEvent>
#include <QWidget>

namespace RetryLab::Ui {

namespace {

bool isStandardEditingKey(QKeyEvent *key)
{
    for (const QKeySequence::StandardKey standard : {QKeySequence::Copy, QKeySequence::Cut, QKeySequence::Paste,
             QKeySequence::Undo, QKeySequence::Redo, QKeySequence::SelectAll}) {
        if (key->matches(standard))
            return true;
    }
    return false;
}

QAbstractSpinBox *spinBoxOf(QObject *watched)
{
    // The spin box holds the focus; its line edit may be the receiver when it has it.
    if (auto *spin = qobject_cast<QAbstractSpinBox *>(watched))
        return spin;
    return watched ? qobject_cast<QAbstractSpinBox *>(watched->parent()) : nullptr;
}

} // namespace

SpinBoxShortcuts::SpinBoxShortcuts(QWidget *window) : QObject(window), m_window(window)
{
    qApp->installEventFilter(this);
}

bool SpinBoxShortcuts::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() != QEvent::ShortcutOverride)
        return false;
    QAbstractSpinBox *spin = spinBoxOf(watched);
    if (!spin || spin->window() != m_window)
        return false;
    auto *key = static_cast<QKeyEvent *>(event);
    if (!(key->modifiers() & (Qt::ControlModifier | Qt::AltModifier | Qt::MetaModifier)) || isStandardEditingKey(key))
        return false;
    const QKeySequence pressed(key->keyCombination());
    const QList<QAction *> actions = m_window->findChildren<QAction *>();
    for (const QAction *action : actions) {
        if (action->isEnabled() && action->shortcuts().contains(pressed)) {
            // Not accepted: the shortcut map then gives the key to the action.
            event->ignore();
            return true;
        }
    }
    return false;
}

} // namespace RetryLab::Ui
