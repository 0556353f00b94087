// Transformer graphs end to end (docs/transformers.md): a small decoder layer
// with grouped-query attention, rotary embeddings, a causal softmax, RMSNorm
// and a SwiGLU FFN, and one BERT-base encoder layer, every operator equal to
// the independent reference bit for bit and the timing invariants holding.
#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>
#include <map>
#include <vector>

#include "sim/compiler/program_emitter.h"
#include "sim/frontend/load_workload.h"
#include "tests/support/test_support.h"

using namespace npusim;

namespace {

HardwareConfig transformer_runs_default_hw() {
  return parse_hardware_config(nlohmann::json::object(), "<test>");
}

// hidden 32, 4 query heads over 2 kv heads of dim 8, 12 tokens, FFN 48.
const char* kDecoderLayer = R"({
  "name": "mini_decoder",
  "inputs": [{"name": "x", "shape": [1, 32, 12, 1], "dtype": "int8", "scale": 0.05, "zero_point": 0}],
  "operators": [
    {"name": "n1", "op": "rmsnorm", "inputs": ["x"], "output": "n1", "epsilon": 1e-5,
     "weights": {"dtype": "int8", "scale": 0.015625}, "out": {"dtype": "int8", "scale": 0.036}},
    {"name": "q", "op": "matmul", "inputs": ["n1"], "output": "q", "out_features": 32,
     "weights": {"dtype": "int8", "scale": 0.004}, "out": {"dtype": "int8", "scale": 0.06, "zero_point": 2}},
    {"name": "k", "op": "matmul", "inputs": ["n1"], "output": "k", "out_features": 16,
     "weights": {"dtype": "int8", "scale": 0.01}, "out": {"dtype": "int8", "scale": 0.15}},
    {"name": "v", "op": "matmul", "inputs": ["n1"], "output": "v", "out_features": 16,
     "weights": {"dtype": "int8", "scale": 0.01}, "out": {"dtype": "int8", "scale": 0.15, "zero_point": -4}},
    {"name": "q_rope", "op": "rope", "inputs": ["q"], "output": "qr", "heads": 4,
     "out": {"dtype": "int8", "scale": 0.06}},
    {"name": "k_rope", "op": "rope", "inputs": ["k"], "output": "kr", "heads": 2, "base": 500,
     "out": {"dtype": "int8", "scale": 0.15}},
    {"name": "scores", "op": "batch_matmul", "inputs": ["qr", "kr"], "output": "s", "heads": 4,
     "kv_heads": 2, "transpose_b": true, "out": {"dtype": "int8", "scale": 0.1}},
    {"name": "probs", "op": "softmax", "inputs": ["s"], "output": "p", "heads": 4, "causal": true,
     "out": {"dtype": "uint8", "scale": 0.00390625}},
    {"name": "context", "op": "batch_matmul", "inputs": ["p", "v"], "output": "c", "heads": 4,
     "kv_heads": 2, "out": {"dtype": "int8", "scale": 0.15}},
    {"name": "o", "op": "matmul", "inputs": ["c"], "output": "o", "out_features": 32,
     "weights": {"dtype": "int8", "scale": 0.01}, "out": {"dtype": "int8", "scale": 0.3}},
    {"name": "r1", "op": "add", "inputs": ["o", "x"], "output": "r1", "out": {"dtype": "int8", "scale": 0.3}},
    {"name": "n2", "op": "rmsnorm", "inputs": ["r1"], "output": "n2",
     "weights": {"dtype": "uint8", "scale": 0.02, "zero_point": 100}, "out": {"dtype": "int8", "scale": 0.05}},
    {"name": "gate", "op": "matmul", "inputs": ["n2"], "output": "g", "out_features": 48,
     "weights": {"dtype": "int8", "scale": 0.01}, "out": {"dtype": "int8", "scale": 0.2}},
    {"name": "up", "op": "matmul", "inputs": ["n2"], "output": "u", "out_features": 48,
     "weights": {"dtype": "int8", "scale": 0.01}, "out": {"dtype": "int8", "scale": 0.2}},
    {"name": "silu", "op": "silu", "inputs": ["g"], "output": "sg", "out": {"dtype": "int8", "scale": 0.1}},
    {"name": "glu", "op": "mul", "inputs": ["sg", "u"], "output": "m", "out": {"dtype": "int8", "scale": 0.2}},
    {"name": "down", "op": "matmul", "inputs": ["m"], "output": "d", "out_features": 32,
     "weights": {"dtype": "int8", "scale": 0.01}, "out": {"dtype": "int8", "scale": 0.3}},
    {"name": "r2", "op": "add", "inputs": ["d", "r1"], "output": "y", "out": {"dtype": "int8", "scale": 0.4}},
    {"name": "act", "op": "gelu", "inputs": ["y"], "output": "z", "out": {"dtype": "int8", "scale": 0.3}},
    {"name": "ln", "op": "layernorm", "inputs": ["z"], "output": "out",
     "weights": {"dtype": "int8", "scale": 0.015625}, "out": {"dtype": "int8", "scale": 0.036}}
  ]
})";

}  // namespace

