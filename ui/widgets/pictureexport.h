#pragma once

#include "core/util/result.h"

#include <QString>

class QWidget;

namespace RetryLab::Ui::PictureExport {

enum class Kind { Png, Svg };

/// Device pixels per logical pixel of a picture for print: about 300 dpi from a 96 dpi screen.
inline constexpr qreal printScale = 3.0;

/// The kind a file name asks for by its suffix (.png, .svg; any case); nothing for others.
std::optional<Kind> kindOf(const QString &path);

/// Writes what `widget` shows to `path`, for slides: a PNG of its pixels (at the
/// screen's pixel ratio), or an SVG drawing in which the widget paints itself
/// (lines and text stay sharp at any size; `title` names the drawing). The file's
/// suffix chooses; anything but .png and .svg is refused, as is a file that cannot
/// be written, with the file named. A `scale` above 0 draws the PNG at that many pixels per
/// logical pixel instead (printScale for print) rather than grabbing the screen's.
Core::Result<void> write(QWidget *widget, const QString &path, const QString &title, qreal scale = 0.0);

} // namespace RetryLab::Ui::PictureExport
