#include "ui/monitor/monitoreditdialog.h"

#include "core/collections/requesttemplate.h"
#include "core/monitor/monitorcondition.h"
#include "core/monitor/monitorsfile.h"
#include "core/policy/presets.h"
#include "core/util/durationtext.h"
#include "core/util/jsonreader.h"
#include "ui/widgets/fieldmessage.h"
#include "ui/widgets/unitspinbox.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QLoggingCategory>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QTabWidget>
#include <QUrl>
#include <QVBoxLayout>

#include <memory>

namespace RetryLab::Ui {

Q_LOGGING_CATEGORY(lcMonitorEditDialog, "retrylab.ui.monitoreditdialog")

namespace {

constexpr qsizetype longestName = 100; // as MonitorsFileReader accepts
const auto policyCurrent = QStringLiteral("current");
const auto policyNone = QStringLiteral("none");
const auto presetPrefix = QStringLiteral("preset:");

// The "equals" field holds JSON when it reads as JSON ("ok" is the string ok,
// 200 the number, "200" the string), so that people rarely need quotes.
QJsonValue expectedFromText(const QString &text)
{
    const QJsonDocument document = QJsonDocument::fromJson(QByteArray("[") + text.toUtf8() + QByteArray("]"));
    if (document.isArray() && document.array().size() == 1)
        return document.array().first();
    return text;
}

QString textOfExpected(const QJsonValue &value)
{
    // A string that would read as another JSON value ("200", "true") keeps its quotes.
    if (value.isString() && expectedFromText(value.toString()).isString())
        return value.toString();
    const QByteArray array = QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact);
    return QString::fromUtf8(array.mid(1, array.size() - 2));
}

} // namespace

MonitorEditDialog::MonitorEditDialog(const Core::Monitor &monitor, const QStringList &takenNames, QWidget *parent)
    : QDialog(parent), m_original(monitor), m_taken(takenNames)
{
    setWindowTitle(monitor.name.isEmpty() ? tr("New Monitor") : tr("Edit Monitor"));
    auto *tabs = new QTabWidget(this);
    tabs->addTab(buildRequestPage(), tr("&Request"));
    tabs->addTab(buildSchedulePage(), tr("&Schedule"));
    tabs->addTab(buildConditionsPage(), tr("C&onditions"));
    m_message = new FieldMessage(this);
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(tabs);
    layout->addWidget(m_message);
    layout->addWidget(m_buttons);

    load(monitor);
    for (QLineEdit *edit : findChildren<QLineEdit *>())
        connect(edit, &QLineEdit::textChanged, this, &MonitorEditDialog::validate);
    for (UnitSpinBox *spin : findChildren<UnitSpinBox *>())
        connect(spin, &UnitSpinBox::storedValueChanged, this, &MonitorEditDialog::validate);
    for (QSpinBox *spin : {m_downAfter, m_upAfter, m_certificateDays})
        connect(spin, &QSpinBox::valueChanged, this, &MonitorEditDialog::validate);
    connect(m_method, &QComboBox::currentTextChanged, this, &MonitorEditDialog::validate);
    validate();
    m_name->setFocus();
}

QWidget *MonitorEditDialog::buildRequestPage()
{
    auto *page = new QWidget;
    auto *form = new QFormLayout(page);
    m_name = new QLineEdit(page);
    m_name->setObjectName(QStringLiteral("monitorName"));
    m_name->setMaxLength(int(longestName));
    form->addRow(tr("&Name:"), m_name);
    m_method = new QComboBox(page);
    m_method->setObjectName(QStringLiteral("monitorMethod"));
    m_method->setEditable(true);
    m_method->addItems({QStringLiteral("GET"), QStringLiteral("HEAD"), QStringLiteral("POST"), QStringLiteral("PUT"),
        QStringLiteral("PATCH"), QStringLiteral("DELETE"), QStringLiteral("OPTIONS")});
    form->addRow(tr("&Method:"), m_method);
    m_url = new QLineEdit(page);
    m_url->setObjectName(QStringLiteral("monitorUrl"));
    m_url->setPlaceholderText(QStringLiteral("https://api.example.com/health"));
    form->addRow(tr("&URL:"), m_url);
    m_paused = new QCheckBox(tr("&Paused: no checks until resumed"), page);
    m_paused->setObjectName(QStringLiteral("monitorPaused"));
    form->addRow(QString(), m_paused);
    auto *note = new QLabel(tr("Headers, body and transport are kept as they were."), page);
    note->setWordWrap(true);
    form->addRow(note);
    return page;
}