TEST_CASE("transformer: a decoder layer with GQA, rope, causal softmax and SwiGLU is bit-exact",
          "[transformer]") {
  const NetworkConfig net = test::workload(kDecoderLayer);
  REQUIRE(net.layers.size() == 20);
  test::run_bit_exact(net, transformer_runs_default_hw());
}

TEST_CASE("transformer: bit-exact in small pieces with single buffering and the early policy",
          "[transformer]") {
  HardwareConfig hw = transformer_runs_default_hw();
  hw.cache.size_kib = 16;
  hw.vector.buffer_kib = 1;
  hw.buffering = Buffering::Single;
  hw.policy = SchedulerPolicy::Early;
  const auto r = test::run_bit_exact(test::workload(kDecoderLayer), hw);
  CHECK(r->stats->get("vector.instructions").at(7) > 1);  // the softmax ran in several pieces
}

TEST_CASE("transformer: one BERT-base encoder layer at sequence 128 runs bit-exact",
          "[transformer][network]") {
  const NetworkConfig net =
      load_workload(NPUSIM_SOURCE_DIR "/configs/networks/bert_base_1layer.json");
  REQUIRE(net.layers.size() == 14);
  test::run_bit_exact(net, transformer_runs_default_hw());
}

TEST_CASE("transformer: a BERT file whose head count does not divide the hidden size exits 2",
          "[transformer]") {
  std::ifstream in(NPUSIM_SOURCE_DIR "/configs/networks/bert_base_1layer.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string from = "\"heads\": 12", to = "\"heads\": 10";
  REQUIRE(text.find(from) != std::string::npos);
  text.replace(text.find(from), from.size(), to);
  const std::string path = test::write_temp_file("bad_heads.json", text);
  const test::CliResult r = test::run_cli("run " + path + " --timing-only");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("bad_heads.json"));
  CHECK_THAT(r.err, Catch::Contains("/operators/3/heads"));
  CHECK_THAT(r.err, Catch::Contains("a divisor of the first input's channels C = 768"));
}

TEST_CASE(
    "transformer: prefill 32 and 4 decode steps are bit-exact and read the KV cache by the "
    "hand formula",
    "[transformer]") {
  // tools/gen-transformer --decoder --layers 1 --prefill 32 --decode 4 --hidden 64 --heads 4
  //   --kv-heads 2 --ffn 96: 18 operators per pass, the prefill then steps 1..4.
  const NetworkConfig net =
      load_workload(NPUSIM_SOURCE_DIR "/tests/data/transformer/decode_p32_d4.json");
  REQUIRE(net.layers.size() == 5 * 18);
  const auto r = test::run_bit_exact(net, transformer_runs_default_hw());
  const Counter& read = r->stats->get("load.operand_bytes");
  const Counter& written = r->stats->get("dram.write_bytes");
  const uint64_t kv_row = 2 * 16;  // kv_heads x dim bytes of one token's keys (or values)
  for (uint32_t step = 0; step <= 4; ++step) {
    const size_t base = size_t(step) * 18;
    INFO("step " << step << " (0: the prefill)");
    REQUIRE(net.layers[base + 6].name.find("scores") != std::string::npos);
    REQUIRE(net.layers[base + 8].name.find("context") != std::string::npos);
    // Attention reads every cached token once for the keys and once for the values:
    // (32 + step) tokens x 2 kv heads x 16 dims each.
    CHECK(read.at(base + 6) == (32 + step) * kv_row);
    CHECK(read.at(base + 8) == (32 + step) * kv_row);
    if (step > 0) {
      // The step appends one token's keys (k_rope) and values (v): 32 B each, one 64 B burst.
      CHECK(written.at(base + 5) == 64);
      CHECK(written.at(base + 3) == 64);
    }
  }
}

