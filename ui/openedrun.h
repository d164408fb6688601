#pragma once

#include "core/export/reportjson.h"
#include "core/util/result.h"

#include <QMessageBox>
#include <QObject>
#include <QPointer>
#include <QString>

#include <memory>

class QAction;
class QFrame;
class QLabel;
class QPushButton;
class QWidget;

namespace RetryLab::Ui {

class AttemptInspector;
class ReplayBar;
class RunReplay;
class ErrorLogView;
class MessageBar;
class RunSession;
class StatisticsView;
class TimelineView;

/// File > Open run: a JSON report shown in the run's views (timeline, error log,
/// statistics, attempt inspector) instead of the live run, read-only. View > Replay
/// the run shows a copy of the live run's record the same way, and so does a run
/// made in memory (showRecord(): one check of a monitor's history). Each can be
/// played back at 0.1x to 10x with the banner's replay bar (RunReplay): the views
/// follow the playhead.
///
/// The live run is not touched: it keeps recording what is running, and the
/// views go back to it when the opened run is closed (the banner's Close, or
/// any Send, Batch or Repeat, which are about the live run). A report that
/// cannot be read gets a dialog naming the file and the field, and whatever
/// was shown stays.
class OpenedRun final : public QObject
{
    Q_OBJECT

public:
    /// None is owned; `live` is the window's own session.
    OpenedRun(RunSession *live, TimelineView *timeline, ErrorLogView *errorLog, StatisticsView *statistics,
        AttemptInspector *inspector, MessageBar *messages, QWidget *dialogParent);
    ~OpenedRun() override;

    /// The read-only banner, for the window to place above the tabs (hidden until a run is opened).
    QFrame *banner() const { return m_banner; }
    QString bannerText() const;
    QPushButton *closeButton() const { return m_close; }

    Core::Result<void> open(const QString &path);
    /// Shows `run`, made in memory, as an opened file is shown: read-only, every
    /// request at once, replay at hand. The banner names it by `title` (plain
    /// text: "Check of api at 2026-11-29 03:12:07 from the monitor history").
    void showRecord(const Core::RunRecord &run, const QString &title);
    bool isOpen() const { return m_replay != nullptr; }
    /// The opened run's playback; null when none is open.
    RunReplay *replay() const { return m_replay.get(); }
    ReplayBar *replayBar() const { return m_replayBar; }
    /// Shows `record` (a finished run of the live session) and plays it from its start.
    void replayRecord(const Core::RunRecord &record);
    QString fileName() const { return m_path; }
    /// What is shown, in a few words for the window's title: the file's name, the
    /// title given to showRecord(), or that it is a replay; empty when none is open.
    QString title() const { return m_title; }
    const Core::ReportJson::Report *report() const { return m_report.get(); }
    /// The session the views show: the opened run's, or the live one.
    RunSession *shownSession() const;
    QMessageBox *errorBox() const { return m_errorBox; }

public Q_SLOTS:
    /// Back to the live run; nothing happens when no run is open.
    void close();

Q_SIGNALS:
    /// The views now show `session` (the opened run's, or the live one).
    void sessionChanged(RunSession *session, bool readOnly);

private:
    void showSession(RunSession *session);
    void show(const Core::RunRecord &record);
    /// show(), then the banner with `text` (rich text) over the views, zoomed to fit.
    void present(const Core::RunRecord &record, const QString &title, const QString &text, const QString &toolTip);

    RunSession *m_live;
    TimelineView *m_timeline;
    ErrorLogView *m_errorLog;
    StatisticsView *m_statistics;
    AttemptInspector *m_inspector;
    MessageBar *m_messages;
    QWidget *m_dialogParent;

    QPointer<QFrame> m_banner; // deleted here when no window took it
    QLabel *m_text;
    QPushButton *m_close;
    ReplayBar *m_replayBar;
    std::unique_ptr<RunReplay> m_replay;
    std::unique_ptr<Core::ReportJson::Report> m_report;
    QString m_path;
    QString m_title;
    QPointer<QMessageBox> m_errorBox;
};

} // namespace RetryLab::Ui
