// NumPy .npy files (format versions 1.0 and 2.0) for the host tools.
//
// Accepted dtypes: '<f4' (float32), '|i1' (int8; '<i1' and '>i1' too, byte order is moot
// for one byte), '<i4' (int32). C order only; big-endian, Fortran order, object arrays,
// other dtypes and version 3.0 are rejected with a message saying so. The data length must
// equal numel * itemsize exactly (truncated or trailing bytes are errors). A shape of ()
// is a scalar; dims must be >= 1 (the IR has no empty tensors).
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "exec/host_tensor.h"
#include "support/expected.h"

namespace tinyforge::exec {

// Errors: "FILE: npy: what".
Expected<HostTensor> ReadNpy(const std::string& path);
Expected<HostTensor> ParseNpy(std::span<const uint8_t> bytes, std::string_view file_label);

// A model input (`run -i`, `compare -i`): ReadNpy, and a float32 array must hold only finite
// values. A NaN or infinity is rejected, naming the file and the first bad element:
// "x.npy: element 17 (index [0,0,4,1]) is nan: a model input must be finite".
Expected<HostTensor> ReadInputNpy(const std::string& path);
Status CheckFinite(const HostTensor& t, std::string_view label);

// Version 1.0, header padded so that the data starts at a multiple of 64 bytes.
std::vector<uint8_t> SerializeNpy(const HostTensor& t);
Status WriteNpy(const std::string& path, const HostTensor& t);

}  // namespace tinyforge::exec
