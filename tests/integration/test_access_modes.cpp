// Seed 001 access modes (load.access, docs/address-generator.md) on whole
// runs: outputs bit-exact in every mode (the run itself checks every output
// against the reference convolution), the host really writes the lowered
// matrix, and on every layer with R*S > 1 generating im2col on the fly reads
// fewer DRAM bytes than loading the host's materialised im2col matrix.
#include <catch2/catch.hpp>
#include <regex>
#include <sstream>
#include <string>

#include "tests/support/test_support.h"

using npusim::test::run_report;

namespace {

// The greedy mapper tiles these small layers alike in every mode (two
// pieces each), which the per-mode counters below compare; the cost mapper
// may pick a different piece count per mode.
nlohmann::json report(const std::string& workload, const std::string& access) {
  return run_report("run " + workload + " --set load.access=" + access +
                    " --set compiler.mapper=greedy");
}

uint64_t counter(const nlohmann::json& layer, const std::string& name) {
  return layer.at("counters").at(name).get<uint64_t>();
}

// True when one line of `text` matches `pattern` whole. Line by line, not
// Catch::Matches("(.|\n)*...(.|\n)*"): libstdc++'s regex recurses once per
// character there and overflows the stack on a long report (ASan's larger
// frames make it crash on this very test).
bool has_line_matching(const std::string& text, const std::string& pattern) {
  const std::regex re(pattern);
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (std::regex_match(line, re)) return true;
  return false;
}

}  // namespace

TEST_CASE("every load.access mode is bit-exact, im2col on the fly reads least", "[access]") {
  const std::string src = std::string(NPUSIM_SOURCE_DIR) + "/";
  // A tall map with a 3x5 kernel: rows told from columns in the lowering (out 14x7).
  const std::string rect = npusim::test::write_temp_file(
      "access_rect.json",
      R"({"type":"conv2d","name":"rect","C":6,"H":12,"W":7,"K":10,"R":3,"S":5,"padding":2})");
  for (const std::string& w :
       {src + "configs/networks/tiny3.json", src + "configs/layers/conv3x3.json",
        src + "configs/layers/conv7x7_s2.json", rect}) {
    INFO(w);
    const nlohmann::json fly = report(w, "im2col");
    const nlohmann::json host = report(w, "host_im2col");
    const nlohmann::json mec = report(w, "mec");
    for (size_t l = 0; l < fly.at("layers").size(); ++l) {
      const nlohmann::json& f = fly.at("layers")[l];
      const nlohmann::json& h = host.at("layers")[l];
      const nlohmann::json& m = mec.at("layers")[l];
      INFO("layer " << f.at("name"));
      for (const nlohmann::json* r : {&f, &h, &m}) CHECK(r->at("check").at("match") == true);
      const nlohmann::json& shape = f.at("shape");
      const uint64_t N = shape.at("N"), C = shape.at("C"), H = shape.at("H");
      const uint64_t R = shape.at("R"), S = shape.at("S"), pad = shape.at("padding");
      const uint64_t OH = shape.at("out_h"), OW = shape.at("out_w");
      // On the fly: nothing lowered. Host im2col: the whole N x OH*OW x R*S*C
      // matrix written once and read (once per k-tile).
      CHECK(counter(f, "load.host_lowering_bytes") == 0);
      CHECK(counter(h, "load.host_lowering_bytes") == N * OH * OW * R * S * C);
      CHECK(counter(h, "load.input_dram_bytes") == counter(h, "load.im2col_matrix_bytes"));
      CHECK(counter(h, "load.input_dram_bytes") % (N * OH * OW * R * S * C) == 0);
      // MEC: at most the OW x Hp*S*C strips (rows no output needs are skipped).
      CHECK(counter(m, "load.host_lowering_bytes") <= N * OW * (H + 2 * pad) * S * C);
      CHECK(counter(m, "load.host_lowering_bytes") > 0);
      // The per-mode figures of the report: the same in every run (they depend
      // on the tiling, not the mode), and each mode reads exactly its own.
      for (const char* name : {"load.input_rows_bytes", "load.im2col_matrix_bytes",
                               "load.mec_matrix_bytes", "load.footprint_im2col_bytes",
                               "load.footprint_host_im2col_bytes", "load.footprint_mec_bytes"}) {
        INFO(name);
        CHECK(counter(h, name) == counter(f, name));
        CHECK(counter(m, name) == counter(f, name));
      }
      CHECK(counter(f, "load.input_dram_bytes") == counter(f, "load.input_rows_bytes"));
      CHECK(counter(m, "load.input_dram_bytes") == counter(m, "load.mec_matrix_bytes"));
      if (R * S > 1) {
        CHECK(counter(f, "load.footprint_im2col_bytes") <
              counter(f, "load.footprint_host_im2col_bytes"));
        CHECK(counter(f, "load.input_dram_bytes") < counter(h, "load.input_dram_bytes"));
        CHECK(counter(m, "load.input_dram_bytes") < counter(h, "load.input_dram_bytes"));
      } else {
        CHECK(counter(f, "load.input_dram_bytes") == counter(h, "load.input_dram_bytes"));
      }
    }
  }
}