QWidget *MonitorEditDialog::buildSchedulePage()
{
    auto *page = new QWidget;
    auto *form = new QFormLayout(page);
    m_interval = new UnitSpinBox(Core::DurationText::msPerSecond, tr("s"), 1, page);
    m_interval->setObjectName(QStringLiteral("monitorInterval"));
    form->addRow(tr("Check &every:"), m_interval);
    m_downInterval = new UnitSpinBox(Core::DurationText::msPerSecond, tr("s"), 1, page);
    m_downInterval->setObjectName(QStringLiteral("monitorDownInterval"));
    m_downInterval->setSpecialValueText(tr("as when up"));
    m_downInterval->setMinimum(0.0);
    form->addRow(tr("While &down, every:"), m_downInterval);
    m_timeout = new UnitSpinBox(Core::DurationText::msPerSecond, tr("s"), 1, page);
    m_timeout->setObjectName(QStringLiteral("monitorTimeout"));
    m_timeout->setToolTip(tr("The whole check, retries included, ends after this"));
    form->addRow(tr("Check &timeout:"), m_timeout);
    m_policy = new QComboBox(page);
    m_policy->setObjectName(QStringLiteral("monitorPolicy"));
    form->addRow(tr("&Policy:"), m_policy);
    m_downAfter = new QSpinBox(page);
    m_downAfter->setObjectName(QStringLiteral("monitorDownAfter"));
    m_downAfter->setRange(1, 1000);
    m_downAfter->setSuffix(tr(" failed checks in a row"));
    form->addRow(tr("Down &after:"), m_downAfter);
    m_upAfter = new QSpinBox(page);
    m_upAfter->setObjectName(QStringLiteral("monitorUpAfter"));
    m_upAfter->setRange(1, 1000);
    m_upAfter->setSuffix(tr(" good checks in a row"));
    form->addRow(tr("Up a&gain after:"), m_upAfter);
    return page;
}

