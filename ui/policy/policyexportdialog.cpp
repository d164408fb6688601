#include "ui/policy/policyexportdialog.h"

#include "core/export/policyexport.h"
#include "core/util/exportfile.h"

#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QLoggingCategory>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QUrl>
#include <QVBoxLayout>

namespace {
Q_LOGGING_CATEGORY(lcPolicyExportDialog, "retrylab.ui.policyexportdialog")
} // namespace

namespace RetryLab::Ui {

namespace {

// A URL a runnable program can request: http or https with a host.
bool isProgramUrl(const QString &text)
{
    const QUrl url(text.trimmed(), QUrl::StrictMode);
    return url.isValid() && (url.scheme() == QLatin1String("http") || url.scheme() == QLatin1String("https"))
        && !url.host().isEmpty();
}

} // namespace

PolicyExportDialog::PolicyExportDialog(QWidget *parent)
    : QDialog(parent), m_format(new QComboBox(this)),
      m_runnable(new QCheckBox(tr("A complete &program that requests"), this)),
      m_url(new QLineEdit(QStringLiteral("http://127.0.0.1:8080/"), this)), m_preview(new QPlainTextEdit(this)),
      m_noteList(new QListWidget(this)), m_message(new QLabel(this)), m_copy(new QPushButton(tr("&Copy"), this)),
      m_save(new QPushButton(tr("&Save\u2026"), this))
{
    setWindowTitle(tr("Export the policy"));
    m_format->setObjectName(QStringLiteral("exportFormat"));
    m_runnable->setObjectName(QStringLiteral("exportRunnable"));
    m_url->setObjectName(QStringLiteral("exportRunnableUrl"));
    m_preview->setObjectName(QStringLiteral("exportPreview"));
    m_noteList->setObjectName(QStringLiteral("exportNotes"));
    m_message->setObjectName(QStringLiteral("exportMessage"));
    m_copy->setObjectName(QStringLiteral("exportCopy"));
    m_save->setObjectName(QStringLiteral("exportSave"));

    for (const Core::PolicyExport::Format &f : Core::PolicyExport::formats())
        m_format->addItem(QStringLiteral("%1 (%2)").arg(f.title, f.name), f.name);
    m_preview->setReadOnly(true);
    m_preview->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_preview->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_noteList->setWordWrap(true);
    m_noteList->setMaximumHeight(fontMetrics().lineSpacing() * 8);
    m_message->setWordWrap(true);

    auto *form = new QFormLayout;
    form->addRow(tr("&Format:"), m_format);
    auto *runnableRow = new QHBoxLayout;
    runnableRow->addWidget(m_runnable);
    runnableRow->addWidget(m_url, 1);
    form->addRow(runnableRow);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    buttons->addButton(m_copy, QDialogButtonBox::ActionRole);
    buttons->addButton(m_save, QDialogButtonBox::ActionRole);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_preview, 1);
    layout->addWidget(new QLabel(tr("What the format cannot express:"), this));
    layout->addWidget(m_noteList);
    layout->addWidget(m_message);
    layout->addWidget(buttons);
    resize(760, 620);

    connect(m_format, &QComboBox::currentIndexChanged, this, &PolicyExportDialog::handleFormatChanged);
    connect(m_runnable, &QCheckBox::toggled, this, &PolicyExportDialog::refresh);
    connect(m_url, &QLineEdit::textChanged, this, &PolicyExportDialog::refresh);
    connect(m_copy, &QPushButton::clicked, this, &PolicyExportDialog::handleCopy);
    connect(m_save, &QPushButton::clicked, this, &PolicyExportDialog::handleSave);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    handleFormatChanged();
}

void PolicyExportDialog::setPolicy(const Core::BackoffPolicy &policy)
{
    m_policy = policy;
    refresh();
}

void PolicyExportDialog::setRequestUrl(const QString &url)
{
    if (isProgramUrl(url))
        m_url->setText(url.trimmed());
}