TEST_CASE("the report reproduces the patent's 5x5x3 example: 75 of 243 bytes", "[access]") {
  // Seed 001: a 5x5x3 input and two 3x3 filters. The unrolled matrix has
  // 9 rows (3x3 outputs) of 27 (3x3x3) values = 243 bytes; generating it on
  // the fly fetches only the 5x15 input footprint = 75 bytes, 30.9 %.
  const std::string layer = npusim::test::write_temp_file(
      "patent.json", R"({"type":"conv2d","name":"patent","C":3,"H":5,"W":5,"K":2,"R":3,"S":3})");
  // The patent unrolls the whole input once: one piece (seed 003's N > 1
  // would fetch the halo rows twice).
  const std::string one_piece = " --set compiler.pieces=greedy";
  const nlohmann::json r = run_report("run " + layer + one_piece);
  const nlohmann::json& l = r.at("layers")[0];
  CHECK(counter(l, "load.input_rows_bytes") == 75);
  CHECK(counter(l, "load.im2col_matrix_bytes") == 243);
  CHECK(counter(l, "load.input_dram_bytes") == 75);
  // MEC: 3 output columns, each a strip of 5 rows x 3 taps x 3 channels.
  CHECK(counter(l, "load.mec_matrix_bytes") == 3 * 5 * 3 * 3);
  const auto table = npusim::test::run_cli("run --wide " + layer + one_piece);
  REQUIRE(table.exit_code == 0);
  INFO(table.out);
  CHECK(has_line_matching(table.out,
                          "patent +im2col +nhwc>nhwc +0\\.1 +0\\.2 +0\\.1 +30\\.9% +55\\.6%.*"));
}

TEST_CASE("load.access per layer: each layer reads in its own mode, bit-exact", "[access]") {
  // Layer a mec, b host_im2col (both override the hardware's im2col), c the
  // hardware default; b and c read what the layer before stored.
  const std::string net = npusim::test::write_temp_file("per_layer_access.json", R"({"name":"m",
    "layers":[
    {"type":"conv2d","name":"a","C":8,"H":12,"W":12,"K":16,"R":3,"S":3,"padding":1,"access":"mec"},
    {"type":"conv2d","name":"b","C":16,"H":12,"W":12,"K":16,"R":3,"S":3,"padding":1,
     "access":"host_im2col"},
    {"type":"conv2d","name":"c","C":16,"H":12,"W":12,"K":8,"R":3,"S":3,"padding":1}]})");
  // Greedy: one piece per layer, so the loads read each lowered matrix once.
  const nlohmann::json r = run_report("run " + net + " --set compiler.mapper=greedy");
  const nlohmann::json& L = r.at("layers");
  for (const auto& layer : L) CHECK(layer.at("check").at("match") == true);
  CHECK(counter(L[0], "load.input_dram_bytes") == counter(L[0], "load.mec_matrix_bytes"));
  CHECK(counter(L[1], "load.input_dram_bytes") == counter(L[1], "load.im2col_matrix_bytes"));
  CHECK(counter(L[2], "load.input_dram_bytes") == counter(L[2], "load.input_rows_bytes"));
  CHECK(counter(L[0], "load.host_lowering_bytes") > 0);
  CHECK(counter(L[1], "load.host_lowering_bytes") == 12 * 12 * 9 * 16);  // OH*OW x R*S*C
  CHECK(counter(L[2], "load.host_lowering_bytes") == 0);
  // The hardware default changes only the layer without its own mode.
  const nlohmann::json all_mec =
      run_report("run " + net + " --set compiler.mapper=greedy --set load.access=mec");
  for (size_t l = 0; l < 2; ++l)
    CHECK(counter(all_mec.at("layers")[l], "load.input_dram_bytes") ==
          counter(L[l], "load.input_dram_bytes"));
  CHECK(counter(all_mec.at("layers")[2], "load.input_dram_bytes") ==
        counter(L[2], "load.mec_matrix_bytes"));
  const auto table = npusim::test::run_cli("run --wide " + net);
  INFO(table.out);
  CHECK(has_line_matching(table.out, "b +host_im2col +nhwc>nhwc +[0-9].*"));
}

TEST_CASE("a bad per-layer access is a config error naming the pointer", "[access]") {
  const std::string bad = npusim::test::write_temp_file(
      "bad_access.json",
      R"({"type":"conv2d","name":"x","C":8,"H":8,"W":8,"K":8,"R":3,"S":3,"access":"im2cl"})");
  const auto r = npusim::test::run_cli("run " + bad);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("bad_access.json: at /access") &&
                        Catch::Contains("did you mean \"im2col\""));
  const std::string binary = npusim::test::write_temp_file(
      "binary_access.json", R"({"type":"conv2d","name":"x","dtype":"binary","C":8,"H":8,"W":8,
      "K":8,"R":3,"S":3,"access":"mec"})");
  const auto b = npusim::test::run_cli("run " + binary);
  CHECK(b.exit_code == 2);
  CHECK_THAT(b.err, Catch::Contains("at /access") && Catch::Contains("binary layer"));
}