QWidget *MonitorEditDialog::buildConditionsPage()
{
    auto *page = new QWidget;
    auto *form = new QFormLayout(page);
    m_status = new QLineEdit(page);
    m_status->setObjectName(QStringLiteral("conditionStatus"));
    m_status->setPlaceholderText(tr("any the policy calls a success; or 2xx, or 200,204"));
    form->addRow(tr("S&tatus:"), m_status);
    m_maxResponseMs = new UnitSpinBox(1.0, tr("ms"), 0, page);
    m_maxResponseMs->setObjectName(QStringLiteral("conditionMaxResponse"));
    m_maxResponseMs->setMinimum(0.0);
    m_maxResponseMs->setSpecialValueText(tr("no limit"));
    form->addRow(tr("Answer &within:"), m_maxResponseMs);
    m_bodyContains = new QLineEdit(page);
    m_bodyContains->setObjectName(QStringLiteral("conditionBody"));
    form->addRow(tr("&Body contains:"), m_bodyContains);
    auto *json = new QHBoxLayout;
    m_jsonPointer = new QLineEdit(page);
    m_jsonPointer->setObjectName(QStringLiteral("conditionJsonPointer"));
    m_jsonPointer->setPlaceholderText(QStringLiteral("/status"));
    m_jsonEquals = new QLineEdit(page);
    m_jsonEquals->setObjectName(QStringLiteral("conditionJsonEquals"));
    m_jsonEquals->setPlaceholderText(tr("ok, 200, true"));
    m_jsonEquals->setAccessibleName(tr("JSON value equals"));
    json->addWidget(m_jsonPointer);
    json->addWidget(new QLabel(tr("equals"), page));
    json->addWidget(m_jsonEquals);
    form->addRow(tr("&JSON at:"), json);
    auto *header = new QHBoxLayout;
    m_header = new QLineEdit(page);
    m_header->setObjectName(QStringLiteral("conditionHeader"));
    m_header->setPlaceholderText(QStringLiteral("Content-Type"));
    m_headerMatches = new QLineEdit(page);
    m_headerMatches->setObjectName(QStringLiteral("conditionHeaderMatches"));
    m_headerMatches->setPlaceholderText(tr("present is enough"));
    m_headerMatches->setAccessibleName(tr("Header value matches"));
    header->addWidget(m_header);
    header->addWidget(new QLabel(tr("matches"), page));
    header->addWidget(m_headerMatches);
    form->addRow(tr("&Header:"), header);
    m_certificateDays = new QSpinBox(page);
    m_certificateDays->setObjectName(QStringLiteral("conditionCertificateDays"));
    m_certificateDays->setRange(0, 3650);
    m_certificateDays->setSpecialValueText(tr("not checked"));
    m_certificateDays->setSuffix(tr(" days"));
    form->addRow(tr("Certificate &valid for:"), m_certificateDays);
    m_extraNote = new QLabel(page);
    m_extraNote->setWordWrap(true);
    form->addRow(m_extraNote);
    return page;
}

void MonitorEditDialog::load(const Core::Monitor &monitor)
{
    m_name->setText(monitor.name);
    m_method->setCurrentText(QString::fromLatin1(monitor.request.method));
    m_url->setText(monitor.urlTemplate.isEmpty() ? monitor.request.url.toString() : monitor.urlTemplate);
    m_paused->setChecked(monitor.paused);
    m_interval->setStoredValue(monitor.intervalMs);
    m_downInterval->setStoredValue(monitor.downIntervalMs.value_or(0.0));
    m_timeout->setStoredValue(monitor.timeoutMs);
    m_downAfter->setValue(monitor.downAfter);
    m_upAfter->setValue(monitor.upAfter);

    const QString origin = monitor.policyOrigin.isEmpty() ? monitor.policy.name : monitor.policyOrigin;
    m_policy->addItem(tr("Current policy (%1)").arg(origin), policyCurrent);
    m_policy->addItem(tr("None: one attempt per check"), policyNone);
    for (const Core::Presets::Preset &preset : Core::Presets::all()) {
        m_policy->addItem(tr("Preset: %1").arg(preset.policy.name), QString(presetPrefix + preset.id));
        m_policy->setItemData(m_policy->count() - 1, preset.id, Qt::ToolTipRole);
    }

    QSet<Core::MonitorCondition::Kind> shown;
    for (const Core::MonitorCondition &c : monitor.conditions) {
        if (shown.contains(c.kind)) {
            m_extraConditions.append(c);
            continue;
        }
        shown.insert(c.kind);
        switch (c.kind) {
        case Core::MonitorCondition::Kind::Status:
            m_status->setText(c.statusText);
            break;
        case Core::MonitorCondition::Kind::ResponseTimeUnder:
            m_maxResponseMs->setStoredValue(c.maxMs);
            break;
        case Core::MonitorCondition::Kind::BodyContains:
            m_bodyContains->setText(c.text);
            break;
        case Core::MonitorCondition::Kind::JsonPointerEquals:
            m_jsonPointer->setText(c.pointer);
            m_jsonEquals->setText(textOfExpected(c.expected));
            break;
        case Core::MonitorCondition::Kind::Header:
            m_header->setText(QString::fromLatin1(c.header));
            m_headerMatches->setText(c.pattern);
            break;
        case Core::MonitorCondition::Kind::CertificateValidDays:
            m_certificateDays->setValue(c.days);
            break;
        }
    }
    QStringList extra;
    for (const Core::MonitorCondition &c : std::as_const(m_extraConditions))
        extra.append(c.describe());
    m_extraNote->setText(extra.isEmpty() ? QString() : tr("Also kept: %1").arg(extra.join(QStringLiteral("; "))));
    m_extraNote->setVisible(!extra.isEmpty());
}

