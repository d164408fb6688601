#include "ui/policy/policypanel.h"

#include "core/policy/presets.h"
#include "ui/policy/policyeditor.h"
#include "ui/policy/schedulepreviewchart.h"
#include "ui/session/settings/settings.h"

#include <QResizeEvent>
#include <QScrollArea>
#include <QSplitter>
#include <QVBoxLayout>

namespace RetryLab::Ui {

PolicyPanel::PolicyPanel(Settings *settings, QWidget *parent)
    : QWidget(parent), m_settings(settings), m_editor(new PolicyEditor(settings)), m_preview(new SchedulePreviewChart),
      m_splitter(new QSplitter(Qt::Vertical, this))
{
    m_splitter->addWidget(m_editor);
    // A short window scrolls the preview rather than squeeze its wrapped legend over the chart.
    auto *previewScroll = new QScrollArea;
    previewScroll->setObjectName(QStringLiteral("previewScroll"));
    previewScroll->setFrameShape(QFrame::NoFrame);
    previewScroll->setWidgetResizable(true);
    previewScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    previewScroll->setWidget(m_preview);
    m_splitter->addWidget(previewScroll);
    m_splitter->setChildrenCollapsible(false);
    m_splitter->setStretchFactor(0, 3);
    m_splitter->setStretchFactor(1, 2);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_splitter);

    if (m_settings)
        m_editor->setPolicy(m_settings->currentPolicy());
    // A first launch starts from the preset the defaults' delay formula comes from,
    // chosen by name, rather than from an anonymous, greyed "Custom policy".
    if (m_settings && !m_settings->hasCurrentPolicy()) {
        const Core::BackoffPolicy defaults;
        for (const auto &preset : Core::Presets::all()) {
            const Core::BackoffPolicy &p = preset.policy;
            if (p.algorithm == defaults.algorithm && p.baseDelayMs == defaults.baseDelayMs
                && p.multiplier == defaults.multiplier && p.maxBackoffMs == defaults.maxBackoffMs
                && p.jitterMs == defaults.jitterMs) {
                m_editor->presetBar()->loadBuiltInPreset(preset.id);
                break;
            }
        }
    }
    m_preview->setPolicy(m_editor->policy());
    m_preview->setProblem(m_editor->isUsable() ? QString() : m_editor->invalidReason());
    m_preview->flush();

    connect(m_editor, &PolicyEditor::policyChanged, this, &PolicyPanel::handlePolicyChanged);
    connect(m_editor, &PolicyEditor::validityChanged, this, [this](bool usable, const QString &why) {
        // An edit can make the policy usable without changing it (the statuses text was fixed).
        if (usable && m_settings)
            m_settings->setCurrentPolicy(m_editor->policy());
        m_preview->setProblem(usable ? QString() : why);
        Q_EMIT validityChanged(usable, why);
    });
}

Core::BackoffPolicy PolicyPanel::policy() const
{
    return m_editor->policy();
}

void PolicyPanel::setPolicy(const Core::BackoffPolicy &policy)
{
    m_editor->setPolicy(policy);
}

bool PolicyPanel::isUsable() const
{
    return m_editor->isUsable();
}

Qt::Orientation PolicyPanel::orientation() const
{
    return m_splitter->orientation();
}

void PolicyPanel::handlePolicyChanged(const Core::BackoffPolicy &policy)
{
    m_preview->setPolicy(policy);
    // Only usable policies are kept, so a half-typed value is never what the next start opens with.
    if (m_settings && m_editor->isUsable())
        m_settings->setCurrentPolicy(policy);
    Q_EMIT policyChanged(policy);
}

void PolicyPanel::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    const QSize size = event->size();
    // Some hysteresis, so that a dock near square does not flip on every pixel.
    Qt::Orientation next = m_splitter->orientation();
    if (next == Qt::Vertical && size.width() > size.height() * 1.3)
        next = Qt::Horizontal;
    else if (next == Qt::Horizontal && size.width() < size.height() * 1.1)
        next = Qt::Vertical;
    if (next == m_splitter->orientation() && m_sized)
        return;
    m_splitter->setOrientation(next);
    // Side by side the chart gets the larger share; stacked, the editor (it is taller).
    const int length = next == Qt::Horizontal ? size.width() : size.height();
    const int editorShare = next == Qt::Horizontal ? length * 9 / 20 : length * 3 / 5;
    m_splitter->setSizes({editorShare, length - editorShare});
    m_sized = true;
}

} // namespace RetryLab::Ui
