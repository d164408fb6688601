#pragma once

#include <QCoreApplication>

namespace RetryLab::Ui {

/// The translation context of the window's code outside a QObject (value types,
/// formatters): Tr::tr("..."), filed by lupdate under "RetryLab::Ui". It lives in
/// ui/session, the lowest ui module, so that the widgets can use it too.
struct Tr
{
    Q_DECLARE_TR_FUNCTIONS(RetryLab::Ui)
};

} // namespace RetryLab::Ui