MonitorEditDialog::Parsed MonitorEditDialog::parseConditions() const
{
    // Read as a monitors file reads them, so that "2xx" or "200,204" mean the same here.
    QJsonArray entries;
    QStringList labels;
    const auto add = [&](QJsonObject entry, const QString &label) {
        entries.append(entry);
        labels.append(label);
    };
    if (const QString status = m_status->text().trimmed(); !status.isEmpty())
        add({{QStringLiteral("status"), status}}, tr("Status"));
    if (m_maxResponseMs->storedValue() > 0.0)
        add({{QStringLiteral("responseTimeUnderMs"), m_maxResponseMs->storedValue()}}, tr("Answer within"));
    if (!m_bodyContains->text().isEmpty())
        add({{QStringLiteral("bodyContains"), m_bodyContains->text()}}, tr("Body contains"));
    if (!m_jsonPointer->text().trimmed().isEmpty() || !m_jsonEquals->text().isEmpty()) {
        QJsonObject entry{{QStringLiteral("jsonPointer"), m_jsonPointer->text().trimmed()}};
        if (!m_jsonEquals->text().isEmpty())
            entry.insert(QStringLiteral("equals"), expectedFromText(m_jsonEquals->text().trimmed()));
        add(entry, tr("JSON at"));
    }
    if (!m_header->text().trimmed().isEmpty() || !m_headerMatches->text().isEmpty()) {
        QJsonObject entry{{QStringLiteral("header"), m_header->text().trimmed()}};
        if (!m_headerMatches->text().isEmpty())
            entry.insert(QStringLiteral("matches"), m_headerMatches->text());
        add(entry, tr("Header"));
    }
    if (m_certificateDays->value() > 0)
        add({{QStringLiteral("certificateValidDays"), m_certificateDays->value()}}, tr("Certificate valid for"));

    Parsed parsed;
    const QString key = QStringLiteral("conditions");
    Core::JsonReader reader(QJsonObject{{key, entries}});
    const auto read = Core::MonitorConditions::read(reader, key);
    if (!read || reader.failed()) {
        const Core::Error error = reader.firstError();
        // "conditions[2].equals" names the third condition given: its field's label.
        static const QRegularExpression at(QStringLiteral("^conditions\\[(\\d+)\\]"));
        const auto match = at.match(error.path);
        const int index = match.hasMatch() ? match.captured(1).toInt() : -1;
        parsed.problem
            = index >= 0 && index < labels.size() ? tr("%1: %2").arg(labels.at(index), error.message) : error.text();
        return parsed;
    }
    parsed.conditions = *read + m_extraConditions;
    return parsed;
}

