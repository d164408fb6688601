#pragma once

#include <QWidget>

class QLabel;
class QToolButton;

namespace RetryLab::Ui {

class RunSession;

/// The answer to the last attempt, in one line under the request, as an API client shows
/// its response: status, time, size and the start of the body, and Inspect, which opens
/// the attempt inspector on it. A newcomer sees what came back without knowing that an
/// attempt can be clicked. Follows the session as it changes (RunSession::updated, which
/// is coalesced), hidden until something was answered.
class LastResponseBar final : public QWidget
{
    Q_OBJECT

public:
    explicit LastResponseBar(QWidget *parent = nullptr);

    void setSession(RunSession *session);
    /// The session row shown; -1 none.
    qsizetype shownRow() const { return m_row; }
    QString text() const;

Q_SIGNALS:
    /// Inspect was pressed: the attempt inspector should show this row.
    void inspectRequested(qsizetype sessionRow);

private:
    void refresh();

    RunSession *m_session = nullptr;
    QLabel *m_status;
    QLabel *m_body;
    QToolButton *m_inspect;
    qsizetype m_row = -1;
};

} // namespace RetryLab::Ui
