// Internal to the .tflite importer: decoding an operator's BuiltinOptions union into the
// flat TfOptions struct (tflite_model.h). Needs the flatc-generated schema header, so only
// the importer's own sources include it.
#pragma once

#include "import/tflite/tflite_model.h"
#include "schema_subset_generated.h"

namespace tinyforge::import::tflite {

namespace fb = ::tinyforge::tflite_fb;

// Fills `opt` from `o`'s options (the operator was checked by the flatbuffers Verifier).
// A union type code this importer does not read leaves the defaults (the op check then
// rejects the type if the op needs options). False if a type code is set without a table.
bool DecodeOptions(const fb::Operator* o, TfOptions& opt);

}  // namespace tinyforge::import::tflite
