// Outputs never escape, tear or destroy (docs/robustness.md#outputs): names that
// come from a workload stay file names inside --out, a failed write leaves the
// earlier file whole, regress never overwrites or deletes what it reads or did not
// make, and paths with spaces or newlines reach no shell line.
#include <onnx/onnx_pb.h>
#include <sys/wait.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/test_support.h"

using npusim::test::read_text_file;
using npusim::test::run_cli;
using npusim::test::temp_dir;
using npusim::test::write_temp_file;
namespace fs = std::filesystem;

namespace {

const std::string kSafetySource = NPUSIM_SOURCE_DIR;

// Every regular file under `dir`, as paths relative to it.
std::vector<std::string> files_under(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) files.push_back(fs::relative(e.path(), dir).string());
  std::sort(files.begin(), files.end());
  return files;
}

// `npusim ARGS` with the file size limited to `kib` KiB (SIGXFSZ ignored, so a
// write past it fails with EFBIG as a full disk fails with ENOSPC): exit status and
// standard error. `ulimit -f` counts 512-byte blocks in POSIX shells (dash); bash
// outside POSIX mode counts KiB, so callers leave room for twice the limit.
npusim::test::CliResult run_with_file_limit(const std::string& args, int kib) {
  const std::string err = temp_dir() + "/limited.err";
  const std::string command = "sh -c \"trap '' XFSZ; ulimit -f " + std::to_string(kib * 2) +
                              "; exec " + NPUSIM_BINARY + " " + args + "\" >/dev/null 2>" + err;
  const int status = std::system(command.c_str());
  npusim::test::CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = read_text_file(err);
  return r;
}

}  // namespace

TEST_CASE(
    "an ONNX model's input and output names, ../ and all, are saved as files inside --out and "
    "nowhere else",
    "[onnx][robustness]") {
  const std::string models = npusim::test::generate_onnx_models("transpose_layouts");
  if (models.empty()) {
    WARN("SKIPPED: /usr/bin/python3 lacks python3-onnx (tools/install-deps --onnx)");
    return;
  }
  onnx::ModelProto model;
  {
    std::ifstream in(models + "/transpose_layouts.onnx", std::ios::binary);
    REQUIRE(model.ParseFromIstream(&in));
  }
  // Rename the graph input and output, everywhere they are read or written.
  const auto rename = [&](const std::string& from, const std::string& to) {
    for (auto& n : *model.mutable_graph()->mutable_node()) {
      for (auto& i : *n.mutable_input())
        if (i == from) i = to;
      for (auto& o : *n.mutable_output())
        if (o == from) o = to;
    }
    for (auto* list :
         {model.mutable_graph()->mutable_input(), model.mutable_graph()->mutable_output()})
      for (auto& v : *list)
        if (v.name() == from) v.set_name(to);
  };
  rename(model.graph().input(0).name(), "../in/../../escaped_input");
  rename(model.graph().output(0).name(), "../../escaped");
  const std::string root = temp_dir() + "/escape";
  fs::create_directories(root + "/a/b");
  const std::string path = root + "/escape.onnx";
  {
    std::ofstream out(path, std::ios::binary);
    REQUIRE(model.SerializeToOstream(&out));
  }
  const std::string out = root + "/a/b/out";
  const auto r = run_cli("run -q " + path + " --out " + out + " --save-outputs");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  // Nothing beside or above --out: the root holds the model and the out folder's files only.
  for (const std::string& f : files_under(root)) {
    INFO(f);
    CHECK((f == "escape.onnx" || f.rfind("a/b/out/", 0) == 0));
    CHECK(f.find('/', f.rfind("a/b/out/", 0) == 0 ? 8 : 0) == std::string::npos);
  }
  CHECK(fs::exists(out + "/_._.._escaped.npy"));
  CHECK(fs::exists(out + "/_._in_.._.._escaped_input.input.npy"));
}

TEST_CASE("two tensors whose names give one file are refused before the run, naming both",
          "[robustness]") {
  const std::string workload = write_temp_file("clash.json", R"({"name": "clash", "layers": [
    {"name": "a/b", "N": 1, "C": 8, "H": 8, "W": 8, "K": 8, "R": 3, "S": 3, "padding": 1},
    {"name": "a_b", "N": 1, "C": 8, "H": 8, "W": 8, "K": 8, "R": 3, "S": 3, "padding": 1}]})");
  const std::string out = temp_dir() + "/clash-out";
  const auto r = run_cli("run -q " + workload + " --out " + out + " --save-outputs");
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.err, Catch::Contains("layer \"a/b\"") && Catch::Contains("layer \"a_b\"") &&
                        Catch::Contains("a_b.output.npy"));
  CHECK(!fs::exists(out + "/report.json"));  // refused before anything ran
}

