#include "ui/import/curlimportdialog.h"

#include "core/http/redactor.h"
#include "core/policy/policyfields.h"
#include "core/util/durationtext.h"
#include "ui/import/importeddraft.h"
#include "ui/widgets/fieldmessage.h"

#include <QCheckBox>
#include <QColor>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QLabel>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTextBlock>
#include <QTextCharFormat>
#include <QTextCursor>
#include <QTextEdit>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

namespace RetryLab::Ui {

namespace {

/// The value the policy field at `path` has now, for "was ..." in the preview;
/// empty when it is not a number.
QString currentValue(const Core::BackoffPolicy &policy, const QString &path)
{
    const Core::PolicyField *field = Core::policyFieldAt(path);
    if (!field || !field->access.number)
        return {};
    const double value = field->number(policy);
    if (value == 0.0 && field->zeroMeansNone)
        return CurlImportDialog::tr("now none");
    const QLocale locale;
    switch (field->unit) {
    case Core::PolicyField::Unit::Attempts:
        return CurlImportDialog::tr("now %n attempt(s)", nullptr, int(value));
    case Core::PolicyField::Unit::Milliseconds:
        return CurlImportDialog::tr("now %1").arg(Core::DurationText::format(value, Core::DurationText::Style::Exact));
    case Core::PolicyField::Unit::None:
    case Core::PolicyField::Unit::Fraction:
    case Core::PolicyField::Unit::Factor:
        break;
    }
    return CurlImportDialog::tr("now %1").arg(locale.toString(value));
}

QString listed(const QStringList &items)
{
    QStringList shown;
    for (const QString &item : items)
        shown.append(item.toHtmlEscaped());
    return shown.join(QStringLiteral(", "));
}

} // namespace

CurlImportDialog::CurlImportDialog(QWidget *parent)
    : QDialog(parent), m_editor(new QPlainTextEdit), m_error(new FieldMessage), m_preview(new QPlainTextEdit),
      m_options(new QLabel), m_policy(new QLabel), m_applyPolicy(new QCheckBox),
      m_buttons(new QDialogButtonBox(QDialogButtonBox::Cancel)),
      m_parsed(Core::Error{QString(), tr("paste a curl command")})
{
    setWindowTitle(tr("Import a curl command"));
    setObjectName(QStringLiteral("curlImportDialog"));
    const QFont fixed = QFontDatabase::systemFont(QFontDatabase::FixedFont);

    m_editor->setObjectName(QStringLiteral("curlCommand"));
    m_editor->setFont(fixed);
    m_editor->setPlaceholderText(tr(
        "curl -X POST https://api.example.com/orders -H 'Content-Type: application/json' -d '{\"id\": 1}' --retry 5"));
    m_editor->setTabChangesFocus(true);
    m_editor->setMinimumHeight(fontMetrics().height() * 5);

    m_error->setObjectName(QStringLiteral("curlError"));
    m_preview->setObjectName(QStringLiteral("curlPreview"));
    m_preview->setReadOnly(true);
    m_preview->setFont(fixed);
    m_preview->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_options->setObjectName(QStringLiteral("curlOptions"));
    m_options->setWordWrap(true);
    m_options->setTextFormat(Qt::RichText);
    m_policy->setObjectName(QStringLiteral("curlPolicy"));
    m_policy->setWordWrap(true);
    m_policy->setTextFormat(Qt::RichText);
    m_applyPolicy->setObjectName(QStringLiteral("curlApplyPolicy"));
    m_applyPolicy->setText(tr("Also change the &policy as the --retry flags say"));

    auto *importButton = m_buttons->addButton(tr("&Import"), QDialogButtonBox::AcceptRole);
    importButton->setObjectName(QStringLiteral("importButton"));
    importButton->setDefault(true);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *pasteLabel = new QLabel(tr("&Command line (as in a terminal or a browser's \u201cCopy as cURL\u201d):"));
    pasteLabel->setBuddy(m_editor);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(pasteLabel);
    layout->addWidget(m_editor, 2);
    layout->addWidget(m_error);
    layout->addWidget(new QLabel(tr("The request it sends:")));
    layout->addWidget(m_preview, 3);
    layout->addWidget(m_options);
    layout->addWidget(m_policy);
    layout->addWidget(m_applyPolicy);
    layout->addWidget(m_buttons);
    resize(fontMetrics().horizontalAdvance(QLatin1Char('x')) * 100, fontMetrics().height() * 34);

    connect(m_editor, &QPlainTextEdit::textChanged, this, &CurlImportDialog::reparse);
    reparse();
}

CurlImportDialog::~CurlImportDialog() = default;

void CurlImportDialog::setPolicy(const Core::BackoffPolicy &policy)
{
    m_policyBefore = policy;
    reparse();
}

void CurlImportDialog::setBaseDirectory(const QString &directory)
{
    m_parseOptions.baseDirectory = directory;
    reparse();
}

void CurlImportDialog::setCommandLine(const QString &text)
{
    m_editor->setPlainText(text);
}

QString CurlImportDialog::commandLine() const
{
    return m_editor->toPlainText();
}

bool CurlImportDialog::appliesPolicy() const
{
    return m_applyPolicy->isEnabled() && m_applyPolicy->isChecked();
}

void CurlImportDialog::setAppliesPolicy(bool apply)
{
    m_applyPolicy->setChecked(apply);
}

QString CurlImportDialog::errorText() const
{
    return m_error->text();
}

QString CurlImportDialog::requestPreview() const
{
    return m_preview->toPlainText();
}

QString CurlImportDialog::optionsText() const
{
    return m_options->text();
}

QString CurlImportDialog::policyText() const
{
    return m_policy->text();
}

QPushButton *CurlImportDialog::importButton() const
{
    return m_buttons->findChild<QPushButton *>(QStringLiteral("importButton"));
}

void CurlImportDialog::reparse()
{
    const QString text = m_editor->toPlainText();
    m_changes.clear();
    m_policyAfter = m_policyBefore;
    m_editor->setExtraSelections({});
    if (text.trimmed().isEmpty()) {
        m_parsed = Core::Error{QString(), tr("paste a curl command")};
        m_error->setMessage(FieldMessage::Kind::Note, tr("Paste a curl command line; it is read as you type."));
    } else {
        m_parsed = Core::CurlCommandLine::parse(text, m_parseOptions);
        if (m_parsed.ok()) {
            m_error->clear();
        } else {
            const Core::Error error = m_parsed.errorDetail();
            m_error->setMessage(FieldMessage::Kind::Error,
                error.path.isEmpty() ? error.message : tr("At %1: %2").arg(error.path, error.message));
            // Underline the place the message names, as a compiler would.
            const QTextBlock block = m_editor->document()->findBlock(int(error.offset));
            if (error.offset >= 0 && block.isValid()) {
                QTextEdit::ExtraSelection mark;
                mark.cursor = QTextCursor(block);
                mark.cursor.movePosition(QTextCursor::Right, QTextCursor::MoveAnchor,
                    int(std::min(error.offset - block.position(), qsizetype(std::max(0, block.length() - 2)))));
                // The shell word that starts there: an option, or an unclosed quote and what follows.
                const QString blockText = block.text();
                qsizetype end = mark.cursor.positionInBlock();
                do
                    ++end;
                while (end < blockText.size() && !blockText.at(end).isSpace());
                mark.cursor.setPosition(
                    block.position() + int(std::min(end, qsizetype(block.length() - 1))), QTextCursor::KeepAnchor);
                mark.format.setUnderlineStyle(QTextCharFormat::WaveUnderline);
                mark.format.setUnderlineColor(QColor(0xd0, 0x30, 0x30));
                mark.format.setBackground(QColor(0xd0, 0x30, 0x30, 0x40));
                mark.format.setToolTip(error.message);
                m_editor->setExtraSelections({mark});
            }
        }
    }

    if (!m_parsed.ok()) {
        m_preview->clear();
        m_options->clear();
        m_options->hide();
        m_policy->clear();
        m_policy->hide();
        m_applyPolicy->setEnabled(false);
        importButton()->setEnabled(false);
        return;
    }

    const Core::ImportedRequest &request = *m_parsed;
    const Core::Redactor redactor;
    QStringList lines;
    lines.append(QString::fromLatin1(request.spec.method) + QLatin1Char(' ')
        + (request.urlText.isEmpty() ? redactor.urlString(request.spec.url) : redactor.text(request.urlText)));
    for (const auto &[name, value] : redactor.headers(request.spec.headers))
        lines.append(QString::fromLatin1(name) + QStringLiteral(": ") + QString::fromUtf8(value));
    if (!request.spec.body.isEmpty()) {
        lines.append(QString());
        const QByteArray body = redactor.body(request.spec.body, request.spec.headers);
        constexpr qsizetype shownBytes = 4096;
        lines.append(QString::fromUtf8(body.left(shownBytes)));
        if (body.size() > shownBytes)
            lines.append(tr("\u2026 (%1 bytes in all)").arg(body.size()));
    }
    m_preview->setPlainText(lines.join(QLatin1Char('\n')));

    QStringList options;
    if (!request.unknown.isEmpty())
        options.append(tr("<b>Not carried out</b> (RetryLab cannot do these): %1").arg(listed(request.unknown)));
    if (!request.ignored.isEmpty())
        options.append(tr("<b>Ignored</b> (they do not change what is sent): %1").arg(listed(request.ignored)));
    for (const QString &note : request.notes)
        options.append(note.toHtmlEscaped());
    if (const QStringList lost = ImportedDraft::from(request).notes; !lost.isEmpty())
        options.append(tr("<b>Not kept in the composer</b>: %1").arg(listed(lost)));
    if (request.followRedirects)
        options.append(tr("-L: RetryLab follows redirects itself and shows each in the attempt's record."));
    m_options->setText(options.join(QStringLiteral("<br>")));
    m_options->setVisible(!options.isEmpty());

    m_changes = Core::CurlCommandLine::applyRetryHints(request.retry, m_policyAfter);
    if (m_changes.isEmpty()) {
        m_policy->setText(tr("No --retry flags: the policy stays as it is."));
        m_applyPolicy->setEnabled(false);
    } else {
        QStringList items;
        for (const auto &change : std::as_const(m_changes)) {
            QString said = change.option.toHtmlEscaped();
            if (const QString now = currentValue(m_policyBefore, change.field); !now.isEmpty())
                said += QStringLiteral("; ") + now.toHtmlEscaped();
            items.append(QStringLiteral("<li>%1 <i>(%2)</i></li>").arg(change.description.toHtmlEscaped(), said));
        }
        m_policy->setText(tr("The --retry flags would change the policy \u201c%1\u201d:<ul>%2</ul>")
                              .arg(m_policyBefore.name.toHtmlEscaped(), items.join(QString())));
        m_applyPolicy->setEnabled(true);
    }
    m_policy->show();
    importButton()->setEnabled(true);
}

} // namespace RetryLab::Ui
