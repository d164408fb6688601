#include "ui/policy/presetbar.h"

#include "core/policy/policyjson.h"
#include "core/policy/presets.h"
#include "ui/session/settings/settings.h"
#include "ui/widgets/fieldmessage.h"
#include "ui/widgets/flowlayout.h"

#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QLoggingCategory>
#include <QMessageBox>
#include <QRegularExpression>
#include <QSignalBlocker>
#include <QStandardPaths>
#include <QToolButton>
#include <QVBoxLayout>

namespace {
Q_LOGGING_CATEGORY(lcPresetBar, "retrylab.ui.presetbar")
} // namespace

namespace RetryLab::Ui {

using Core::BackoffPolicy;

namespace {

const QString builtInPrefix = QStringLiteral("builtin:");
const QString userPrefix = QStringLiteral("user:");

} // namespace

PresetBar::PresetBar(Settings *settings, QWidget *parent) : QWidget(parent), m_settings(settings)
{
    auto *column = new QVBoxLayout(this);
    column->setContentsMargins(0, 0, 0, 0);

    auto *top = new QHBoxLayout;
    auto *label = new QLabel(tr("&Preset:"), this);
    m_presetCombo = new QComboBox(this);
    m_presetCombo->setObjectName(QStringLiteral("presetCombo"));
    m_presetCombo->setPlaceholderText(tr("Custom policy"));
    m_presetCombo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_presetCombo->setMinimumContentsLength(14);
    m_presetCombo->setToolTip(tr("Load a built-in preset (from the seed documents and common clients) or one of "
                                 "your own. Choosing the same entry again discards your edits."));
    label->setBuddy(m_presetCombo);
    m_modifiedLabel = new QLabel(tr("(modified)"), this);
    m_modifiedLabel->setToolTip(tr("The fields differ from the chosen preset."));
    QFont italic = m_modifiedLabel->font();
    italic.setItalic(true);
    m_modifiedLabel->setFont(italic);
    top->addWidget(label);
    top->addWidget(m_presetCombo, 1);
    top->addWidget(m_modifiedLabel);
    column->addLayout(top);

    // Wraps rather than widen the dock.
    auto *buttons = new FlowLayout;
    auto makeButton = [this, buttons](const QString &text, const QString &toolTip, const char *name) {
        auto *button = new QToolButton(this);
        button->setText(text);
        button->setToolTip(toolTip);
        button->setObjectName(QString::fromLatin1(name));
        button->setToolButtonStyle(Qt::ToolButtonTextOnly);
        buttons->addWidget(button);
        return button;
    };
    m_saveAsButton
        = makeButton(tr("Save as…"), tr("Save the current policy as one of your own presets."), "saveAsButton");
    m_overwriteButton = makeButton(
        tr("Overwrite"), tr("Save the edits over the preset of yours they were made to."), "overwriteButton");
    m_deleteButton = makeButton(tr("Delete"), tr("Delete the chosen preset of yours."), "deleteButton");
    m_importButton = makeButton(tr("Import…"), tr("Read a policy from a JSON file."), "importButton");
    m_exportButton = makeButton(tr("Export…"), tr("Write the policy to a JSON file."), "exportButton");
    column->addLayout(buttons);

    m_actionMessage = new FieldMessage(this);
    m_actionMessage->setObjectName(QStringLiteral("actionMessage"));
    column->addWidget(m_actionMessage);

    if (!m_settings) {
        const QString why = tr("Presets of your own need the application's settings.");
        for (QToolButton *button : {m_saveAsButton, m_overwriteButton, m_deleteButton}) {
            button->setEnabled(false);
            button->setToolTip(why);
        }
    }

    connect(m_presetCombo, &QComboBox::activated, this, &PresetBar::handlePresetActivated);
    connect(m_saveAsButton, &QToolButton::clicked, this, &PresetBar::handleSaveAsClicked);
    connect(m_overwriteButton, &QToolButton::clicked, this, &PresetBar::overwriteUserPreset);
    connect(m_deleteButton, &QToolButton::clicked, this, &PresetBar::handleDeleteClicked);
    connect(m_importButton, &QToolButton::clicked, this, &PresetBar::handleImportClicked);
    connect(m_exportButton, &QToolButton::clicked, this, &PresetBar::handleExportClicked);
    if (m_settings) {
        connect(m_settings, &Settings::userPresetsChanged, this, [this] {
            rebuildPresetList();
            updatePresetState();
        });
    }

    rebuildPresetList();
    m_presetKey = matchingPresetKey(m_policy);
    updatePresetState();
}

PresetBar::~PresetBar() = default;

void PresetBar::setPolicy(const BackoffPolicy &policy)
{
    m_policy = policy;
    m_presetKey = matchingPresetKey(m_policy);
    updatePresetState();
}

void PresetBar::setEditedPolicy(const BackoffPolicy &policy)
{
    m_policy = policy;
    updatePresetState();
}

void PresetBar::setUsable(bool usable)
{
    m_usable = usable;
    m_exportButton->setEnabled(usable);
    m_exportButton->setToolTip(usable ? tr("Write the policy to a JSON file.")
                                      : tr("Fix the errors first: an exported policy must be readable again."));
}

void PresetBar::setStatusesError(const QString &error)
{
    m_statusesError = error;
}

std::optional<BackoffPolicy> PresetBar::presetPolicy(const QString &key) const
{
    if (key.startsWith(builtInPrefix)) {
        const QString id = key.mid(builtInPrefix.size());
        for (const auto &preset : Core::Presets::all()) {
            if (preset.id == id)
                return preset.policy;
        }
    } else if (key.startsWith(userPrefix) && m_settings) {
        return m_settings->userPreset(key.mid(userPrefix.size()));
    }
    return std::nullopt;
}

QString PresetBar::matchingPresetKey(const BackoffPolicy &policy) const
{
    // Keep the current choice when it still matches: two presets may be equal.
    if (!m_presetKey.isEmpty() && presetPolicy(m_presetKey) == policy)
        return m_presetKey;
    for (const auto &preset : Core::Presets::all()) {
        if (preset.policy == policy)
            return builtInPrefix + preset.id;
    }
    if (m_settings) {
        for (const BackoffPolicy &preset : m_settings->userPresets()) {
            if (preset == policy)
                return userPrefix + preset.name;
        }
    }
    return {};
}

bool PresetBar::isModified() const
{
    if (m_presetKey.isEmpty())
        return false;
    const auto preset = presetPolicy(m_presetKey);
    return !preset || *preset != m_policy;
}

void PresetBar::rebuildPresetList()
{
    const QSignalBlocker blocker(m_presetCombo);
    m_presetCombo->clear();
    for (const auto &preset : Core::Presets::all()) {
        m_presetCombo->addItem(preset.policy.name, QString(builtInPrefix + preset.id));
        const QString tip = preset.policy.description
            + (preset.policy.source.isEmpty() ? QString()
                                              : QStringLiteral("\n\n") + tr("Source: %1").arg(preset.policy.source));
        m_presetCombo->setItemData(m_presetCombo->count() - 1, tip, Qt::ToolTipRole);
    }
    if (m_settings) {
        const auto presets = m_settings->userPresets();
        if (!presets.isEmpty())
            m_presetCombo->insertSeparator(m_presetCombo->count());
        for (const BackoffPolicy &preset : presets) {
            m_presetCombo->addItem(tr("%1 (yours)").arg(preset.name), QString(userPrefix + preset.name));
            m_presetCombo->setItemData(m_presetCombo->count() - 1,
                preset.description.isEmpty() ? tr("One of your presets.") : preset.description, Qt::ToolTipRole);
        }
    }
}

void PresetBar::updatePresetState()
{
    if (!m_presetKey.isEmpty() && !presetPolicy(m_presetKey))
        m_presetKey.clear();
    {
        const QSignalBlocker blocker(m_presetCombo);
        m_presetCombo->setCurrentIndex(m_presetKey.isEmpty() ? -1 : m_presetCombo->findData(m_presetKey));
    }
    const bool modified = isModified();
    m_modifiedLabel->setVisible(modified);
    const bool isUser = m_presetKey.startsWith(userPrefix);
    if (m_settings) {
        m_overwriteButton->setEnabled(isUser && modified);
        m_deleteButton->setEnabled(isUser);
        m_saveAsButton->setEnabled(true);
    }
}

void PresetBar::showMessage(const QString &text, bool isError)
{
    m_actionMessage->setMessage(isError ? FieldMessage::Kind::Error : FieldMessage::Kind::Success, text);
}

QString PresetBar::lastMessage() const
{
    return m_actionMessage->text();
}

void PresetBar::handlePresetActivated(int index)
{
    const QString key = m_presetCombo->itemData(index).toString();
    const auto preset = presetPolicy(key);
    if (!preset)
        return;
    m_actionMessage->clear();
    m_presetKey = key;
    m_policy = *preset;
    updatePresetState();
    Q_EMIT presetChosen(*preset);
}

bool PresetBar::loadBuiltInPreset(const QString &id)
{
    const int index = m_presetCombo->findData(QString(builtInPrefix + id));
    if (index < 0)
        return false;
    handlePresetActivated(index);
    return true;
}

bool PresetBar::loadUserPreset(const QString &name)
{
    if (!m_settings)
        return false;
    const auto preset = m_settings->userPreset(name);
    if (!preset)
        return false;
    const int index = m_presetCombo->findData(QString(userPrefix + preset->name));
    if (index < 0)
        return false;
    handlePresetActivated(index);
    return true;
}

Core::Result<void> PresetBar::saveAsUserPreset(const QString &name)
{
    using R = Core::Result<void>;
    if (!m_settings)
        return R::failure(tr("Presets of your own need the application's settings."));
    if (!m_statusesError.isEmpty()) {
        const QString error = tr("Fix the retryable statuses first: %1").arg(m_statusesError);
        showMessage(error, true);
        return R::failure(error);
    }
    BackoffPolicy named = m_policy;
    named.name = name.trimmed();
    // Made from a built-in preset: its description and source describe the preset's
    // numbers, not these; say where this one came from instead.
    if (m_presetKey.startsWith(builtInPrefix)) {
        if (const auto base = presetPolicy(m_presetKey)) {
            if (named.description == base->description)
                named.description = tr("Yours, made from the preset \"%1\".").arg(base->name);
            if (named.source == base->source)
                named.source = tr("Your edit of \"%1\" (%2)").arg(base->name, base->source);
        }
    }
    if (const R saved = m_settings->saveUserPreset(named); !saved) {
        showMessage(saved.error(), true);
        return saved;
    }
    m_policy = named;
    m_presetKey = userPrefix + named.name;
    updatePresetState();
    showMessage(tr("Saved as your preset \"%1\".").arg(named.name), false);
    Q_EMIT presetChosen(named);
    return {};
}

Core::Result<void> PresetBar::overwriteUserPreset()
{
    if (!m_presetKey.startsWith(userPrefix)) {
        const QString error = tr("Only presets of your own can be overwritten; use Save as.");
        showMessage(error, true);
        return Core::Result<void>::failure(error);
    }
    return saveAsUserPreset(m_presetKey.mid(userPrefix.size()));
}

bool PresetBar::deleteUserPreset(const QString &name)
{
    if (!m_settings || !m_settings->removeUserPreset(name)) {
        showMessage(tr("There is no preset of yours called \"%1\".").arg(name), true);
        return false;
    }
    if (const auto synced = m_settings->sync(); !synced) {
        showMessage(synced.error(), true);
        return false;
    }
    // Settings::userPresetsChanged has rebuilt the list; the policy stays in the editor.
    m_presetKey = matchingPresetKey(m_policy);
    updatePresetState();
    showMessage(tr("Deleted your preset \"%1\"; its policy is still in the editor.").arg(name), false);
    return true;
}

bool PresetBar::importFile(const QString &path)
{
    auto result = Core::PolicyJson::readFile(path);
    if (!result) {
        qCDebug(lcPresetBar) << "import refused:" << result.error();
        showMessage(tr("Could not import: %1. The policy in the editor is unchanged.").arg(result.error()), true);
        return false;
    }
    Q_EMIT policyImported(*result);
    showMessage(tr("Imported \"%1\" from %2.").arg(result->name, QDir::toNativeSeparators(path)), false);
    return true;
}

bool PresetBar::exportFile(const QString &path)
{
    if (!m_usable) {
        showMessage(tr("The policy has errors; fix them before exporting, so that the file can be read again."), true);
        return false;
    }
    if (const auto written = Core::PolicyJson::writeFile(path, m_policy); !written) {
        showMessage(tr("Could not export: %1").arg(written.error()), true);
        return false;
    }
    showMessage(tr("Exported to %1.").arg(QDir::toNativeSeparators(path)), false);
    return true;
}

void PresetBar::handleSaveAsClicked()
{
    QString suggestion = m_policy.name;
    if (Settings::isBuiltInPresetName(suggestion))
        suggestion = tr("My %1").arg(suggestion);
    bool ok = false;
    const QString name = QInputDialog::getText(
        this, tr("Save preset"), tr("Name of your preset:"), QLineEdit::Normal, suggestion, &ok);
    if (!ok || name.trimmed().isEmpty())
        return;
    if (m_settings && m_settings->userPreset(name)) {
        const auto answer = QMessageBox::question(
            this, tr("Replace preset"), tr("You already have a preset called \"%1\". Replace it?").arg(name.trimmed()));
        if (answer != QMessageBox::Yes)
            return;
    }
    saveAsUserPreset(name);
}

void PresetBar::handleDeleteClicked()
{
    if (!m_presetKey.startsWith(userPrefix))
        return;
    const QString name = m_presetKey.mid(userPrefix.size());
    const auto answer = QMessageBox::question(
        this, tr("Delete preset"), tr("Delete your preset \"%1\"? The policy stays in the editor.").arg(name));
    if (answer == QMessageBox::Yes)
        deleteUserPreset(name);
}

void PresetBar::handleImportClicked()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Import policy"),
        QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation), tr("Policies (*.json);;All files (*)"));
    if (!path.isEmpty())
        importFile(path);
}

void PresetBar::handleExportClicked()
{
    QString fileName = m_policy.name.trimmed().toLower();
    fileName.replace(QRegularExpression(QStringLiteral("[^a-z0-9]+")), QStringLiteral("-"));
    const QString start
        = QDir(QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation))
              .filePath((fileName.isEmpty() ? QStringLiteral("policy") : fileName) + QStringLiteral(".json"));
    const QString path
        = QFileDialog::getSaveFileName(this, tr("Export policy"), start, tr("Policies (*.json);;All files (*)"));
    if (!path.isEmpty())
        exportFile(path);
}

} // namespace RetryLab::Ui
