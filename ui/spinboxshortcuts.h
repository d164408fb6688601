#pragma once

#include <QObject>

class QWidget;

namespace RetryLab::Ui {

/// Lets the window's shortcuts through while the keyboard is in a spin box. A spin box
/// hands every key to its line edit first, and under X11's key bindings that edit claims
/// Ctrl+E (end of line) and other Emacs keys as its own, so Ctrl+E (export) did nothing
/// there. In a number field those keys move nothing useful: when a key is one of the
/// window's own shortcuts and not a standard editing key (copy, paste, undo, select
/// all), the window's action gets it.
class SpinBoxShortcuts final : public QObject
{
    Q_OBJECT

public:
    /// Watches the application's events for spin boxes inside `window`.
    explicit SpinBoxShortcuts(QWidget *window);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    QWidget *m_window = nullptr;
};

} // namespace RetryLab::Ui