// How many operators of decode_p32_d4.json point at the kernel non-zero counts of the first
// operator of their weight region (a decoder's steps reuse the prefill's seeded weights), and
// how many regions there are; fails for an operator that holds a copy instead.
namespace {
std::pair<size_t, size_t> shared_kernel_counts(bool timing_only) {
  const NetworkConfig net =
      load_workload(NPUSIM_SOURCE_DIR "/tests/data/transformer/decode_p32_d4.json");
  HardwareConfig hw = transformer_runs_default_hw();
  hw.trial_mode = TrialMode::Off;
  RunOptions options;
  options.progress = false;
  options.timing_only = timing_only;
  const auto r = run_network(net, hw, options);
  REQUIRE(r->outcome.status == RunOutcome::Status::Completed);
  std::map<uint64_t, size_t> first;  // weight region -> its first operator
  size_t shared = 0;
  for (size_t l = 0; l < net.layers.size(); ++l) {
    const LayerDescriptor& d = r->program.layers[l];
    if (d.kernel_nonzeros.empty()) continue;
    const auto [it, fresh] = first.emplace(d.weights_address, l);
    if (fresh) continue;
    INFO(net.layers[l].name << " against " << net.layers[it->second].name);
    CHECK(d.kernel_nonzeros.shares_with(r->program.layers[it->second].kernel_nonzeros));
    ++shared;
  }
  return {shared, first.size()};
}
}  // namespace

// 7 weight matrices (q, k, v, o, gate, up, down), each reused by the 4 steps.
TEST_CASE(
    "transformer: a timing-only decoder run holds one array of kernel non-zero counts per "
    "weight region, not a copy per decode step",
    "[transformer]") {
  CHECK(shared_kernel_counts(true) == std::pair<size_t, size_t>(4 * 7, 7));
}

TEST_CASE(
    "transformer: a functional decoder run holds one array of kernel non-zero counts per weight "
    "region, not a copy per decode step",
    "[transformer]") {
  CHECK(shared_kernel_counts(false) == std::pair<size_t, size_t>(4 * 7, 7));
}

TEST_CASE(
    "transformer: of a decode step's attention weight tiles only the first of each image waits "
    "for the key-value cache's writers",
    "[transformer]") {
  // The load engine runs its instructions one at a time in program order, so the later tiles
  // of an image cannot start before the first, which waits for every store of the cache.
  // One TinyLlama layer, prefill 128 and 16 steps: 7 to 16 key or value tiles per image.
  const NetworkConfig net =
      load_workload(NPUSIM_SOURCE_DIR "/configs/networks/tinyllama_layer.json");
  const Program p = compile_network(net, transformer_runs_default_hw());
  size_t images = 0, later_tiles = 0;
  for (size_t l = 0; l < net.layers.size(); ++l) {
    if (net.layers[l].op != OpKind::BatchMatMul) continue;
    std::map<uint32_t, size_t> tiles;  // image -> weight tiles seen
    for (const Instruction& in : p.instructions) {
      if (in.layer != l || in.op != Opcode::LoadWeights) continue;
      size_t store_deps = 0;  // on the stores and vector instructions that wrote the operand
      for (const Dependency& d : in.deps) store_deps += d.kind == DependencyKind::Memory;
      INFO(net.layers[l].name << " image " << in.batch << " tile " << tiles[in.batch]);
      if (tiles[in.batch]++ == 0) {
        ++images;
        CHECK(store_deps > 0);
      } else {
        ++later_tiles;
        CHECK(store_deps == 0);
      }
    }
  }
  // scores and context of the prefill and 16 steps, one image each, several tiles each.
  CHECK(images == 2 * 17);
  CHECK(later_tiles > images);
}

