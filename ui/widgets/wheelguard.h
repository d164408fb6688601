#pragma once

#include <QObject>

class QWidget;

namespace RetryLab::Ui {

/// Spin boxes, combo boxes and sliders take the mouse wheel only when they have the
/// keyboard focus, everywhere in the application. Scrolling a form then scrolls the
/// form: a value passing under the pointer is not changed behind the user's back, and
/// the wheel does not give such a widget the focus either (its policy becomes
/// Qt::StrongFocus when it is polished). A wheel turned over an unfocused one goes to
/// the scroll area around it.
class WheelGuard final : public QObject
{
    Q_OBJECT

public:
    /// Installs one guard on the application (further calls do nothing).
    static void install();
    /// Whether the guard keeps the wheel from this kind of widget when it is unfocused:
    /// spin boxes (numbers, dates, units), combo boxes, sliders and dials (not scroll bars).
    static bool guards(const QWidget *widget);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    explicit WheelGuard(QObject *parent);
};

} // namespace RetryLab::Ui
