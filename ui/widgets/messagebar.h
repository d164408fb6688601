#pragma once

#include "ui/widgets/fieldmessage.h"

#include <QWidget>

class QVBoxLayout;

namespace RetryLab::Ui {

/// Messages for the whole window above the tabs (settings that could not be read,
/// a server that did not start, an export written or refused), each with a close
/// button. They stay until closed, so that nothing important flashes by; the
/// oldest go once more than maxMessages() are shown.
class MessageBar final : public QWidget
{
    Q_OBJECT

public:
    explicit MessageBar(QWidget *parent = nullptr);

    static constexpr int maxMessages() { return 4; }

    void showMessage(FieldMessage::Kind kind, const QString &text);
    /// The texts shown, oldest first.
    QStringList messages() const;
    void clear();

private:
    QVBoxLayout *m_layout;
};

} // namespace RetryLab::Ui