bool PolicyExportDialog::setFormat(const QString &name)
{
    const int index = m_format->findData(name);
    if (index < 0)
        return false;
    m_format->setCurrentIndex(index);
    return true;
}

QString PolicyExportDialog::format() const
{
    return m_format->currentData().toString();
}

void PolicyExportDialog::setRunnable(bool runnable)
{
    m_runnable->setChecked(runnable);
}

void PolicyExportDialog::setFileChooser(FileChooser chooser)
{
    m_chooser = std::move(chooser);
}

void PolicyExportDialog::setDirectory(const QString &directory)
{
    m_directory = directory;
}

QString PolicyExportDialog::text() const
{
    return m_text;
}

QStringList PolicyExportDialog::notes() const
{
    return m_notes;
}

QString PolicyExportDialog::lastMessage() const
{
    return m_lastMessage;
}

void PolicyExportDialog::handleFormatChanged()
{
    const auto f = Core::PolicyExport::find(format());
    const bool runnable = f && f->runnable;
    m_runnable->setEnabled(runnable);
    m_url->setEnabled(runnable && m_runnable->isChecked());
    refresh();
}

void PolicyExportDialog::refresh()
{
    const auto f = Core::PolicyExport::find(format());
    const bool runnable = f && f->runnable;
    m_url->setEnabled(runnable && m_runnable->isChecked());
    Core::PolicyExport::Options options;
    setMessage({});
    if (runnable && m_runnable->isChecked()) {
        if (isProgramUrl(m_url->text()))
            options.runnableUrl = QUrl(m_url->text().trimmed()).toString(QUrl::FullyEncoded);
        else
            setMessage(tr("A program needs an http:// or https:// URL; the snippet is shown instead."));
    }
    const Core::SourceText::Code code = Core::PolicyExport::write(format(), m_policy, options);
    m_text = code.text;
    m_notes = code.notes;
    m_preview->setPlainText(m_text);
    m_noteList->clear();
    if (m_notes.isEmpty())
        m_noteList->addItem(tr("Nothing dropped: the format expresses the whole policy."));
    else
        m_noteList->addItems(m_notes);
    qCDebug(lcPolicyExportDialog) << format() << m_notes.size() << "notes";
}

void PolicyExportDialog::setMessage(const QString &message)
{
    m_lastMessage = message;
    m_message->setText(message);
    m_message->setVisible(!message.isEmpty());
}

void PolicyExportDialog::handleCopy()
{
    QGuiApplication::clipboard()->setText(m_text);
    setMessage(tr("Copied to the clipboard."));
}

bool PolicyExportDialog::saveTo(const QString &path)
{
    const auto written = Core::ExportFile::write(path, m_text.toUtf8());
    if (!written) {
        setMessage(tr("Could not save: %1").arg(written.error()));
        return false;
    }
    setMessage(tr("Saved %1.").arg(QDir::toNativeSeparators(path)));
    Q_EMIT saved(path);
    return true;
}

void PolicyExportDialog::handleSave()
{
    const auto f = Core::PolicyExport::find(format());
    const QString suffix = f ? f->suffix : QStringLiteral("txt");
    QString base = m_policy.name.simplified().replace(QLatin1Char(' '), QLatin1Char('-')).toLower();
    base.remove(QLatin1Char('/'));
    if (base.isEmpty())
        base = QStringLiteral("policy");
    const QString suggestion = QDir(m_directory).filePath(QStringLiteral("%1.%2").arg(base, suffix));
    const QString title = tr("Save the policy as %1").arg(f ? f->title : format());
    const QString filter = tr("%1 (*.%2);;All files (*)").arg(f ? f->title : format(), suffix);
    QString path = m_chooser ? m_chooser(title, suggestion, filter)
                             : QFileDialog::getSaveFileName(this, title, suggestion, filter);
    if (path.isEmpty())
        return;
    if (QFileInfo(path).suffix().isEmpty())
        path += QLatin1Char('.') + suffix;
    saveTo(path);
}

} // namespace RetryLab::Ui