TEST_CASE(
    "transformer: a batch of 2 sequences decodes bit-exact, each sequence attending only to its "
    "own cache, with weights streamed once per step for both",
    "[transformer]") {
  // decode_p32_d4.json's shapes (1 layer, hidden 64, 4 heads over 2 kv heads of dim 16, FFN
  // 96, prefill 32, 4 steps) by shape, run as one sequence and as two (--batch 2), each in
  // its own process (one SystemC elaboration per process).
  const std::string file = test::write_temp_file("batch_decoder.json", R"({"name": "b",
      "decoder": {"layers": 1, "hidden": 64, "heads": 4, "kv_heads": 2, "ffn": 96,
                  "prefill": 32, "decode": 4}})");
  const std::string dir_one = test::temp_dir() + "/batch1", dir_two = test::temp_dir() + "/batch2";
  const test::CliResult one =
      test::run_cli("run -q " + file + " --out " + dir_one + " --save-outputs");
  const test::CliResult two =
      test::run_cli("run -q " + file + " --batch 2 --out " + dir_two + " --save-outputs");
  INFO(one.err << two.err);
  REQUIRE(one.exit_code == 0);  // a run exits non-zero when an output differs from the reference
  REQUIRE(two.exit_code == 0);
  const auto report = [](const std::string& dir) {
    std::ifstream in(dir + "/report.json");
    return nlohmann::json::parse(in);
  };
  const nlohmann::json r1 = report(dir_one), r2 = report(dir_two);
  const nlohmann::json& layers = r2.at("layers");
  REQUIRE(layers.size() == 5 * 18);
  for (const auto& layer : layers) CHECK(layer.at("check").at("match") == true);
  // Sequence 0's seeded input is the one-sequence input (the draws run in N,H,W,C order), so
  // its every operator output equals the one-sequence run's: sequence 1 never leaks into it.
  for (const auto& layer : layers) {
    const std::string name = layer.at("name").get<std::string>();
    const TensorI32 a = read_npy_int32(dir_one + "/" + name + ".output.npy");
    const TensorI32 b = read_npy_int32(dir_two + "/" + name + ".output.npy");
    INFO("operator " << name);
    REQUIRE(b.shape[0] == 2);
    REQUIRE(b.size() == 2 * a.size());
    CHECK(std::equal(a.data.begin(), a.data.end(), b.data.begin()));
  }
  const auto counter = [](const nlohmann::json& r, size_t l, const char* name) {
    return r.at("layers")[l].at("counters").at(name).get<uint64_t>();
  };
  // Each sequence's attention reads its own (32 + step) cached tokens, keys and values.
  const uint64_t kv_row = 2 * 16;  // kv_heads x dim bytes of one token's keys (or values)
  for (uint32_t step = 0; step <= 4; ++step) {
    INFO("step " << step);
    CHECK(counter(r2, size_t(step) * 18 + 6, "load.operand_bytes") == 2 * (32 + step) * kv_row);
    CHECK(counter(r2, size_t(step) * 18 + 8, "load.operand_bytes") == 2 * (32 + step) * kv_row);
  }
  // A step's projections stream their weights once for both sequences: step 1's q
  // projection (64 -> 64) reads 4096 B of weights, 512 B of parameters and one 64 B token
  // row per sequence, so the second sequence adds only its row.
  REQUIRE(layers[18 + 1].at("name") == "step1.l0.q");
  CHECK(counter(r1, 18 + 1, "dram.read_bytes") == 4096 + 512 + 64);
  CHECK(counter(r2, 18 + 1, "dram.read_bytes") == 4096 + 512 + 2 * 64);
  // Two tokens a step: tokens/s is twice the clock (1000 MHz) over the mean step.
  const nlohmann::json& d = r2.at("decoder");
  CHECK(d.at("sequences") == 2);
  CHECK(d.at("tokens_per_second").get<double>() ==
        Approx(2 * 1e9 / d.at("mean_step_cycles").get<double>()));
}

