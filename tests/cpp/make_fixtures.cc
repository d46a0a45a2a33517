// Writes the files the CLI tests run the `tinyforge` binary on:
//   good.tfg, truncated.tfg, bad_magic.tfg, bad_json.tfg, bad_shape.tfg,
//   x.npy (the right input), wrong_shape.npy, int8.npy, garbage.npy, truncated.npy
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "builders.h"
#include "exec/npy.h"
#include "import/graph_file.h"

namespace {

using namespace tinyforge;

bool Write(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(out);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  std::filesystem::create_directories(dir);
  auto path = [&](const char* name) { return dir + "/" + name; };

  const ir::Graph g = testing::QdqConvGraph();
  auto good = import::WriteGraphBytes(g);
  if (!good.ok()) {
    std::fprintf(stderr, "%s\n", good.error().message().c_str());
    return 1;
  }
  bool ok = Write(path("good.tfg"), *good);
  std::vector<uint8_t> truncated(good->begin(), good->end() - 7);
  ok &= Write(path("truncated.tfg"), truncated);
  std::vector<uint8_t> bad_magic = *good;
  bad_magic[0] = 'X';
  ok &= Write(path("bad_magic.tfg"), bad_magic);

  auto parts = import::SerializeGraph(g).value();
  import::GraphFileParts bad_json = parts;
  bad_json.json[0] = '[';  // `["format": ...`: a syntax error at line 1, column 10
  ok &= Write(path("bad_json.tfg"), import::PackGraphFile(bad_json));

  ir::Graph bad_shape = g;
  bad_shape.tensor(7).shape = {1, 3, 3, 2};
  import::WriteOptions no_verify;
  no_verify.verify = false;
  ok &= Write(path("bad_shape.tfg"), import::WriteGraphBytes(bad_shape, no_verify).value());

  ok &= exec::WriteNpy(path("x.npy"), testing::QdqConvInput()).ok();
  ok &= exec::WriteNpy(path("wrong_shape.npy"), exec::HostTensor(ir::DType::kFloat32, {1, 2, 3, 3}))
            .ok();
  ok &= exec::WriteNpy(path("int8.npy"), exec::HostTensor(ir::DType::kInt8, {1, 2, 4, 4})).ok();
  ok &= Write(path("garbage.npy"), {'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd', '\n'});
  auto npy = exec::SerializeNpy(testing::QdqConvInput());
  npy.resize(npy.size() - 4);
  ok &= Write(path("truncated.npy"), npy);
  return ok ? 0 : 1;
}
