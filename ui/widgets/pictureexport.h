#pragma once

#include "core/util/result.h"

#include <QString>

class QWidget;

namespace RetryLab::Ui {

/// Pictures of a view for slides: a widget as it is drawn, as PNG at twice its
/// size (sharp on a projector) or as SVG (QSvgGenerator), chosen by the
/// file's suffix (.svg, else PNG).
namespace PictureExport {

inline constexpr int pngScale = 2;

Core::Result<void> save(QWidget *widget, const QString &path, const QString &title = {});

} // namespace PictureExport

} // namespace RetryLab::Ui
