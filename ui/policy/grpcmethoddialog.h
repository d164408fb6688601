#pragma once

#include <QDialog>
#include <QString>

#include <optional>

class QDialogButtonBox;
class QLabel;
class QLineEdit;

namespace RetryLab::Ui {

/// Asks which gRPC method a service config's retry policy is for: the service
/// (a full name, "pkg.Orders") and, optionally, one method of it ("Create");
/// without a method the policy covers every method of the service. gRPC looks a
/// call up by these names (methodConfig[].name), so a config without them
/// applies to nothing a reader can see.
class GrpcMethodDialog final : public QDialog
{
    Q_OBJECT

public:
    struct Method
    {
        QString service;
        QString method; ///< empty: every method of the service
    };

    explicit GrpcMethodDialog(QWidget *parent = nullptr);

    /// Fills the fields, e.g. from fromPath() of the request's URL.
    void setMethod(const Method &method);
    Method method() const;

    /// The service and method of a gRPC request path ("/pkg.Orders/Create"), as
    /// gRPC sends them over HTTP/2; nothing for a path of another shape.
    static std::optional<Method> fromPath(const QString &path);
    /// The same from a URL or a request's URL template ("{server}/pkg.Orders/Create").
    static std::optional<Method> fromUrl(const QString &urlOrTemplate);
    /// Why `method` cannot name a gRPC method; empty when it can.
    static QString problem(const Method &method);

private:
    void update();

    QLineEdit *m_service;
    QLineEdit *m_method;
    QLabel *m_preview;
    QDialogButtonBox *m_buttons;
};

} // namespace RetryLab::Ui