TEST_CASE(
    "transformer: key-value blocks placed in the cache's key-value region are read and written "
    "without the bus, first come first placed",
    "[transformer][kv]") {
  // decode_p32_d4.json: 1 layer, kv_heads 2 x dim 16 = 32 B per token's keys (or values),
  // prefill 32 tokens then 4 steps; each block is a batch_matmul's second operand.
  const std::string net =
      std::string(NPUSIM_SOURCE_DIR) + "/tests/data/transformer/decode_p32_d4.json";
  const auto run = [&](const char* kv_kib) {
    return test::run_report("run " + net + " --set cache.kv_kib=" + kv_kib);
  };
  const auto counter = [](const nlohmann::json& r, size_t l, const char* name) {
    return r.at("layers")[l].at("counters").at(name).get<uint64_t>();
  };
  const nlohmann::json dram = run("0"), all = run("64"), first = run("1");
  for (const nlohmann::json* r : {&dram, &all, &first})
    for (const auto& layer : r->at("layers")) CHECK(layer.at("check").at("match").get<bool>());
  for (uint32_t step = 0; step <= 4; ++step) {
    INFO("step " << step);
    const size_t base = size_t(step) * 18, scores = base + 6, context = base + 8;
    const uint64_t cached = (32 + step) * 32;  // keys (or values) of the tokens so far
    // 64 KiB holds every block: all of the cache is read on chip, none over the bus.
    CHECK(counter(all, scores, "load.operand_bytes") == 0);
    CHECK(counter(all, scores, "load.operand_on_chip_bytes") == cached);
    CHECK(counter(all, context, "load.operand_on_chip_bytes") == cached);
    CHECK(counter(dram, scores, "load.operand_bytes") == cached);
    CHECK(counter(dram, scores, "load.operand_on_chip_bytes") == 0);
    if (step > 0) {  // the step's key and value rows (k_rope, v) are not written to DRAM
      CHECK(counter(all, base + 5, "dram.write_bytes") == 0);
      CHECK(counter(all, base + 3, "dram.write_bytes") == 0);
      CHECK(counter(dram, base + 5, "dram.write_bytes") == 64);
    }
    // 1 KiB holds one 32-token block: the prefill's values (v comes before k_rope in program
    // order); the keys and every step's rows stay in DRAM.
    CHECK(counter(first, scores, "load.operand_bytes") == cached);
    CHECK(counter(first, context, "load.operand_on_chip_bytes") == 32 * 32);
    CHECK(counter(first, context, "load.operand_bytes") == step * 32);
  }
  CHECK(all.at("decoder").at("mean_step_cycles").get<double>() <
        dram.at("decoder").at("mean_step_cycles").get<double>());
  const test::CliResult whole = test::run_cli("run " + net + " --set cache.kv_kib=1024");
  CHECK(whole.exit_code == 2);
  CHECK_THAT(whole.err, Catch::Contains("/cache/kv_kib") &&
                            Catch::Contains("less than cache.size_kib = 1024"));
}

TEST_CASE("transformer: on one BERT-base layer early <= strict and ping-pong <= single",
          "[transformer]") {
  const std::string net =
      std::string(NPUSIM_SOURCE_DIR) + "/configs/networks/bert_base_1layer.json";
  const auto cycles = [&](const std::string& args) {
    return test::run_report("run " + net + " --timing-only " + args)["totals"]["cycles"]
        .get<uint64_t>();
  };
  const uint64_t strict = cycles("--policy strict");
  CHECK(cycles("--policy early") <= strict);
  CHECK(strict <= cycles("--buffering single"));
}

TEST_CASE(
    "transformer: early <= strict on decoder workloads (prefill 32 + 4 steps, a batch of 2, one "
    "TinyLlama layer)",
    "[heavy][transformer]") {
  // Before parameter banks alternated by array operator, the context's LoadParams shared a
  // bank with the scores just before it, and the early policy's release of that false
  // dependency let its loads take the bus ahead of the softmax: early was slower.
  for (const char* w :
       {"/tests/data/transformer/decode_p32_d4.json",
        "/tests/data/transformer/decode_p8_d2_b2.json", "/configs/networks/tinyllama_layer.json"}) {
    const std::string net = std::string(NPUSIM_SOURCE_DIR) + w;
    const auto cycles = [&](const std::string& policy) {
      return test::run_report("run " + net + " --timing-only --policy " +
                              policy)["totals"]["cycles"]
          .get<uint64_t>();
    };
    const uint64_t strict = cycles("strict"), early = cycles("early");
    INFO(w << ": strict " << strict << ", early " << early);
    CHECK(early <= strict);
  }
}

