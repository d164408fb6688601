#pragma once

#include "ui/widgets/fieldmessage.h"

#include <QStringList>
#include <QWidget>

#include <array>

class QTimer;
class QToolButton;

namespace RetryLab::Ui {

/// One message for the whole window above the tabs (settings that could not be
/// read, a server that did not start, an export written or refused). A new
/// message replaces the one shown, so that banners never stack and shrink the
/// results; each goes by itself after a while (longer for warnings and errors), or
/// with its close button. A long text shows its first sentence; the whole of it is
/// in the tooltip and behind "Details", which also keeps it from going by itself.
class MessageBar final : public QWidget
{
    Q_OBJECT

public:
    explicit MessageBar(QWidget *parent = nullptr);

    /// How many earlier messages messages() remembers.
    static constexpr int historyLimit() { return 20; }
    /// Texts longer than this show their first sentence (or as many words as fit).
    static constexpr int shortLength() { return 160; }

    /// Shows `text`, replacing the message shown; `details` (or, when empty, the
    /// rest of a long text) is what "Details" reveals.
    void showMessage(FieldMessage::Kind kind, const QString &text, const QString &details = {});
    /// The messages shown since clear(), whole, oldest first, at most historyLimit().
    QStringList messages() const { return m_history; }
    /// The short text shown now; empty when the bar is hidden.
    QString shownText() const;
    QString shownDetails() const { return m_details; }
    /// Hides the message shown and forgets the earlier ones.
    void clear();

    /// How long a message of `kind` stays; 0 keeps it until closed or replaced.
    int displayTimeMs(FieldMessage::Kind kind) const;
    void setDisplayTimeMs(FieldMessage::Kind kind, int ms);

    /// The first sentence of a long text (or its first words and "…"); the text
    /// itself when it is short.
    static QString shortText(const QString &text);

private:
    void dismiss();
    void toggleDetails();

    FieldMessage *m_message;
    QToolButton *m_detailsButton;
    QToolButton *m_close;
    QTimer *m_timer;
    QString m_short;
    QString m_details;
    bool m_expanded = false;
    QStringList m_history;
    std::array<int, 5> m_displayTimes{0, 8000, 8000, 15000, 30000}; ///< by FieldMessage::Kind
};

} // namespace RetryLab::Ui