TEST_CASE(
    "a write that fails part way (a full disk, a size limit) names the file and the reason and "
    "leaves the earlier file whole, with no temporary beside it",
    "[robustness]") {
  const std::string net = kSafetySource + "/configs/networks/tiny3.json";
  // `command --out folder` writes report.json (over `min_bytes`); the same with `change`,
  // unable to write 1 KiB (2 in bash), fails naming it and leaves the first one whole.
  const auto check_failed_report = [&](const std::string& command, const std::string& change,
                                       const std::string& folder, std::size_t min_bytes) {
    REQUIRE(run_cli(command + " --out " + folder).exit_code == 0);
    const std::string report = read_text_file(folder + "/report.json");
    REQUIRE(report.size() > min_bytes);
    const auto r = run_with_file_limit(command + " " + change + " --out " + folder, 1);
    CHECK(r.exit_code != 0);
    CHECK_THAT(r.err, Catch::Contains("report.json") && Catch::Contains("File too large"));
    CHECK(read_text_file(folder + "/report.json") == report);
    for (const std::string& f : files_under(folder)) CHECK(f.find(".tmp.") == std::string::npos);
  };
  // estimate --out: a second estimate on other hardware.
  check_failed_report("estimate " + net, "--set cache.size_kib=64",
                      temp_dir() + "/limited-estimate", 2048);
#if !defined(NPUSIM_SANITIZE_BUILD)
  // run --out, the same. (Not in the sanitizer build: after SystemC's coroutines have run,
  // AddressSanitizer misreads the main stack's bounds and reports any exception thrown
  // as stack-use-after-scope, google/sanitizers#189; the estimate above covers the writer.)
  check_failed_report("run -q " + net, "--set scheduler.policy=strict", temp_dir() + "/limited-run",
                      4096);
#endif

  // compile -o: the earlier program stays, no empty file appears.
  const std::string program = temp_dir() + "/limited.jsonl";
  REQUIRE(run_cli("compile " + net + " -o " + program).exit_code == 0);
  const std::string before = read_text_file(program);
  const auto c =
      run_with_file_limit("compile " + net + " --set cache.size_kib=64 -o " + program, 1);
  CHECK(c.exit_code != 0);
  CHECK_THAT(c.err, Catch::Contains(program) && Catch::Contains("File too large"));
  CHECK(read_text_file(program) == before);
  const auto fresh = run_with_file_limit("compile " + net + " -o " + program + ".new", 1);
  CHECK(fresh.exit_code != 0);
  CHECK(!fs::exists(program + ".new"));
}

TEST_CASE(
    "regress refuses a --junit that is the manifest and an --out it did not make, and loses no "
    "file",
    "[regress][robustness]") {
  const std::string suite = temp_dir() + "/suite";
  fs::create_directories(suite + "/workloads");
  fs::copy_file(kSafetySource + "/configs/networks/tiny3.json", suite + "/workloads/tiny3.json");
  const std::string manifest_text =
      R"({"cases": [{"name": "workloads", "workload": "workloads/tiny3.json"}]})";
  { std::ofstream(suite + "/manifest.json") << manifest_text; }
  // --junit naming the manifest: refused, the manifest unchanged.
  auto r = run_cli("regress " + suite + " --junit " + suite + "/manifest.json");
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.err, Catch::Contains("refusing to overwrite"));
  CHECK(read_text_file(suite + "/manifest.json") == manifest_text);

  // --out the suite folder: the case named "workloads" would replace the workloads.
  r = run_cli("regress " + suite + " --out " + suite);
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.err, Catch::Contains("the suite's own folder"));
  CHECK(fs::exists(suite + "/workloads/tiny3.json"));

  // --out a folder of the user's, not empty: refused, its files kept.
  const std::string mine = temp_dir() + "/mine";
  fs::create_directories(mine + "/workloads");
  { std::ofstream(mine + "/workloads/notes.txt") << "keep me\n"; }
  r = run_cli("regress " + suite + " --out " + mine);
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.err, Catch::Contains("did not make"));
  CHECK(read_text_file(mine + "/workloads/notes.txt") == "keep me\n");

  // A new folder is made, marked, and may be used again.
  const std::string results = temp_dir() + "/results";
  r = run_cli("regress " + suite + " --bless --out " + results);
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(fs::exists(results + "/.npusim-regress"));
  r = run_cli("regress " + suite + " --out " + results + " --junit " + results + "/junit.xml");
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK_THAT(read_text_file(results + "/junit.xml"), Catch::Contains("<testsuite"));
}

