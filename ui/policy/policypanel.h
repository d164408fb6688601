#pragma once

#include "core/policy/backoffpolicy.h"

#include <QWidget>

QT_BEGIN_NAMESPACE
class QSplitter;
QT_END_NAMESPACE

namespace RetryLab::Ui {

class PolicyEditor;
class SchedulePreviewChart;
class Settings;

/// The policy dock's content: the editor and, beside it, the live preview of
/// the schedule. Side by side when the dock is wide, stacked when it is tall.
/// With Settings it starts from the saved policy and saves every usable edit.
class PolicyPanel final : public QWidget
{
    Q_OBJECT

public:
    explicit PolicyPanel(Settings *settings = nullptr, QWidget *parent = nullptr);

    PolicyEditor *editor() const { return m_editor; }
    SchedulePreviewChart *preview() const { return m_preview; }

    Core::BackoffPolicy policy() const;
    void setPolicy(const Core::BackoffPolicy &policy);
    bool isUsable() const;

    Qt::Orientation orientation() const;

Q_SIGNALS:
    void policyChanged(const Core::BackoffPolicy &policy);
    void validityChanged(bool usable, const QString &why);

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    void handlePolicyChanged(const Core::BackoffPolicy &policy);

    Settings *m_settings = nullptr;
    PolicyEditor *m_editor = nullptr;
    SchedulePreviewChart *m_preview = nullptr;
    QSplitter *m_splitter = nullptr;
    bool m_sized = false;
};

} // namespace RetryLab::Ui
