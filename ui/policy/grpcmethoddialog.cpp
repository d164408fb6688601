#include "ui/policy/grpcmethoddialog.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QVBoxLayout>

namespace RetryLab::Ui {

namespace {

// Protobuf's identifiers: a service's full name is dotted ("pkg.v1.Orders"), a method's is one.
const QRegularExpression &serviceName()
{
    static const QRegularExpression pattern(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*$"));
    return pattern;
}

const QRegularExpression &methodName()
{
    static const QRegularExpression pattern(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*$"));
    return pattern;
}

} // namespace

GrpcMethodDialog::GrpcMethodDialog(QWidget *parent)
    : QDialog(parent), m_service(new QLineEdit), m_method(new QLineEdit), m_preview(new QLabel),
      m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel))
{
    setWindowTitle(tr("gRPC method"));
    m_service->setObjectName(QStringLiteral("grpcService"));
    m_service->setPlaceholderText(QStringLiteral("pkg.Orders"));
    m_service->setToolTip(tr("The service's full name, with its package, as in the .proto file"));
    m_method->setObjectName(QStringLiteral("grpcMethod"));
    m_method->setPlaceholderText(tr("every method of the service"));
    m_preview->setObjectName(QStringLiteral("grpcPreview"));
    m_preview->setWordWrap(true);
    m_preview->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *intro = new QLabel(tr("A gRPC client applies a retry policy to the methods its service config names. "
                                "Which calls is this one for?"));
    intro->setWordWrap(true);
    auto *form = new QFormLayout;
    form->addRow(tr("&Service:"), m_service);
    form->addRow(tr("&Method:"), m_method);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addLayout(form);
    layout->addWidget(m_preview);
    layout->addWidget(m_buttons);

    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("&Export\u2026"));
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_service, &QLineEdit::textChanged, this, &GrpcMethodDialog::update);
    connect(m_method, &QLineEdit::textChanged, this, &GrpcMethodDialog::update);
    update();
}

void GrpcMethodDialog::setMethod(const Method &method)
{
    m_service->setText(method.service);
    m_method->setText(method.method);
}

GrpcMethodDialog::Method GrpcMethodDialog::method() const
{
    return {m_service->text().trimmed(), m_method->text().trimmed()};
}

std::optional<GrpcMethodDialog::Method> GrpcMethodDialog::fromPath(const QString &path)
{
    static const QRegularExpression grpcPath(QStringLiteral("^/([^/]+)/([^/]+)$"));
    const QRegularExpressionMatch match = grpcPath.match(path);
    if (!match.hasMatch())
        return std::nullopt;
    Method method{match.captured(1), match.captured(2)};
    if (!problem(method).isEmpty())
        return std::nullopt;
    return method;
}

std::optional<GrpcMethodDialog::Method> GrpcMethodDialog::fromUrl(const QString &urlOrTemplate)
{
    // The path after the origin ("{server}" or scheme://authority), without query or fragment.
    static const QRegularExpression origin(QStringLiteral("^(\\{server\\}|[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*)"));
    QString path = urlOrTemplate.trimmed();
    path.remove(origin);
    path = path.section(QLatin1Char('?'), 0, 0).section(QLatin1Char('#'), 0, 0);
    return fromPath(path);
}

QString GrpcMethodDialog::problem(const Method &method)
{
    if (method.service.isEmpty())
        return tr("Give the service, e.g. pkg.Orders.");
    if (!serviceName().match(method.service).hasMatch())
        return tr("\"%1\" is not a service name: letters, digits and _, in parts joined by dots.").arg(method.service);
    if (!method.method.isEmpty() && !methodName().match(method.method).hasMatch())
        return tr("\"%1\" is not a method name: letters, digits and _ only.").arg(method.method);
    return {};
}

void GrpcMethodDialog::update()
{
    const Method m = method();
    const QString why = problem(m);
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(why.isEmpty());
    if (!why.isEmpty()) {
        m_preview->setText(why);
        return;
    }
    m_preview->setText(m.method.isEmpty()
            ? tr("methodConfig name: {\"service\": \"%1\"}, every method of %1").arg(m.service)
            : tr("methodConfig name: {\"service\": \"%1\", \"method\": \"%2\"}, the calls of /%1/%2")
                  .arg(m.service, m.method));
}

} // namespace RetryLab::Ui