void MonitorEditDialog::validate()
{
    const QString name = m_name->text().trimmed();
    // {server} is the embedded server, filled in at each check: a loopback address stands in for it here.
    const QUrl url(QString(m_url->text().trimmed())
                       .replace(Core::RequestTemplate::serverPlaceholder(), QStringLiteral("http://127.0.0.1:1")));
    static const QRegularExpression token(QStringLiteral("^[A-Za-z]+$"));
    QString problem;
    if (name.isEmpty())
        problem = tr("Give the monitor a name.");
    else if (m_taken.contains(name))
        problem = tr("Another monitor is called \"%1\"; choose another name.").arg(name);
    else if (!token.match(m_method->currentText().trimmed()).hasMatch())
        problem = tr("The method is a word such as GET or POST.");
    else if (m_url->text().trimmed().isEmpty())
        problem = tr("Give the URL to check, such as https://api.example.com/health.");
    else if (!url.isValid() || (url.scheme() != QLatin1String("http") && url.scheme() != QLatin1String("https"))
        || url.host().isEmpty() || m_url->text().contains(QLatin1String("{{")))
        problem = tr("The URL needs http:// or https:// and a host, such as https://api.example.com/health "
                     "(or {server}/status/200 for the embedded server).");
    else if (m_interval->storedValue() < Core::MonitorsFileReader::minIntervalMs)
        problem = tr("Check at most every %1: the interval must be at least that.")
                      .arg(Core::DurationText::format(Core::MonitorsFileReader::minIntervalMs));
    else if (m_interval->storedValue() > Core::MonitorsFileReader::maxIntervalMs)
        problem
            = tr("Check at least every %1.").arg(Core::DurationText::format(Core::MonitorsFileReader::maxIntervalMs));
    else if (m_downInterval->storedValue() != 0.0
        && (m_downInterval->storedValue() < Core::MonitorsFileReader::minIntervalMs
            || m_downInterval->storedValue() > Core::MonitorsFileReader::maxIntervalMs))
        problem = tr("The interval while down is between %1 and %2, or none.")
                      .arg(Core::DurationText::format(Core::MonitorsFileReader::minIntervalMs),
                          Core::DurationText::format(Core::MonitorsFileReader::maxIntervalMs));
    else if (m_timeout->storedValue() < 1.0)
        problem = tr("The check timeout must be more than 0 s.");
    else if (m_timeout->storedValue() > Core::PolicyLimits::maxDeadlineMs)
        problem
            = tr("The check timeout is at most %1.").arg(Core::DurationText::format(Core::PolicyLimits::maxDeadlineMs));
    else
        problem = parseConditions().problem;
    m_problem = problem;
    m_message->setMessage(problem.isEmpty() ? FieldMessage::Kind::None : FieldMessage::Kind::Error, problem);
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(problem.isEmpty());
    if (!problem.isEmpty())
        qCDebug(lcMonitorEditDialog) << "invalid:" << problem;
}

Core::BackoffPolicy MonitorEditDialog::chosenPolicy(QString *origin) const
{
    const QString choice = m_policy->currentData().toString();
    if (choice == policyNone) {
        *origin = QStringLiteral("none");
        return Core::singleAttemptPolicy();
    }
    if (choice.startsWith(presetPrefix)) {
        const QString id = choice.mid(presetPrefix.size());
        if (const auto preset = Core::Presets::find(id)) {
            *origin = QStringLiteral("preset %1").arg(id);
            return *preset;
        }
    }
    *origin = m_original.policyOrigin;
    return m_original.policy;
}

Core::Monitor MonitorEditDialog::monitor() const
{
    Core::Monitor monitor = m_original;
    monitor.name = m_name->text().trimmed();
    monitor.request.method = m_method->currentText().trimmed().toUpper().toLatin1();
    monitor.urlTemplate = m_url->text().trimmed();
    monitor.request.url = QUrl(monitor.urlTemplate);
    monitor.request.label = monitor.name;
    monitor.paused = m_paused->isChecked();
    monitor.intervalMs = m_interval->storedValue();
    monitor.downIntervalMs
        = m_downInterval->storedValue() > 0.0 ? std::optional<double>(m_downInterval->storedValue()) : std::nullopt;
    monitor.timeoutMs = m_timeout->storedValue();
    monitor.policy = chosenPolicy(&monitor.policyOrigin);
    monitor.downAfter = m_downAfter->value();
    monitor.upAfter = m_upAfter->value();
    monitor.conditions = parseConditions().conditions;
    monitor.request.responseCheck
        = monitor.conditions.isEmpty() ? nullptr : std::make_shared<Core::MonitorConditions>(monitor.conditions);
    return monitor;
}

} // namespace RetryLab::Ui
