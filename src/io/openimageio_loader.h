// Loads farmrt's OpenImageIO module (io/openimageio_module.h) on first use.
#pragma once

#include <string>

#include "io/openimageio_module.h"

namespace farmrt {

// The module's functions, loading it on the first call (or waiting for
// preload_openimageio's load); null when farmrt was built without
// OpenImageIO or the module cannot be loaded (openimageio_problem says why).
const OiioFunctions* openimageio();
std::string openimageio_problem();
// Starts loading the module in the background (a render that will write a
// PNG or EXR loads it while it renders). Harmless when already loaded.
void preload_openimageio();

}  // namespace farmrt