TEST_CASE(
    "transformer: a decoder's time to first token is the prefill's end, each decode step the "
    "next pass's end less the one before, tokens/s the clock over their mean",
    "[transformer]") {
  // 18 operators per pass, each marked with its pass (0: the prefill, then steps 1..4); the
  // default clock is 1000 MHz.
  const std::string net =
      std::string(NPUSIM_SOURCE_DIR) + "/tests/data/transformer/decode_p32_d4.json";
  const nlohmann::json r = test::run_report("run " + net + " --timing-only");
  const nlohmann::json& layers = r.at("layers");
  REQUIRE(layers.size() == 5 * 18);
  const auto finish = [&](size_t l) {
    return layers[l]["counters"]["layer.finish_cycle"].get<uint64_t>();
  };
  std::vector<uint64_t> end(5, 0);  // each pass's last finish
  for (size_t l = 0; l < layers.size(); ++l) end[l / 18] = std::max(end[l / 18], finish(l));
  const nlohmann::json& d = r.at("decoder");
  // The prefill's last operator (its second residual add) is the last of it to finish.
  REQUIRE(layers[17]["name"] == "prefill.l0.ffn_add");
  CHECK(d["first_token_cycles"].get<uint64_t>() == finish(17));
  CHECK(d["first_token_cycles"].get<uint64_t>() == end[0]);
  CHECK(d["first_token_ms"].get<double>() == Approx(double(end[0]) / 1e6));
  REQUIRE(d["decode_steps"].size() == 4);
  for (size_t s = 1; s <= 4; ++s) {
    const nlohmann::json& step = d["decode_steps"][s - 1];
    INFO("step " << s);
    CHECK(step["step"].get<size_t>() == s);
    CHECK(step["end_cycle"].get<uint64_t>() == end[s]);
    CHECK(step["cycles"].get<uint64_t>() == end[s] - end[s - 1]);
    CHECK(step["ms"].get<double>() == Approx(double(end[s] - end[s - 1]) / 1e6));
  }
  const double mean = double(end[4] - end[0]) / 4;
  CHECK(d["mean_step_cycles"].get<double>() == Approx(mean));
  CHECK(d["mean_step_ms"].get<double>() == Approx(mean / 1e6));
  CHECK(d["tokens_per_second"].get<double>() == Approx(1e9 / mean));
  // The summary prints the same figures.
  const test::CliResult out = test::run_cli("run " + net + " --timing-only -q");
  REQUIRE(out.exit_code == 0);
  CHECK_THAT(out.out, Catch::Contains("first token      : " + std::to_string(end[0]) + " cycles"));
  CHECK_THAT(out.out, Catch::Contains("over 4 steps"));
  CHECK_THAT(out.out, Catch::Contains("tokens per second: "));
  // The compact table's bound column. This decoder is tiny: a decode step's
  // projection takes 1061 cycles against DRAM and compute bounds of 222 and
  // 19, so latency and dependencies bound it, neither resource.
  const auto bound_cell = [](const std::string& table, const std::string& name) {
    const size_t row = table.find("\n" + name + " ");
    REQUIRE(row != std::string::npos);
    const std::string line = table.substr(row + 1, table.find('\n', row + 1) - row - 1);
    return line.substr(line.find_last_of(' ') + 1);
  };
  CHECK(bound_cell(out.out, "step4.l0.gate") == "none");
  CHECK(layers[18 * 4 + 12]["bound"] == "neither");
  // One TinyLlama-sized step streams 11 MiB of weights per projection: its
  // cycles are within twice the DRAM bound, so memory.
  const test::CliResult big = test::run_cli(
      "run " + std::string(NPUSIM_SOURCE_DIR) +
      "/configs/networks/tinyllama_2layer.json --prefill 8 --decode 1 --timing-only -q");
  REQUIRE(big.exit_code == 0);
  CHECK(bound_cell(big.out, "step1.l0.gate") == "mem");
  // A workload without passes has no decoder figures.
  const nlohmann::json bert =
      test::run_report("run " + std::string(NPUSIM_SOURCE_DIR) +
                       "/configs/networks/bert_base_1layer.json " + "--timing-only");
  CHECK_FALSE(bert.contains("decoder"));
}