TEST_CASE(
    "an executable path with a space runs --compare-policies, and a sweep folder with a newline "
    "is refused for Slurm before anything is made",
    "[robustness][sweep]") {
  const std::string dir = temp_dir() + "/with space";
  fs::create_directories(dir);
  const std::string copy = dir + "/npusim";
  std::error_code ec;
  fs::create_hard_link(NPUSIM_BINARY, copy, ec);
  if (ec) fs::copy_file(NPUSIM_BINARY, copy);
  const std::string command = "'" + copy + "' run -q " + kSafetySource +
                              "/configs/networks/tiny3.json --compare-policies > '" + dir +
                              "/out.txt' 2>&1";
  CHECK(std::system(command.c_str()) == 0);
  CHECK_THAT(read_text_file(dir + "/out.txt"), Catch::Contains("early"));

  const std::string spec =
      write_temp_file("nl-sweep.json", R"({"name": "nl", "workload": ")" + kSafetySource +
                                           R"(/configs/networks/tiny3.json",
      "parameters": [{"pointer": "/cache/size_kib", "values": [64]}]})");
  const std::string out = temp_dir() + "/sweep\nrm -rf x";
  const auto r = run_cli("sweep " + spec + " --backend slurm --out '" + out + "'");
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.err, Catch::Contains("newline"));
  CHECK(!fs::exists(out));
}

TEST_CASE(
    "sweep --out refuses a folder of the user's that holds no sweep, and a resumed sweep removes "
    "the temporaries of a killed one",
    "[robustness][sweep]") {
  const std::string spec =
      write_temp_file("own-sweep.json", R"({"name": "own", "workload": ")" + kSafetySource +
                                            R"(/configs/networks/tiny3.json",
      "parameters": [{"pointer": "/cache/size_kib", "values": [64]}]})");
  const std::string mine = temp_dir() + "/my-results";
  fs::create_directories(mine);
  { std::ofstream(mine + "/results.csv") << "my,own\n1,2\n"; }
  auto r = run_cli("sweep " + spec + " --out " + mine);
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.err, Catch::Contains("holds no sweep"));
  CHECK(read_text_file(mine + "/results.csv") == "my,own\n1,2\n");

  const std::string out = temp_dir() + "/own-sweep";
  r = run_cli("sweep " + spec + " --out " + out);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  // What a sweep killed with -9 while writing leaves: PID 2^22 + 1 is above Linux's limit.
  const std::string stale = out + "/results.csv.tmp.4194305";
  std::ofstream(stale) << "half a ta";
  r = run_cli("sweep " + spec + " --out " + out);
  CHECK(r.exit_code == 0);
  CHECK(!fs::exists(stale));
}

TEST_CASE(
    "a decoder file's invalid prefill is an error also when --prefill and --decode replace it",
    "[robustness][decoder]") {
  nlohmann::json j = nlohmann::json::parse(
      read_text_file(kSafetySource + "/configs/networks/tinyllama_2layer.json"));
  j["decoder"]["prefill"] = 0;  // at least 1
  const std::string file = write_temp_file("bad_prefill.json", j.dump());
  const auto r = run_cli("run -q --timing-only " + file + " --prefill 4 --decode 1");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains(file) && Catch::Contains("/decoder/prefill"));
}

