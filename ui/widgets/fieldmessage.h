#pragma once

#include <QWidget>

QT_BEGIN_NAMESPACE
class QLabel;
QT_END_NAMESPACE

namespace RetryLab::Ui {

/// A short message next to a form field: an error, a warning, or a note
/// (why a field is disabled). The kind is told by the style's standard icon and
/// a word, never by colour alone, so it reads the same in light and dark themes.
class FieldMessage final : public QWidget
{
    Q_OBJECT

public:
    enum class Kind { None, Note, Success, Warning, Error };

    explicit FieldMessage(QWidget *parent = nullptr);

    /// Shows the message; Kind::None or an empty text hides the widget.
    void setMessage(Kind kind, const QString &text);
    void clear() { setMessage(Kind::None, {}); }

    Kind kind() const { return m_kind; }
    QString text() const { return m_text; }

    QSize sizeHint() const override;

protected:
    void changeEvent(QEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    void refresh();

    Kind m_kind = Kind::None;
    QString m_text;
    QLabel *m_icon = nullptr;
    QLabel *m_label = nullptr;
};

} // namespace RetryLab::Ui