TEST_CASE(
    "transformer: on one TinyLlama layer with one weight tile resident the prefill's projections "
    "and FFN are compute-bound and every decode step's are memory-bound",
    "[transformer]") {
  // compiler.weight_buffers=single: each operand crosses the bus once. The
  // default mapper may take two weight slots and re-read the input per tile,
  // which makes the prefill's down projection memory-bound
  // (docs/decoders.md#worked-example-one-tinyllama-layer).
  const nlohmann::json r = test::run_report("run " + std::string(NPUSIM_SOURCE_DIR) +
                                            "/configs/networks/tinyllama_layer.json " +
                                            "--timing-only --set compiler.weight_buffers=single");
  size_t prefill = 0, steps = 0;
  for (const nlohmann::json& l : r.at("layers")) {
    const std::string name = l["name"];
    const std::string op = name.substr(name.rfind('.') + 1);
    if (op != "q" && op != "k" && op != "v" && op != "attn_out" && op != "gate" && op != "up" &&
        op != "down")
      continue;
    const uint64_t compute = l["counters"]["bound.compute_cycles"];
    const uint64_t memory = l["counters"]["bound.memory_cycles"];
    INFO(name << ": compute bound " << compute << ", memory bound " << memory);
    if (name.rfind("prefill.", 0) == 0) {
      CHECK(l["bound"] == "compute");
      CHECK(compute >= memory);
      ++prefill;
    } else {
      CHECK(l["bound"] == "memory");
      CHECK(memory > compute);
      ++steps;
    }
  }
  CHECK(prefill == 7);
  CHECK(steps == 16 * 7);
}

TEST_CASE("transformer: a compiled decoder program replays with the same cycles, bit-exact",
          "[transformer]") {
  // The norms' parameter addresses and the cache blocks' sizes travel in the program file.
  const std::string net =
      std::string(NPUSIM_SOURCE_DIR) + "/tests/data/transformer/decode_p32_d4.json";
  const std::string program = test::temp_dir() + "/decode.program.jsonl";
  REQUIRE(test::run_cli("compile " + net + " -o " + program).exit_code == 0);
  const nlohmann::json direct = test::run_report("run " + net);
  const nlohmann::json replayed = test::run_report("run --program " + program);
  CHECK(replayed["totals"]["cycles"] == direct["totals"]["cycles"]);
  CHECK(replayed["totals"]["cycles"].get<uint64_t>() > 0);
  const test::CliResult r = test::run_cli("run --program " + program + " -q");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("bit-exact vs reference (90 layers)"));
}

TEST_CASE(
    "transformer: a program pointing an operator at another operator's weight region with "
    "other weights is refused, naming both",
    "[transformer]") {
  // Compiled, prefill.l0.up and step1.l0.gate (96x64 each, other seeds) have regions of
  // their own; the edited program gives the gate the up projection's.
  const std::string net =
      std::string(NPUSIM_SOURCE_DIR) + "/tests/data/transformer/decode_p32_d4.json";
  const std::string program = test::temp_dir() + "/shared_weights.program.jsonl";
  REQUIRE(test::run_cli("compile " + net + " -o " + program).exit_code == 0);
  std::vector<nlohmann::json> lines = test::read_json_lines(program);
  uint64_t up_address = 0;
  for (const nlohmann::json& j : lines)
    if (j.value("name", "") == "prefill.l0.up" && j.contains("weights_address"))
      up_address = j["weights_address"];
  REQUIRE(up_address > 0);
  bool edited = false;
  std::size_t gate_line = 0;  // the gate's layer line in the file, from 1
  for (std::size_t i = 0; i < lines.size(); ++i) {
    nlohmann::json& j = lines[i];
    if (j.value("name", "") == "step1.l0.gate" && j.contains("weights_address")) {
      CHECK(j["weights_address"] != up_address);
      j["weights_address"] = up_address;
      edited = true;
      gate_line = i + 1;
    }
  }
  REQUIRE(edited);
  const std::string shared = test::write_json_lines("shared_weights.edited.jsonl", lines);
  const test::CliResult r = test::run_cli("run --program " + shared + " -q");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("operators prefill.l0.up and step1.l0.gate share "
                                    "weights_address " +
                                    std::to_string(up_address) + " but their weights differ"));
  // Timing only draws no weights: the gate's kernel counts in the program are not the up
  // projection's that the shared region holds, and the message gives both.
  const test::CliResult t = test::run_cli("run --program " + shared + " --timing-only -q");
  CHECK(t.exit_code == 2);
  // The message names the file and the layer's line.
  CHECK_THAT(t.err, Catch::Contains("shared_weights.edited.jsonl:" + std::to_string(gate_line) +
                                    ": layer step1.l0.gate: the program's kernel stream (format "));
  CHECK_THAT(t.err, Catch::Contains(" non-zero coefficients in 96 kernels) does not match the "
                                    "workload's weights (format "));
}