TEST_CASE(
    "every subcommand writes only inside the folder or file the user named, whatever names its "
    "inputs carry",
    "[robustness][sweep][regress]") {
  // Names that would lead out of --out if they became paths: up, absolute, hidden, and a
  // token to find any file that got out anyway.
  const std::string token = "zz_escape_7f3";
  const std::string root = temp_dir() + "/contained";
  fs::remove_all(root);
  for (const char* d : {"in/suite/goldens", "work", "tmp", "out"})
    fs::create_directories(root + "/" + d);
  const nlohmann::json layer = {{"N", 1}, {"C", 8}, {"H", 6}, {"W", 5},
                                {"K", 8}, {"R", 3}, {"S", 3}, {"padding", 1}};
  nlohmann::json workload = {{"name", "../../../" + token + "_workload"},
                             {"layers", nlohmann::json::array()}};
  for (const std::string& name : {"../../../" + token + "_up", "/" + token + "_abs",
                                  std::string(".."), "./." + token + "_hidden"}) {
    nlohmann::json l = layer;
    l["name"] = name;
    workload["layers"].push_back(l);
  }
  const std::string w = root + "/in/" + "w.json";
  std::ofstream(w) << workload.dump();
  std::ofstream(root + "/in/suite/manifest.json")
      << nlohmann::json{{"description", "../" + token},
                        {"cases",
                         {{{"name", "c"}, {"workload", "../w.json"}, {"args", {"--timing-only"}}}}}}
             .dump();
  std::ofstream(root + "/in/sweep.json") << nlohmann::json{
      {"name", "../../" + token + "_sweep"},
      {"workload", "w.json"},
      {"parameters", {{{"pointer", "/compute/array_rows"}, {"values", {8, 16}}}}},
      {"timing_only", true}}.dump();
  const auto inputs_before = files_under(root + "/in");

  const std::string out = root + "/out";
  const std::vector<std::string> commands = {
      "run -q " + w + " --out " + out + "/run --save-outputs --trace " + out + "/trace.json",
      "run -q " + w + " --timing-only --compare-policies --out " + out + "/policies",
      "compile " + w + " -o " + out + "/program.jsonl",
      "run -q --program " + out + "/program.jsonl --timing-only --out " + out + "/replay",
      "estimate " + w + " --out " + out + "/estimate",
      "diff " + out + "/run " + out + "/replay --csv " + out + "/diff.csv",
      "regress " + root + "/in/suite --bless --out " + out + "/regress --junit " + out +
          "/junit.xml",
      "sweep " + root + "/in/sweep.json --out " + out + "/sweep",
      "gpu " + w + " --repeats 1 --json " + out +
          "/gpu.json",  // no device: refused, writes nothing
  };
  for (const std::string& c : commands) {
    const std::string err = root + "/tmp/err.txt";
    const int status = std::system(("cd " + root + "/work && TMPDIR=" + root + "/tmp " +
                                    NPUSIM_BINARY + " " + c + " > /dev/null 2> " + err)
                                       .c_str());
    INFO(c << "\n" << read_text_file(err));
    // Every command but gpu (no CUDA device here, or one) must succeed.
    if (c.rfind("gpu", 0) != 0) CHECK(WEXITSTATUS(status) == 0);
    fs::remove(err);
  }
  // The inputs are as they were, the working folder and TMPDIR are empty, and every file
  // written is under the output it was named for.
  // --bless writes the case's golden into the suite, where it names it; nothing else moved.
  std::vector<std::string> inputs_after = inputs_before;
  inputs_after.insert(inputs_after.begin(), "suite/goldens/c.json");
  CHECK(files_under(root + "/in") == inputs_after);
  CHECK(files_under(root + "/work").empty());
  CHECK(files_under(root + "/tmp").empty());
  const std::vector<std::string> named = {"run/",      "trace.json", "policies/", "program.jsonl",
                                          "replay/",   "estimate/",  "diff.csv",  "regress/",
                                          "junit.xml", "sweep/",     "gpu.json"};
  std::size_t saved_layers = 0;
  for (const std::string& f : files_under(out)) {
    INFO(f);
    CHECK(std::any_of(named.begin(), named.end(), [&](const std::string& n) {
      return f == n || (n.back() == '/' && f.rfind(n, 0) == 0);
    }));
    if (f.rfind("run/", 0) == 0 && f.find(".output.npy") != std::string::npos) {
      ++saved_layers;
      CHECK(f.find('/', 4) == std::string::npos);  // a file of run/, not of a folder below it
      CHECK(f[4] != '.');                          // nor hidden
    }
  }
  CHECK(saved_layers == 4);
  // Nothing with the token anywhere else: in this test's folder, beside it (its parent, the
  // system's temporary folder) or at the file system's root. Other processes' files may come
  // and go meanwhile: the walks skip what they cannot read.
  std::error_code ec;
  for (fs::recursive_directory_iterator
           it(temp_dir(), fs::directory_options::skip_permission_denied, ec),
       end;
       !ec && it != end; it.increment(ec)) {
    const std::string p = it->path().string();
    if (p.rfind(out, 0) == 0 || p.find(token) == std::string::npos) continue;
    FAIL("written outside --out: " << p);
  }
  for (const std::string& dir : {fs::path(temp_dir()).parent_path().string(), std::string("/")})
    for (fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
         !ec && it != end; it.increment(ec))
      CHECK(it->path().filename().string().find(token) == std::string::npos);
}
