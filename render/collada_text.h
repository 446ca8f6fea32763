// What rbsim corrects in a COLLADA document's text before OSG's reader sees it (render/shapes.cpp).
// The reader (OSG's dae plugin on the COLLADA DOM) has two habits that robot packages trip over:
// it turns a file by its <up_axis>, which RViz ignores, and it resolves no reference whose id has
// non-ASCII characters (a Go1's meshes, exported with Chinese part names, load with no geometry).
#pragma once

#include <filesystem>
#include <string>

namespace rbs::render {

/// The `<up_axis>` of a COLLADA document's asset (X_UP, Y_UP, Z_UP; empty when it names none).
std::string colladaUpAxis(const std::string& document);

/// The `<unit meter="…">` of a COLLADA document's asset: metres per unit of its coordinates (1 when
/// it names none or a value that is not a positive number).
double colladaUnitMeter(const std::string& document);

/// True when the document has a byte outside ASCII (in an id, a name or a path) after its UTF-8
/// byte-order mark, if any.
bool hasNonAsciiBytes(const std::string& document);

/// The document (its byte-order mark kept) with every run of non-ASCII bytes spelled `_xHH` per
/// byte, so that ids and the references to them stay equal and the reader resolves them, except in image file names
/// (`<init_from>` ending in an image extension), which keep their bytes. A relative image file
/// name is made absolute with `directory` (the original file's), because the copy is read from
/// elsewhere.
std::string withAsciiIds(const std::string& document, const std::filesystem::path& directory);

}  // namespace rbs::render
